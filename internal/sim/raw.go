package sim

import (
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// On a server made by [Start], a streaming response writes its events
// straight to the connection, not through net/http's ResponseWriter: each
// event is then one write on the TCP connection, without the two buffered
// writers, the chunk writer and the formatting net/http puts before it.
// net/http still frames the response: it writes the head (chunked, as it
// would) when the stream starts, and the last chunk when the handler
// returns, and then goes on with the connection as after any response
// (keep-alive, pipelined requests, "Connection: close"). In between it
// writes nothing, so each event can go out as one HTTP/1.1 chunk of the
// stream's own making. Its background read of the connection cancels the
// request's context when the client goes away, until a byte of a request
// pipelined behind the stream arrives: net/http then stops reading, and a
// client that leaves after that is noticed when a write to it fails (and
// [Server.Close] ends the stream through the server's own context).

// chunkRoom is the room left before an event's bytes for its chunk-size
// line: up to 16 hex digits and CRLF.
const chunkRoom = 18

// lastChunk ends a chunked body.
const lastChunk = "0\r\n\r\n"

// servedConnKey is the context key under which Start's server stores the
// connection a request came in on (see connContext).
type servedConnKey struct{}

// takeOver has net/http send the response head and readies g to write the
// events on the connection itself. It returns false, having changed
// nothing, when the connection cannot be written directly (a server not
// made by Start, not HTTP/1.1); then net/http writes the whole response.
// Once it returned true, g.raw is set, and a failure to send the head
// shows as the stream's first write failing.
func (g *generation) takeOver(r *http.Request) bool {
	if r.ProtoMajor != 1 || r.ProtoMinor < 1 {
		return false
	}
	c, _ := r.Context().Value(servedConnKey{}).(net.Conn)
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	g.raw, g.sysConn, g.nbWrite = c, raw, g.writeNB
	g.rc = http.NewResponseController(g.w)
	g.w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	g.w.WriteHeader(http.StatusOK)
	if g.rc.Flush() != nil {
		_ = c.Close() // the first event's write fails too
	}
	return true
}

// streamRaw writes the stream on the connection and returns whether it
// completed; [generation.finishRaw] then ends the response.
func (g *generation) streamRaw() bool {
	g.nonblock = true
	lp := pickLoop()
	g.dupSendFD()
	ok := lp.serve(g)
	g.closeSendFD()
	g.nonblock = false
	if g.stalled {
		ok = g.finishSlow()
	}
	g.rawOK = ok && g.ctx.Err() == nil
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

// finishRaw ends a response whose stream wrote the connection itself. A
// complete one is ended by net/http's last chunk when the handler returns,
// once the request's metrics are complete (the handler runs finishRaw
// last), so a client that has read the whole response sees them in
// /metrics. After a failed stream it closes the connection, so that
// net/http's last chunk cannot make the cut response look complete; and
// with Config.CloseAfterStream it takes the connection from net/http,
// ends the response and closes the connection later, unannounced (a
// client that asked for "Connection: close" has it closed by net/http).
func (g *generation) finishRaw(r *http.Request) {
	if g.raw == nil {
		return
	}
	s := g.s
	switch {
	case !g.rawOK:
		_ = g.raw.Close()
	case s.cfg.CloseAfterStream && !r.Close:
		conn, _, err := g.rc.Hijack()
		if err != nil { // cannot happen on Start's server: net/http ends it
			return
		}
		if _, err := conn.Write([]byte(lastChunk)); err != nil {
			_ = conn.Close()
			return
		}
		s.conns.closeLater(conn, s.cfg.CloseAfterStreamDelay)
	}
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
