package backend

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// newStaleServer returns a rawServer that answers with a keep-alive
// response but leaves its first connection's request at to end.
func newStaleServer(t *testing.T, at int, end func(conn net.Conn, br *bufio.Reader)) *rawServer {
	t.Helper()
	body := evA + evDone
	return startRawServer(t, &rawServer{endAt: at, end: end}, false, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
}

// TestH1NoResendAfterServerRead checks that a request the server has read
// is not sent again when the server then ends the connection without
// answering (a crash, a handler that panics): it may have been served, so
// it fails as on net/http. The lean client used to send it once more.
func TestH1NoResendAfterServerRead(t *testing.T) {
	var read atomic.Int32
	srv := newStaleServer(t, 1, func(conn net.Conn, br *bufio.Reader) {
		if req, err := http.ReadRequest(br); err == nil {
			_, _ = io.Copy(io.Discard, req.Body)
			read.Add(1)
		}
	})
	for name, c := range paths(t, Config{URL: srv.url(), MaxConns: 1}) {
		t.Run(name, func(t *testing.T) {
			srv.mu.Lock()
			srv.requests = nil
			srv.mu.Unlock()
			srv.conns.Store(0)
			read.Store(0)
			if rec := sendOne(context.Background(), t, c, ""); !rec.Success {
				t.Fatalf("first request: %s", rec.Error)
			}
			rec := sendOne(context.Background(), t, c, "")
			if want := `Post "` + srv.url() + `": the server closed the connection before answering`; rec.Error != want {
				t.Errorf("second request: success %v error %q, want %q", rec.Success, rec.Error, want)
			}
			if n, r := len(srv.reqs()), read.Load(); n != 1 || r != 1 {
				t.Errorf("the server answered %d and read %d unanswered requests, want 1 and 1 (the second request was sent again)", n, r)
			}
			c.closeIdle()
		})
	}
}

// closeIdle closes the client's idle connections, on either path.
func (c *Client) closeIdle() {
	if c.h1 != nil {
		c.h1.pool.closeIdle()
	}
	c.http.CloseIdleConnections()
}

// blindIdle makes the client's idle connections look alive to the look
// before a request is written, as when the server's close is still in
// flight at that moment: the request is then written to a connection the
// server has already closed.
func blindIdle(c *Client) {
	c.h1.pool.mu.Lock()
	defer c.h1.pool.mu.Unlock()
	for _, cn := range c.h1.pool.idle {
		cn.peek = nil
	}
}

// TestH1ResendsWhenServerClosedFirst checks that a request written to a
// kept-alive connection the server had already closed (it never read the
// request) is sent again on a new connection instead of failing with EOF,
// and that the client then stops reusing connections of a server that
// closes them right after each response.
func TestH1ResendsWhenServerClosedFirst(t *testing.T) {
	body := evA + evDone
	srv := newRawServer(t, true, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	c := paths(t, Config{URL: srv.url(), MaxConns: 1})["h1"]
	const n = 6
	for i := range n {
		if i > 0 {
			time.Sleep(20 * time.Millisecond) // the server's close has arrived
			blindIdle(c)
		}
		if rec := sendOne(context.Background(), t, c, fmt.Sprint("r", i)); !rec.Success {
			t.Fatalf("request %d: %s", i, rec.Error)
		}
	}
	if got := len(srv.reqs()); got != n {
		t.Errorf("the server answered %d requests, want %d", got, n)
	}
	if !c.h1.closesAfterResponse.Load() {
		t.Error("the client did not notice that the server closes connections after each response")
	}
	// One request found its connection closed; after that none was reused.
	if got := srv.conns.Load(); got != n {
		t.Errorf("%d connections, want %d (one per request)", got, n)
	}
	if len(c.h1.pool.idle) != 0 {
		t.Errorf("%d idle connections kept, want none", len(c.h1.pool.idle))
	}
}

// TestH1KeepsReusingAfterIdleTimeout checks that a connection closed by
// the server's idle timeout, long after its response, is not taken for a
// server that closes every connection.
func TestH1KeepsReusingAfterIdleTimeout(t *testing.T) {
	body := evA + evDone
	srv := newRawServer(t, true, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	c := paths(t, Config{URL: srv.url(), MaxConns: 1})["h1"]
	var clock atomic.Int64
	c.h1.pool.now = func() time.Time { return time.Unix(0, clock.Load()) }
	for i := range 3 {
		if i > 0 {
			time.Sleep(20 * time.Millisecond)
			clock.Add(int64(5 * time.Second)) // idle for 5 s, as far as the pool knows
			blindIdle(c)
		}
		if rec := sendOne(context.Background(), t, c, fmt.Sprint("r", i)); !rec.Success {
			t.Fatalf("request %d: %s", i, rec.Error)
		}
	}
	if c.h1.closesAfterResponse.Load() {
		t.Error("connections closed 5 s after their response were taken for a server that closes after each response")
	}
}
