package schedule

import (
	"fmt"
	"time"
)

// Replay returns the offsets of a self-timed run (vLLM's --self-timed, for
// a trace dataset): request i is due at times[i] from the start of
// the run, its trace time as is, not re-based to the first request, with
// no rate, burstiness or ramp-up applied (vLLM's get_request with
// self_timed). A trace time of 0 sends at once, as vLLM does. The times
// must be non-negative and must not decrease, since requests are sent in
// order (the trace dataset makes them so, moving a line due early to
// right after the line ahead of it, as vLLM sends it); the offsets are a
// copy.
func Replay(times []time.Duration) ([]time.Duration, error) {
	out := make([]time.Duration, len(times))
	for i, t := range times {
		switch {
		case t < 0:
			return nil, fmt.Errorf("schedule: request %d has a negative trace time %v", i, t)
		case i > 0 && t < times[i-1]:
			return nil, fmt.Errorf("schedule: request %d's trace time %v is before request %d's (%v)", i, t, i-1, times[i-1])
		}
		out[i] = t
	}
	return out, nil
}
