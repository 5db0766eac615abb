//go:build !linux

package calibrate

import "os/exec"

// startNiced starts cmd; niceness is only set on Linux, where it belongs
// to a thread (see nice_linux.go), so it reports -1 for a non-zero nice.
func startNiced(cmd *exec.Cmd, nice int) (int, error) {
	if nice == 0 {
		return 0, cmd.Start()
	}
	return -1, cmd.Start()
}
