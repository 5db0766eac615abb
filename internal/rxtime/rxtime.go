// Package rxtime reads TCP connections together with the kernel's receive
// timestamps, so a reader can tell when its data reached the host rather
// than when the reading goroutine got to run.
//
// On Linux, [Wrap] and [Listen] enable SO_TIMESTAMPNS on the socket and read
// it with recvmsg: every read then carries the time the kernel received the
// newest byte it returns. On other systems, and for connections that refuse
// the option, they return the connection unchanged and [Of] finds no
// timestamps.
package rxtime

import (
	"net"
	"time"
)

// Conn is a connection whose reads record the kernel's receive time of the
// data they return.
type Conn struct {
	conn
}

// Of returns the timestamped connection under c (looking through wrappers
// with a NetConn method, such as *tls.Conn), or nil when c has no receive
// timestamps.
func Of(c net.Conn) *Conn {
	for range 4 {
		if rc, ok := c.(*Conn); ok {
			return rc
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		c = u.NetConn()
	}
	return nil
}

// MaxAge bounds how old a receive timestamp may be and still be believed;
// an older one, or one in the future, means the wall clock stepped.
const MaxAge = 10 * time.Second

// Age returns how long before now the data of c's last read arrived, and
// false when that is unknown (no timestamp, or an implausible one).
func (c *Conn) Age(now time.Time) (time.Duration, bool) {
	if c == nil {
		return 0, false
	}
	rx := c.lastRx.Load()
	if rx == 0 {
		return 0, false
	}
	age := time.Duration(now.UnixNano() - rx)
	if age < 0 || age > MaxAge {
		return 0, false
	}
	return age, true
}

// Listen returns a listener that wraps the connections ln accepts with
// [Wrap]. On Linux it also enables the timestamps on the listening socket
// at once: the kernel switches receive timestamping on a moment after the
// first socket asks for it, and accepted sockets inherit the option.
func Listen(ln net.Listener) net.Listener {
	enable(ln)
	return listener{ln}
}

type listener struct{ net.Listener }

// Accept accepts a connection and wraps it.
func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Wrap(c), nil
}
