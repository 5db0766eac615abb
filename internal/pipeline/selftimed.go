package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/schedule"
)

// selfTimed reports whether the run replays its dataset's trace times
// (vLLM's --self-timed; dataset.Kind.SelfTimed says when) instead of
// drawing arrivals from load.request_rate and load.burstiness.
func selfTimed(sc *scenario.Scenario) bool {
	k, _ := dataset.Lookup(sc.Dataset.Name)
	return k.ReplaysTimes(sc.Dataset)
}

// arrivalSeed is the seed the run's arrivals are drawn with (see
// runSchedule).
func arrivalSeed(sc *scenario.Scenario) uint32 {
	if k, _ := dataset.Lookup(sc.Dataset.Name); k.ArrivalSeedZero {
		return 0
	}
	return uint32(sc.Seed)
}

// runSchedule is the run's schedule, one offset per request: each
// request's trace time for a self-timed run (schedule.Replay: absolute,
// not re-based), else the arrival process drawn as vLLM draws it. For a
// kind that draws its arrivals with seed 0 (dataset.Kind.ArrivalSeedZero:
// a trace kind not self-timed) the gaps are drawn with seed 0, whatever the
// scenario's seed: vLLM's trace class reseeds NumPy's global generator
// with its dataset seed, which --seed does not reach (0).
//
// A drawn arrival process is drawn as the run goes (schedule.Cursor),
// holding no offset; a self-timed run's trace times are held, and
// returned as replay.
func runSchedule(sc *scenario.Scenario, n int, reqs []dataset.Request) (sched run.Schedule, replay []time.Duration, err error) {
	if !selfTimed(sc) {
		c, err := schedule.NewCursor(scheduleSpec(sc), n, arrivalSeed(sc))
		return c, nil, err
	}
	replay, err = replayOffsets(n, reqs)
	return run.SliceSchedule(replay), replay, err
}

// replayOffsets are the trace times of a self-timed run's n requests.
func replayOffsets(n int, reqs []dataset.Request) ([]time.Duration, error) {
	if len(reqs) != n {
		return nil, fmt.Errorf("internal error: a self-timed run needs its %d requests' trace times before it starts, and has %d", n, len(reqs))
	}
	times := make([]time.Duration, len(reqs))
	for i := range reqs {
		if !reqs[i].Timed {
			return nil, fmt.Errorf("internal error: request %d of a self-timed run has no trace time", i)
		}
		times[i] = reqs[i].Time
	}
	return schedule.Replay(times)
}

// replayWave is how many requests a self-timed run sends in its first
// second, plus one: the connections to open before the clock starts.
func replayWave(offsets []time.Duration) int {
	n := 0
	for n < len(offsets) && offsets[n] < time.Second {
		n++
	}
	return min(n+1, len(offsets))
}

// preconnectWave is how many connections to open before the clock starts:
// firstWave, and for a self-timed run at most the requests its trace
// sends in the first second (plus one).
func preconnectWave(sc *scenario.Scenario, planned int, replay []time.Duration, maxConc int) int {
	n := firstWave(sc, planned, maxConc)
	if selfTimed(sc) {
		n = min(n, replayWave(replay))
	}
	return n
}

// selfTimedIgnored is the warning of a self-timed run whose scenario sets
// the arrival fields a replay does not read (load.request_rate finite,
// load.burstiness not 1, load.ramp_up), naming them; "" otherwise. vbench
// serve warns about the flags instead (argv), so this is for scenarios.
func selfTimedIgnored(sc *scenario.Scenario) string {
	if !selfTimed(sc) {
		return ""
	}
	var set []string
	if !sc.Load.RequestRate.IsInf() {
		set = append(set, "load.request_rate")
	}
	if sc.Load.Burstiness != 1 {
		set = append(set, "load.burstiness")
	}
	if sc.Load.RampUp != nil {
		set = append(set, "load.ramp_up")
	}
	if len(set) == 0 {
		return ""
	}
	return "warning: " + strings.Join(set, ", ") + " has no effect in a self-timed trace replay: each request is sent at its trace time " +
		"(dataset." + sc.Dataset.Name + ".self_timed: false uses the arrival process instead)"
}
