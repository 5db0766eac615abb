package calibrate

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startNiced starts cmd at niceness nice and returns the niceness it got
// (-1 if it could not be set). On Linux niceness belongs to a thread and a
// child inherits its forking thread's, so the child is forked from a
// thread of its own that is niced first and then discarded (its goroutine
// never unlocks it).
func startNiced(cmd *exec.Cmd, nice int) (int, error) {
	if nice == 0 {
		return 0, cmd.Start()
	}
	type result struct {
		nice int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		got := nice
		if syscall.Setpriority(syscall.PRIO_PROCESS, 0, nice) != nil {
			got = -1
		}
		done <- result{got, cmd.Start()}
	}()
	r := <-done
	return r.nice, r.err
}
