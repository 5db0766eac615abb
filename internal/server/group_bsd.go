//go:build unix && !linux

package server

import (
	"os/exec"
	"syscall"
)

// setGroup puts the command in a process group of its own, so that
// stopping it reaches the processes it starts.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
