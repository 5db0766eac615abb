//go:build !linux

package ringnet

import (
	"net"
	"time"
)

// Conn is a connection served by the poller; there is none off Linux.
type Conn struct{ net.Conn }

// Available reports false: io_uring is Linux's.
func Available() bool { return false }

// Adopt returns nil: io_uring is Linux's.
func Adopt(net.Conn) *Conn { return nil }

// ReadEach is never called off Linux.
func (c *Conn) ReadEach(next func() []byte, got func(n int, err error) bool) error {
	panic("ringnet: no Conn off Linux")
}

// Age reports no timestamp.
func (c *Conn) Age(time.Time) (time.Duration, bool) { return 0, false }

// DelayAcks does nothing.
func (c *Conn) DelayAcks() {}
