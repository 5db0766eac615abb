package backend

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/ringnet"
)

// This file is the lean HTTP/1.1 client Send uses for plain http:// URLs
// without a proxy. net/http costs a reader and a writer goroutine per
// connection, a wakeup per event and several wrapper layers around the
// body; here the goroutine that calls Send writes the request with one
// system call, reads the connection into the SSE framer's buffer,
// removes the chunked framing in place and frames messages from the same
// bytes. https, proxies and odd configurations stay on net/http.

const (
	// h1IdleTimeout is how long an idle connection may be reused; older
	// ones are closed (net/http's IdleConnTimeout as the Client sets it).
	h1IdleTimeout = 60 * time.Second
	// h1MaxHeaderBytes bounds a response head (status line and headers).
	h1MaxHeaderBytes = 1 << 20
	// h1MaxChunkLine bounds a chunk-size or trailer line.
	h1MaxChunkLine = 4 << 10
	// h1InlineBody is the largest request body copied behind the head into
	// the connection's write buffer; larger ones are written with the head
	// in one writev, so a 200 KB prompt is not copied and buffers stay small.
	h1InlineBody = 16 << 10
	// h1Max1xx bounds the informational responses skipped before the real one.
	h1Max1xx = 5
)

// h1Client sends requests over HTTP/1.1 to one host, with a pool of
// keep-alive connections.
type h1Client struct {
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	take    func(addr string) net.Conn // a connection dialled before the run, or nil; may be nil
	addr    string                     // host:port to dial
	url     string                     // the URL for error texts, password redacted
	head    []byte                     // request line, Host and User-Agent
	header  []byte                     // the client's headers but X-Request-Id, rendered
	ownID   []byte                     // a configured X-Request-Id line, sent when the request has no id
	timeout time.Duration              // bounds one request; 0 = none
	pool    h1Pool
	// closesAfterResponse is set once the server was seen to close a
	// connection right after its response (see noteStale): connections
	// are then not reused.
	closesAfterResponse atomic.Bool
}

// newH1Client returns the lean client for u, or nil when u needs net/http:
// not plain http, a proxy configured for it, or a header net/http would
// reject (net/http then reports the error as before), or user info in
// the URL.
func newH1Client(u *url.URL, header http.Header, cfg Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *h1Client {
	if u.Scheme != "http" || u.Host == "" || u.User != nil {
		return nil // net/http turns user info into basic auth
	}
	if proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err != nil || proxy != nil {
		return nil
	}
	if !validHeaderValue(u.Host) || !validHeaderValue(u.RequestURI()) || strings.ContainsAny(u.RequestURI(), " ") {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	h := &h1Client{dial: dial, addr: net.JoinHostPort(u.Hostname(), port), url: u.Redacted(), timeout: cfg.Timeout}
	h.pool.max = cfg.MaxConns
	ua := "vbench"
	keys := make([]string, 0, len(header))
	for k := range header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !validHeaderName(k) {
			return nil
		}
		for _, v := range header[k] {
			if !validHeaderValue(v) {
				return nil
			}
		}
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Content-Length", "Transfer-Encoding", "Trailer", "Connection":
			continue // the client writes these itself (net/http ignores them too)
		case "User-Agent":
			if len(header[k]) > 0 {
				ua = header[k][0]
			}
			continue
		case "X-Request-Id":
			for _, v := range header[k] {
				h.ownID = append(append(append(append(h.ownID, k...), ": "...), strings.TrimSpace(v)...), "\r\n"...)
			}
			continue
		}
		for _, v := range header[k] {
			h.header = append(append(append(append(h.header, k...), ": "...), strings.TrimSpace(v)...), "\r\n"...)
		}
	}
	h.head = append(h.head, "POST "+u.RequestURI()+" HTTP/1.1\r\nHost: "+u.Host+"\r\n"...)
	if ua != "" {
		h.head = append(h.head, "User-Agent: "+ua+"\r\n"...)
	}
	return h
}

// validHeaderName reports whether k is an HTTP token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v can be written as a header value.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// h1Conn is one pooled connection.
type h1Conn struct {
	net.Conn
	wbuf   []byte    // the rendered request, reused
	idleAt time.Time // when it was returned to the pool
	used   bool      // it carried a response: it may have gone stale idle
	peek   *h1Peek   // looks whether the server closed it while idle; may be nil
}

// h1Pool holds a client's connections: idle ones in LIFO order (the most
// recently used is reused first, so surplus ones age out), and at most
// max connections in all when max > 0; Sends beyond it wait their turn.
type h1Pool struct {
	max     int
	mu      sync.Mutex
	idle    []*h1Conn
	open    int              // connections that exist or are being dialled
	waiters []chan *h1Conn   // FIFO; receive a connection, or nil: dial one
	now     func() time.Time // time.Now if nil; tests set it
}

func (p *h1Pool) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// get returns an idle connection, a new one, or, at the limit, the first
// one another Send gives back, honouring ctx while it waits. ready reports
// a connection that was there to take, idle in the pool or dialled before
// the run: get neither dialled nor waited.
func (p *h1Pool) get(ctx context.Context, h *h1Client) (cn *h1Conn, ready bool, err error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		cn := p.idle[n-1]
		if p.clock().Sub(cn.idleAt) <= h1IdleTimeout {
			p.idle[n-1] = nil
			p.idle = p.idle[:n-1]
			p.mu.Unlock()
			return cn, true, nil
		}
		// The newest is too old, so all are: close them.
		stale := p.idle
		p.idle = nil
		p.mu.Unlock()
		for _, cn := range stale {
			p.discard(cn)
		}
		return p.get(ctx, h)
	}
	if p.max <= 0 || p.open < p.max {
		p.open++
		p.mu.Unlock()
		return p.dial(ctx, h)
	}
	w := make(chan *h1Conn, 1)
	p.waiters = append(p.waiters, w)
	p.mu.Unlock()
	select {
	case cn := <-w:
		if cn == nil {
			cn, _, err = p.dial(ctx, h)
			return cn, false, err
		}
		return cn, false, nil
	case <-ctx.Done():
		p.mu.Lock()
		for i, x := range p.waiters {
			if x == w {
				p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
				p.mu.Unlock()
				return nil, false, ctx.Err()
			}
		}
		p.mu.Unlock()
		// Handed a connection or a slot as ctx ended: pass it on.
		if cn := <-w; cn != nil {
			p.put(cn)
		} else {
			p.release()
		}
		return nil, false, ctx.Err()
	}
}

// dial opens a connection in a slot already counted in open, or takes one
// dialled before the run (pre reports it).
func (p *h1Pool) dial(ctx context.Context, h *h1Client) (cn *h1Conn, pre bool, err error) {
	var conn net.Conn
	if h.take != nil {
		conn = h.take(h.addr)
	}
	if pre = conn != nil; !pre {
		if conn, err = h.dial(ctx, "tcp", h.addr); err != nil {
			p.release()
			return nil, false, err
		}
	}
	if rc := ringnet.Adopt(conn); rc != nil {
		conn = rc // off Go's poller: its streams are read on the ring
	}
	return &h1Conn{Conn: conn, peek: newH1Peek(conn)}, pre, nil
}

// put returns a reusable connection: to the first waiter, else to the
// idle stack.
func (p *h1Pool) put(cn *h1Conn) {
	cn.used = true
	cn.idleAt = p.clock()
	p.mu.Lock()
	if w := p.firstWaiter(); w != nil {
		p.mu.Unlock()
		w <- cn
		return
	}
	p.idle = append(p.idle, cn)
	p.mu.Unlock()
}

// firstWaiter removes and returns the Send that has waited longest for a
// connection, or nil; p.mu is held.
func (p *h1Pool) firstWaiter() chan *h1Conn {
	if len(p.waiters) == 0 {
		return nil
	}
	w := p.waiters[0]
	p.waiters = p.waiters[1:]
	return w
}

// discard closes a connection that cannot be reused and frees its slot.
func (p *h1Pool) discard(cn *h1Conn) {
	_ = cn.Close()
	p.release()
}

// release frees one connection's slot: the first waiter may dial.
func (p *h1Pool) release() {
	p.mu.Lock()
	if w := p.firstWaiter(); w != nil {
		p.mu.Unlock()
		w <- nil
		return
	}
	p.open--
	p.mu.Unlock()
}

// closeIdle closes the idle connections; the pool stays usable.
func (p *h1Pool) closeIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, cn := range idle {
		p.discard(cn)
	}
}

// sendH1 is Send over the lean client. rec.Start is taken before a
// connection is acquired, as the net/http path takes it before Do, so
// that it includes dialling and waiting for a connection under MaxConns.
// When a connection was there to take (idle in the pool, or dialled before
// the run: nothing to dial or wait for), rec.Start is taken again just
// before the request's first write: what lies between
// the two is the client's own work and scheduling, which in a burst of a
// thousand requests took up to 60 ms on a loaded host (measured on the
// wire), and belongs to the request's queue time (Start-Released), not to
// the server's latency. When a reused keep-alive connection turns out to
// have been finished with by the server before it read the request, the
// request is sent once more on a new connection and rec.Start is taken
// again: when a look at the socket before writing shows that the server
// closed it while it was idle, when the write fails before any byte went
// out, or when the connection is reset or ends before any response byte
// with the request unread (see h1Exchange.unread). A request the server
// may have read is never sent twice: a connection that ends after the
// server acknowledged the request is the request's error ("the server
// closed the connection before answering"), as net/http does not resend a
// POST it has written either.
func (c *Client) sendH1(ctx context.Context, p *Prepared, rec *record.Record, now func() time.Duration) {
	h := c.h1
	trace := httptrace.ContextClientTrace(ctx)
	rec.Start = now()
	var deadline time.Time
	if h.timeout > 0 {
		deadline = time.Now().Add(h.timeout)
	}
	cn, ready, err := h.pool.get(ctx, h)
	if err != nil {
		rec.Error = c.requestError(h.headError(ctx, err))
		return
	}
	for retried := false; ; retried = true {
		x := h1Exchange{h: h, cn: cn, deadline: deadline, retried: retried, restamp: ready && !retried}
		retry := x.run(ctx, c, p, rec, now, trace)
		if !retry || retried {
			return
		}
		// A new connection in the stale one's slot: idle ones may be as
		// stale.
		_ = cn.Close()
		rec.Start = now()
		if cn, _, err = h.pool.dial(ctx, h); err != nil {
			rec.Error = c.requestError(h.headError(ctx, err))
			return
		}
	}
}

// headError is the error of a request that got no response head, worded
// as net/http words it (url.Error: `Post "URL": ...`).
func (h *h1Client) headError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		err = ctx.Err()
	} else if errors.Is(err, os.ErrDeadlineExceeded) {
		err = timeoutError("context deadline exceeded (Client.Timeout exceeded while awaiting headers)")
	}
	return &url.Error{Op: "Post", URL: h.url, Err: err}
}

// bodyError is the error of a response whose body could not be read.
func bodyError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return timeoutError("context deadline exceeded (Client.Timeout or context cancellation while reading body)")
	}
	return err
}

// timeoutError is a Config.Timeout expiry.
type timeoutError string

func (e timeoutError) Error() string { return string(e) }
func (e timeoutError) Timeout() bool { return true }

// Body framings of a response.
const (
	bodyNone    = iota // no body (204, 304)
	bodyLength         // Content-Length bytes
	bodyChunked        // chunked transfer coding
	bodyClose          // until the server closes the connection
)

// States of the chunked decoder.
const (
	chunkSize    = iota // reading a chunk-size line
	chunkData           // reading chunk data
	chunkDataEnd        // expecting the CRLF after chunk data
	chunkTrailer        // reading trailer lines up to the blank one
)

// h1Exchange is one request and its response on one connection.
type h1Exchange struct {
	h        *h1Client
	cn       *h1Conn
	deadline time.Time
	retried  bool  // the request's second attempt (a stale connection's retry)
	restamp  bool  // take rec.Start again just before the first write (see sendH1)
	wrote    int64 // request bytes written
	resp     h1Response
}

// run writes the request and reads the response into rec. It returns
// true when the request should be retried on a new connection (a stale
// keep-alive connection; rec is then untouched but for Start): the caller
// then closes the connection and keeps its pool slot. Otherwise run gives
// the connection back to the pool or discards it.
func (x *h1Exchange) run(ctx context.Context, c *Client, p *Prepared, rec *record.Record, now func() time.Duration, trace *httptrace.ClientTrace) (retry bool) {
	cn := x.cn
	if cn.used && cn.peek.gone() {
		x.h.noteStale(cn)
		return true // closed while idle: nothing was written
	}
	if err := cn.SetDeadline(x.deadline); err != nil {
		c.h1.pool.discard(cn)
		rec.Error = c.requestError(x.h.headError(ctx, err))
		return false
	}
	stop := func() bool { return true }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { _ = cn.SetDeadline(aLongTimeAgo) })
	}
	keep := false
	defer func() {
		// The connection is reusable only if ctx did not fire meanwhile.
		if !stop() || !keep {
			if !retry {
				x.h.pool.discard(cn)
			}
			return
		}
		if x.h.closesAfterResponse.Load() {
			x.h.pool.discard(cn) // it would be closed before its next request
			return
		}
		x.h.pool.put(cn)
	}()

	err := x.write(p, rec, now)
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
	if err != nil {
		if cn.used && ctx.Err() == nil && !errors.Is(err, os.ErrDeadlineExceeded) && (x.wrote == 0 || isReset(err)) {
			x.h.noteStale(cn)
			return true
		}
		rec.Error = c.requestError(x.h.headError(ctx, err))
		return false
	}

	r := &x.resp
	r.conn = cn
	r.s.init()
	defer r.s.release()
	now = arrivalClock(now, cn.Conn, &rec.ReadLag)
	if er, ok := cn.Conn.(eachReader); ok && c.kind.Stream {
		st, body, err := x.readStreamEach(c, er, p, rec, now, trace)
		switch {
		case body:
			keep = x.endBody(ctx, c, &st, err)
		case err != nil:
			return x.headFailed(ctx, c, rec, err)
		default: // not a 200
			rec.Error = r.statusError()
		}
		return false
	}
	t, err := r.readHead(trace, now)
	if err != nil {
		return x.headFailed(ctx, c, rec, err)
	}
	rec.Status = r.status
	if r.status != http.StatusOK {
		rec.Error = r.statusError()
		return false
	}
	st := c.startStream(rec, p, func() []byte { return r.metadata })
	if c.kind.Stream {
		err = r.readBody(t, now, st.message)
	} else {
		err = r.readWhole(t, now, st.message)
	}
	keep = x.endBody(ctx, c, &st, err)
	return false
}

// headFailed records the error that ended a response before its head was
// complete, and returns whether the request should be sent again instead
// (see unread).
func (x *h1Exchange) headFailed(ctx context.Context, c *Client, rec *record.Record, err error) (retry bool) {
	r := &x.resp
	if !r.gotByte && ctx.Err() == nil && x.unread(err) {
		return true
	}
	if err == io.EOF && !r.gotByte {
		err = errClosedBeforeAnswer
	}
	rec.Error = c.requestError(x.h.headError(ctx, err))
	return false
}

// endBody completes the stream of a 200 response whose body read ended
// with err, and returns whether the connection may carry another request.
func (x *h1Exchange) endBody(ctx context.Context, c *Client, st *stream, err error) bool {
	r := &x.resp
	if err != nil {
		err = bodyError(ctx, err)
	}
	c.endStream(st, err)
	return err == nil && st.err == nil && r.done && r.keepAlive && !r.extra
}

// unread reports whether a request whose connection failed with err
// before any response byte was never read by the server, so that sending it
// on a new connection cannot serve it twice. Only a reused connection
// qualifies (the server finished with it while it was idle, or just
// after its last response): reset before answering (a server that closes
// a connection with unread bytes resets it), or ended with the request
// still unacknowledged by the server's kernel (see unacknowledged). A
// request the server acknowledged and then saw its connection end may have
// been read: it stays the request's error.
func (x *h1Exchange) unread(err error) bool {
	cn := x.cn
	if !cn.used {
		return false
	}
	unread := isReset(err)
	if !unread && err == io.EOF {
		unread, _ = unacknowledged(cn.Conn)
	}
	if unread {
		x.h.noteStale(cn)
	}
	return unread
}

// errClosedBeforeAnswer is the error of a request whose connection ended
// with no response byte (the bare io.EOF that net/http reports).
var errClosedBeforeAnswer = errors.New("the server closed the connection before answering")

// closeAfterResponseWithin is how soon after its last response a
// connection must end for the server to count as one that closes every
// connection after a response (cpp-httplib, behind llama.cpp's server,
// does so while advertising keep-alive). Idle timeouts of real servers are
// seconds long (uvicorn 5 s, net/http and Go's clients minutes).
const closeAfterResponseWithin = time.Second

// noteStale records that a reused connection ended before carrying its
// next request. When that happened within closeAfterResponseWithin of its
// last response, the server closes connections after each response: from
// then on they are closed after their response instead of being reused,
// since a request written to one would race its close.
func (h *h1Client) noteStale(cn *h1Conn) {
	if !h.closesAfterResponse.Load() && h.pool.clock().Sub(cn.idleAt) < closeAfterResponseWithin {
		h.closesAfterResponse.Store(true)
	}
}

// isReset reports whether the server reset the connection. A server that
// closes an idle connection just as a request arrives closes it with the
// request unread, and then the kernel resets the connection instead of
// ending it: the request was not served. A server that read the request
// and then closed without answering ends the connection (EOF) instead.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// aLongTimeAgo is a deadline in the past: it interrupts blocked I/O.
var aLongTimeAgo = time.Unix(1, 0)

// write renders the request into the connection's buffer and writes it
// with one system call (writev for a large body), taking rec.Start just
// before it when x.restamp. x.wrote counts the bytes that went out.
func (x *h1Exchange) write(p *Prepared, rec *record.Record, now func() time.Duration) error {
	h, cn := x.h, x.cn
	b := append(cn.wbuf[:0], h.head...)
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(p.body)), 10)
	b = append(b, "\r\n"...)
	b = append(b, h.header...)
	b = append(b, p.extra...)
	if p.id != "" {
		b = append(append(append(b, "X-Request-Id: "...), p.id...), "\r\n"...)
	} else {
		b = append(b, h.ownID...)
	}
	if len(p.trace) == traceAttempts*traceLineLen {
		if x.retried {
			b = append(b, p.trace[traceLineLen:]...)
		} else {
			b = append(b, p.trace[:traceLineLen]...)
		}
	}
	b = append(b, "\r\n"...)
	var n int64
	var err error
	if x.restamp {
		rec.Start = now()
	}
	if len(p.body) <= h1InlineBody {
		b = append(b, p.body...)
		var m int
		m, err = cn.Write(b)
		n = int64(m)
	} else {
		bufs := net.Buffers{b, p.body}
		n, err = bufs.WriteTo(cn.Conn)
	}
	if cap(b) <= 2*h1InlineBody {
		cn.wbuf = b[:0]
	}
	x.wrote = n
	return err
}

// h1Response reads one response from a connection. Its sseReader's buffer
// holds, from s.start, the framed body bytes up to s.end and the bytes
// read but not decoded yet (chunk framing, or the head) up to raw.
type h1Response struct {
	conn io.Reader
	s    sseReader
	raw  int

	status     int
	statusLine []byte // after the protocol, e.g. "200 OK"; valid until the body is read
	keepAlive  bool   // the connection may carry another request
	gotByte    bool   // a response byte arrived

	mode   int   // body framing
	remain int64 // bytes left in the body (bodyLength) or chunk (chunkData)
	state  int   // chunked decoder state
	done   bool  // the body is complete
	extra  bool  // bytes followed the body: the connection is not reusable

	informational int // 1xx heads skipped

	metadata []byte // a copy of the "metadata" header's value (pooling usage), nil when none
	location []byte // a copy of a redirect's "Location" header's value, nil when none
}

// read reads from the connection behind the buffered bytes, making room
// first when the buffer is full.
func (r *h1Response) read() (int, error) {
	n, err := r.conn.Read(r.room())
	r.raw += n
	if n > 0 {
		r.gotByte = true
	}
	return n, err
}

// room returns the free space behind the buffered bytes, making room
// first when the buffer is full.
func (r *h1Response) room() []byte {
	if r.raw == len(r.s.buf) {
		r.raw = r.s.makeRoomFor(r.raw)
	}
	return r.s.buf[r.raw:]
}

// readHead reads the status line and headers of the final response,
// skipping 1xx ones, and returns the time of the read that completed it.
// Body bytes read with the head are left undecoded after s.end.
func (r *h1Response) readHead(trace *httptrace.ClientTrace, now func() time.Duration) (time.Duration, error) {
	r.startHead()
	var t time.Duration
	for {
		done, err := r.headStep()
		if err != nil || done {
			return t, err
		}
		had := r.gotByte
		_, err = r.read()
		if !had && r.gotByte && trace != nil && trace.GotFirstResponseByte != nil {
			trace.GotFirstResponseByte()
		}
		t = now()
		if err != nil {
			return t, r.headReadError(err)
		}
	}
}

// startHead readies the buffer for a response head.
func (r *h1Response) startHead() {
	s := &r.s
	s.start, s.scan, s.lineStart, s.end = 0, 0, 0, 0
	r.informational = 0
}

// headReadError is the error of a read that failed before the head was
// complete: an end of the connection inside it is unexpected.
func (r *h1Response) headReadError(err error) error {
	if err == io.EOF && r.raw > r.s.start {
		return io.ErrUnexpectedEOF
	}
	return err
}

// headStep looks for the end of the head in the bytes read so far and
// parses it, skipping 1xx heads; it returns true once the final head is
// parsed, false when it needs more bytes.
func (r *h1Response) headStep() (bool, error) {
	s := &r.s
	for {
		// Find the blank line that ends the head.
		nl := -1
		for {
			i := bytes.IndexByte(s.buf[s.scan:r.raw], '\n')
			if i < 0 {
				s.scan = r.raw
				break
			}
			end := s.scan + i
			line := s.buf[s.lineStart:end]
			s.scan, s.lineStart = end+1, end+1
			if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
				nl = end
				break
			}
		}
		if nl < 0 {
			if r.raw-s.start > h1MaxHeaderBytes {
				return false, errors.New("net/http: server response headers exceeded 1048576 bytes; aborted")
			}
			return false, nil
		}
		if err := r.parseHead(s.buf[s.start : nl+1]); err != nil {
			return false, err
		}
		s.start, s.end = nl+1, nl+1
		if r.status >= 100 && r.status <= 199 && r.status != http.StatusSwitchingProtocols {
			if r.informational++; r.informational > h1Max1xx {
				return false, errors.New("net/http: too many 1xx informational responses")
			}
			continue
		}
		return true, nil
	}
}

// parseHead parses a response head (lines up to and including the blank
// one). Errors never quote header values.
func (r *h1Response) parseHead(head []byte) error {
	line, rest := cutLine(head)
	var minor byte
	switch {
	case len(line) >= len("HTTP/1.x 200") && string(line[:7]) == "HTTP/1." && line[8] == ' ' &&
		(line[7] == '0' || line[7] == '1'):
		minor = line[7]
	default:
		return errors.New("malformed HTTP response " + strconv.Quote(string(line[:min(len(line), 64)])))
	}
	sl := bytes.TrimLeft(line[9:], " ")
	if len(sl) < 3 || len(sl) > 3 && sl[3] != ' ' || !isDigit(sl[0]) || !isDigit(sl[1]) || !isDigit(sl[2]) {
		return errors.New("malformed HTTP status code " + strconv.Quote(string(sl[:min(len(sl), 16)])))
	}
	r.status = int(sl[0]-'0')*100 + int(sl[1]-'0')*10 + int(sl[2]-'0')
	if r.status < 100 {
		return errors.New("malformed HTTP status code " + strconv.Quote(string(sl[:3])))
	}
	r.statusLine = sl
	r.keepAlive = minor == '1'
	r.mode, r.remain, r.state = bodyClose, 0, chunkSize
	chunked, haveLength, closing := false, false, false
	r.metadata, r.location = nil, nil
	redirect := isRedirect(r.status)
	var length int64
	for len(rest) > 0 {
		line, rest = cutLine(rest)
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue // obsolete line folding: continues a header we ignore or have read
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return errors.New("malformed MIME header line")
		}
		name, value := line[:colon], bytes.Trim(line[colon+1:], " \t")
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, ok := parseLength(value)
			if !ok {
				return errors.New("bad Content-Length")
			}
			if haveLength && n != length {
				return errors.New("http: message cannot contain multiple Content-Length headers")
			}
			length, haveLength = n, true
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			if minor == '0' {
				continue // HTTP/1.0 has no transfer codings
			}
			if !bytes.EqualFold(value, []byte("chunked")) {
				return errors.New("net/http: unsupported transfer encoding")
			}
			chunked = true
		case len(name) == len("metadata") && bytes.EqualFold(name, []byte("metadata")):
			r.metadata = bytes.Clone(value)
		case redirect && r.location == nil && bytes.EqualFold(name, []byte("Location")):
			r.location = bytes.Clone(value) // the first, as net/http's Header.Get
		case bytes.EqualFold(name, []byte("Connection")):
			for _, tok := range bytes.Split(value, []byte{','}) {
				tok = bytes.Trim(tok, " \t")
				switch {
				case bytes.EqualFold(tok, []byte("close")):
					closing = true // whatever other tokens say, as net/http
				case bytes.EqualFold(tok, []byte("keep-alive")) && minor == '0':
					r.keepAlive = true
				}
			}
		}
	}
	if closing {
		r.keepAlive = false
	}
	switch {
	case r.status < 200 || r.status == http.StatusNoContent || r.status == http.StatusNotModified:
		r.mode = bodyNone
	case chunked:
		r.mode, r.state = bodyChunked, chunkSize
	case haveLength:
		r.mode, r.remain = bodyLength, length
	default:
		r.mode, r.keepAlive = bodyClose, false
	}
	r.done = r.mode == bodyNone || r.mode == bodyLength && length == 0
	return nil
}

// cutLine splits b after its first line, which it returns without its line
// end ("\n" or "\r\n").
func cutLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseLength parses a Content-Length value.
func parseLength(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// parseChunkSize parses a chunk-size line (without its line end),
// ignoring chunk extensions.
func parseChunkSize(line []byte) (int64, error) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.Trim(line, " \t")
	if len(line) == 0 {
		return 0, errors.New("empty hex number for chunk length")
	}
	if len(line) > 16 {
		return 0, errors.New("http chunk length too large")
	}
	var n uint64
	for _, c := range line {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, errors.New("invalid byte in chunk length")
		}
		n = n<<4 | uint64(c)
	}
	if n > 1<<62 {
		return 0, errors.New("http chunk length too large")
	}
	return int64(n), nil
}

// decode removes the body framing from the undecoded bytes after s.end,
// in place: it leaves the body bytes it found at s.end and returns their
// count (the caller adds it to s.end), and moves bytes it cannot decode
// yet behind them.
func (r *h1Response) decode() (int, error) {
	b, w := r.s.buf, r.s.end
	switch r.mode {
	case bodyClose:
		return r.raw - w, nil
	case bodyNone, bodyLength:
		n := int64(r.raw - w)
		if n >= r.remain {
			n = r.remain
			r.done = true
			if r.raw > w+int(n) {
				r.extra = true
				r.raw = w + int(n)
			}
		}
		r.remain -= n
		return int(n), nil
	}
	p := w
	var err error
loop:
	for p < r.raw && !r.done {
		switch r.state {
		case chunkData:
			m := int(min(r.remain, int64(r.raw-p)))
			if w != p {
				copy(b[w:], b[p:p+m])
			}
			w, p = w+m, p+m
			if r.remain -= int64(m); r.remain == 0 {
				r.state = chunkDataEnd
			}
		case chunkDataEnd:
			if r.raw-p < 2 {
				if b[p] != '\r' {
					err = errors.New("malformed chunked encoding")
				}
				break loop
			}
			if b[p] != '\r' || b[p+1] != '\n' {
				err = errors.New("malformed chunked encoding")
				break loop
			}
			p += 2
			r.state = chunkSize
		default: // chunkSize, chunkTrailer
			i := bytes.IndexByte(b[p:r.raw], '\n')
			if i < 0 {
				if r.raw-p > h1MaxChunkLine {
					err = errors.New("header line too long")
				}
				break loop
			}
			line := bytes.TrimRight(b[p:p+i], " \t\r")
			p += i + 1
			if r.state == chunkTrailer {
				r.done = len(line) == 0
				continue
			}
			var n int64
			if n, err = parseChunkSize(line); err != nil {
				break loop
			}
			if n == 0 {
				r.state = chunkTrailer
			} else {
				r.state, r.remain = chunkData, n
			}
		}
	}
	n := w - r.s.end
	if r.done && p < r.raw {
		r.extra = true
		p = r.raw
	}
	if p != w {
		r.raw = w + copy(b[w:], b[p:r.raw])
	}
	return n, err
}

// readBody frames the body into SSE messages for fn; t is the time of the
// read that completed the head (body bytes may have come with it). It
// returns the error that cut the body short: io.ErrUnexpectedEOF when the
// connection ended inside a chunked or Content-Length body, as net/http.
func (r *h1Response) readBody(t time.Duration, now func() time.Duration, fn func(data []byte, t time.Duration) bool) error {
	var rerr error
	for {
		more, err := r.bodyStep(t, rerr, fn)
		if !more {
			return err
		}
		_, rerr = r.read()
		t = now()
	}
}

// readStreamEach reads a streamed response, head and body, on a
// connection that reads arrival by arrival, in one ReadEach: on a
// ringnet.Conn every byte is then read by the poller as soon as it comes,
// even before the request's goroutine has looked at the head (between the
// two, a goroutine that ran late would find several of the stream's
// events merged into one read, and time the first by the last). It
// returns the stream and true once the head was a 200's (err then cuts the
// body short); false with the head's error, or false and nil for another
// status, whose body the caller reads.
func (x *h1Exchange) readStreamEach(c *Client, er eachReader, p *Prepared, rec *record.Record, now func() time.Duration, trace *httptrace.ClientTrace) (stream, bool, error) {
	r := &x.resp
	r.startHead()
	var st stream
	var msg func(data []byte, t time.Duration) bool // st.message, made once
	var err error
	head, body, delayed := false, false, false
	werr := er.ReadEach(r.room, func(n int, rerr error) bool {
		r.raw += n
		if n > 0 && !r.gotByte {
			r.gotByte = true
			if trace != nil && trace.GotFirstResponseByte != nil {
				trace.GotFirstResponseByte()
			}
		}
		t := now()
		if !head {
			var done bool
			if done, err = r.headStep(); err != nil || !done {
				if err == nil && rerr != nil {
					err = r.headReadError(rerr)
				}
				return err == nil
			}
			head = true
			rec.Status = r.status
			if r.status != http.StatusOK {
				return false
			}
			st, body = c.startStream(rec, p, func() []byte { return r.metadata }), true
			msg = st.message
		} else if !delayed && n > 0 {
			// Body bytes after the head's read: the first token is in,
			// delayed ACKs now last (see ackDelayer).
			delayed = true
			if d, ok := er.(ackDelayer); ok {
				d.DelayAcks()
			}
		}
		var more bool
		more, err = r.bodyStep(t, rerr, msg)
		return more
	})
	if werr != nil {
		if !head {
			return st, false, werr
		}
		if body {
			_, err = r.bodyStep(now(), werr, msg)
		}
	}
	if !head {
		return st, false, err
	}
	return st, body, err
}

// eachReader is a connection that reads arrival by arrival, with receive
// timestamps: an rxtime.Conn, or a ringnet.Conn, whose reads, and the
// callbacks, run on the ring's poller.
type eachReader interface {
	ReadEach(next func() []byte, got func(n int, err error) bool) error
}

// ackDelayer is a connection that can halve its acknowledgements while a
// body streams (ringnet.Conn.DelayAcks), called once the first body bytes
// are in (before them, the wait for the first token would end the delayed
// mode at once). Only the ring's connections do it: on Go's poller,
// measured on the wire, delayed ACKs made the first wave of a burst read
// late.
type ackDelayer interface{ DelayAcks() }

// bodyStep decodes the body bytes read so far and hands the complete SSE
// messages to fn; t is the time of the last read and rerr its error. It
// returns whether the body needs more bytes, and otherwise the error that
// cut it short (nil when it is complete, or fn stopped it).
func (r *h1Response) bodyStep(t time.Duration, rerr error, fn func(data []byte, t time.Duration) bool) (bool, error) {
	n, err := r.decode()
	if !r.s.advance(n, t, fn) {
		r.keepAlive = false
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if r.done {
		r.s.finish(t, fn)
		return false, nil
	}
	if rerr != nil {
		if rerr == io.EOF {
			if r.mode == bodyClose {
				r.done = true
				r.s.finish(t, fn)
				return false, nil
			}
			return false, io.ErrUnexpectedEOF
		}
		return false, rerr
	}
	return true, nil
}

// readWhole reads the whole body of a non-streaming response and calls fn
// once with it and the time of the last read that brought body bytes (t,
// the time of the read that completed the head, when that read brought
// them all). Errors are readBody's.
func (r *h1Response) readWhole(t time.Duration, now func() time.Duration, fn func(data []byte, t time.Duration) bool) error {
	var rerr error
	for {
		n, err := r.decode()
		r.s.end += n
		if err != nil {
			return err
		}
		if r.done {
			fn(r.s.buf[r.s.start:r.s.end], t)
			return nil
		}
		if rerr != nil {
			if rerr == io.EOF {
				if r.mode == bodyClose {
					r.done = true
					fn(r.s.buf[r.s.start:r.s.end], t)
					return nil
				}
				return io.ErrUnexpectedEOF
			}
			return rerr
		}
		var got int
		got, rerr = r.read()
		if got > 0 {
			t = now()
		}
	}
}

// statusError is statusError's text for the response: the reason phrase,
// then the start of the body, and for a redirect where it pointed. The
// connection is not reused afterwards.
func (r *h1Response) statusError() string {
	reason := http.StatusText(r.status)
	if reason == "" {
		reason = string(r.statusLine)
	}
	for {
		n, err := r.decode()
		r.s.end += n
		if err != nil || r.done || r.s.end-r.s.start >= 512 {
			break
		}
		if _, err := r.read(); err != nil {
			n, _ := r.decode()
			r.s.end += n
			break
		}
	}
	body := r.s.buf[r.s.start:r.s.end]
	note := redirectNote(r.status, string(r.location))
	if b := strings.TrimSpace(string(body[:min(len(body), 512)])); b != "" {
		return reason + ": " + b + note
	}
	return reason + note
}
