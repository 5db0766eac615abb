package pipeline

import (
	"errors"
	"strings"
	"testing"

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
