//go:build linux

package run

import (
	"os"
	"strconv"
)

// ReadProcs takes a ProcSnapshot of every process in /proc; nil when /proc
// cannot be listed. Processes that end while it reads are skipped.
func ReadProcs() ProcSnapshot {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil
	}
	snap := make(ProcSnapshot, len(names))
	buf := make([]byte, 0, 1024)
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		f, err := os.Open("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		buf = buf[:cap(buf)]
		k, _ := f.Read(buf)
		f.Close()
		if name, ticks, ok := parseProcStat(string(buf[:k])); ok {
			snap[pid] = ProcTicks{Name: name, Ticks: ticks}
		}
	}
	return snap
}
