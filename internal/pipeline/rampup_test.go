package pipeline

import (
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
)

// An interrupted run's events follow the planned schedule: of 11 planned
// requests ramping 0 → 10 req/s, the first 3 released reach 2 req/s, not
// the 10 req/s a 3-request schedule would end at.
func TestRPSChangeEventsInterrupted(t *testing.T) {
	sc := &scenario.Scenario{Load: scenario.Load{RequestRate: 1, Burstiness: 1, RampUp: &scenario.RampUp{Strategy: "linear", StartRPS: 0, EndRPS: 10}}}
	res := &run.Result{Start: time.Unix(0, 0), Released: 3}
	for i := range 3 {
		res.Records = append(res.Records, &record.Record{Index: i, Released: time.Duration(i) * time.Second})
	}
	events := rampUpEvents(sc, res, 11)
	if len(events) != 3 || events[len(events)-1].RPS != 2 {
		t.Errorf("events = %+v, want 0, 1, 2", events)
	}
}

// rampUpEvents is the rps_change_events of a run of sc planned with
// planned requests, whose records res holds.
func rampUpEvents(sc *scenario.Scenario, res *run.Result, planned int) []report.RPSChangeEvent {
	l := newRampLog(sc, planned)
	for _, r := range res.Records {
		l.Record(r)
	}
	return l.events(res)
}
