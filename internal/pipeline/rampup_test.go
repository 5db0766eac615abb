package pipeline

import (
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/schedule"
)

// An interrupted run's events follow the planned schedule: of 11 planned
// requests ramping 0 → 10 req/s, the first 3 released reach 2 req/s, not
// the 10 req/s a 3-request schedule would end at.
func TestRPSChangeEventsInterrupted(t *testing.T) {
	r := &scenario.RampUp{Strategy: "linear", StartRPS: 0, EndRPS: 10}
	spec := schedule.Spec{Rate: 1, Burstiness: 1, RampUp: &schedule.RampUp{Strategy: "linear", StartRPS: 0, EndRPS: 10}}
	res := &run.Result{Start: time.Unix(0, 0)}
	for i := range 3 {
		res.Records = append(res.Records, &record.Record{Index: i, Released: time.Duration(i) * time.Second})
	}
	events := rpsChangeEvents(r, spec, res, 11)
	if len(events) != 3 || events[len(events)-1].RPS != 2 {
		t.Errorf("events = %+v, want 0, 1, 2", events)
	}
}
