package clocksync

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Paths served by Handler.
const (
	timePath = "/time"
	donePath = "/done"
)

// readHeaderTimeout bounds how long the server waits for a request's
// headers, so a stuck peer cannot hold a connection's goroutine forever.
const readHeaderTimeout = 10 * time.Second

// Handler serves clock's reading: GET /time answers with the reference
// wall clock (Unix ns, decimal). Also POST /done?shard=I records that a
// worker has finished; only a Server (which uses the same handler) can
// wait for those records, with Server.WaitDone. A nil clock is time.Now.
func Handler(clock Clock) http.Handler {
	return newHandler(clock)
}

// handler is the http.Handler behind Handler and Server.
type handler struct {
	clock Clock
	mux   *http.ServeMux

	mu      sync.Mutex
	done    map[int]struct{} // shards that have posted /done
	changed chan struct{}    // closed, and replaced, whenever done grows
}

// newHandler returns a handler serving clock (nil: time.Now).
func newHandler(clock Clock) *handler {
	h := &handler{
		clock:   orNow(clock),
		mux:     http.NewServeMux(),
		done:    make(map[int]struct{}),
		changed: make(chan struct{}),
	}
	h.mux.HandleFunc("GET "+timePath, h.serveTime)
	h.mux.HandleFunc("POST "+donePath, h.serveDone)
	return h
}

// ServeHTTP implements http.Handler.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

// serveTime answers GET /time. The clock is read as late as possible,
// after the headers are set, just before the body is written; net/http
// adds the Content-Length itself since the body is small.
func (h *handler) serveTime(w http.ResponseWriter, _ *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("Cache-Control", "no-store")
	var buf [maxTimeBody]byte
	_, _ = w.Write(appendTime(buf[:0], h.clock()))
}

// serveDone answers POST /done?shard=I.
func (h *handler) serveDone(w http.ResponseWriter, r *http.Request) {
	shard, err := strconv.Atoi(r.URL.Query().Get("shard"))
	if err != nil || shard < 0 {
		http.Error(w, "shard must be a non-negative integer", http.StatusBadRequest)
		return
	}
	h.markDone(shard)
	w.WriteHeader(http.StatusNoContent)
}

// markDone records that shard has finished; a repeat counts once.
func (h *handler) markDone(shard int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.done[shard]; ok {
		return
	}
	h.done[shard] = struct{}{}
	close(h.changed)
	h.changed = make(chan struct{})
}

// doneState returns how many shards have finished and a channel closed at
// the next change.
func (h *handler) doneState() (int, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.done), h.changed
}

// waitDone waits until peers shards have finished, ctx ends or closed is
// closed.
func (h *handler) waitDone(ctx context.Context, peers int, closed <-chan struct{}) error {
	for {
		n, changed := h.doneState()
		if n >= peers {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("clocksync: %d of %d peers reported done: %w", n, peers, ctx.Err())
		case <-closed:
			return fmt.Errorf("clocksync: %d of %d peers reported done: %w", n, peers, errServerClosed)
		}
	}
}

// errServerClosed is the cause WaitDone gives after Close.
var errServerClosed = errors.New("time server closed")

// Server is worker 0's time endpoint: it serves Handler until Close.
type Server struct {
	h      *handler
	ln     net.Listener
	srv    *http.Server
	served chan struct{} // closed when srv.Serve has returned

	closeOnce sync.Once
	closed    chan struct{} // closed by Close
	closeErr  error
}

// Serve listens on addr (host:port; a host of "" listens on every
// interface; port 0 picks one) and serves Handler(clock) until Close. A
// nil clock is time.Now.
func Serve(addr string, clock Clock) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("clocksync: %w", err)
	}
	h := newHandler(clock)
	s := &Server{
		h:      h,
		ln:     ln,
		srv:    &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout},
		served: make(chan struct{}),
		closed: make(chan struct{}),
	}
	go s.serve()
	return s, nil
}

// serve runs the HTTP server until Close.
func (s *Server) serve() {
	defer close(s.served)
	_ = s.srv.Serve(s.ln) // always an error; after Close, http.ErrServerClosed
}

// Addr returns the listening address, host:port (with port 0 resolved).
func (s *Server) Addr() string {
	return s.ln.Addr().String()
}

// WaitDone waits until peers distinct shards have POSTed /done (see Done).
// It returns an error naming how many of peers reported if ctx ends (the
// error wraps ctx's) or the server is closed first.
func (s *Server) WaitDone(ctx context.Context, peers int) error {
	return s.h.waitDone(ctx, peers, s.closed)
}

// Close stops the server at once, closing its listener and connections,
// and waits for it to stop. Pending WaitDone calls return an error. Later
// calls return the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.closeErr = s.srv.Close()
		<-s.served
	})
	return s.closeErr
}
