//go:build unix

package server

import (
	"os/exec"
	"syscall"
)

// setGroup puts the command in a process group of its own, so that
// stopping it reaches the processes it starts (vLLM's engine cores).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to the command's
// process group; a group already gone is not an error.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
