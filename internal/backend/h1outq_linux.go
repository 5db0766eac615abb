package backend

import (
	"net"
	"syscall"
	"unsafe"
)

// siocOutq is Linux's SIOCOUTQ (TIOCOUTQ) ioctl: the bytes of a TCP
// socket's send queue that the peer has not acknowledged yet.
const siocOutq = 0x5411

// unacknowledged reports whether some of the bytes written to c were never
// acknowledged by the peer's kernel, and whether that could be learned.
//
// A server that closed its end before a request arrived answers the
// request's segments with a reset instead of acknowledging them, so they
// stay in the send queue; a server that read the request has acknowledged
// it (its FIN carries the acknowledgement), and the queue is empty. A
// request left unacknowledged when the connection ended was therefore
// never read by the server.
func unacknowledged(c net.Conn) (unacked, known bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false, false
	}
	var n int32
	var errno syscall.Errno
	if err := raw.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, siocOutq, uintptr(unsafe.Pointer(&n)))
	}); err != nil || errno != 0 {
		return false, false
	}
	return n > 0, true
}
