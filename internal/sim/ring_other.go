//go:build !linux

package sim

// sendFlags is unused: stream loops have no io_uring off Linux.
const sendFlags = 0

// dupSendFD does nothing: stream loops have no io_uring off Linux.
func (g *generation) dupSendFD() {}
