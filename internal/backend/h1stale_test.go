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
			if want := `Post "` + srv.url() + `": EOF`; rec.Error != want {
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
