package run

import (
	"os"
	"runtime"
	"testing"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		line  string
		name  string
		ticks uint64
		ok    bool
	}{
		{"412 (llama-server) R 1 412 412 0 -1 4194304 100 0 0 0 1500 250 0 0 20 0 9 0 100 0 0\n", "llama-server", 1750, true},
		// comm may hold spaces and parentheses: the last ")" ends it.
		{"7 (a (b) c) S 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 0 0", "a (b) c", 7, true},
		{"7 (short) S 1 2 3", "", 0, false},
		{"garbage", "", 0, false},
		{"7 (x) S 1 7 7 0 -1 0 0 0 0 0 u s 0", "", 0, false},
	}
	for _, tt := range tests {
		name, ticks, ok := parseProcStat(tt.line)
		if name != tt.name || ticks != tt.ticks || ok != tt.ok {
			t.Errorf("parseProcStat(%q) = %q, %d, %v; want %q, %d, %v", tt.line, name, ticks, ok, tt.name, tt.ticks, tt.ok)
		}
	}
}

func TestTopOther(t *testing.T) {
	self := os.Getpid()
	before := ProcSnapshot{self: {"vbench", 0}, 10: {"llama-server", 1000}, 11: {"sshd", 5}, 12: {"old", 500}}
	after := ProcSnapshot{self: {"vbench", 5000}, 10: {"llama-server", 1800}, 11: {"sshd", 6},
		12: {"reused", 300}, // pid 12 reused: all of its 300 ticks count
		13: {"started", 100}}
	top := TopOther(before, after, 1000)
	if top == nil || *top != (ProcShare{PID: 10, Name: "llama-server", Share: 0.8}) {
		t.Errorf("top = %+v, want llama-server 80%% (vbench itself left out)", top)
	}
	for _, tt := range []struct {
		name          string
		before, after ProcSnapshot
		host          uint64
	}{
		{"no before", nil, after, 1000},
		{"no after", before, nil, 1000},
		{"no host ticks", before, after, 0},
		{"nothing else ran", ProcSnapshot{10: {"x", 5}}, ProcSnapshot{10: {"x", 5}, self: {"vbench", 9}}, 1000},
	} {
		if got := TopOther(tt.before, tt.after, tt.host); got != nil {
			t.Errorf("%s: %+v, want nil", tt.name, got)
		}
	}
	if top := TopOther(ProcSnapshot{}, ProcSnapshot{13: {"started", 100}}, 1000); top == nil || top.PID != 13 || top.Share != 0.1 {
		t.Errorf("a process started during the run: %+v", top)
	}
}

func TestReadProcs(t *testing.T) {
	snap := ReadProcs()
	if runtime.GOOS != "linux" {
		if snap != nil {
			t.Errorf("ReadProcs on %s = %d processes, want nil", runtime.GOOS, len(snap))
		}
		return
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, ok := snap[os.Getpid()]; !ok {
		t.Errorf("ReadProcs has %d processes, not this one", len(snap))
	}
}
