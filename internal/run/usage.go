package run

import (
	"runtime/debug"
	"time"
)

// Usage is CPU time used by the process (getrusage RUSAGE_SELF), and its
// peak resident set size.
type Usage struct {
	// User and System are the CPU time spent in user and kernel mode.
	User, System time.Duration
	// MaxRSS is the peak resident set size in bytes so far (a high-water
	// mark, not a difference, in the result of Sub).
	MaxRSS int64
}

// Total is User + System.
func (u Usage) Total() time.Duration { return u.User + u.System }

// Sub returns the CPU time used between v and u (u taken later); MaxRSS is
// u's.
func (u Usage) Sub(v Usage) Usage {
	return Usage{User: u.User - v.User, System: u.System - v.System, MaxRSS: u.MaxRSS}
}

// GCStats counts garbage collections.
type GCStats struct {
	// Cycles is the number of completed GC cycles.
	Cycles int64
	// Pause is the total stop-the-world pause time.
	Pause time.Duration
}

// Sub returns the collections between v and s (s taken later).
func (s GCStats) Sub(v GCStats) GCStats {
	return GCStats{Cycles: s.Cycles - v.Cycles, Pause: s.Pause - v.Pause}
}

// readGCStats returns the process's GC totals so far.
func readGCStats() GCStats {
	var s debug.GCStats
	s.Pause = make([]time.Duration, 0) // only the totals are wanted
	debug.ReadGCStats(&s)
	return GCStats{Cycles: s.NumGC, Pause: s.PauseTotal}
}

// HostCPU is the host's cumulative CPU time, busy and total, in clock
// ticks (Linux /proc/stat); Total is 0 where it cannot be read.
type HostCPU struct {
	// Busy is the time not idle (idle and iowait excluded).
	Busy uint64
	// Total is the time of every state.
	Total uint64
	// Cores is the number of CPUs the times are summed over (0 when
	// unknown, taken as 1).
	Cores int
}

// MinHostTicksPerCore is the fewest clock ticks per core (at the usual
// 100 Hz, half a second) BusyFraction needs: over less, the tick counts
// are too coarse to give a share.
const MinHostTicksPerCore = 50

// BusyFraction is the share of the host's CPU time that was busy between
// v and h (h taken later), or -1 when unknown: when either reading failed
// or fewer than MinHostTicksPerCore ticks per core passed.
func (h HostCPU) BusyFraction(v HostCPU) float64 {
	cores := uint64(max(h.Cores, 1))
	if h.Total <= v.Total || v.Total == 0 || h.Busy < v.Busy || h.Total-v.Total < MinHostTicksPerCore*cores {
		return -1
	}
	return float64(h.Busy-v.Busy) / float64(h.Total-v.Total)
}
