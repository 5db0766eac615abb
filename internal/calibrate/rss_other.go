//go:build !linux

package calibrate

import "time"

// resetPeakRSS cannot reset the peak RSS on this platform; peaks are then
// the process's high-water mark so far (getrusage ru_maxrss).
func resetPeakRSS() bool { return false }

// peakRSS returns 0: the caller falls back to getrusage.
func peakRSS() int64 { return 0 }

// loadAverage returns "": not read on this platform.
func loadAverage() string { return "" }

// processCPU returns ok false: not read on this platform.
func processCPU(int) (user, system time.Duration, ok bool) { return 0, 0, false }
