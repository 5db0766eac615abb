//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package backend

import (
	"net"
	"syscall"
)

// h1Peek looks at an idle connection without reading from it or waiting.
type h1Peek struct {
	raw syscall.RawConn
	fn  func(fd uintptr) bool // p.recv, made once: no allocation per look
	buf [1]byte
	n   int
	err error
}

// newH1Peek returns a peek for c, or nil when c has no descriptor to look
// at (then an idle connection is never found closed before it is used).
func newH1Peek(c net.Conn) *h1Peek {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	p := &h1Peek{raw: raw}
	p.fn = p.recv
	return p
}

// gone reports whether the connection can no longer carry a request: the
// peer closed or reset it, or sent bytes nobody asked for (a server may
// send a 408 before it closes an idle connection). A live idle connection
// has nothing to read, and then one non-blocking MSG_PEEK recv(2) says so.
func (p *h1Peek) gone() bool {
	if p == nil {
		return false
	}
	p.n, p.err = 0, nil
	if err := p.raw.Read(p.fn); err != nil {
		return true // closed here
	}
	return p.err != syscall.EAGAIN
}

// recv is the syscall.RawConn callback of gone: it never waits.
func (p *h1Peek) recv(fd uintptr) bool {
	for {
		p.n, _, p.err = syscall.Recvfrom(int(fd), p.buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if p.err != syscall.EINTR {
			return true
		}
	}
}
