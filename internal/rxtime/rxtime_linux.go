package rxtime

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// conn is the Linux state of a Conn.
type conn struct {
	*net.TCPConn
	raw    syscall.RawConn
	oob    [64]byte
	lastRx atomic.Int64 // receive time of the last read's data, Unix ns; 0 if unknown
	rdl    atomic.Int64 // the read deadline, Unix ns; 0: none (ReadEach looks at it)
}

// SetDeadline sets the read and write deadlines, as a net.TCPConn's does.
func (c *Conn) SetDeadline(t time.Time) error {
	c.noteReadDeadline(t)
	return c.TCPConn.SetDeadline(t)
}

// SetReadDeadline sets the read deadline, as a net.TCPConn's does.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.noteReadDeadline(t)
	return c.TCPConn.SetReadDeadline(t)
}

// noteReadDeadline keeps the read deadline t for ReadEach, which reads on
// without waiting while data keeps coming, and so without Go's poller
// looking at the deadline.
func (c *Conn) noteReadDeadline(t time.Time) {
	var ns int64
	if !t.IsZero() {
		ns = max(t.UnixNano(), 1)
	}
	c.rdl.Store(ns)
}

// pastReadDeadline reports whether the read deadline has passed.
func (c *Conn) pastReadDeadline() bool {
	d := c.rdl.Load()
	return d != 0 && time.Now().UnixNano() >= d
}

// enable sets SO_TIMESTAMPNS on a TCP listener, ignoring failures (Wrap
// sets it again on each connection).
func enable(ln net.Listener) {
	_ = KeepOn()
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return
	}
	if raw, err := tl.SyscallConn(); err == nil {
		_ = raw.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
		})
	}
}

// Wrap enables kernel receive timestamps on a TCP connection and returns
// it as a *Conn; any other connection, or one that refuses the option, is
// returned unchanged.
func Wrap(c net.Conn) net.Conn {
	_ = KeepOn()
	return wrap(c)
}

// wrap is Wrap without KeepOn.
func wrap(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c
	}
	return &Conn{conn{TCPConn: tc, raw: raw}}
}

// keeper is KeepOn's state: its outcome and the connection it holds open.
var keeper struct {
	once   sync.Once
	err    error
	client net.Conn
	server net.Conn
}

// keepOnWithin bounds KeepOn's wait; the kernel's worker usually runs
// within a millisecond.
const keepOnWithin = 500 * time.Millisecond

// KeepOn switches the host's receive timestamping on for the rest of the
// process, and waits until packets carry timestamps; it returns an error
// when they do not within half a second (no timestamps on this system).
// Only the first call waits; Wrap and Listen call it.
//
// Linux timestamps packets on arrival only while some socket asks for it,
// and it turns that on in a kernel worker, after the setsockopt(2) that
// asked has returned. Data that arrives meanwhile has no timestamp, and
// TCP then reports none: a connection that asks just before its first
// data (or when the last timestamping socket of the host has just closed)
// would miss its first receive times. KeepOn holds one timestamping
// loopback connection open (two descriptors) so that the switch stays on.
func KeepOn() error {
	keeper.once.Do(func() { keeper.err = keepOn() })
	return keeper.err
}

// keepOn opens KeepOn's connection and waits until a byte sent over it
// comes with a receive timestamp.
func keepOn() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return err
	}
	s, err := ln.Accept()
	if err != nil {
		_ = c.Close()
		return err
	}
	rc, ok := wrap(c).(*Conn)
	if !ok {
		_ = c.Close()
		_ = s.Close()
		return errors.New("rxtime: SO_TIMESTAMPNS refused")
	}
	keeper.client, keeper.server = rc, s
	var b [1]byte
	for end := time.Now().Add(keepOnWithin); time.Now().Before(end); time.Sleep(100 * time.Microsecond) {
		if _, err := s.Write(b[:]); err != nil {
			return err
		}
		if _, err := rc.Read(b[:]); err != nil {
			return err
		}
		if _, ok := rc.Age(time.Now()); ok {
			return nil
		}
	}
	return errors.New("rxtime: loopback packets carry no receive timestamps")
}

// Read reads like the TCP connection, deadlines included, and records the
// receive timestamp that comes with the data.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	// The callback runs under the descriptor's read lock, so concurrent
	// Reads do not share c.oob.
	err := c.raw.Read(func(fd uintptr) bool {
		var oobn int
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), p, c.oob[:], 0)
		if rerr == syscall.EAGAIN {
			return false
		}
		if rerr == nil && n > 0 {
			c.lastRx.Store(Timestamp(c.oob[:oobn]))
		}
		return true
	})
	if err == nil && rerr != nil {
		err = os.NewSyscallError("recvmsg", rerr)
	}
	if err != nil {
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// ReadEach reads the connection into the buffers next returns (each one
// not empty) and calls got after each read with its byte count and error,
// io.EOF at the end, until got returns false or after a read that failed:
// got sees every read error. It returns the error of waiting for data
// (a deadline, the connection closed), which no read saw; a deadline
// passes even while data keeps coming.
//
// Unlike a loop of Reads, it does not read a drained socket again only to
// find it empty before waiting: a read that did not fill its buffer has
// taken everything the socket held, so it waits for the next arrival
// straight away. When data comes in small pieces (a stream's SSE events)
// that saves a system call per piece. Every read records its receive
// timestamp, as Read does.
func (c *Conn) ReadEach(next func() []byte, got func(n int, err error) bool) error {
	var werr error
	err := c.raw.Read(func(fd uintptr) bool {
		for {
			p := next()
			n, oobn, _, _, rerr := syscall.Recvmsg(int(fd), p, c.oob[:], 0)
			switch {
			case rerr == syscall.EINTR:
				continue
			case rerr == syscall.EAGAIN:
				return false // wait for data
			case rerr != nil:
				got(0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("recvmsg", rerr)})
				return true
			case n == 0:
				got(0, io.EOF)
				return true
			}
			c.lastRx.Store(Timestamp(c.oob[:oobn]))
			if !got(n, nil) {
				return true
			}
			if n < len(p) || c.pastReadDeadline() {
				// Drained: wait for the next arrival. Or past the
				// deadline while data keeps coming: the wait returns
				// its error (Go's poller checks the deadline only
				// when waiting).
				return false
			}
		}
	})
	if err != nil {
		werr = &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	return werr
}

// NetConn returns the TCP connection under c.
func (c *Conn) NetConn() net.Conn { return c.TCPConn }

// WriteTo copies the connection to w through Read, so that the copy keeps
// recording timestamps (the embedded TCPConn's WriteTo would bypass it).
func (c *Conn) WriteTo(w io.Writer) (int64, error) {
	return io.Copy(w, struct{ io.Reader }{c})
}

// Timestamp returns the SCM_TIMESTAMPNS time in the control messages oob
// of a recvmsg(2), in Unix ns, or 0 if there is none.
func Timestamp(oob []byte) int64 {
	for len(oob) >= syscall.SizeofCmsghdr {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < syscall.SizeofCmsghdr || l > len(oob) {
			return 0
		}
		if h.Level == syscall.SOL_SOCKET && h.Type == syscall.SCM_TIMESTAMPNS &&
			l >= syscall.SizeofCmsghdr+int(unsafe.Sizeof(syscall.Timespec{})) {
			ts := (*syscall.Timespec)(unsafe.Pointer(&oob[syscall.SizeofCmsghdr]))
			return ts.Nano()
		}
		oob = oob[min(align(l), len(oob)):]
	}
	return 0
}

// align rounds a control message length up to the platform's alignment.
func align(n int) int {
	const a = int(unsafe.Sizeof(uintptr(0)))
	return (n + a - 1) &^ (a - 1)
}
