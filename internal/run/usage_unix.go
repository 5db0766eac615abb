//go:build unix

package run

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ReadUsage returns the process's CPU time and peak RSS so far
// (getrusage(RUSAGE_SELF)); zero if the call fails.
func ReadUsage() Usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return Usage{}
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		rss *= 1024 // Linux and the BSDs report kilobytes, Darwin bytes
	}
	return Usage{
		User:   time.Duration(ru.Utime.Nano()),
		System: time.Duration(ru.Stime.Nano()),
		MaxRSS: rss,
	}
}

// ReadHostCPU reads the host's CPU times from /proc/stat's "cpu" line
// (user nice system idle iowait irq softirq steal ...), and the number of
// cores from its "cpuN" lines; zero elsewhere.
func ReadHostCPU() HostCPU {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return HostCPU{}
	}
	line, rest, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return HostCPU{}
	}
	var h HostCPU
	// guest and guest_nice (fields 9 and 10) are already in user and nice.
	for i, v := range f[1:min(len(f), 9)] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return HostCPU{}
		}
		h.Total += n
		if i != 3 && i != 4 { // idle, iowait
			h.Busy += n
		}
	}
	for l := range strings.Lines(rest) {
		if strings.HasPrefix(l, "cpu") {
			h.Cores++
		}
	}
	return h
}
