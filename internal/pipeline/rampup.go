package pipeline

import (
	"time"

	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/schedule"
)

// rampLog is the sink that keeps what vLLM's ramp-up bookkeeping needs
// from a run: the release times of the requests at which the integer part
// of the planned rate first exceeds the last one recorded. Only those
// requests are kept, so the log is as small as the ramp's range.
type rampLog struct {
	r        *scenario.RampUp
	selfTime bool
	// changes are the requests at which the rate's integer part rises, in
	// order, with the integer reached.
	changes []rampChange
	at      map[int]time.Duration // release times of the changes' requests
}

type rampChange struct{ index, rps int }

// newRampLog plans the log of a run of sc that sends planned requests.
func newRampLog(sc *scenario.Scenario, planned int) *rampLog {
	l := &rampLog{r: sc.Load.RampUp, selfTime: selfTimed(sc), at: map[int]time.Duration{}}
	if l.r == nil || l.selfTime {
		return l
	}
	last := int(l.r.StartRPS)
	spec := scheduleSpec(sc)
	for i := range planned {
		if cur := int(schedule.RateAt(spec, i, planned)); cur > last {
			l.changes = append(l.changes, rampChange{i, cur})
			l.at[i] = -1
			last = cur
		}
	}
	return l
}

// Record keeps the release time of a change's request.
func (l *rampLog) Record(rec *record.Record) {
	if _, ok := l.at[rec.Index]; ok {
		l.at[rec.Index] = rec.Released
	}
}

// events is vLLM's rps_change_events of the run: the start rate at the
// run start, then, at each change a released request reached, one event
// per integer between the last recorded and the change's, stamped with
// that request's release time. A self-timed run, to which vLLM applies no
// ramp-up, has only the starting event; a run without one has none.
func (l *rampLog) events(res *run.Result) []report.RPSChangeEvent {
	if l.r == nil {
		return nil
	}
	last := int(l.r.StartRPS)
	events := []report.RPSChangeEvent{{RPS: last, Timestamp: py.Isoformat(res.Start.Local())}}
	for _, c := range l.changes {
		if c.index >= res.Released {
			break
		}
		ts := py.Isoformat(res.Start.Add(l.at[c.index]).Local())
		for v := last + 1; v <= c.rps; v++ {
			events = append(events, report.RPSChangeEvent{RPS: v, Timestamp: ts})
		}
		last = c.rps
	}
	return events
}
