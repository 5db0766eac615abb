//go:build unix

package server

import (
	"os/exec"
	"syscall"
)

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to the command's
// process group; a group already gone is not an error.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
