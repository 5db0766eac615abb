//go:build unix

package dataset

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process used so
// far, every thread included; benchmarks divide bytes by it to report a
// throughput that other processes on the machine do not change.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
