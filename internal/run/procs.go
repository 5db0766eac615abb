package run

import (
	"os"
	"strconv"
	"strings"
)

// ProcShare is one process's share of the host's CPU during a run.
type ProcShare struct {
	// PID is the process id.
	PID int
	// Name is the process's command name (/proc/<pid>/stat's comm).
	Name string
	// Share is its CPU time over the host's total CPU time (every core)
	// during the run, comparable with HostBusy.
	Share float64
}

// ProcTicks is a process's command name and CPU time (user + system) in
// clock ticks.
type ProcTicks struct {
	// Name is the command name.
	Name string
	// Ticks is the CPU time used so far.
	Ticks uint64
}

// ProcSnapshot is the CPU time of every process on the host at one moment
// (Linux /proc/<pid>/stat); nil where it cannot be read. Reading it is one
// pass over /proc, a few milliseconds on a busy host: take it before and
// after a run, never during.
type ProcSnapshot map[int]ProcTicks

// parseProcStat reads the command name and utime + stime of a
// /proc/<pid>/stat line: "pid (comm) state ppid … utime stime …", where
// comm may itself hold spaces and parentheses.
func parseProcStat(line string) (name string, ticks uint64, ok bool) {
	open, close := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || close < open {
		return "", 0, false
	}
	f := strings.Fields(line[close+1:])
	// f[0] is field 3 (state): utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return "", 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, false
	}
	return line[open+1 : close], u + s, true
}

// TopOther is the process other than this one that used the most CPU
// between before and after, as a share of hostTicks (the host's total CPU
// ticks over the same time, every core); nil when either snapshot is
// missing, hostTicks is 0, or no other process used any CPU. A process
// missing from before (started during the run, or a reused pid with
// another name) counts with all of its CPU time.
func TopOther(before, after ProcSnapshot, hostTicks uint64) *ProcShare {
	if before == nil || after == nil || hostTicks == 0 {
		return nil
	}
	self := os.Getpid()
	var top *ProcShare
	var topTicks uint64
	for pid, a := range after {
		if pid == self {
			continue
		}
		d := a.Ticks
		if b, ok := before[pid]; ok && b.Name == a.Name && b.Ticks <= a.Ticks {
			d = a.Ticks - b.Ticks
		}
		if d > topTicks || (d == topTicks && top != nil && pid < top.PID) {
			topTicks = d
			top = &ProcShare{PID: pid, Name: a.Name}
		}
	}
	if top == nil || topTicks == 0 {
		return nil
	}
	top.Share = min(float64(topTicks)/float64(hostTicks), 1)
	return top
}

// setHostLoad fills HostBusy, HostCores and TopOther from the readings
// taken before the run (host0, procs0), the host's CPU at its end (host1)
// and the processes now.
func (r *Result) setHostLoad(host0, host1 HostCPU, procs0 ProcSnapshot) {
	procs1 := hostProbe.procs() // after host1: the scan of /proc is not the run's
	r.HostBusy, r.HostCores = host1.BusyFraction(host0), host1.Cores
	if r.HostBusy >= 0 {
		r.TopOther = TopOther(procs0, procs1, host1.Total-host0.Total)
	}
}

// hostProbe holds the readers of the host's load that Run uses.
var hostProbe = struct {
	cpu   func() HostCPU
	procs func() ProcSnapshot
}{ReadHostCPU, ReadProcs}

// SetHostProbe replaces the readers of the host's CPU time and of its
// processes' that Run calls before and after a run (ReadHostCPU and
// ReadProcs), and returns a function that restores them. It lets a test
// show a busy host without loading the machine; it must not be called
// while a run is in progress.
func SetHostProbe(cpu func() HostCPU, procs func() ProcSnapshot) (restore func()) {
	old := hostProbe
	hostProbe.cpu, hostProbe.procs = cpu, procs
	return func() { hostProbe = old }
}
