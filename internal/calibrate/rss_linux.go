package calibrate

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"time"
)

// resetPeakRSS resets the process's peak resident set size (VmHWM) to its
// current RSS (Linux ≥ 4.0: "5" written to /proc/self/clear_refs), so that
// peakRSS afterwards reports the peak of one step. It reports whether the
// reset worked.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS returns VmHWM from /proc/self/status in bytes, or 0.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// loadAverage returns the 1-minute load average from /proc/loadavg, or "".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(b))
	if len(fields) < 3 {
		return ""
	}
	return strings.Join(fields[:3], " ")
}

// processCPU returns the CPU time process pid has used in user and in
// system mode, from /proc/PID/stat (in USER_HZ = 100 ticks per second);
// ok is false when it cannot be read.
func processCPU(pid int) (user, system time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	const tick = 10 * time.Millisecond
	return time.Duration(utime) * tick, time.Duration(stime) * tick, true
}
