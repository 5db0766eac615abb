package metrics

import (
	"math"
	"strings"
	"testing"
)

// run1 is a successful outcome that starts at start and lasts latency
// seconds, with its first message after ttft and one message every itl
// seconds after it until the end (n messages in all).
func run1(start, latency, ttft float64, n int, prompt int) Outcome {
	o := Outcome{Success: true, StartTime: start, Latency: latency, TTFT: ttft, PromptLen: prompt, OutputTokens: n}
	if n > 1 {
		step := (latency - ttft) / float64(n-1)
		for range n - 1 {
			o.ITLs = append(o.ITLs, step)
		}
	}
	return o
}

func lens(outs []Outcome) []int {
	out := make([]int, len(outs))
	for i, o := range outs {
		if o.Success {
			out[i] = len(o.ITLs) + 1
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSteadyWindow(t *testing.T) {
	trapezoid := func() []Outcome {
		var outs []Outcome
		for i := range 10 {
			outs = append(outs, run1(float64(i), 30, 0, 1, 10))
		}
		return append(outs, run1(15, 5, 0, 1, 10)) // inside the plateau: peak 11
	}
	tests := []struct {
		name                      string
		outs                      []Outcome
		target                    int
		threshold, min, duration  float64
		want                      bool
		start, end                float64
		thrAbs, peak              int
		started, completed, total int
		warn                      bool
	}{
		// Ten requests ramp in at t=0..9 and last 30 s: ten in flight from
		// t=9 until the first ends at t=30.
		{name: "trapezoid", outs: trapezoid(), target: 10, threshold: 1, min: 5, duration: 40, want: true,
			start: 9, end: 30, thrAbs: 10, peak: 11, started: 2, completed: 1, total: 11},
		// 0.95 of 10 is 9.5, so 10 requests are needed.
		{name: "default threshold", outs: trapezoid(), target: 10, min: 5, duration: 40, want: true,
			start: 9, end: 30, thrAbs: 10, peak: 11, started: 2, completed: 1, total: 11},
		// 0.8 of 10 is 8: the window opens at the 8th start (t=7) and closes
		// when the count falls below 8, at the third end (t=32).
		{name: "lower threshold", outs: trapezoid(), target: 10, threshold: 0.8, min: 5, duration: 40, want: true,
			start: 7, end: 32, thrAbs: 8, peak: 11, started: 4, completed: 3, total: 11},
		{name: "serial never reaches", outs: []Outcome{run1(0, 1, 0, 1, 1), run1(10, 1, 0, 1, 1), run1(20, 1, 0, 1, 1)},
			target: 3, duration: 30, want: false},
		{name: "no target", outs: []Outcome{run1(0, 1, 0, 1, 1)}, target: 0, duration: 1, want: false},
		{name: "all failed", outs: []Outcome{{StartTime: 0, Latency: 1}}, target: 1, threshold: 1, duration: 1, want: false},
		// An end and a start at the same instant: the end counts first, so
		// the count never reaches 3.
		{name: "ties end first", outs: []Outcome{run1(0, 5, 0, 1, 1), run1(2, 3, 0, 1, 1), run1(5, 2, 0, 1, 1)},
			target: 2, threshold: 1, min: 0.1, duration: 7, want: true,
			start: 2, end: 5, thrAbs: 2, peak: 2, started: 1, completed: 0, total: 3},
		// Everything in flight from t=0 to t=10.
		{name: "constant", outs: []Outcome{run1(0, 10, 0, 1, 1), run1(0, 10, 0, 1, 1), run1(0, 10, 0, 1, 1)},
			target: 3, threshold: 1, min: 0.1, duration: 10, want: true,
			start: 0, end: 10, thrAbs: 3, peak: 3, started: 3, completed: 0, total: 3},
		{name: "short window warns", outs: func() []Outcome {
			var outs []Outcome
			for i := range 10 {
				outs = append(outs, run1(float64(i)*0.1, 1, 0, 1, 1))
			}
			return outs
		}(), target: 10, threshold: 1, min: 5, duration: 10, want: true,
			start: 0.9, end: 1, thrAbs: 10, peak: 10, started: 1, completed: 0, total: 10, warn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss := ComputeSteadyState(tt.outs, lens(tt.outs), tt.duration, SteadyOptions{Target: tt.target, Threshold: tt.threshold, MinWindow: tt.min})
			if got := ss != nil; got != tt.want {
				t.Fatalf("window found = %v, want %v (%+v)", got, tt.want, ss)
			}
			if ss == nil {
				return
			}
			w := ss.Window
			if !near(w.StartS, tt.start) || !near(w.EndS, tt.end) || !near(w.DurationS, tt.end-tt.start) {
				t.Errorf("window %v..%v (%v), want %v..%v", w.StartS, w.EndS, w.DurationS, tt.start, tt.end)
			}
			if w.ThresholdAbs != tt.thrAbs || w.ObservedPeak != tt.peak || w.TargetConcurrency != tt.target {
				t.Errorf("threshold %d, peak %d, target %d; want %d, %d, %d", w.ThresholdAbs, w.ObservedPeak, w.TargetConcurrency, tt.thrAbs, tt.peak, tt.target)
			}
			if w.RequestsStarted != tt.started || w.RequestsCompleted != tt.completed || w.RequestsTotal != tt.total {
				t.Errorf("started %d, completed %d, total %d; want %d, %d, %d", w.RequestsStarted, w.RequestsCompleted, w.RequestsTotal, tt.started, tt.completed, tt.total)
			}
			if (w.Warning != "") != tt.warn {
				t.Errorf("warning %q, want one: %v", w.Warning, tt.warn)
			}
		})
	}
}

func TestSteadyStateMetrics(t *testing.T) {
	// Three requests in flight from 0 to 10 s, each with its first message
	// at 2 s and then one every 2 s: messages at 2, 4, 6, 8, 10. The
	// window [0, 10) holds 4 messages of each and no end.
	outs := []Outcome{run1(0, 10, 2, 5, 10), run1(0, 10, 2, 5, 10), run1(0, 10, 2, 5, 10)}
	ss := ComputeSteadyState(outs, lens(outs), 10, SteadyOptions{Target: 3, Threshold: 1, Percentiles: []float64{50, 99}})
	if ss == nil {
		t.Fatal("no window")
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"request throughput", ss.RequestThroughput, 0},
		{"output throughput", ss.OutputThroughput, 1.2},
		{"input throughput", ss.InputThroughput, 3},
		{"total throughput", ss.TotalTokenThroughput, 4.2},
		{"mean TTFT", ss.TTFT.Mean, 2000},
		{"median TTFT", ss.TTFT.Median, 2000},
		// TPOT = (10 - 2) / (5 - 1) = 2 s.
		{"mean TPOT", ss.TPOT.Mean, 2000},
		{"P90 TPOT", ss.TPOT.Percentiles[0].Value, 2000},
		{"P99 TPOT", ss.TPOT.Percentiles[1].Value, 2000},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(ss.TTFT.Percentiles) != 2 || ss.TTFT.Percentiles[0].P != 50 || ss.TTFT.Percentiles[1].P != 99 {
		t.Errorf("TTFT percentiles %+v", ss.TTFT.Percentiles)
	}
	if len(ss.TPOT.Percentiles) != 2 || ss.TPOT.Percentiles[0].P != 90 || ss.TPOT.Percentiles[1].P != 99 {
		t.Errorf("TPOT percentiles %+v", ss.TPOT.Percentiles)
	}
}

func TestSteadyStateDrainNotCounted(t *testing.T) {
	// The window is [1, 10): a request admitted at 1 s emits 1000 messages
	// mostly after the first one's end at 10 s; only the messages before
	// 10 s count. A failed request never counts.
	first := run1(0, 10, 0, 11, 5) // messages at 0, 1, ..., 10
	late := run1(1, 30, 8.95, 1000, 5)
	failed := Outcome{StartTime: 2, TTFT: 0.1, ITLs: []float64{0.1, 0.1}}
	outs := []Outcome{first, late, failed}
	ss := ComputeSteadyState(outs, lens(outs), 31, SteadyOptions{Target: 2, Threshold: 1})
	if ss == nil {
		t.Fatal("no window")
	}
	if !near(ss.Window.StartS, 1) || !near(ss.Window.EndS, 10) {
		t.Fatalf("window %v..%v, want 1..10", ss.Window.StartS, ss.Window.EndS)
	}
	// first: messages at 1..9 (9); late: its first at 9.95 and the next
	// ones ~0.0211 s apart, two of them before 10.
	step := (30 - 8.95) / 999
	want := 9 + 1
	for t := 9.95 + step; t < 10; t += step {
		want++
	}
	if got := ss.OutputThroughput * 9; math.Abs(got-float64(want)) > 1e-6 {
		t.Errorf("output messages in window = %v, want %d", got, want)
	}
	// Only the late request started in the window; none ended in it.
	if ss.Window.RequestsStarted != 1 || ss.Window.RequestsCompleted != 0 || ss.RequestThroughput != 0 {
		t.Errorf("started %d completed %d throughput %v", ss.Window.RequestsStarted, ss.Window.RequestsCompleted, ss.RequestThroughput)
	}
	if !near(ss.InputThroughput*9, 5) {
		t.Errorf("input throughput %v, want 5/9", ss.InputThroughput)
	}
}

// A closed loop at concurrency 32: requests start as slots free up, so
// the in-flight count stays at 32 from the 32nd start to the first end of
// the drain. The summary carries the window when asked, and none for an
// open loop whose requests never overlap enough.
func TestSteadyStateInSummary(t *testing.T) {
	const c, n = 32, 256
	ends := make([]float64, c) // when each slot frees up
	var outs []Outcome
	for i := range n {
		slot := i % c
		start := ends[slot]
		if i < c {
			start = float64(i) * 0.001 // ramp-up
		}
		lat := 1 + 0.01*float64(i%7)
		outs = append(outs, run1(start, lat, 0.1, 20, 16))
		ends[slot] = start + lat
	}
	opt := Options{PercentileMetrics: []string{TTFT, TPOT}, Percentiles: []float64{99}, CountTokens: func(string) int { return 0 },
		SteadyState: &SteadyOptions{Target: c, Percentiles: []float64{99}}}
	s := ComputeOutcomes(outs, 10, opt)
	ss := s.SteadyState
	if ss == nil {
		t.Fatal("closed loop: no steady-state window")
	}
	if ss.Window.ThresholdAbs != 31 || ss.Window.ObservedPeak != c || ss.Window.RequestsTotal != n {
		t.Errorf("window %+v", ss.Window)
	}
	if !near(ss.Window.StartS, 0.030) {
		t.Errorf("window starts at %v, want at the 31st start (0.030)", ss.Window.StartS)
	}
	if ss.RequestThroughput <= 0 || ss.TPOT.Mean <= 0 || !near(ss.TTFT.Mean, 100) {
		t.Errorf("metrics %+v", ss)
	}
	if ss.Window.Warning == "" || !strings.Contains(ss.Window.Warning, "may not be representative") {
		t.Errorf("a window under 10 s warns, got %q", ss.Window.Warning)
	}

	// An open loop: one request every 2 s, 1 s each.
	var open []Outcome
	for i := range 20 {
		open = append(open, run1(float64(i)*2, 1, 0.1, 10, 16))
	}
	if s := ComputeOutcomes(open, 40, opt); s.SteadyState != nil {
		t.Errorf("open loop: window %+v, want none", s.SteadyState.Window)
	}
	opt.SteadyState = nil
	if s := ComputeOutcomes(outs, 10, opt); s.SteadyState != nil {
		t.Error("steady state computed without being asked")
	}
}
