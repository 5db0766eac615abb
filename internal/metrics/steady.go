package metrics

import (
	"fmt"
	"iter"
	"math"
	"slices"

	"github.com/vbench/vbench/internal/numpy"
)

// Steady state, as vLLM's Rust client (vllm-bench) reports it: for a
// closed-loop run (a concurrency limit, request rate inf), the window
// during which the client's in-flight requests stay at or above a share
// of the limit, and the throughput and latencies measured over that
// window only, without the ramp-up at the start and the drain at the end.

// DefaultSteadyThreshold is the share of the concurrency limit that
// in-flight requests must reach for the steady-state window (vllm-bench's
// --steady-state-threshold default).
const DefaultSteadyThreshold = 0.95

// SteadyOptions configure the steady-state window of a closed-loop run.
type SteadyOptions struct {
	// Target is the run's concurrency limit (load.max_concurrency), > 0.
	Target int
	// Threshold is the share of Target that in-flight requests must reach,
	// in (0, 1]; 0 means DefaultSteadyThreshold.
	Threshold float64
	// MinWindow is the window length in seconds below which the window
	// carries a warning; 0 means max(10 s, 10 % of the run).
	MinWindow float64
	// Percentiles are the TTFT percentiles reported (metrics.metric_percentiles).
	Percentiles []float64
}

// SteadyWindow is the detected steady-state window. Times are seconds from
// the earliest successful request's start.
type SteadyWindow struct {
	// StartS is when in-flight requests first reached ThresholdAbs.
	StartS float64
	// EndS is when they last fell below it.
	EndS float64
	// DurationS is EndS - StartS.
	DurationS float64
	// TargetConcurrency is the concurrency limit.
	TargetConcurrency int
	// Threshold is the share of the limit, and ThresholdAbs the in-flight
	// count it gives: max(1, ceil(Threshold * TargetConcurrency)).
	Threshold    float64
	ThresholdAbs int
	// ObservedPeak is the largest number of requests in flight (exact, from
	// the start and end events).
	ObservedPeak int
	// RequestsStarted and RequestsCompleted count the successful requests
	// that started, and that ended, within [StartS, EndS).
	RequestsStarted   int
	RequestsCompleted int
	// RequestsTotal is the number of successful requests of the run.
	RequestsTotal int
	// Warning says the window is shorter than the minimum ("" when not).
	Warning string
}

// SteadyState are the metrics of the steady-state window. Throughputs are
// per second of window; the latencies are in milliseconds over the
// requests that started in the window.
type SteadyState struct {
	// Window is the window the metrics are computed over.
	Window SteadyWindow
	// RequestThroughput is the requests completed in the window per second.
	RequestThroughput float64
	// InputThroughput is the prompt tokens of the requests started in the
	// window per second.
	InputThroughput float64
	// OutputThroughput is the token-bearing messages that arrived in the
	// window per second (vllm-bench counts each message as a token).
	OutputThroughput float64
	// TotalTokenThroughput is InputThroughput + OutputThroughput.
	TotalTokenThroughput float64
	// TTFT is the TTFT statistics of the requests started in the window:
	// mean, median and Percentiles (Std is not reported).
	TTFT MetricStats
	// TPOT is the TPOT statistics of the requests started in the window
	// whose output length exceeds 1, with the 90th and 99th percentiles.
	TPOT MetricStats
}

// SteadyTPOTPercentiles are the TPOT percentiles of the steady state
// (fixed, as in vllm-bench).
var SteadyTPOTPercentiles = []float64{90, 99}

// ComputeSteadyState finds the steady-state window of a closed-loop run
// and its metrics. outs are the run's outcomes and outputLens their output
// lengths (Summary.OutputLens), in the same order; duration is the run's
// duration in seconds. It returns nil when the run has no window: no
// success, in-flight requests never reached the threshold, or no request
// started or ended inside it.
//
// The window opens at the first start event that brings the in-flight
// count to ThresholdAbs and closes at the last end event that takes it
// below; at equal times, ends are counted before starts. A request is in
// the window when its start (for the input tokens, TTFT and TPOT) or its
// end (for the request throughput) is in [start, end); each of its
// token-bearing messages counts for the output throughput when it arrived
// in the window.
func ComputeSteadyState(outs []Outcome, outputLens []int, duration float64, opt SteadyOptions) *SteadyState {
	acc := NewAccumulator(Options{SteadyState: &opt})
	defer acc.Release()
	for i := range outs {
		o := outs[i]
		if o.Success {
			o.OutputTokens = outputLens[i] // the fold's output length
		}
		acc.addOutcome(i, &o)
	}
	s, err := acc.close(duration)
	if err != nil {
		panic("internal error: a metrics fold in memory failed: " + err.Error())
	}
	return s.SteadyState
}

// steadyFold counts a steady-state window's figures over the successes,
// in request order, handing the TTFTs and TPOTs of the requests that
// started in it to ttft and tpot.
type steadyFold struct {
	start, end                           float64
	completed, inputTokens, outputTokens int
	ttft, tpot                           func(float64)
}

// add counts one success whose output length is outLen.
func (f *steadyFold) add(o *Outcome, outLen int) {
	in := func(t float64) bool { return t >= f.start && t < f.end }
	if in(o.StartTime + o.Latency) {
		f.completed++
	}
	if in(o.StartTime) {
		f.inputTokens += o.PromptLen
		f.ttft(o.TTFT)
		if outLen > 1 {
			f.tpot((o.Latency - o.TTFT) / float64(outLen-1))
		}
	}
	t := o.StartTime + o.TTFT
	if in(t) {
		f.outputTokens++
	}
	for _, itl := range o.ITLs {
		t += itl
		if t >= f.end {
			break
		}
		if in(t) {
			f.outputTokens++
		}
	}
}

// state is the steady state of window w from the counts (its TTFT and TPOT
// statistics left to the caller).
func (f *steadyFold) state(w SteadyWindow) *SteadyState {
	d := max(w.DurationS, 1e-9)
	ss := &SteadyState{
		Window:            w,
		RequestThroughput: float64(f.completed) / d,
		InputThroughput:   float64(f.inputTokens) / d,
		OutputThroughput:  float64(f.outputTokens) / d,
	}
	ss.TotalTokenThroughput = ss.InputThroughput + ss.OutputThroughput
	return ss
}

// steadyStats are the mean, median and percentiles of values (seconds) in
// milliseconds, all 0 when there are none.
func steadyStats(name string, values []float64, percentiles []float64) MetricStats {
	st := MetricStats{Name: name}
	s := slices.Clone(values)
	slices.Sort(s)
	if len(s) > 0 {
		st.Mean = numpy.Mean(values) * 1000
		st.Median = numpy.MedianSorted(s) * 1000
	}
	for _, p := range percentiles {
		v := 0.0
		if len(s) > 0 {
			v = numpy.PercentileSorted(s, p) * 1000
		}
		st.Percentiles = append(st.Percentiles, PercentileValue{P: p, Value: v})
	}
	return st
}

// finishWindow completes a window that opened at up and closed at down
// (run times; t0 the first success's start): none when no success
// started or ended in it, else its times from t0 and its warning.
func finishWindow(w SteadyWindow, up, down, t0, duration float64, opt SteadyOptions) (SteadyWindow, bool) {
	if w.RequestsStarted == 0 && w.RequestsCompleted == 0 {
		return w, false
	}
	w.StartS, w.EndS = up-t0, down-t0
	w.DurationS = w.EndS - w.StartS
	minWindow := opt.MinWindow
	if minWindow <= 0 {
		minWindow = max(10, 0.1*duration)
	}
	if w.DurationS < minWindow {
		w.Warning = fmt.Sprintf("steady-state window is %.1fs (%.1f%% of run); may not be representative",
			w.DurationS, 100*w.DurationS/max(duration, 1e-9))
	}
	return w, true
}

// steadySweep sweeps the successes' start and end times, each given in
// ascending order, an end before a start at equal times: up is the first
// start that brings the in-flight count to thr, down the last end that
// takes it below (NaN when none), and peak the largest count.
func steadySweep(starts, ends iter.Seq[float64], thr int) (up, down float64, peak int) {
	nextS, stopS := iter.Pull(starts)
	defer stopS()
	nextE, stopE := iter.Pull(ends)
	defer stopE()
	up, down = math.NaN(), math.NaN()
	cur := 0
	s, okS := nextS()
	e, okE := nextE()
	for okS || okE {
		if okE && (!okS || e <= s) {
			before := cur
			cur = max(cur-1, 0)
			if before >= thr && cur < thr {
				down = e
			}
			e, okE = nextE()
			continue
		}
		cur++
		peak = max(peak, cur)
		if cur == thr && math.IsNaN(up) {
			up = s
		}
		s, okS = nextS()
	}
	return up, down, peak
}
