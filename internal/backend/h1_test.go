package backend

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/record"
)

// paths returns a client on the lean HTTP/1.1 path and one on net/http
// for the same configuration.
func paths(t testing.TB, cfg Config) map[string]*Client {
	t.Helper()
	if cfg.Backend == "" {
		cfg.Backend = "openai"
	}
	if cfg.Model == "" {
		cfg.Model = "m"
	}
	lean, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if lean.h1 == nil {
		t.Fatalf("%s does not use the lean path", cfg.URL)
	}
	std, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	std.h1 = nil
	t.Cleanup(func() { lean.Close(); std.Close() })
	return map[string]*Client{"h1": lean, "net/http": std}
}

// sendOne prepares and sends one request and returns its record.
func sendOne(ctx context.Context, t testing.TB, c *Client, id string) record.Record {
	t.Helper()
	p, err := c.Prepare([]dataset.Request{{Prompt: "p", PromptLen: 4, OutputLen: 8, ID: id}}, id != "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var rec record.Record
	c.Send(ctx, &p[0], &rec, func() time.Duration { return time.Since(start) + time.Nanosecond })
	return rec
}

// sameRecord reports how two records of the same response differ, ignoring
// times.
func sameRecord(a, b record.Record) string {
	switch {
	case a.Success != b.Success, a.Status != b.Status, a.Error != b.Error:
		return fmt.Sprintf("success/status/error %v %d %q vs %v %d %q", a.Success, a.Status, a.Error, b.Success, b.Status, b.Error)
	case a.GeneratedText != b.GeneratedText:
		return fmt.Sprintf("text %.80q vs %.80q", a.GeneratedText, b.GeneratedText)
	case a.OutputTokens != b.OutputTokens, a.PromptLen != b.PromptLen, len(a.Chunks) != len(b.Chunks), a.RequestID != b.RequestID:
		return fmt.Sprintf("tokens %d/%d, chunks %d, id %q vs %d/%d, %d, %q", a.OutputTokens, a.PromptLen, len(a.Chunks), a.RequestID,
			b.OutputTokens, b.PromptLen, len(b.Chunks), b.RequestID)
	}
	return ""
}

const (
	evA     = "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
	evB     = "data: {\"choices\":[{\"text\":\"b\"}]}\n\n"
	evUsage = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":2}}\n\n"
	evDone  = "data: [DONE]\n\n"
)

// TestH1MatchesNetHTTP sends the same simulated responses through both
// paths and requires identical records (times aside).
func TestH1MatchesNetHTTP(t *testing.T) {
	big := `data: {"choices":[{"text":"` + strings.Repeat("x", 1<<20) + `"}]}` + "\n\n"
	stream := func(parts ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			for _, p := range parts {
				_, _ = io.WriteString(w, p)
				w.(http.Flusher).Flush()
			}
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string // the h1 record's error prefix; "" = success
	}{
		{"chunked SSE", stream(evA, evB, evUsage, evDone), ""},
		{"chunked SSE, events split across chunks", stream("data: {\"choi", "ces\":[{\"text\":\"a\"}]}\n", "\n"+evB[:10], evB[10:]+evDone), ""},
		{"Content-Length body", func(w http.ResponseWriter, r *http.Request) {
			body := evA + evB + evUsage + evDone
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			_, _ = io.WriteString(w, body)
		}, ""},
		{"Connection: close", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			stream(evA, evB, evDone)(w, r)
		}, ""},
		{"1xx before the response", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "</x>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusEarlyHints)
			stream(evA, evDone)(w, r)
		}, ""},
		{"non-200 with body", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, "  {\"error\":\""+strings.Repeat("e", 1000)+"\"}\n")
		}, "Bad Request: {\"error\":\"eee"},
		{"non-200 with an unknown status and no body", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(599)
		}, "599 status code 599"},
		{"1 MB event", stream(evA, big, evUsage, evDone), ""},
		{"server closes mid-stream", func(w http.ResponseWriter, r *http.Request) {
			stream(evA, "data: {\"choices\":[{\"te")(w, r)
			panic(http.ErrAbortHandler)
		}, "unexpected EOF"},
		{"invalid JSON stops the stream", stream(evA, "data: {oops\n\n", evB), "invalid JSON in SSE message"},
		{"no token", stream(evUsage, evDone), "Never received a valid chunk"},
		{"only [DONE]", stream(evDone), "Never received"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			recs := map[string]record.Record{}
			for name, c := range paths(t, Config{URL: srv.URL + "/v1/completions", APIKey: "secret-key"}) {
				recs[name] = sendOne(context.Background(), t, c, "id-1")
			}
			if d := sameRecord(recs["h1"], recs["net/http"]); d != "" {
				t.Errorf("h1 and net/http records differ: %s", d)
			}
			h1 := recs["h1"]
			if tt.want == "" && !h1.Success || tt.want != "" && !strings.HasPrefix(h1.Error, tt.want) {
				t.Errorf("h1 record: success %v, error %.120q; want error %q", h1.Success, h1.Error, tt.want)
			}
			if strings.Contains(h1.Error, "secret-key") {
				t.Errorf("error shows the API key: %q", h1.Error)
			}
			if h1.Success && (h1.Start <= 0 || h1.Chunks[0] < h1.Start || h1.End != h1.Chunks[len(h1.Chunks)-1]) {
				t.Errorf("times: start %v chunks %v end %v", h1.Start, h1.Chunks, h1.End)
			}
		})
	}
}

// connCounter counts the connections an httptest server accepted.
func connCounter(srv *httptest.Server) *atomic.Int32 {
	var n atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	return &n
}

// TestH1KeepAlive checks that sequential requests share one connection,
// and that a response that cannot be fully consumed (Connection: close,
// close-delimited body, error status) is not reused.
func TestH1KeepAlive(t *testing.T) {
	tests := []struct {
		name      string
		header    map[string]string
		status    int
		wantConns int32
	}{
		{"chunked keep-alive", nil, 200, 1},
		{"Content-Length keep-alive", map[string]string{"Content-Length": fmt.Sprint(len(evA + evDone))}, 200, 1},
		{"Connection: close", map[string]string{"Connection": "close"}, 200, 4},
		{"error status", nil, 500, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, evA+evDone)
			}))
			conns := connCounter(srv)
			srv.Start()
			defer srv.Close()
			c := paths(t, Config{URL: srv.URL + "/v1/completions"})["h1"]
			for i := range 4 {
				rec := sendOne(context.Background(), t, c, "")
				if rec.Success != (tt.status == 200) {
					t.Fatalf("request %d: %+v", i, rec)
				}
			}
			if n := conns.Load(); n != tt.wantConns {
				t.Errorf("%d connections, want %d", n, tt.wantConns)
			}
		})
	}
}

// TestH1MaxConns checks that at most MaxConns connections exist, that
// Sends beyond it wait for one and then succeed, and that a waiting Send
// gives up when its context ends.
func TestH1MaxConns(t *testing.T) {
	release := make(chan struct{})
	var active, peak atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := active.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		_, _ = io.WriteString(w, evA)
		w.(http.Flusher).Flush()
		<-release
		active.Add(-1)
		_, _ = io.WriteString(w, evDone)
	}))
	conns := connCounter(srv)
	srv.Start()
	defer srv.Close()
	c := paths(t, Config{URL: srv.URL + "/v1/completions", MaxConns: 2})["h1"]

	// A Send waiting for a connection gives up with its context.
	var wg sync.WaitGroup
	recs := make([]record.Record, 6)
	for i := range 2 {
		wg.Go(func() { recs[i] = sendOne(context.Background(), t, c, "") })
	}
	for active.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	waited := sendOne(ctx, t, c, "")
	cancel()
	if !strings.HasPrefix(waited.Error, "request cancelled") && !strings.Contains(waited.Error, "deadline exceeded") {
		t.Errorf("a Send waiting past its deadline: %+v", waited)
	}
	for i := 2; i < 6; i++ {
		wg.Go(func() { recs[i] = sendOne(context.Background(), t, c, "") })
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	for i, rec := range recs {
		if !rec.Success {
			t.Errorf("request %d: %s", i, rec.Error)
		}
	}
	if n, p := conns.Load(), peak.Load(); n > 2 || p > 2 {
		t.Errorf("%d connections, %d concurrent requests; MaxConns is 2", n, p)
	}
}

// TestH1CancelMidStream checks that cancelling the context interrupts a
// blocked read promptly, with net/http's error text, and that the
// connection is not reused.
func TestH1CancelMidStream(t *testing.T) {
	block := make(chan struct{})
	flushed := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, evA)
		w.(http.Flusher).Flush()
		flushed <- struct{}{}
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	recs := map[string]record.Record{}
	for name, c := range paths(t, Config{URL: srv.URL + "/v1/completions"}) {
		ctx, cancel := context.WithCancel(context.Background())
		p, _ := c.Prepare([]dataset.Request{{Prompt: "p", OutputLen: 2}}, false)
		var rec record.Record
		start := time.Now()
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.Send(ctx, &p[0], &rec, func() time.Duration {
				d := time.Since(start) + 1
				return d
			})
		}()
		// Cancel once the event is out and the client has had ample time
		// to read it, even on a loaded machine.
		<-flushed
		time.Sleep(200 * time.Millisecond)
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Send did not return after cancel", name)
		}
		recs[name] = rec
		if name == "h1" && len(c.h1.pool.idle) != 0 {
			t.Error("a cancelled connection went back to the pool")
		}
	}
	if d := sameRecord(recs["h1"], recs["net/http"]); d != "" {
		t.Errorf("h1 and net/http records differ: %s", d)
	}
	if rec := recs["h1"]; rec.Success || !strings.HasPrefix(rec.Error, "request cancelled") || len(rec.Chunks) != 1 {
		t.Errorf("h1 record %+v", rec)
	}
}

// TestH1Timeout checks that Config.Timeout bounds a request.
func TestH1Timeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/body/") {
			_, _ = io.WriteString(w, evA)
			w.(http.Flusher).Flush()
		}
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	for _, q := range []string{"", "/body"} {
		recs := map[string]record.Record{}
		// The timeout leaves a loaded machine ample time to read what the
		// server sends before it blocks, so both paths fail at the same point.
		for name, c := range paths(t, Config{URL: srv.URL + q + "/v1/completions", Timeout: 500 * time.Millisecond}) {
			recs[name] = sendOne(context.Background(), t, c, "")
		}
		if d := sameRecord(recs["h1"], recs["net/http"]); d != "" {
			t.Errorf("%q: h1 and net/http records differ: %s", q, d)
		}
		if rec := recs["h1"]; rec.Success || !strings.Contains(rec.Error, "Client.Timeout") {
			t.Errorf("%q: h1 record %+v", q, rec)
		}
	}
}

// rawServer answers every request on a connection with the next canned
// response (the last one repeats) and closes the connection after the
// responses marked close. It records the raw requests. When end is set
// (by startRawServer), the first connection's request numbered
// endAt (0-based) is left to end instead, and then the connection closed.
type rawServer struct {
	ln       net.Listener
	conns    atomic.Int32
	mu       sync.Mutex
	requests []string
	endAt    int
	end      func(conn net.Conn, br *bufio.Reader)
}

func newRawServer(t *testing.T, closeAfter bool, responses ...string) *rawServer {
	t.Helper()
	return startRawServer(t, &rawServer{}, closeAfter, responses...)
}

// startRawServer starts s, whose end and endAt are set.
func startRawServer(t *testing.T, s *rawServer, closeAfter bool, responses ...string) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	t.Cleanup(func() { ln.Close() })
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
					if first && s.end != nil && i == s.endAt {
						s.end(conn, br)
						return
					}
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					var b strings.Builder
					_ = req.Write(&b)
					s.mu.Lock()
					s.requests = append(s.requests, b.String()+"|"+string(body))
					s.mu.Unlock()
					_, _ = io.WriteString(conn, responses[min(i, len(responses)-1)])
					if closeAfter {
						return
					}
				}
			}()
		}
	}()
	return s
}

// reqs returns the requests received so far.
func (s *rawServer) reqs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/v1/completions" }

// TestH1Framings checks response framings httptest does not produce.
func TestH1Framings(t *testing.T) {
	body := evA + evB + evUsage + evDone
	chunked := func(parts ...string) string {
		var b strings.Builder
		for i, p := range parts {
			fmt.Fprintf(&b, "%x", len(p))
			if i%2 == 1 {
				b.WriteString(";ext=\"v\"")
			}
			b.WriteString("\r\n" + p + "\r\n")
		}
		return b.String()
	}
	tests := []struct {
		name, resp string
		want       string // error prefix, "" = success
		conns      int32  // after two requests
		close      bool   // the server closes the connection after the response
	}{
		{"chunk extensions and trailers", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
			chunked(evA, evB, evUsage, evDone) + "0\r\nX-Trailer: 1\r\n\r\n", "", 1, false},
		{"lower-case headers, LF line ends, upper-case hex", "HTTP/1.1 200 OK\ntransfer-encoding: Chunked\ncontent-type: text/event-stream\n\n" +
			fmt.Sprintf("%X\r\n%s\r\n0\r\n\r\n", 0xAB, ":"+strings.Repeat("p", 0xAB-len(body)-2)+"\n"+body), "", 1, false},
		{"HTTP/1.0 close-delimited", "HTTP/1.0 200 OK\r\n\r\n" + body, "", 2, true},
		{"HTTP/1.1 close-delimited", "HTTP/1.1 200 OK\r\n\r\n" + body, "", 2, true},
		{"HTTP/1.0 keep-alive with Content-Length", fmt.Sprintf("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: %d\r\n\r\n%s", len(body), body), "", 1, false},
		{"100 Continue then 200", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\n\r\n" + body, "", 1, false},
		{"malformed status line", "HTTP/1.1 2x0 OK\r\n\r\n", "Post \"http://", 2, false},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", "Post \"http://", 2, false},
		{"malformed chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "invalid byte in chunk length", 2, false},
		{"missing CRLF after chunk data", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%sXX", len(evA), evA), "malformed chunked encoding", 2, false},
		{"unsupported transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "Post \"http://", 2, false},
		{"conflicting Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc", "Post \"http://", 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRawServer(t, tt.close, tt.resp)
			c := paths(t, Config{URL: srv.url()})["h1"]
			for i := range 2 {
				rec := sendOne(context.Background(), t, c, "")
				if tt.want == "" && !rec.Success || tt.want != "" && !strings.HasPrefix(rec.Error, tt.want) {
					t.Fatalf("request %d: success %v error %q, want %q", i, rec.Success, rec.Error, tt.want)
				}
				if tt.want == "" && (rec.GeneratedText != "ab" || rec.OutputTokens != 2 || len(rec.Chunks) != 2) {
					t.Errorf("request %d: record %+v", i, rec)
				}
			}
			if n := srv.conns.Load(); n != tt.conns {
				t.Errorf("%d connections, want %d", n, tt.conns)
			}
		})
	}
}

// TestH1RetriesStaleConnection checks that a request on a reused
// connection the server has closed is sent again on a new one, and that a
// connection that fails after response bytes is not retried.
func TestH1RetriesStaleConnection(t *testing.T) {
	body := evA + evDone
	// The server advertises keep-alive but closes after each response.
	srv := newRawServer(t, true, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	c := paths(t, Config{URL: srv.url()})["h1"]
	for i := range 3 {
		if rec := sendOne(context.Background(), t, c, ""); !rec.Success {
			t.Fatalf("request %d: %s", i, rec.Error)
		}
		time.Sleep(10 * time.Millisecond) // let the close arrive
	}
	if n := srv.conns.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
	if n := len(srv.reqs()); n != 3 {
		t.Errorf("%d requests reached the server, want 3", n)
	}

	// Response bytes, then the close: no retry.
	srv = newRawServer(t, true, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	c = paths(t, Config{URL: srv.url()})["h1"]
	if rec := sendOne(context.Background(), t, c, ""); rec.Error != "unexpected EOF" {
		t.Errorf("record %+v, want unexpected EOF", rec)
	}
	if n := len(srv.reqs()); n != 1 {
		t.Errorf("%d requests reached the server, want 1", n)
	}
}

// TestH1Request checks the request as the server parses it.
func TestH1Request(t *testing.T) {
	srv := newRawServer(t, false, "HTTP/1.1 200 OK\r\nContent-Length: 14\r\n\r\ndata: [DONE]\n\n")
	c := paths(t, Config{URL: strings.Replace(srv.url(), "/v1/", "/a%20b/v1/", 1), APIKey: "k", Headers: map[string]string{"x-custom": "v", "User-Agent": "mine"}})["h1"]
	_ = sendOne(context.Background(), t, c, "id-9")
	_ = sendOne(context.Background(), t, c, "")
	if len(srv.reqs()) != 2 {
		t.Fatalf("%d requests", len(srv.reqs()))
	}
	for i, want := range []string{"X-Request-Id: id-9\r\n", ""} {
		req := srv.reqs()[i]
		for _, line := range []string{"POST /a%20b/v1/completions HTTP/1.1\r\n", "Host: " + srv.ln.Addr().String() + "\r\n",
			"User-Agent: mine\r\n", "Authorization: Bearer k\r\n", "X-Custom: v\r\n", "Content-Type: application/json\r\n",
			"Content-Length: 134\r\n", want, "|{\"model\":\"m\",\"prompt\":\"p\""} {
			if !strings.Contains(req, line) {
				t.Errorf("request %d lacks %q:\n%s", i, line, req)
			}
		}
		if i == 1 && strings.Contains(req, "X-Request-Id") {
			t.Errorf("request without id sent one:\n%s", req)
		}
	}
}

// TestH1IdleExpiry checks that a connection idle longer than
// h1IdleTimeout is closed, not reused.
func TestH1IdleExpiry(t *testing.T) {
	srv := newRawServer(t, false, "HTTP/1.1 200 OK\r\nContent-Length: 14\r\n\r\ndata: [DONE]\n\n")
	c := paths(t, Config{URL: srv.url(), MaxConns: 1})["h1"]
	now := time.Now()
	c.h1.pool.now = func() time.Time { return now }
	_ = sendOne(context.Background(), t, c, "")
	now = now.Add(h1IdleTimeout)
	_ = sendOne(context.Background(), t, c, "")
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("%d connections after an idle period of h1IdleTimeout, want 1", n)
	}
	now = now.Add(h1IdleTimeout + time.Millisecond)
	_ = sendOne(context.Background(), t, c, "")
	if n := srv.conns.Load(); n != 2 {
		t.Errorf("%d connections after an idle period over h1IdleTimeout, want 2", n)
	}
	if n := c.h1.pool.open; n != 1 {
		t.Errorf("the pool counts %d open connections, want 1", n)
	}
	c.Close()
	if n, open := len(c.h1.pool.idle), c.h1.pool.open; n != 0 || open != 0 {
		t.Errorf("%d idle connections, %d open after Close", n, open)
	}
}

// TestH1Selection checks which URLs take the lean path.
func TestH1Selection(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	tests := []struct {
		url     string
		headers map[string]string
		lean    bool
	}{
		{"http://127.0.0.1:8000/v1/completions", nil, true},
		{"http://localhost/v1/completions", nil, true},
		{"https://127.0.0.1:8000/v1/completions", nil, false},
		{"http://user:pw@127.0.0.1:8000/v1/completions", nil, false},
		{"http://127.0.0.1:8000/v1/completions", map[string]string{"X-Bad": "a\r\nb"}, false},
	}
	for _, tt := range tests {
		c, err := New(Config{Backend: "openai", URL: tt.url, Headers: tt.headers})
		if err != nil {
			t.Fatal(err)
		}
		if (c.h1 != nil) != tt.lean {
			t.Errorf("%s %v: lean path %v, want %v", tt.url, tt.headers, c.h1 != nil, tt.lean)
		}
	}
}

// FuzzH1Response feeds arbitrary bytes, split into reads of fuzzed sizes,
// to the response reader and compares it with net/http wherever
// http.ReadResponse (after skipping 1xx responses) reads the head: the
// same status; for a 200 whose body net/http reads whole, the body read
// to its end, the same keep-alive decision and "metadata" header, and
// exactly the events, at exactly the times, that the reference SSE framer
// gives for the body bytes each read brought (their offsets found by a
// reference chunked decoder, itself checked against net/http's body); for
// another status, the error text built from net/http's body (which a
// redirect's note on where it pointed follows). A head with
// obsolete line folding is left out: the reader ignores continuation
// lines (servers do not send them) where net/http joins them.
func FuzzH1Response(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\ndata:\r\n3\r\n a\n\r\n1\r\n\n\r\n0\r\nT: 1\r\n\r\n"), []byte{3})
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nContent-Length: 9\r\nConnection: keep-alive\r\n\r\ndata: x\n\n"), []byte{1})
	f.Add([]byte("HTTP/1.1 404 Not Found\r\ncontent-length: 4\r\n\r\nnope"), []byte{7})
	f.Add([]byte("HTTP/1.1 200 OK\n\ndata: a\n\ndata: b"), []byte{2})
	f.Add([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 48\r\n\r\n{\"error\":{\"message\":\"overloaded\",\"code\":503}}"), []byte{})
	f.Add([]byte("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:8001/v1/completions?k=1\r\nContent-Length: 5\r\n\r\nmoved"), []byte{2})
	f.Add([]byte("HTTP/1.0 200 OK\r\nConnection: close, keep-alive\r\nContent-Length: 14\r\n\r\ndata: [DONE]\n\n"), []byte{})
	f.Add([]byte("HTTP/1.0 200 OK\r\nConnection: close\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n"), []byte{})
	f.Add([]byte("HTTP/1.1 307 Temporary Redirect\r\nlocation: http://u:p@other:8001/v1/completions?sig=1\r\nLocation: /second\r\nContent-Length: 5\r\n\r\nmoved"), []byte{4})
	for i, body := range realStreams {
		var c strings.Builder
		for rest := body; len(rest) > 0; {
			n := min(len(rest), 40+30*i)
			fmt.Fprintf(&c, "%x\r\n%s\r\n", n, rest[:n])
			rest = rest[n:]
		}
		c.WriteString("0\r\n\r\n")
		f.Add([]byte("HTTP/1.1 200 OK\r\ndate: Thu, 04 Dec 2026 08:00:00 GMT\r\nserver: uvicorn\r\ncontent-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n"+c.String()), []byte{byte(5 + 20*i), 1})
		f.Add([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\nmetadata: {\"u\": 1}\r\n\r\n%s", len(body), body)), []byte{byte(11 + i), 0, 64})
	}
	f.Fuzz(func(t *testing.T, raw, splits []byte) {
		if len(raw) > maxFuzzBody {
			return // the reference rescans a pending message on every read
		}
		res := runH1(raw, splits)
		resp, skipped, headEnd, body, bodyErr, err := netHTTPResponse(raw)
		if err != nil || resp.ProtoMajor != 1 || resp.ProtoMinor > 1 || resp.StatusCode < 100 {
			return // the reader takes HTTP/1.0 and 1.1 only, status codes of three digits
		}
		head := raw[:headEnd]
		if bytes.Contains(head, []byte("\n ")) || bytes.Contains(head, []byte("\n\t")) {
			return // obsolete line folding
		}
		if skipped > h1Max1xx {
			if res.headErr == nil {
				t.Fatalf("%q: read after %d 1xx responses", raw, skipped)
			}
			return
		}
		if res.headErr != nil || res.status != resp.StatusCode {
			t.Fatalf("%q: net/http reads status %d, the reader %d (%v)", raw, resp.StatusCode, res.status, res.headErr)
		}
		if bodyErr != nil {
			return // net/http could not read the body
		}
		if resp.StatusCode != http.StatusOK {
			reason := http.StatusText(resp.StatusCode)
			if reason == "" {
				reason = resp.Status
			}
			want := reason
			if b := strings.TrimSpace(string(body[:min(len(body), 512)])); b != "" {
				want += ": " + b
			}
			want += redirectNote(resp.StatusCode, resp.Header.Get("Location"))
			if res.statusErr != want && !(isRedirect(resp.StatusCode) && strings.HasPrefix(res.statusErr, want+" (a redirect")) {
				t.Fatalf("%q: error %q, want %q", raw, res.statusErr, want)
			}
			return
		}
		if res.bodyErr != nil || !res.done {
			t.Fatalf("%q: net/http read the body, the reader: %v (done %v)", raw, res.bodyErr, res.done)
		}
		if res.keepAlive != !resp.Close {
			t.Fatalf("%q: keep-alive %v, net/http close %v", raw, res.keepAlive, resp.Close)
		}
		if m := resp.Header.Values("Metadata"); len(m) == 1 && string(res.metadata) != m[0] || len(m) == 0 && res.metadata != nil {
			t.Fatalf("%q: metadata %q, net/http %q", raw, res.metadata, m)
		}
		var pos []int
		end := len(raw)
		switch {
		case len(resp.TransferEncoding) > 0:
			b, p, e, ok := refDechunk(string(raw[headEnd:]))
			if !ok || b != string(body) {
				t.Fatalf("%q: the reference chunked decoder reads %q (%v), net/http %q", raw, b, ok, body)
			}
			pos, end = shift(p, headEnd), headEnd+e
		default:
			if resp.ContentLength >= 0 {
				end = headEnd + int(resp.ContentLength)
			}
			for i := range body {
				pos = append(pos, headEnd+i)
			}
		}
		final := timeAt(res.reads, end-1)
		if resp.ContentLength < 0 && len(resp.TransferEncoding) == 0 && len(res.reads) > 0 {
			final = res.reads[len(res.reads)-1].at // read to EOF
		}
		want := refSSE(bodyReads(res.reads, string(body), pos), final)
		if d := sameEvents(res.events, want); d != "" {
			t.Fatalf("%q: %s", raw, d)
		}
	})
}

// TestH1Preconnect checks that the lean path uses pre-dialled connections.
func TestH1Preconnect(t *testing.T) {
	srv := newRawServer(t, false, "HTTP/1.1 200 OK\r\nContent-Length: 14\r\n\r\ndata: [DONE]\n\n")
	c := paths(t, Config{URL: srv.url()})["h1"]
	if err := c.Preconnect(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_ = sendOne(context.Background(), t, c, "")
	}
	if n := srv.conns.Load(); n != 2 {
		t.Errorf("%d connections, want the 2 pre-dialled ones", n)
	}
	if n := len(srv.reqs()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

// TestH1Trace checks that the lean path calls the httptrace hooks
// calibrate uses, in order, after Start.
func TestH1Trace(t *testing.T) {
	srv := newRawServer(t, false, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(evA), evA))
	c := paths(t, Config{URL: srv.url()})["h1"]
	var wrote, first time.Duration
	t0 := time.Now()
	now := func() time.Duration { return time.Since(t0) }
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { wrote = now() },
		GotFirstResponseByte: func() { first = now() },
	})
	p, _ := c.Prepare([]dataset.Request{{Prompt: "p", OutputLen: 1}}, false)
	var rec record.Record
	c.Send(ctx, &p[0], &rec, now)
	// The chunk is stamped with when its bytes arrived (kernel receive
	// timestamps), which may precede the first-byte hook's call.
	if !rec.Success || !(rec.Start < wrote && wrote < first && rec.Start < rec.Chunks[0]) {
		t.Errorf("start %v, wrote %v, first byte %v, chunk %v (%s)", rec.Start, wrote, first, rec.Chunks, rec.Error)
	}
}

// TestH1StartStamp checks where the lean path takes rec.Start: before
// acquiring the connection when that meant dialling or waiting for one
// (both count in the request's latency, as in vLLM), and again just before
// the write when a connection was there to take (idle in the pool or
// dialled before the run), so that the client's own work between the two
// is not counted as the server's. Each hook the request passes through
// moves a step clock on by an hour: a Start below an hour was taken before
// the hook, one above after it.
func TestH1StartStamp(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, evA)
		w.(http.Flusher).Flush()
		if r.Header.Get("X-Request-Id") == "hold" {
			<-release
		}
		_, _ = io.WriteString(w, evDone)
	}))
	defer srv.Close()
	var clk, written atomic.Int64
	step := func() { clk.Add(int64(time.Hour)) }
	now := func() time.Duration { return time.Duration(clk.Load()) }
	// Every write moves the clock on first: a Start taken after any byte
	// went out is at or past written.
	wrap := func(c net.Conn) net.Conn {
		if c == nil {
			return nil
		}
		return stepConn{c, func() { written.Store(clk.Add(int64(time.Hour))) }}
	}
	newClient := func(maxConns int) *Client {
		c := paths(t, Config{URL: srv.URL + "/v1/completions", MaxConns: maxConns})["h1"]
		h := c.h1
		dial, take := h.dial, h.take
		h.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			step()
			c, err := dial(ctx, network, addr)
			return wrap(c), err
		}
		h.take = func(addr string) net.Conn {
			c := take(addr)
			if c != nil {
				step()
			}
			return wrap(c)
		}
		return c
	}
	send := func(c *Client, id string) record.Record {
		t.Helper()
		p, err := c.Prepare([]dataset.Request{{Prompt: "p", PromptLen: 4, OutputLen: 8, ID: id}}, true)
		if err != nil {
			t.Fatal(err)
		}
		// Written: the clock moves on, so a Start taken after the
		// write would be at or past wrote.
		var wrote time.Duration
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { wrote = time.Duration(clk.Add(int64(time.Hour))) },
		})
		var rec record.Record
		c.Send(ctx, &p[0], &rec, now)
		if !rec.Success {
			t.Fatalf("request %s: %s", id, rec.Error)
		}
		// (The waiter's check is only against its own write hook: the
		// held request writes too.)
		if w := time.Duration(written.Load()); rec.Start >= wrote || (id != "waiter" && rec.Start >= w) {
			t.Errorf("request %s: Start %v, written at %v (%v once written): Start must come before the write", id, rec.Start, w, wrote)
		}
		return rec
	}
	tests := []struct {
		name  string
		after bool // Start taken after the hook: the client's own time
		run   func(t *testing.T) record.Record
	}{
		{"dialled", false, func(t *testing.T) record.Record {
			return send(newClient(0), "a")
		}},
		{"pre-dialled", true, func(t *testing.T) record.Record {
			c := newClient(0)
			if err := c.Preconnect(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			return send(c, "a")
		}},
		{"idle in the pool", true, func(t *testing.T) record.Record {
			c := newClient(0)
			send(c, "a")
			c.h1.pool.now = func() time.Time { step(); return time.Now() }
			clk.Store(0)
			return send(c, "b")
		}},
		{"waited for a connection", false, func(t *testing.T) record.Record {
			c := newClient(1)
			held := make(chan record.Record)
			go func() { held <- send(c, "hold") }()
			pool := func() (open, waiting int) {
				c.h1.pool.mu.Lock()
				defer c.h1.pool.mu.Unlock()
				return c.h1.pool.open, len(c.h1.pool.waiters)
			}
			got := make(chan record.Record)
			for open, _ := pool(); open == 0; open, _ = pool() { // the held request has its connection
				time.Sleep(time.Millisecond)
			}
			c.h1.pool.now = func() time.Time { step(); return time.Now() }
			clk.Store(0)
			go func() { got <- send(c, "waiter") }()
			for _, w := pool(); w == 0; _, w = pool() {
				time.Sleep(time.Millisecond)
			}
			close(release)
			<-held
			return <-got
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.Store(0)
			rec := tt.run(t)
			if after := rec.Start >= time.Hour; after != tt.after {
				t.Errorf("Start %v: taken after the connection's hook = %v, want %v", rec.Start, after, tt.after)
			}
		})
	}
}

// TestNetHTTPStartStamp checks that the net/http path, too, takes Start
// again when a connection was idle in its pool, and only then: each call
// of the clock moves it on by an hour, so a Start of an hour or more was
// taken a second time.
func TestNetHTTPStartStamp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, evA+evDone)
	}))
	defer srv.Close()
	c := paths(t, Config{URL: srv.URL + "/v1/completions"})["net/http"]
	p, err := c.Prepare([]dataset.Request{{Prompt: "p", PromptLen: 4, OutputLen: 8}}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, wantAgain := range []bool{false, true} { // dialled, then idle
		var clk time.Duration
		now := func() time.Duration { clk += time.Hour; return clk - time.Hour }
		var rec record.Record
		c.Send(context.Background(), &p[0], &rec, now)
		if !rec.Success {
			t.Fatalf("request %d: %s", i, rec.Error)
		}
		if again := rec.Start >= time.Hour; again != wantAgain {
			t.Errorf("request %d: Start %v: taken again = %v, want %v", i, rec.Start, again, wantAgain)
		}
	}
}

// TestH1StartStampRetry checks that a request sent again on a new
// connection, its idle one found closed by the server, is timed from
// before the new connection's dial (the dial counts, as for any dial),
// not from its write: each hook moves a step clock on by an hour.
func TestH1StartStampRetry(t *testing.T) {
	body := evA + evDone
	// The server advertises keep-alive but closes after each response.
	srv := newRawServer(t, true, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	c := paths(t, Config{URL: srv.url()})["h1"]
	if rec := sendOne(context.Background(), t, c, ""); !rec.Success {
		t.Fatal(rec.Error)
	}
	time.Sleep(10 * time.Millisecond) // let the close arrive
	var clk, dialAt atomic.Int64
	dial := c.h1.dial
	c.h1.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialAt.Store(clk.Add(int64(time.Hour)))
		return dial(ctx, network, addr)
	}
	c.h1.pool.now = func() time.Time { clk.Add(int64(time.Hour)); return time.Now() }
	p, err := c.Prepare([]dataset.Request{{Prompt: "p", PromptLen: 4, OutputLen: 8}}, false)
	if err != nil {
		t.Fatal(err)
	}
	var rec record.Record
	c.Send(context.Background(), &p[0], &rec, func() time.Duration { return time.Duration(clk.Load()) })
	at := time.Duration(dialAt.Load())
	if !rec.Success || at == 0 {
		t.Fatalf("the request was not sent again on a new connection: dialled at %v, %+v", at, rec)
	}
	if rec.Start < time.Hour || rec.Start >= at {
		t.Errorf("Start %v, want the retry's: after the stale connection was taken (1h) and before its dial (%v)", rec.Start, at)
	}
}

// stepConn is a connection that calls step before each write.
type stepConn struct {
	net.Conn
	step func()
}

func (c stepConn) Write(b []byte) (int, error) {
	c.step()
	return c.Conn.Write(b)
}
