package report

import (
	"fmt"
	"io"
	"math"
)

// RunObserver is told what a single run does, as it does it. Console
// renders the events as the console text of `vllm bench serve` (and
// vbench's own diagnostics); Silent drops them; another observer can
// render them otherwise, or record them to re-render later. A run never
// calls its observer concurrently (the prompt alignment's workers take
// turns) and never during the timed run.
type RunObserver interface {
	// Message is a line of text vLLM prints that has no event of its
	// own: the model lookup, the prompt alignment, warnings vLLM prints.
	Message(text string)
	// Diagnostic is a line of vbench's own: the tokenizer chosen, the
	// dataset's sampling, warnings.
	Diagnostic(text string)
	// ReadyCheck reports a step of the endpoint check before the run;
	// timeoutSec is the check's timeout (for ReadyWaiting).
	ReadyCheck(step ReadyStep, timeoutSec int)
	// Warmup reports n warmup requests starting, then (done) finished.
	Warmup(n int, done bool)
	// Traffic announces the timed run and its traffic.
	Traffic(t Traffic)
	// Result shows the run's summary: the failed requests' errors and the
	// result block.
	Result(in ConsoleInput) error
	// Saved reports the result file written at path.
	Saved(path string)
	// Health reports the client's health during the run: text is whole
	// lines, or "" when there is nothing to say.
	Health(text string)
}

// ReadyStep is a step of the endpoint check before the run.
type ReadyStep int

// The steps of the endpoint check, in order.
const (
	// ReadyStarting: the check is about to run.
	ReadyStarting ReadyStep = iota
	// ReadySkipped: the check is skipped (no timeout set).
	ReadySkipped
	// ReadyWaiting: the check sends its probe until it succeeds or the
	// timeout passes.
	ReadyWaiting
	// ReadyDone: the probe succeeded.
	ReadyDone
)

// Traffic is what the timed run sends: its arrival process and
// concurrency limit.
type Traffic struct {
	// RampUp is the ramp-up of the request rate (nil without).
	RampUp *RampUp
	// RequestRate is the request rate (+Inf: all at once), without ramp-up.
	RequestRate float64
	// Burstiness is the gamma shape of the arrivals (1: Poisson).
	Burstiness float64
	// MaxConcurrency is the concurrency limit (0: none).
	MaxConcurrency int
	// Profile is the outcome of the call that started the server's
	// profiler before the run (--profile).
	Profile Profiler
	// ProbeRate is the probe requests' rate (--probe-request-rate; 0:
	// none).
	ProbeRate float64
	// SelfTimed reports a self-timed run (a trace replayed at its
	// timestamps): vLLM then prints one line in place of the rate,
	// burstiness and concurrency lines.
	SelfTimed bool
}

// Profiler is the outcome of a call of the server's profiler endpoints
// (--profile: /start_profile before the timed run, /stop_profile after
// the result block).
type Profiler int

const (
	// ProfilerOff: no call (no --profile).
	ProfilerOff Profiler = iota
	// ProfilerFailed: the call failed; vLLM then prints only the line
	// announcing it.
	ProfilerFailed
	// ProfilerOK: the server answered 200.
	ProfilerOK
)

// Console is the RunObserver that prints what `vllm bench serve` prints:
// vLLM's lines on Stdout, vbench's diagnostics and the saved file on
// Stderr, and the client health on Stdout, or on Stderr with
// HealthToStderr (vbench serve keeps stdout to vLLM's output). A nil
// writer discards.
type Console struct {
	Stdout, Stderr io.Writer
	HealthToStderr bool
}

func (c *Console) out() io.Writer { return orDiscard(c.Stdout) }
func (c *Console) err() io.Writer { return orDiscard(c.Stderr) }

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// Message prints text on Stdout.
func (c *Console) Message(text string) { fmt.Fprintln(c.out(), text) }

// Diagnostic prints text on Stderr.
func (c *Console) Diagnostic(text string) { fmt.Fprintln(c.err(), text) }

// ReadyCheck prints vLLM's line of the step.
func (c *Console) ReadyCheck(step ReadyStep, timeoutSec int) {
	switch step {
	case ReadyStarting:
		fmt.Fprintln(c.out(), "Starting initial single prompt test run...")
	case ReadySkipped:
		fmt.Fprintln(c.out(), "Skipping endpoint ready check.")
	case ReadyWaiting:
		fmt.Fprintf(c.out(), "Waiting for endpoint to become up in %d seconds\n", timeoutSec)
	case ReadyDone:
		fmt.Fprintln(c.out(), "Initial test run completed.")
	}
}

// Warmup prints vLLM's warmup lines.
func (c *Console) Warmup(n int, done bool) {
	if done {
		fmt.Fprintln(c.out(), "Warmup run completed.")
		return
	}
	fmt.Fprintf(c.out(), "Warming up with %d requests...\n", n)
}

// Traffic prints vLLM's lines announcing the main run.
func (c *Console) Traffic(t Traffic) {
	w := c.out()
	fmt.Fprintln(w, "Starting main benchmark run...")
	if t.Profile != ProfilerOff {
		fmt.Fprintln(w, "Starting profiler...")
		if t.Profile == ProfilerOK {
			fmt.Fprintln(w, "Profiler started")
		}
	}
	if t.SelfTimed {
		fmt.Fprintln(w, "Self timing is set, using the timestamps from the trace file.")
	} else {
		rateLines(w, t)
	}
	if t.ProbeRate > 0 {
		fmt.Fprintf(w, "Probe request rate: %s req/s\n", PyFloatRepr(t.ProbeRate))
	}
}

// rateLines prints vLLM's arrival-process lines: the rate (or the ramp-up),
// the burstiness and the concurrency limit.
func rateLines(w io.Writer, t Traffic) {
	if r := t.RampUp; r != nil {
		fmt.Fprintf(w, "Traffic ramp-up strategy: %s.\n", r.Strategy)
		fmt.Fprintf(w, "Will increase RPS from %s to %s RPS over the duration of the benchmark.\n", pyNum(r.StartRPS), pyNum(r.EndRPS))
	} else {
		fmt.Fprintf(w, "Traffic request rate: %s\n", PyFloatRepr(t.RequestRate))
	}
	shape := "(Gamma distribution)"
	if t.Burstiness == 1 {
		shape = "(Poisson process)"
	}
	fmt.Fprintf(w, "Burstiness factor: %s %s\n", PyFloatRepr(t.Burstiness), shape)
	if t.MaxConcurrency > 0 {
		fmt.Fprintf(w, "Maximum request concurrency: %d\n", t.MaxConcurrency)
	} else {
		fmt.Fprintln(w, "Maximum request concurrency: None")
	}
}

// Result prints the failure lines and the result block on Stdout, then
// vLLM's lines about stopping the profiler (--profile).
func (c *Console) Result(in ConsoleInput) error {
	if err := WriteMetricsNotes(c.out(), in.Summary); err != nil {
		return err
	}
	if err := WriteConsole(c.out(), in); err != nil {
		return err
	}
	if in.ProfileStop != ProfilerOff {
		fmt.Fprintln(c.out(), "Stopping profiler...")
		if in.ProfileStop == ProfilerOK {
			fmt.Fprintln(c.out(), "Profiler stopped")
		}
	}
	return nil
}

// Saved prints "Result written to PATH" on Stderr.
func (c *Console) Saved(path string) { fmt.Fprintf(c.err(), "Result written to %s\n", path) }

// Health prints text on Stdout, or on Stderr with HealthToStderr.
func (c *Console) Health(text string) {
	w := c.out()
	if c.HealthToStderr {
		w = c.err()
	}
	_, _ = io.WriteString(w, text)
}

// pyNum formats a ramp-up rate as vLLM prints its int flags.
func pyNum(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%d", int64(f))
	}
	return PyFloatRepr(f)
}

// Silent is the RunObserver that shows nothing.
type Silent struct{}

// Message does nothing.
func (Silent) Message(string) {}

// Diagnostic does nothing.
func (Silent) Diagnostic(string) {}

// ReadyCheck does nothing.
func (Silent) ReadyCheck(ReadyStep, int) {}

// Warmup does nothing.
func (Silent) Warmup(int, bool) {}

// Traffic does nothing.
func (Silent) Traffic(Traffic) {}

// Result does nothing.
func (Silent) Result(ConsoleInput) error { return nil }

// Saved does nothing.
func (Silent) Saved(string) {}

// Health does nothing.
func (Silent) Health(string) {}
