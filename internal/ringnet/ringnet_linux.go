package ringnet

import (
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/vbench/vbench/internal/rxtime"
	"github.com/vbench/vbench/internal/uring"
)

// Conn is a TCP connection served by a poller. Reads (one at a time),
// polls and ReadEach go through the poller; writes are the caller's own
// non-blocking write(2)s, waiting through the poller when the socket is
// full. The descriptor is closed by the poller once no operation on it is
// in flight, so its number is never reused under one.
type Conn struct {
	p             *poller // serves it
	fd            int
	local, remote net.Addr

	lastRx atomic.Int64 // receive time of the last read's data, Unix ns; 0 if unknown

	rd, wd       atomic.Int64  // read and write deadlines, Unix ns; 0: none
	rkick, wkick chan struct{} // a deadline changed or Close: waiting reads and writes look again

	closed atomic.Bool

	// Read side: one operation at a time (reads, ReadEach, read polls).
	rmu sync.Mutex
	rop op
	// Write side: the poll of a full socket.
	wmu sync.Mutex
	wop op

	// Owned by the poller goroutine.
	inflight int  // operations of this Conn in the ring
	closing  bool // Close was asked for
	fdClosed bool // the descriptor is closed (c.fd keeps the number: nothing uses it once closed is set)
}

// op is one operation of a Conn, queued to the poller.
type op struct {
	c    *Conn
	kind int
	id   uint64 // user data of its ring operation while in flight; 0: none

	// recvmsg's arguments.
	msg syscall.Msghdr
	iov syscall.Iovec
	oob [64]byte
	buf []byte

	// ReadEach's callbacks; nil for a single read.
	next func() []byte
	got  func(n int, err error) bool

	events    uint32 // a poll's events
	cancelled bool   // a cancellation was asked for: do not queue again (poller's)

	res  int32 // the result of a read or poll
	werr error // why a ReadEach stopped waiting (the poller's; nil when got ended it)
	done chan struct{}
}

const (
	opRead = iota
	opStream
	opPoll
	opCancel
	opClose
)

// request is what goroutines post to the poller.
type request struct {
	kind int // opRead, opStream, opPoll: start o; opCancel: cancel c's read or write op; opClose: close c
	o    *op
	c    *Conn
	wr   bool // opCancel: the write side
}

// poller owns a ring and runs the operations of its Conns.
type poller struct {
	ring *uring.Ring
	efd  int
	ebuf [8]byte

	mu       sync.Mutex
	inbox    []request
	sleeping bool // the poller blocks until a post writes efd (mu guards both)
	work     []request

	ops  map[uint64]*op
	next uint64
}

// The poller waits for batchEvents completions, or batchWindow after it
// started waiting, whichever comes first. With deferred task running
// (uring.SetupDeferTaskrun) the kernel then wakes it once per batch
// instead of once per arrival, and its reads happen when it asks for
// completions: a read may then find two arrivals of one stream, which
// share the later one's receive time, so the window bounds that error (and
// adds at most itself to the read lag, never to a timestamp).
const (
	ringFlags   = uring.SetupSingleIssuer | uring.SetupDeferTaskrun
	batchEvents = 64
	batchWindow = 200 * time.Microsecond
)

// efdID is the user data of the eventfd read that wakes the poller.
const efdID = 1

// poll(2) events.
const (
	pollIn  = 0x1
	pollOut = 0x4
)

var (
	pollers    []*poller
	pollerOnce sync.Once
	nextPoller atomic.Uint32
)

// maxPollers bounds the pollers: one per processor (GOMAXPROCS) up to it.
const maxPollers = 8

// getPoller starts the pollers on first use and returns the next one, in
// turn; nil when io_uring is off or unavailable. Each poller has a thread
// of its own: on a busy host the kernel may leave a runnable thread
// waiting for a CPU for milliseconds, and with one poller every stream
// would wait with it.
func getPoller() *poller {
	pollerOnce.Do(func() {
		if !enabled {
			return
		}
		procs := runtime.GOMAXPROCS(0)
		n := max(1, min(procs, maxPollers))
		for range n {
			ready := make(chan *poller)
			go func() {
				// The ring runs its operations' work (the reads) on the
				// thread that submitted them: keep it one thread, the
				// one that waits for them.
				runtime.LockOSThread()
				p := newPoller()
				ready <- p
				if p == nil {
					// Hand the thread back instead of ending it with this
					// goroutine: a thread that ends sends the parent-death
					// signal to the processes it started (a managed server).
					runtime.UnlockOSThread()
					return
				}
				p.run()
			}()
			if p := <-ready; p != nil {
				pollers = append(pollers, p)
			}
		}
		if len(pollers) > 0 {
			// Each poller waits holding its processor (see
			// uring.Ring.SubmitAndWaitTimeout), at most batchWindow at
			// a time: give the pollers processors of their own, so
			// that the rest of the program keeps as many as it had.
			runtime.GOMAXPROCS(procs + len(pollers))
		}
	})
	if len(pollers) == 0 {
		return nil
	}
	return pollers[int(nextPoller.Add(1))%len(pollers)]
}

// newPoller sets up the ring and the eventfd that wakes it, or returns nil.
func newPoller() *poller {
	ring, err := uring.NewWithFlags(4096, ringFlags)
	if err != nil && ringFlags != 0 {
		ring, err = uring.New(4096) // a kernel before 6.1
	}
	if err != nil {
		return nil
	}
	if ring.Features()&uring.FeatExtArg == 0 { // before Linux 5.11: no timed waits
		_ = ring.Close()
		return nil
	}
	efd, _, errno := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC, 0)
	if errno != 0 {
		_ = ring.Close()
		return nil
	}
	p := &poller{ring: ring, efd: int(efd), ops: map[uint64]*op{}, next: efdID + 1}
	if ring.PrepRead(p.efd, p.ebuf[:], efdID) != nil {
		_ = ring.Close()
		_ = syscall.Close(p.efd)
		return nil
	}
	return p
}

// Available reports whether connections can be adopted: Linux with
// io_uring on and working.
func Available() bool {
	getPoller()
	return len(pollers) > 0
}

// Adopt takes the TCP connection c (a *net.TCPConn, or a connection with a
// NetConn method leading to one, such as an rxtime.Conn) out of Go's
// poller and returns it as a Conn, or returns nil, with c untouched, when
// it cannot (not TCP, io_uring off or unavailable). On success c is
// closed: its descriptor was duplicated, so the connection itself stays
// open, owned by the Conn.
func Adopt(c net.Conn) *Conn {
	p := getPoller()
	if p == nil {
		return nil
	}
	tc := tcpConn(c)
	if tc == nil {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	if err := raw.Control(func(s uintptr) {
		nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, s, syscall.F_DUPFD_CLOEXEC, 0)
		if errno == 0 {
			fd = int(nfd)
		}
	}); err != nil || fd < 0 {
		return nil
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return nil
	}
	rc := &Conn{p: p, fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr(), rkick: make(chan struct{}, 1), wkick: make(chan struct{}, 1)}
	rc.rop = op{c: rc, done: make(chan struct{}, 1)}
	rc.wop = op{c: rc, done: make(chan struct{}, 1)}
	_ = tc.Close() // deregisters it from Go's poller; the duplicate keeps the socket
	return rc
}

// tcpConn finds the *net.TCPConn under c.
func tcpConn(c net.Conn) *net.TCPConn {
	for range 4 {
		if tc, ok := c.(*net.TCPConn); ok {
			return tc
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		c = u.NetConn()
	}
	return nil
}

// post hands r to the poller, waking it if it sleeps. A poller with
// operations in flight wakes every batchWindow anyway and finds r then;
// only an idle one blocks until woken (one eventfd write).
func (p *poller) post(r request) {
	p.mu.Lock()
	p.inbox = append(p.inbox, r)
	wake := p.sleeping
	p.sleeping = false
	p.mu.Unlock()
	if !wake {
		return
	}
	one := [8]byte{1}
	for {
		_, err := syscall.Write(p.efd, one[:])
		if err != syscall.EINTR {
			return
		}
	}
}

// run is the poller's goroutine.
func (p *poller) run() {
	for {
		p.mu.Lock()
		p.work, p.inbox = p.inbox, p.work[:0]
		// Nothing to start and nothing in flight but the eventfd read:
		// sleep until a post wakes it.
		idle := len(p.work) == 0 && len(p.ops) == 0
		p.sleeping = idle
		p.mu.Unlock()
		for i := range p.work {
			p.start(p.work[i])
			p.work[i] = request{}
		}
		var err error
		if idle {
			_, err = p.ring.SubmitAndWait(1) // the eventfd read completes
		} else {
			_, err = p.ring.SubmitAndWaitTimeout(batchEvents, batchWindow)
		}
		if err != nil && err != syscall.EAGAIN && err != syscall.EBUSY {
			// Cannot happen with a valid ring: the eventfd read is
			// always in flight. Back off rather than spin.
			time.Sleep(time.Millisecond)
		}
		p.ring.Reap(p.complete)
	}
}

// queue queues a ring operation for o under a new id; it submits first
// when the ring is full.
func (p *poller) queue(o *op, prep func(id uint64) error) {
	p.next++
	id := p.next
	for prep(id) == uring.ErrFull {
		_, _ = p.ring.Submit()
	}
	o.id = id
	p.ops[id] = o
	o.c.inflight++
}

// start begins what a goroutine asked for.
func (p *poller) start(r request) {
	switch r.kind {
	case opRead, opStream:
		o := r.o
		o.cancelled = o.c.closing
		if o.cancelled {
			p.finish(o, -int32(syscall.ECANCELED))
			return
		}
		p.queueRecv(o)
	case opPoll:
		o := r.o
		if o.c.closing {
			o.res = -int32(syscall.ECANCELED)
			o.done <- struct{}{}
			return
		}
		p.queue(o, func(id uint64) error { return p.ring.PrepPollAdd(o.c.fd, o.events, id) })
	case opCancel:
		o := &r.c.rop
		if r.wr {
			o = &r.c.wop
		}
		p.cancel(o)
	case opClose:
		c := r.c
		c.closing = true
		p.cancel(&c.rop)
		p.cancel(&c.wop)
		p.maybeClose(c)
	}
}

// cancel cancels o's ring operation, if one is in flight.
func (p *poller) cancel(o *op) {
	o.cancelled = true
	if o.id == 0 {
		return
	}
	p.next++
	id := p.next
	for p.ring.PrepCancel(o.id, id) == uring.ErrFull {
		_, _ = p.ring.Submit()
	}
}

// queueRecv queues a recvmsg into the next buffer of o.
func (p *poller) queueRecv(o *op) {
	b := o.buf
	if o.next != nil {
		b = o.next()
	}
	o.iov.Base = unsafe.SliceData(b)
	o.iov.SetLen(len(b))
	o.msg = syscall.Msghdr{Iov: &o.iov, Iovlen: 1, Control: &o.oob[0]}
	o.msg.SetControllen(len(o.oob))
	p.queue(o, func(id uint64) error { return p.ring.PrepRecvmsg(o.c.fd, &o.msg, 0, id) })
}

// complete handles one completion.
func (p *poller) complete(cq uring.Completion) {
	if cq.UserData == efdID {
		if p.ring.PrepRead(p.efd, p.ebuf[:], efdID) != nil {
			_, _ = p.ring.Submit()
			_ = p.ring.PrepRead(p.efd, p.ebuf[:], efdID)
		}
		return
	}
	o, ok := p.ops[cq.UserData]
	if !ok {
		return // a cancellation's own completion
	}
	delete(p.ops, cq.UserData)
	o.id = 0
	o.c.inflight--
	switch o.kind {
	case opPoll:
		o.res = cq.Res
		o.done <- struct{}{}
	default:
		p.finish(o, cq.Res)
	}
	p.maybeClose(o.c)
}

// finish handles the result res of a read or of one of ReadEach's reads.
func (p *poller) finish(o *op, res int32) {
	c := o.c
	if res > 0 {
		c.lastRx.Store(rxtime.Timestamp(o.oob[:o.msg.Controllen]))
	}
	if o.got == nil { // a single read
		o.res = res
		o.done <- struct{}{}
		return
	}
	var more bool
	switch {
	case res == -int32(syscall.ECANCELED):
		o.werr = c.waitError(false)
	case res < 0:
		o.got(0, c.opError("read", os.NewSyscallError("recvmsg", syscall.Errno(-res))))
	case res == 0:
		o.got(0, io.EOF)
	default:
		more = o.got(int(res), nil)
		if more && o.cancelled {
			more, o.werr = false, c.waitError(false)
		}
	}
	if more {
		p.queueRecv(o)
		return
	}
	o.done <- struct{}{}
}

// maybeClose closes a closing Conn's descriptor once nothing of it is in
// flight.
func (p *poller) maybeClose(c *Conn) {
	if c.closing && c.inflight == 0 && !c.fdClosed {
		_ = syscall.Close(c.fd)
		c.fdClosed = true
	}
}

// waitError is the error of an operation that stopped waiting: the
// connection closed, or a deadline passed.
func (c *Conn) waitError(write bool) error {
	if c.closed.Load() {
		return c.opError(map[bool]string{false: "read", true: "write"}[write], net.ErrClosed)
	}
	if write {
		return c.opError("write", os.ErrDeadlineExceeded)
	}
	return c.opError("read", os.ErrDeadlineExceeded)
}

// opError wraps err as the net package does.
func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
}

// wait waits for o's completion, cancelling o when the deadline dl passes
// (or is moved into the past) or the connection is closed. The operation
// has completed when it returns.
func (c *Conn) wait(o *op, dl *atomic.Int64, write bool) {
	kick := c.rkick
	if write {
		kick = c.wkick
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		var tc <-chan time.Time
		if d := dl.Load(); d != 0 {
			left := time.Until(time.Unix(0, d))
			if left <= 0 || c.closed.Load() {
				c.p.post(request{kind: opCancel, c: c, wr: write})
				<-o.done
				return
			}
			if timer == nil {
				timer = time.NewTimer(left)
			} else {
				timer.Reset(left)
			}
			tc = timer.C
		} else if c.closed.Load() {
			c.p.post(request{kind: opCancel, c: c, wr: write})
			<-o.done
			return
		}
		select {
		case <-o.done:
			return
		case <-kick: // a deadline changed, or Close: look again
		case <-tc:
		}
	}
}

// poke wakes the operation waiting on kick, if any, to look again.
func poke(kick chan struct{}) {
	select {
	case kick <- struct{}{}:
	default:
	}
}

// Read reads into p through the poller.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if err := c.ready(&c.rd, false); err != nil {
		return 0, err
	}
	o := &c.rop
	o.kind, o.buf, o.next, o.got, o.werr = opRead, p, nil, nil, nil
	c.p.post(request{kind: opRead, o: o})
	c.wait(o, &c.rd, false)
	o.buf = nil
	switch res := o.res; {
	case res > 0:
		return int(res), nil
	case res == 0:
		return 0, io.EOF
	case res == -int32(syscall.ECANCELED):
		return 0, c.waitError(false)
	default:
		return 0, c.opError("read", os.NewSyscallError("recvmsg", syscall.Errno(-res)))
	}
}

// ready returns the error an operation meets before it starts: the
// connection is closed, or its deadline dl has passed.
func (c *Conn) ready(dl *atomic.Int64, write bool) error {
	if c.closed.Load() {
		return c.waitError(write)
	}
	if d := dl.Load(); d != 0 && time.Now().UnixNano() >= d {
		return c.waitError(write)
	}
	return nil
}

// ReadEach reads the connection into the buffers next returns and calls got
// after each read with its byte count and error, io.EOF at the end, until
// got returns false or after a read that failed, as rxtime.Conn.ReadEach
// does; but the reads, and the calls of next and got, happen on the
// poller's goroutine, in turn with every other stream's, while the caller
// waits. next and got must not block. It returns the error of waiting (a
// deadline, the connection closed), which no read saw.
func (c *Conn) ReadEach(next func() []byte, got func(n int, err error) bool) error {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if err := c.ready(&c.rd, false); err != nil {
		return err
	}
	o := &c.rop
	o.kind, o.buf, o.next, o.got, o.werr = opStream, nil, next, got, nil
	c.p.post(request{kind: opStream, o: o})
	c.wait(o, &c.rd, false)
	o.next, o.got = nil, nil
	return o.werr
}

// Write writes p with non-blocking write(2)s, waiting through the poller
// while the socket is full.
func (c *Conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	n := 0
	for n < len(p) {
		if err := c.ready(&c.wd, true); err != nil {
			return n, err
		}
		m, err := syscall.Write(c.fd, p[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			if err := c.poll(&c.wop, pollOut, &c.wd, true); err != nil {
				return n, err
			}
			continue
		case err != nil:
			return n, c.opError("write", os.NewSyscallError("write", err))
		}
		n += m
	}
	return n, nil
}

// poll waits through the poller until the socket is ready for events.
func (c *Conn) poll(o *op, events uint32, dl *atomic.Int64, write bool) error {
	o.kind, o.events = opPoll, events
	c.p.post(request{kind: opPoll, o: o})
	c.wait(o, dl, write)
	if o.res == -int32(syscall.ECANCELED) {
		return c.waitError(write)
	}
	if o.res < 0 {
		return c.opError("poll", os.NewSyscallError("poll", syscall.Errno(-o.res)))
	}
	return nil
}

// Close closes the connection: operations waiting on it end with
// net.ErrClosed, and the poller closes the descriptor once none of its
// operations is in flight. Close does not wait for that (closing the
// thousands of connections pre-dialled for a run that did not use them
// would otherwise hold their closer for one poller round each); it waits
// only for a read or write of the caller's that is under way.
func (c *Conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return c.opError("close", net.ErrClosed)
	}
	poke(c.rkick)
	poke(c.wkick)
	// Waiting operations end now; one in a write(2) or a raw callback
	// finishes it. Then nothing of the caller's uses the descriptor
	// (every use checks closed first).
	c.rmu.Lock()
	c.wmu.Lock()
	c.p.post(request{kind: opClose, c: c})
	c.wmu.Unlock()
	c.rmu.Unlock()
	return nil
}

// LocalAddr returns the local address.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// RemoteAddr returns the remote address.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline sets the read and write deadlines.
func (c *Conn) SetDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opError("set", net.ErrClosed)
	}
	c.setDeadline(&c.rd, t)
	c.setDeadline(&c.wd, t)
	return nil
}

// SetReadDeadline sets the deadline of reads and ReadEach. On a closed
// connection it fails with net.ErrClosed, as a net.TCPConn's does.
func (c *Conn) SetReadDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opError("set", net.ErrClosed)
	}
	c.setDeadline(&c.rd, t)
	return nil
}

// SetWriteDeadline sets the deadline of writes. On a closed connection it
// fails with net.ErrClosed.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opError("set", net.ErrClosed)
	}
	c.setDeadline(&c.wd, t)
	return nil
}

func (c *Conn) setDeadline(dl *atomic.Int64, t time.Time) {
	if t.IsZero() {
		dl.Store(0)
	} else {
		dl.Store(max(t.UnixNano(), 1))
	}
	if dl == &c.rd {
		poke(c.rkick)
	} else {
		poke(c.wkick)
	}
}

// Age returns how long before now the data of the last read arrived, and
// false when that is unknown (as rxtime.Conn.Age).
func (c *Conn) Age(now time.Time) (time.Duration, bool) {
	rx := c.lastRx.Load()
	if rx == 0 {
		return 0, false
	}
	age := time.Duration(now.UnixNano() - rx)
	if age < 0 || age > maxAge {
		return 0, false
	}
	return age, true
}

// DelayAcks puts the connection's TCP acknowledgements in delayed
// ("ping-pong") mode, as if it were answering its peer (TCP_QUICKACK 0):
// while small segments arrive less than the delayed-ACK timeout apart
// (40 ms or more), the kernel acknowledges every second one instead of
// each one it reads. A stream of token events then costs both ends half
// the acknowledgements, which on loopback cost about as much as the events
// themselves. The mode ends by itself after a longer pause; errors are
// ignored. Call it while the connection is open: from a ReadEach's got, or
// from the goroutine that owns the connection.
func (c *Conn) DelayAcks() {
	if fd := c.sysfd(); fd >= 0 {
		_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 0)
	}
}

// sysfd returns the descriptor, or -1 once closed. The caller holds no
// guarantee beyond the connection being open when it asked; the methods
// that use it run while the caller owns the connection.
func (c *Conn) sysfd() int {
	if c.closed.Load() {
		return -1
	}
	return c.fd
}

// SyscallConn returns a syscall.RawConn for control calls and for
// non-waiting looks at the socket (a recv with MSG_PEEK|MSG_DONTWAIT).
func (c *Conn) SyscallConn() (syscall.RawConn, error) { return rawConn{c}, nil }

type rawConn struct{ c *Conn }

// Control calls f with the descriptor. It must not race the connection's
// Close.
func (r rawConn) Control(f func(fd uintptr)) error {
	fd := r.c.sysfd()
	if fd < 0 {
		return net.ErrClosed
	}
	f(uintptr(fd))
	return nil
}

// Read calls f with the descriptor until it returns true, waiting for the
// socket to be readable between calls.
func (r rawConn) Read(f func(fd uintptr) bool) error {
	c := r.c
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for {
		if err := c.ready(&c.rd, false); err != nil {
			return err
		}
		if f(uintptr(c.fd)) {
			return nil
		}
		if err := c.poll(&c.rop, pollIn, &c.rd, false); err != nil {
			return err
		}
	}
}

// Write calls f with the descriptor until it returns true, waiting for the
// socket to be writable between calls.
func (r rawConn) Write(f func(fd uintptr) bool) error {
	c := r.c
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for {
		if err := c.ready(&c.wd, true); err != nil {
			return err
		}
		if f(uintptr(c.fd)) {
			return nil
		}
		if err := c.poll(&c.wop, pollOut, &c.wd, true); err != nil {
			return err
		}
	}
}
