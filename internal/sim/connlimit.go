package sim

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
)

// limitListener holds at most max client connections open at once
// (Config.MaxConns): a connection accepted beyond them is closed at once
// with a TCP RST, before anything is read. That is what a client sees of
// a server whose listen backlog overflows under a burst, when the kernel
// is told to answer overflow with a reset (tcp_abort_on_overflow); with
// the default, the kernel drops the SYN and the client's connect waits.
type limitListener struct {
	net.Listener
	max     int64
	open    atomic.Int64
	refused atomic.Uint64
}

// Accept returns the next connection within the limit, resetting those
// beyond it.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			l.refused.Add(1)
			if tc, ok := c.(interface{ SetLinger(int) error }); ok {
				_ = tc.SetLinger(0)
			}
			_ = c.Close()
			continue
		}
		return &countedConn{Conn: c, l: l}, nil
	}
}

// countedConn is a connection limitListener counts until it is closed. It
// passes on the methods of the connection under it that the server uses.
type countedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

// Close closes the connection and gives back its place.
func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// NetConn returns the connection under c.
func (c *countedConn) NetConn() net.Conn { return c.Conn }

var errNoSyscallConn = errors.New("connection has no file descriptor")

// SyscallConn returns the raw connection of the connection under c.
func (c *countedConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errNoSyscallConn
}

// SetLinger sets the linger of the connection under c, when it has one.
func (c *countedConn) SetLinger(sec int) error {
	if tc, ok := c.Conn.(interface{ SetLinger(int) error }); ok {
		return tc.SetLinger(sec)
	}
	return nil
}

// CloseWrite shuts down the writing side of the connection under c, when
// it can.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}
