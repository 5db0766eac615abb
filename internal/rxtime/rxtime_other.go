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
