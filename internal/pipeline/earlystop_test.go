package pipeline

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/scenario"
)

// Over-saturation is a rise of the requests in flight through every second
// of the window, by half or more (and at least 4), while fewer finish than
// are sent.
func TestEarlyStopTick(t *testing.T) {
	for _, tc := range []struct {
		name     string
		inflight []int64
		done     []int64
		fire     int // the tick that fires (1-based), 0: none
	}{
		{"growing", []int64{2, 6, 10, 14, 18}, []int64{1, 2, 4, 6, 8}, 4},
		{"growing, finishing from the second tick", []int64{2, 6, 10, 14, 18}, []int64{0, 2, 4, 6, 8}, 5},
		{"warming up: nothing finished yet", []int64{5, 10, 15, 20, 25, 30}, []int64{0, 0, 0, 0, 0, 0}, 0},
		{"flat", []int64{8, 8, 8, 8, 8, 8}, []int64{0, 10, 20, 30, 40, 50}, 0},
		{"one dip", []int64{2, 6, 5, 9, 13, 17}, []int64{1, 2, 4, 6, 8, 10}, 6},
		{"small rise", []int64{40, 41, 42, 43, 44}, []int64{0, 50, 100, 150, 200}, 0},
		{"rise under half", []int64{20, 23, 26, 29, 32}, []int64{0, 50, 100, 150, 200}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &earlyStopper{sat: true, window: 3, firstDone: -1}
			fired := 0
			for i := range tc.inflight {
				if why := e.tick(tc.inflight[i], tc.done[i]); why != "" && fired == 0 {
					fired = i + 1
					if !strings.HasPrefix(why, "over-saturated: the requests in flight rose from ") {
						t.Errorf("reason %q", why)
					}
				}
			}
			if fired != tc.fire {
				t.Errorf("fired at tick %d, want %d", fired, tc.fire)
			}
		})
	}
}

// A search's failure-rate SLO stops the run at the first failure past the
// share of the whole run it allows; nothing is watched without one.
func TestEarlyStopFailures(t *testing.T) {
	rate := 0.1
	sc := &scenario.Scenario{Load: scenario.Load{EarlyStop: &scenario.EarlyStop{MaxFailureRate: &rate}}}
	var cause error
	e := newEarlyStopper(sc, 20, func() int64 { return 0 }, func(err error) { cause = err })
	if e == nil || e.maxFailed != 2 || e.sat {
		t.Fatalf("stopper %+v", e)
	}
	for i := range 3 {
		if cause != nil {
			t.Fatalf("stopped after %d failures", i)
		}
		e.Record(&record.Record{Error: "boom"})
		e.Record(&record.Record{})
	}
	var es *EarlyStop
	if !errors.As(cause, &es) || !strings.Contains(es.Reason, "3 requests failed") {
		t.Errorf("cause %v", cause)
	}
	if newEarlyStopper(&scenario.Scenario{}, 20, nil, nil) != nil {
		t.Error("a stopper without early_stop or a failure-rate SLO")
	}
}

// A latency SLO is missed for good once enough requests took longer than
// its bound (a percentile), or once their sum passes the bound times the
// run's requests (a mean); other metrics are not watched.
func TestEarlyStopSLOs(t *testing.T) {
	ptr := func(x float64) *float64 { return &x }
	rec := func(ttftMs, e2elMs int) *record.Record {
		return &record.Record{Start: 0, Chunks: []time.Duration{time.Duration(ttftMs) * time.Millisecond},
			End: time.Duration(e2elMs) * time.Millisecond}
	}
	for _, tc := range []struct {
		name   string
		slo    scenario.SLO
		n      int
		values [][2]int // ttft, e2el in ms
		fire   int      // the request (1-based) that settles it, 0: none
	}{
		// p90 of 20: index floor(19·0.9) = 17: 20 - 17 = 3 values over settle it.
		{"p90 ttft", scenario.SLO{Metric: "p90_ttft_ms", Max: ptr(100)}, 20, [][2]int{{50, 60}, {150, 160}, {150, 160}, {40, 50}, {200, 210}}, 5},
		{"median e2el", scenario.SLO{Metric: "median_e2el_ms", Max: ptr(100)}, 4, [][2]int{{10, 150}, {10, 50}, {10, 150}, {10, 150}}, 4},
		{"mean ttft", scenario.SLO{Metric: "mean_ttft_ms", Max: ptr(10)}, 4, [][2]int{{20, 30}, {15, 30}, {6, 30}}, 3},
		{"under the bound", scenario.SLO{Metric: "p99_ttft_ms", Max: ptr(100)}, 3, [][2]int{{50, 60}, {60, 70}, {99, 100}}, 0},
		{"tpot not watched", scenario.SLO{Metric: "mean_tpot_ms", Max: ptr(0.001)}, 2, [][2]int{{50, 60}, {60, 70}}, 0},
		{"a lower bound is not watched", scenario.SLO{Metric: "mean_ttft_ms", Min: ptr(1e9)}, 2, [][2]int{{50, 60}, {60, 70}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cause error
			sc := &scenario.Scenario{Load: scenario.Load{EarlyStop: &scenario.EarlyStop{SLOs: []scenario.SLO{tc.slo}}}}
			e := newEarlyStopper(sc, tc.n, func() int64 { return 0 }, func(err error) { cause = err })
			if e == nil {
				if tc.fire != 0 {
					t.Fatal("no stopper")
				}
				return
			}
			fired := 0
			for i, v := range tc.values {
				e.Record(rec(v[0], v[1]))
				if cause != nil && fired == 0 {
					fired = i + 1
				}
			}
			if fired != tc.fire {
				t.Errorf("settled at request %d, want %d (%v)", fired, tc.fire, cause)
			}
		})
	}
}
