package server

import (
	"os/exec"
	"syscall"
)

// setGroup puts the command in a process group of its own, so that
// stopping it reaches the processes it starts (vLLM's engine cores), and
// has the kernel kill it if vbench dies without stopping it (SIGKILL, a
// crash): Linux's parent-death signal, sent when the thread that started
// it exits, which for Go's threads is when the process does.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
