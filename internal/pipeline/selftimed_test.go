package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/schedule"
)

// traceScenario is a timed_trace run against the built-in simulator: four
// lines at 0, 150, 300 and 450 ms, the last three sharing the first's two
// leading blocks. extra is appended to the scenario.
func traceScenario(t *testing.T, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	trace := `{"timestamp": 0, "input_length": 48, "output_length": 3, "hash_ids": [1, 2, 3]}
{"timestamp": 150, "input_length": 48, "output_length": 3, "hash_ids": [1, 2, 4]}
{"timestamp": 300, "input_length": 40, "output_length": 3, "hash_ids": [1, 2, 5]}
{"timestamp": 450, "input_length": 48, "output_length": 3, "hash_ids": [1, 2, 3]}
`
	if err := os.WriteFile(path, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	return `
target: {simulator: {ttft_ms: 2, itl_ms: 1}, model: "vbench-sim"}
tokenizer: name: "o200k_base"
dataset: timed_trace: {path: "` + path + `", sec_multiplier: 0.001}
load: num_prompts: 10
output: {save_result: true, result_filename: "r.json", disable_tqdm: true}
` + extra
}

// A self-timed run sends each request at its trace time (absolute, from
// the run start), announces it as vLLM does, and the simulator's prefix
// cache sees the shared blocks.
func TestSelfTimedRun(t *testing.T) {
	out, stdout, err := runScenario(t, traceScenario(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, 150 * time.Millisecond, 300 * time.Millisecond, 450 * time.Millisecond}
	if len(out.Records) != len(want) {
		t.Fatalf("%d records, want %d (num_prompts 10 takes every line)", len(out.Records), len(want))
	}
	for i, r := range out.Records {
		if r.Intended != want[i] || !r.Success {
			t.Errorf("record %d: intended %v, success %v; want %v, true", i, r.Intended, r.Success, want[i])
		}
		if r.Released < r.Intended {
			t.Errorf("record %d released at %v, before its trace time %v", i, r.Released, r.Intended)
		}
	}
	if !strings.Contains(stdout, "\nSelf timing is set, using the timestamps from the trace file.\n") || strings.Contains(stdout, "Traffic request rate") {
		t.Errorf("stdout does not announce the self-timed run as vLLM does:\n%s", stdout)
	}
	if !strings.Contains(stdout, `timed-trace: chunk_size: 16, sec_multiplier: 0.001, label_ts: "timestamp"`) {
		t.Errorf("stdout lacks vLLM's timed-trace line:\n%s", stdout)
	}
	if pc := out.PrefixCache; pc == nil || pc.HitTokens == 0 {
		t.Errorf("prefix cache = %+v, want hits on the shared blocks", pc)
	}
}

// --no-self-timed ignores the trace times: rate inf sends everything at
// once, with vLLM's traffic lines.
func TestNoSelfTimedRun(t *testing.T) {
	out, stdout, err := runScenario(t, traceScenario(t, "dataset: timed_trace: self_timed: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range out.Records {
		if r.Intended != 0 {
			t.Errorf("record %d intended at %v, want 0 (rate inf)", i, r.Intended)
		}
	}
	if !strings.Contains(stdout, "Traffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\n") || strings.Contains(stdout, "Self timing") {
		t.Errorf("stdout lacks vLLM's traffic lines:\n%s", stdout)
	}
}

// --no-self-timed with a finite rate draws the gaps as vLLM does after its
// TimedTrace reseeded NumPy's global generator with 0, whatever the seed.
func TestNoSelfTimedDrawsWithSeedZero(t *testing.T) {
	out, _, err := runScenario(t, traceScenario(t, "dataset: timed_trace: self_timed: false\nload: request_rate: 40\nseed: 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := schedule.Offsets(schedule.Spec{Rate: 40, Burstiness: 1}, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	seed5, _ := schedule.Offsets(schedule.Spec{Rate: 40, Burstiness: 1}, 4, 5)
	for i, r := range out.Records {
		if r.Intended != want[i] {
			t.Errorf("record %d intended at %v, want seed 0's %v (seed 5's is %v)", i, r.Intended, want[i], seed5[i])
		}
	}
	if want[1] == seed5[1] {
		t.Fatal("seeds 0 and 5 draw the same gaps: the test cannot tell them apart")
	}
}

// The connections opened before a self-timed run are those its trace's
// first second needs.
func TestPreconnectWave(t *testing.T) {
	ms := time.Millisecond
	two := 2
	tt := &dataset.TimedTraceSpec{}
	off := false
	for _, tc := range []struct {
		name    string
		sc      scenario.Scenario
		offsets []time.Duration
		want    int
	}{
		{"self-timed: the first second, plus one", scenario.Scenario{Dataset: scenario.Dataset{Name: "timed_trace", Spec: tt}, Load: scenario.Load{RequestRate: scenario.Inf}},
			[]time.Duration{0, 200 * ms, 999 * ms, 1500 * ms, 3000 * ms}, 4},
		{"self-timed, all in the first second", scenario.Scenario{Dataset: scenario.Dataset{Name: "timed_trace", Spec: tt}, Load: scenario.Load{RequestRate: scenario.Inf}},
			[]time.Duration{0, 0}, 2},
		{"self-timed under a concurrency limit", scenario.Scenario{Dataset: scenario.Dataset{Name: "timed_trace", Spec: tt}, Load: scenario.Load{RequestRate: scenario.Inf, MaxConcurrency: &two}},
			[]time.Duration{0, 0, 0, 0}, 2},
		{"not self-timed: the rate's", scenario.Scenario{Dataset: scenario.Dataset{Name: "timed_trace", Spec: &dataset.TimedTraceSpec{SelfTimed: &off}}, Load: scenario.Load{RequestRate: scenario.Inf}},
			[]time.Duration{0, 5000 * ms, 6000 * ms}, 3},
	} {
		maxConc := 0
		if tc.sc.Load.MaxConcurrency != nil {
			maxConc = *tc.sc.Load.MaxConcurrency
		}
		if got := preconnectWave(&tc.sc, len(tc.offsets), tc.offsets, maxConc); got != tc.want {
			t.Errorf("%s: preconnectWave = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A self-timed run applies no ramp-up: vLLM's rps_change_events keep only
// the starting event (every request's rate is 0), and there is no
// closed-loop steady state.
func TestSelfTimedIgnoresRampUpAndSteadyState(t *testing.T) {
	res := &run.Result{Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Released: 3, Records: []*record.Record{
		{Index: 0, Released: 0}, {Index: 1, Released: time.Second}, {Index: 2, Released: 2 * time.Second}}}
	ramp := &scenario.RampUp{Strategy: "linear", StartRPS: 1, EndRPS: 5}
	on := true
	replay := scenario.Scenario{Dataset: scenario.Dataset{Name: "timed_trace", Spec: &dataset.TimedTraceSpec{SelfTimed: &on}}, Load: scenario.Load{RequestRate: scenario.Inf, RampUp: ramp}}
	if ev := rampUpEvents(&replay, res, 3); len(ev) != 1 || ev[0].RPS != 1 {
		t.Errorf("self-timed rps_change_events = %+v, want the start event only", ev)
	}
	drawn := replay
	drawn.Dataset = scenario.Dataset{Name: "random", Spec: &dataset.RandomSpec{}}
	if ev := rampUpEvents(&drawn, res, 3); len(ev) != 5 {
		t.Errorf("ramp-up rps_change_events = %+v, want 1 to 5", ev)
	}
	steady := true
	replay.Load.RampUp = nil
	replay.Metrics.SteadyState = &steady
	if o := steadyOptions(&replay, 4); o != nil {
		t.Errorf("self-timed steady state options = %+v, want none", o)
	}
	drawn.Load.RampUp, drawn.Metrics.SteadyState = nil, &steady
	if o := steadyOptions(&drawn, 4); o == nil {
		t.Error("closed loop without a trace: no steady state options")
	}
}

// A scenario's arrival fields are named in a warning when a self-timed
// replay ignores them; nothing is said when they are at their defaults or
// the run draws its arrivals.
func TestSelfTimedIgnoredWarning(t *testing.T) {
	off := false
	replay := func(l scenario.Load) *scenario.Scenario {
		return &scenario.Scenario{Dataset: scenario.Dataset{Name: "timed_trace", Spec: &dataset.TimedTraceSpec{Path: "t.jsonl"}}, Load: l}
	}
	tests := []struct {
		name string
		sc   *scenario.Scenario
		want string
	}{
		{"defaults", replay(scenario.Load{RequestRate: scenario.Inf, Burstiness: 1}), ""},
		{"rate", replay(scenario.Load{RequestRate: 5, Burstiness: 1}), "warning: load.request_rate has no effect in a self-timed trace replay"},
		{"all three", replay(scenario.Load{RequestRate: 5, Burstiness: 0.5, RampUp: &scenario.RampUp{Strategy: "linear", StartRPS: 1, EndRPS: 2}}),
			"warning: load.request_rate, load.burstiness, load.ramp_up has no effect in a self-timed trace replay"},
		{"not self-timed", &scenario.Scenario{Dataset: scenario.Dataset{Name: "timed_trace", Spec: &dataset.TimedTraceSpec{Path: "t.jsonl", SelfTimed: &off}},
			Load: scenario.Load{RequestRate: 5, Burstiness: 1}}, ""},
		{"another kind", &scenario.Scenario{Dataset: scenario.Dataset{Name: "random", Spec: &dataset.RandomSpec{}}, Load: scenario.Load{RequestRate: 5, Burstiness: 1}}, ""},
	}
	for _, tt := range tests {
		got := selfTimedIgnored(tt.sc)
		if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %q, want %q...", tt.name, got, tt.want)
		}
	}

	// vbench run says it on stderr.
	sc, err := scenario.LoadBytes("t.cue", []byte(traceScenario(t, "load: request_rate: 5\n")), scenario.Options{Sets: []string{`output.result_dir="` + t.TempDir() + `"`}})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	if _, err := Run(context.Background(), sc, Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "warning: load.request_rate has no effect in a self-timed trace replay") {
		t.Errorf("stderr lacks the warning:\n%s", stderr.String())
	}
}
