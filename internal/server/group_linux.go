package server

import (
	"os/exec"
	"syscall"
)

// setGroup puts the command in a process group of its own, so that
// stopping it reaches the processes it starts (vLLM's engine cores), and
// has the kernel kill it if vbench dies without stopping it (SIGKILL, a
// crash): Linux's parent-death signal, sent when the thread that started
// it exits. Go ends a thread before the process only when a goroutine
// exits locked to it, which nothing in vbench does while it manages a
// server (ringnet hands back the thread of a poller that did not start).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
