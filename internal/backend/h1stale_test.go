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

// staleServer serves requests on keep-alive connections: it answers each
// one, but on the connection it accepted first it treats the request
// numbered at (0-based, per connection) with end instead of answering.
// It counts the requests it read and the connections it accepted.
type staleServer struct {
	ln       net.Listener
	requests atomic.Int32
	conns    atomic.Int32
}

func newStaleServer(t *testing.T, at int, end func(conn net.Conn, br *bufio.Reader)) *staleServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &staleServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	body := evA + evDone
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			first := s.conns.Add(1) == 1
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for i := 0; ; i++ {
					if first && i == at {
						end(conn, br)
						return
					}
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					s.requests.Add(1)
					_, _ = fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				}
			}()
		}
	}()
	return s
}

func (s *staleServer) url() string { return "http://" + s.ln.Addr().String() + "/v1/completions" }

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
			srv.requests.Store(0)
			srv.conns.Store(0)
			read.Store(0)
			if rec := sendOne(context.Background(), t, c, ""); !rec.Success {
				t.Fatalf("first request: %s", rec.Error)
			}
			rec := sendOne(context.Background(), t, c, "")
			if want := `Post "` + srv.url() + `": EOF`; rec.Error != want {
				t.Errorf("second request: success %v error %q, want %q", rec.Success, rec.Error, want)
			}
			if n, r := srv.requests.Load(), read.Load(); n != 1 || r != 1 {
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
