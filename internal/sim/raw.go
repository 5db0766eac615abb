package sim

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// On a server made by [Start], a streaming response takes its connection
// over from net/http (http.Hijacker) and writes the HTTP/1.1 chunked framing
// itself: each event is then one Write on the TCP connection, without the
// two buffered writers, the chunk writer and the formatting net/http puts
// before it. When the
// stream ends the connection goes back to net/http through the listener
// (injectListener), so a keep-alive client keeps its connection. While it
// streams, a watcher goroutine reads the connection, as net/http would, to
// notice a client that goes away.

// chunkRoom is the room left before an event's bytes for its chunk-size
// line: up to 16 hex digits and CRLF.
const chunkRoom = 18

// lastChunk ends a chunked body.
const lastChunk = "0\r\n\r\n"

// injectListener is a listener whose Accept also returns connections handed
// back by streams that took them over.
type injectListener struct {
	net.Listener
	accepted chan acceptResult
	mu       sync.Mutex
	closed   bool
	injected chan net.Conn
	done     chan struct{}
	pump     sync.Once
}

type acceptResult struct {
	c   net.Conn
	err error
}

func newInjectListener(ln net.Listener) *injectListener {
	return &injectListener{
		Listener: ln,
		accepted: make(chan acceptResult),
		injected: make(chan net.Conn, 4096),
		done:     make(chan struct{}),
	}
}

// Accept returns the next handed-back or newly accepted connection.
func (l *injectListener) Accept() (net.Conn, error) {
	l.pump.Do(func() { go l.acceptLoop() })
	select {
	case c := <-l.injected:
		return c, nil
	case r := <-l.accepted:
		return r.c, r.err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// acceptLoop accepts from the real listener until it fails for good.
func (l *injectListener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		select {
		case l.accepted <- acceptResult{c, err}:
		case <-l.done:
			if c != nil {
				_ = c.Close()
			}
			return
		}
		if errors.Is(err, net.ErrClosed) {
			return
		}
		// Other errors (a timeout, "too many open files") are passed on:
		// net/http's Serve backs off and accepts again, or gives up.
	}
}

// inject hands c back to the server, or closes it once the listener is
// closed (or, which does not happen in practice, too many wait).
func (l *injectListener) inject(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = c.Close()
		return
	}
	select {
	case l.injected <- c:
	default:
		_ = c.Close()
	}
}

// Close closes the listener and the connections waiting to be served.
func (l *injectListener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	close(l.done)
	l.mu.Unlock()
	for {
		select {
		case c := <-l.injected:
			_ = c.Close()
		default:
			return l.Listener.Close()
		}
	}
}

// prefixConn is a connection whose first reads return bytes already read
// from it.
type prefixConn struct {
	net.Conn
	prefix []byte
}

// Read returns the remaining prefix, then reads the connection.
func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// NetConn returns the wrapped connection.
func (c *prefixConn) NetConn() net.Conn { return c.Conn }

// SyscallConn returns the wrapped connection's, so that a stream on it can
// still be written without blocking (the prefix only concerns reads).
func (c *prefixConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

// takeOver hijacks g's connection and sends the response head. It returns
// false, having changed nothing, when the connection cannot be taken over (a
// server not made by Start, not HTTP/1.1); then net/http writes the
// response. Once it returned true, g.raw is set, and a failure to send the
// head shows as the stream's first write failing.
func (g *generation) takeOver(r *http.Request) bool {
	s := g.s
	if s.listener == nil || r.ProtoMajor != 1 || r.ProtoMinor < 1 {
		return false
	}
	conn, brw, err := http.NewResponseController(g.w).Hijack()
	if err != nil {
		return false
	}
	if sc, ok := conn.(syscall.Conn); ok {
		g.sysConn, _ = sc.SyscallConn()
		g.nbWrite = g.writeNB
	}
	g.raw, g.closeAfter = conn, r.Close
	if n := brw.Reader.Buffered(); n > 0 { // a pipelined request
		b, _ := brw.Reader.Peek(n)
		g.stash = append([]byte(nil), b...)
	}
	s.track(conn, true)
	h := g.buf[:0]
	h = append(h, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"...)
	if id := g.w.Header().Get("X-Request-Id"); id != "" {
		h = append(h, "X-Request-Id: "...)
		h = append(h, id...)
		h = append(h, "\r\n"...)
	}
	h = append(h, "Date: "...)
	h = time.Now().UTC().AppendFormat(h, http.TimeFormat)
	h = append(h, "\r\nTransfer-Encoding: chunked\r\n"...)
	if g.closeAfter {
		h = append(h, "Connection: close\r\n"...)
	}
	h = append(h, "\r\n"...)
	g.buf = h
	if _, err := conn.Write(h); err != nil {
		_ = conn.Close() // the first event's write fails too
	}
	return true
}

// watch reads the taken-over connection until the stream ends (stop is
// closed and the read interrupted) and cancels the stream when the client
// goes away. Bytes that arrive meanwhile (a pipelined request) are kept for
// the connection's next request. It closes gone when it returns.
func (g *generation) watch(cancel context.CancelFunc, stop <-chan struct{}, gone chan<- struct{}) {
	defer close(gone)
	var buf [512]byte
	for {
		n, err := g.raw.Read(buf[:])
		if n > 0 && len(g.stash) < 1<<20 {
			g.stash = append(g.stash, buf[:n]...)
		}
		if err == nil {
			continue
		}
		select {
		case <-stop: // interrupted on purpose
		default:
			cancel()
		}
		return
	}
}

// streamRaw writes the stream on the taken-over connection and returns
// whether it completed; [generation.finishRaw] then ends the response.
func (g *generation) streamRaw() bool {
	ctx, cancel := context.WithCancel(g.ctx)
	defer cancel()
	g.ctx = ctx
	stop, gone := make(chan struct{}), make(chan struct{})
	go g.watch(cancel, stop, gone)
	var ok bool
	if g.sysConn != nil {
		g.nonblock = true
		lp := pickLoop()
		g.dupSendFD()
		ok = lp.serve(g)
		g.closeSendFD()
		g.nonblock = false
	}
	if g.sysConn == nil || g.stalled {
		ok = g.finishSlow()
	}
	g.rawOK = ok && ctx.Err() == nil
	close(stop)
	_ = g.raw.SetReadDeadline(time.Unix(1, 0)) // interrupt the watcher
	<-gone
	return g.rawOK
}

// closeSendFD closes g.sendFD once the loop has let go of the stream.
func (g *generation) closeSendFD() {
	if g.sendFD >= 0 {
		_ = syscall.Close(g.sendFD)
		g.sendFD = -1
	}
}

// finishSlow writes what a stalled stream could not write, and then the
// rest of the stream, from the handler's goroutine with blocking writes.
func (g *generation) finishSlow() bool {
	if g.ctx.Err() != nil {
		return false
	}
	if len(g.unsent) > 0 {
		if _, err := g.raw.Write(g.unsent); err != nil {
			return false
		}
		g.unsent = g.unsent[:0]
	}
	g.stalled = false
	if g.unrecorded > 0 { // the stalled write's events are out now
		g.recordWritten(g.unrecorded, time.Now())
		g.unrecorded = 0
	}
	return g.ctx.Err() == nil && g.writeRest()
}

// tryWrite writes b without waiting. What the socket does not take now is
// kept in g.unsent and marks the stream stalled.
func (g *generation) tryWrite(b []byte) error {
	g.nb = nbWrite{b: b}
	err := g.sysConn.Write(g.nbWrite) // a method value made once: no allocation per write
	if err == nil {
		err = g.nb.err
	}
	n := max(g.nb.n, 0)
	g.nb.b = nil
	return g.settle(b, n, err)
}

// sent settles the send of g.loop.out through a stream loop's ring, which
// wrote n bytes and failed with err, records its events, and returns
// whether the stream can go on.
func (g *generation) sent(n int, err error) bool {
	b := g.loop.out
	g.loop.out = nil
	if g.settle(b, n, err) != nil {
		return false
	}
	g.wrote(g.loop.events)
	return true
}

// settle takes the outcome of a non-blocking write of b that wrote n bytes
// and failed with err: what the socket did not take is kept in g.unsent and
// marks the stream stalled; an error other than EAGAIN is returned.
func (g *generation) settle(b []byte, n int, err error) error {
	if err == syscall.EAGAIN || (err == nil && n < len(b)) {
		g.stalled = true
		g.unsent = append(g.unsent[:0], b[n:]...)
		return nil
	}
	return err
}

// nbWrite is one non-blocking write: its bytes, and what write(2) said.
type nbWrite struct {
	b   []byte
	n   int
	err error
}

// writeNB is the syscall.RawConn callback of tryWrite: one write(2) of
// g.nb.b, retried on EINTR, never waiting for the socket.
func (g *generation) writeNB(fd uintptr) bool {
	for {
		g.nb.n, g.nb.err = syscall.Write(int(fd), g.nb.b)
		if g.nb.err != syscall.EINTR {
			return true
		}
	}
}

// finishRaw ends a taken-over response: it writes the last chunk and hands
// the connection back to the server, or closes it after a failed stream or
// a "Connection: close" request. The handler runs it last, once the
// request's metrics are complete, so a client that has read the whole
// response sees them in /metrics, as with net/http's own last chunk.
func (g *generation) finishRaw() {
	if g.raw == nil {
		return
	}
	s := g.s
	s.track(g.raw, false)
	if !g.rawOK {
		_ = g.raw.Close()
		return
	}
	if g.closeAfter {
		_, _ = g.raw.Write([]byte(lastChunk))
		closeGently(g.raw)
		return
	}
	if _, err := g.raw.Write([]byte(lastChunk)); err != nil {
		_ = g.raw.Close()
		return
	}
	if s.cfg.CloseAfterStream {
		s.conns.closeLater(g.raw, s.cfg.CloseAfterStreamDelay)
		return
	}
	_ = g.raw.SetReadDeadline(time.Time{})
	_ = g.raw.SetWriteDeadline(time.Time{})
	c := g.raw
	switch pc, ok := c.(*prefixConn); {
	case ok: // already wrapped: its prefix was read; the stash is next
		pc.prefix = g.stash
	case len(g.stash) > 0:
		c = &prefixConn{Conn: c, prefix: g.stash}
	}
	s.listener.inject(c)
}

// closeGentlyDelay is how long a connection closed after a "Connection:
// close" response stays open for reading after its write side is shut, so
// that late client bytes do not make the kernel reset it (and drop the end
// of the response), as net/http does.
const closeGentlyDelay = 500 * time.Millisecond

// closeGently shuts c's write side at once and closes it a moment later.
func closeGently(c net.Conn) {
	cw, ok := c.(interface{ CloseWrite() error })
	if !ok {
		_ = c.Close()
		return
	}
	_ = cw.CloseWrite()
	time.AfterFunc(closeGentlyDelay, func() { _ = c.Close() })
}

// frame turns the event bytes in b[chunkRoom:] into one chunk of the
// response body and returns the bytes to write.
func (g *generation) frame(b []byte) []byte {
	n := len(b) - chunkRoom
	var size [chunkRoom]byte
	line := strconv.AppendInt(size[:0], int64(n), 16)
	line = append(line, '\r', '\n')
	start := chunkRoom - len(line)
	copy(b[start:], line)
	b = append(b, '\r', '\n')
	return b[start:]
}

// track records (on) or forgets a taken-over connection, which Close must
// close itself since net/http no longer knows it. A connection taken over
// while the server closes is closed at once.
func (s *Server) track(c net.Conn, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !on:
		delete(s.hijacked, c)
	case s.closing:
		_ = c.Close()
	default:
		if s.hijacked == nil {
			s.hijacked = map[net.Conn]struct{}{}
		}
		s.hijacked[c] = struct{}{}
	}
}

// closeHijacked closes every taken-over connection, now and from now on.
func (s *Server) closeHijacked() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for c := range s.hijacked {
		_ = c.Close()
	}
}
