package pipeline

import (
	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/schedule"
)

// rpsChangeEvents rebuilds vLLM's ramp-up bookkeeping from the run: the
// start rate at the run start, then, whenever the integer part of the
// rate of a released request exceeds the last recorded integer, one event
// per integer in between, stamped with that request's release time.
// planned is the number of requests the run was to send: the rates are
// those of the planned schedule, even when an interrupted run released
// fewer.
func rpsChangeEvents(r *scenario.RampUp, spec schedule.Spec, res *run.Result, planned int) []report.RPSChangeEvent {
	if r == nil {
		return nil
	}
	last := int(r.StartRPS)
	events := []report.RPSChangeEvent{{RPS: last, Timestamp: py.Isoformat(res.Start.Local())}}
	rates := schedule.Rates(spec, max(planned, len(res.Records)))
	for i, rec := range res.Records {
		if cur := int(rates[i]); cur > last {
			ts := py.Isoformat(res.Start.Add(rec.Released).Local())
			for v := last + 1; v <= cur; v++ {
				events = append(events, report.RPSChangeEvent{RPS: v, Timestamp: ts})
			}
			last = cur
		}
	}
	return events
}
