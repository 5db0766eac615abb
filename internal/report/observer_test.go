package report

import (
	"bytes"
	"math"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
)

func TestConsoleObserver(t *testing.T) {
	tests := []struct {
		name           string
		health         bool // HealthToStderr
		do             func(o RunObserver)
		stdout, stderr string
	}{
		{"message", false, func(o RunObserver) { o.Message("First model name: a, first model id: b") }, "First model name: a, first model id: b\n", ""},
		{"diagnostic", false, func(o RunObserver) { o.Diagnostic("tokenizer: x") }, "", "tokenizer: x\n"},
		{"ready check", false, func(o RunObserver) {
			o.ReadyCheck(ReadyStarting, 0)
			o.ReadyCheck(ReadyWaiting, 600)
			o.ReadyCheck(ReadyDone, 0)
			o.ReadyCheck(ReadySkipped, 0)
		}, "Starting initial single prompt test run...\nWaiting for endpoint to become up in 600 seconds\nInitial test run completed.\nSkipping endpoint ready check.\n", ""},
		{"warmup", false, func(o RunObserver) { o.Warmup(3, false); o.Warmup(3, true) }, "Warming up with 3 requests...\nWarmup run completed.\n", ""},
		{"traffic", false, func(o RunObserver) { o.Traffic(Traffic{RequestRate: math.Inf(1), Burstiness: 1}) },
			"Starting main benchmark run...\nTraffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: None\n", ""},
		{"traffic with probes", false, func(o RunObserver) { o.Traffic(Traffic{RequestRate: 10, Burstiness: 1, ProbeRate: 20}) },
			"Starting main benchmark run...\nTraffic request rate: 10.0\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: None\nProbe request rate: 20.0 req/s\n", ""},
		{"traffic with slow probes", false, func(o RunObserver) {
			o.Traffic(Traffic{RequestRate: math.Inf(1), Burstiness: 1, MaxConcurrency: 2, ProbeRate: 1e-05})
		},
			"Starting main benchmark run...\nTraffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: 2\nProbe request rate: 1e-05 req/s\n", ""},
		{"ramp-up", false, func(o RunObserver) {
			o.Traffic(Traffic{RampUp: &RampUp{Strategy: "linear", StartRPS: 1, EndRPS: 2.5}, RequestRate: math.Inf(1), Burstiness: 0.5, MaxConcurrency: 8})
		}, "Starting main benchmark run...\nTraffic ramp-up strategy: linear.\nWill increase RPS from 1 to 2.5 RPS over the duration of the benchmark.\nBurstiness factor: 0.5 (Gamma distribution)\nMaximum request concurrency: 8\n", ""},
		// --profile: vLLM announces the call, and confirms it on a 200.
		{"traffic with the profiler started", false, func(o RunObserver) {
			o.Traffic(Traffic{RequestRate: math.Inf(1), Burstiness: 1, MaxConcurrency: 4, Profile: ProfilerOK})
		}, "Starting main benchmark run...\nStarting profiler...\nProfiler started\nTraffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: 4\n", ""},
		{"traffic with the profiler failed", false, func(o RunObserver) {
			o.Traffic(Traffic{RequestRate: math.Inf(1), Burstiness: 1, Profile: ProfilerFailed})
		}, "Starting main benchmark run...\nStarting profiler...\nTraffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: None\n", ""},
		// A self-timed trace replay: one line instead of the rate, burstiness
		// and concurrency lines, after the profiler's, as in vLLM.
		{"self-timed traffic", false, func(o RunObserver) {
			o.Traffic(Traffic{RequestRate: 5, Burstiness: 1, MaxConcurrency: 4, Profile: ProfilerOK, SelfTimed: true})
		}, "Starting main benchmark run...\nStarting profiler...\nProfiler started\nSelf timing is set, using the timestamps from the trace file.\n", ""},
		// The probe line is not one of the traffic lines a replay replaces.
		{"self-timed traffic with probes", false, func(o RunObserver) {
			o.Traffic(Traffic{RequestRate: 5, Burstiness: 1, SelfTimed: true, ProbeRate: 2})
		}, "Starting main benchmark run...\nSelf timing is set, using the timestamps from the trace file.\nProbe request rate: 2.0 req/s\n", ""},
		{"saved", false, func(o RunObserver) { o.Saved("r.json") }, "", "Result written to r.json\n"},
		{"health on stdout", false, func(o RunObserver) { o.Health("Client health: x\n") }, "Client health: x\n", ""},
		{"health on stderr", true, func(o RunObserver) { o.Health("Client health: x\n") }, "", "Client health: x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			tt.do(&Console{Stdout: &stdout, Stderr: &stderr, HealthToStderr: tt.health})
			if stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("stdout %q, stderr %q; want %q, %q", stdout.String(), stderr.String(), tt.stdout, tt.stderr)
			}
			tt.do(Silent{})                            // shows nothing, and does not panic
			tt.do(&Console{HealthToStderr: tt.health}) // nil writers discard
		})
	}
}

// Result prints the failure lines, then the result block, as WriteConsole does.
func TestConsoleObserverResult(t *testing.T) {
	sum := &metrics.Summary{Completed: 1, Failed: 1, Duration: 1, FailureErrors: []string{"boom"}}
	var want, got bytes.Buffer
	if err := WriteMetricsNotes(&want, sum); err != nil {
		t.Fatal(err)
	}
	if err := WriteConsole(&want, ConsoleInput{Summary: sum, RequestRate: math.Inf(1)}); err != nil {
		t.Fatal(err)
	}
	if err := (&Console{Stdout: &got}).Result(ConsoleInput{Summary: sum, RequestRate: math.Inf(1)}); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() || !bytes.Contains(got.Bytes(), []byte("boom")) {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
	}
	if err := (Silent{}).Result(ConsoleInput{Summary: sum}); err != nil {
		t.Error(err)
	}
}

// The lines about stopping the profiler follow the result block.
func TestConsoleResultProfileStop(t *testing.T) {
	sum := metrics.ComputeOutcomes(nil, 1, metrics.Options{})
	for _, tt := range []struct {
		stop Profiler
		tail string
	}{
		{ProfilerOff, "=\n"},
		{ProfilerFailed, "=\nStopping profiler...\n"},
		{ProfilerOK, "=\nStopping profiler...\nProfiler stopped\n"},
	} {
		var stdout bytes.Buffer
		if err := (&Console{Stdout: &stdout}).Result(ConsoleInput{Summary: sum, RequestRate: math.Inf(1), ProfileStop: tt.stop}); err != nil {
			t.Fatal(err)
		}
		announced := bytes.Contains(stdout.Bytes(), []byte("profiler"))
		if !bytes.HasSuffix(stdout.Bytes(), []byte(tt.tail)) || !bytes.HasPrefix(stdout.Bytes(), []byte("=")) || announced != (tt.stop != ProfilerOff) {
			t.Errorf("profiler %d: output ends %q, want %q", tt.stop, stdout.String()[max(0, stdout.Len()-60):], tt.tail)
		}
	}
}
