package sim

import "syscall"

// sendFlags are the flags of a stream loop's sends: never wait (a full
// socket completes the send with EAGAIN, and the stream stalls), and no
// SIGPIPE.
const sendFlags = syscall.MSG_DONTWAIT | syscall.MSG_NOSIGNAL

// dupSendFD duplicates raw's descriptor into g.sendFD, for a stream loop
// that sends through io_uring. The loop uses the descriptor outside the
// connection's own locking, so it needs one that nothing else closes: a
// server that closes (closeHijacked) may close raw meanwhile, and a
// number closed and reused by the next accepted connection would carry
// this stream's bytes. Without io_uring, or should the duplication fail,
// sendFD stays -1 and the loop writes with write(2) under the lock.
func (g *generation) dupSendFD() {
	if !useRing.Load() {
		return
	}
	_ = g.sysConn.Control(func(fd uintptr) {
		nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
		if errno == 0 {
			g.sendFD = int(nfd)
		}
	})
}
