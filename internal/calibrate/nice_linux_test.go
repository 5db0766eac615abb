package calibrate

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// niceOf returns the niceness of process pid from /proc.
func niceOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, err := strconv.Atoi(fields[16]) // field 19 of stat: nice
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The child runs at the niceness asked for; this process keeps its own.
func TestStartNiced(t *testing.T) {
	own, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{0, 7} {
		cmd := exec.Command("sleep", "5")
		got, err := startNiced(cmd, want)
		if err != nil {
			t.Skipf("cannot start sleep: %v", err)
		}
		if got != want {
			t.Errorf("startNiced reported nice %d, want %d", got, want)
		}
		if n := niceOf(t, cmd.Process.Pid); n != want {
			t.Errorf("child runs at nice %d, want %d", n, want)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	if now, _ := syscall.Getpriority(syscall.PRIO_PROCESS, 0); now != own {
		t.Errorf("this thread's priority changed from %d to %d", own, now)
	}
}
