//go:build !unix

package server

import "os/exec"

// setGroup does nothing: process groups are a Unix feature.
func setGroup(*exec.Cmd) {}

// signalGroup kills the process (there is no gentler signal to send).
func signalGroup(cmd *exec.Cmd, kill bool) {
	if kill {
		_ = cmd.Process.Kill()
	}
}
