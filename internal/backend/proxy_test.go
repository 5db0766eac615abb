package backend_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/sim"
)

// TestThroughProxy runs streams from the simulator through HTTP proxies in
// front of it, the way a gateway sits in front of vLLM: a streaming
// httputil.ReverseProxy (chunked, each event flushed on arrival), the same
// proxy answering every response with "Connection: close", and a proxy
// that buffers each response and relays it with a Content-Length. Every
// request must succeed with all its tokens, and the client must reuse its
// connections to the proxy unless the proxy closes them.
//
// The streaming proxy enables full duplex on its inbound requests. Without
// it Go's HTTP/1 server drains and closes the inbound request body when
// the proxy writes the response head, and when that happens before the
// proxy's Transport has finished with the body (its final read, made to
// check the body is not longer than its Content-Length), the Transport
// gets "http: invalid Read on closed Body" and closes the upstream
// connection: the stream is cut ("ReverseProxy read error during body
// copy: use of closed network connection") and the client sees
// "unexpected EOF" after a 200 (golang/go#40747). A server that sends its
// response head at once, as vLLM and the simulator do, makes that race
// likely; it is the proxy's, not the server's or the client's.
func TestThroughProxy(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, 200*time.Microsecond
	s, err := sim.Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	target, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	stream := httputil.NewSingleHostReverseProxy(target)
	stream.FlushInterval = -1
	buffered := bufferingProxy(target)
	duplex := func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			t.Errorf("full duplex: %v", err)
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		closes  bool // the proxy closes the connection after each response
	}{
		{"streaming", func(w http.ResponseWriter, r *http.Request) {
			duplex(w, r)
			stream.ServeHTTP(w, r)
		}, false},
		{"connection close", func(w http.ResponseWriter, r *http.Request) {
			duplex(w, r)
			w.Header().Set("Connection", "close")
			stream.ServeHTTP(w, r)
		}, true},
		{"buffered with content length", func(w http.ResponseWriter, r *http.Request) {
			duplex(w, r)
			buffered.ServeHTTP(w, r)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const conc, n, out = 4, 32, 8
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var conns atomic.Int32
			srv := &http.Server{Handler: tt.handler, ConnState: func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					conns.Add(1)
				}
			}}
			go func() { _ = srv.Serve(ln) }()
			defer srv.Close()
			c, err := backend.New(backend.Config{Backend: "openai", URL: "http://" + ln.Addr().String() + "/v1/completions",
				Model: cfg.Model, MaxConns: conc, IgnoreEOS: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			reqs := make([]dataset.Request, n)
			for i := range reqs {
				reqs[i] = dataset.Request{Prompt: "a b c", PromptLen: 3, OutputLen: out, ID: fmt.Sprint("r", i)}
			}
			ps, err := c.Prepare(reqs, true)
			if err != nil {
				t.Fatal(err)
			}
			recs := make([]record.Record, n)
			start := time.Now()
			now := func() time.Duration { return time.Since(start) + 1 }
			var wg sync.WaitGroup
			for w := range conc {
				wg.Go(func() {
					for i := w; i < n; i += conc {
						c.Send(context.Background(), &ps[i], &recs[i], now)
					}
				})
			}
			wg.Wait()
			for i, r := range recs {
				if !r.Success || r.OutputTokens != out || len(r.Chunks) != out {
					t.Errorf("request %d: success %v error %q, %d tokens in %d chunks, want %d", i, r.Success, r.Error, r.OutputTokens, len(r.Chunks), out)
				}
			}
			got := conns.Load()
			if tt.closes && got != n || !tt.closes && got > conc {
				t.Errorf("%d connections to the proxy for %d requests at concurrency %d", got, n, conc)
			}
		})
	}
}

// bufferingProxy relays each request to target and its response once it
// has arrived whole, with a Content-Length.
func bufferingProxy(target *url.URL) *httputil.ReverseProxy {
	p := httputil.NewSingleHostReverseProxy(target)
	p.ModifyResponse = func(resp *http.Response) error {
		b, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength, resp.TransferEncoding = int64(len(b)), nil
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	return p
}
