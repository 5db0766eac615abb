//go:build !linux

package rxtime

import (
	"net"
	"sync/atomic"
)

// conn is the state of a Conn; none is ever made off Linux.
type conn struct {
	net.Conn
	lastRx atomic.Int64
}

// Wrap returns c: receive timestamps are only read on Linux.
func Wrap(c net.Conn) net.Conn { return c }

func enable(net.Listener) {}

// KeepOn does nothing: receive timestamps are only read on Linux.
func KeepOn() error { return nil }

// ReadEach reads c into the buffers next returns and calls got after each
// read, as the Linux version does, with plain Reads.
func (c *Conn) ReadEach(next func() []byte, got func(n int, err error) bool) error {
	for {
		n, err := c.Read(next())
		if !got(n, err) || err != nil {
			return nil
		}
	}
}

// NetConn returns the connection under c.
func (c *Conn) NetConn() net.Conn { return c.Conn }
