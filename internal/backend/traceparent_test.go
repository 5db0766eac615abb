package backend

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/record"
)

// traceparentRE is the W3C version-00 traceparent vbench sends: lowercase
// hex, sampled.
var traceparentRE = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-01$`)

func TestTraceLinesFormat(t *testing.T) {
	// All-zero random bytes would make invalid ids: the last bit is set.
	tl, err := newTraceLines(3, bytes.NewReader(make([]byte, 3*traceRandomBytes)))
	if err != nil {
		t.Fatal(err)
	}
	want := "traceparent: 00-00000000000000000000000000000001-0000000000000001-01\r\n"
	for i := range 3 {
		for a := range traceAttempts {
			if got := string(tl.line(i, a)); got != want {
				t.Errorf("line(%d, %d) = %q, want %q", i, a, got, want)
			}
		}
		if got := tl.value(i); got != strings.TrimSuffix(strings.TrimPrefix(want, "traceparent: "), "\r\n") {
			t.Errorf("value(%d) = %q", i, got)
		}
		if got := tl.traceID(i); got != "00000000000000000000000000000001" {
			t.Errorf("traceID(%d) = %q", i, got)
		}
	}
	// Counting bytes: request i's ids are bytes i*32.., attempt a's
	// parent id the 8 bytes after the 16 of the trace id.
	seq := make([]byte, 2*traceRandomBytes)
	for i := range seq {
		seq[i] = byte(i + 1)
	}
	tl, err = newTraceLines(2, bytes.NewReader(seq))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i, a int
		want string
	}{
		{0, 0, "00-0102030405060708090a0b0c0d0e0f10-1112131415161718-01"},
		{0, 1, "00-0102030405060708090a0b0c0d0e0f10-191a1b1c1d1e1f20-01"},
		{1, 0, "00-2122232425262728292a2b2c2d2e2f30-3132333435363738-01"},
		{1, 1, "00-2122232425262728292a2b2c2d2e2f30-393a3b3c3d3e3f40-01"},
	} {
		if got := string(tl.line(c.i, c.a)); got != "traceparent: "+c.want+"\r\n" {
			t.Errorf("line(%d, %d) = %q, want %q", c.i, c.a, got, c.want)
		}
	}
	if _, err := newTraceLines(2, bytes.NewReader(seq[:10])); err == nil {
		t.Error("a short random source gave no error")
	}
}

// TestTraceContextLoopback sends a run's worth of requests on both paths
// to a loopback server that captures each request's traceparent and
// x-request-id, and checks: the W3C format, one header per request,
// unique trace and parent ids, and each record's TraceID equals the trace
// id the server received for that request. Warmup-style requests
// (prepared without ids) and a client without trace context send none.
func TestTraceContextLoopback(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]string{} // x-request-id -> traceparent values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		got[r.Header.Get("X-Request-Id")] = r.Header.Values("Traceparent")
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, sseBody(2, simEvent))
	}))
	defer srv.Close()
	// The handler's writes reach the test over the network, which the race
	// detector does not see: every access takes mu.
	seen := func(id string) []string {
		mu.Lock()
		defer mu.Unlock()
		return got[id]
	}
	reset := func() {
		mu.Lock()
		defer mu.Unlock()
		clear(got)
	}
	const n = 40
	reqs := make([]dataset.Request, n)
	for i := range reqs {
		reqs[i] = dataset.Request{Prompt: "p", PromptLen: 1, OutputLen: 2, ID: fmt.Sprintf("r-%d", i)}
	}
	for name, c := range paths(t, Config{URL: srv.URL + "/v1/completions", MaxConns: 8, TraceContext: true}) {
		t.Run(name, func(t *testing.T) {
			reset()
			prepared, err := c.Prepare(reqs, true)
			if err != nil {
				t.Fatal(err)
			}
			recs := make([]record.Record, n)
			var wg sync.WaitGroup
			start := time.Now()
			for i := range prepared {
				wg.Go(func() {
					c.Send(context.Background(), &prepared[i], &recs[i], func() time.Duration { return time.Since(start) })
				})
			}
			wg.Wait()
			traces, parents := map[string]bool{}, map[string]bool{}
			for i, rec := range recs {
				if !rec.Success {
					t.Fatalf("request %d: %s", i, rec.Error)
				}
				vals := seen(reqs[i].ID)
				if len(vals) != 1 {
					t.Fatalf("request %d: %d traceparent headers: %q", i, len(vals), vals)
				}
				m := traceparentRE.FindStringSubmatch(vals[0])
				if m == nil {
					t.Fatalf("request %d: traceparent %q is not W3C version 00", i, vals[0])
				}
				if rec.TraceID != m[1] {
					t.Errorf("request %d: record trace_id %q, server saw %q", i, rec.TraceID, m[1])
				}
				if traces[m[1]] || parents[m[2]] {
					t.Errorf("request %d: trace or parent id repeated: %s", i, vals[0])
				}
				traces[m[1]], parents[m[2]] = true, true
			}

			// Prepared without ids (warmups, the ready check): none.
			reset()
			warm, err := c.Prepare(reqs[:1], false)
			if err != nil {
				t.Fatal(err)
			}
			var rec record.Record
			c.Send(context.Background(), &warm[0], &rec, func() time.Duration { return 0 })
			if !rec.Success || rec.TraceID != "" || len(seen("")) != 0 {
				t.Errorf("warmup: success %v, trace_id %q, traceparent %q", rec.Success, rec.TraceID, seen(""))
			}
		})
	}
	for name, c := range paths(t, Config{URL: srv.URL + "/v1/completions"}) {
		t.Run("off/"+name, func(t *testing.T) {
			reset()
			rec := sendOne(context.Background(), t, c, "r-off")
			if !rec.Success || rec.TraceID != "" || len(seen("r-off")) != 0 {
				t.Errorf("trace context off: success %v, trace_id %q, traceparent %q", rec.Success, rec.TraceID, seen("r-off"))
			}
		})
	}
}

// TestTraceContextRetryAttempt: when the lean client re-sends a request
// on a new connection because its keep-alive connection was stale, the
// second attempt keeps the trace id and carries a parent id of its own.
func TestTraceContextRetryAttempt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	heads := make(chan string, 4)
	go func() {
		for n := 0; ; n++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn net.Conn, n int) {
				defer conn.Close()
				buf := make([]byte, 64<<10)
				for k := 0; ; k++ {
					m, err := conn.Read(buf)
					if err != nil {
						return
					}
					heads <- string(buf[:m])
					if n == 0 && k == 1 {
						// The kept-alive connection "went stale": reset it
						// without answering (a connection that merely ends
						// after the request was written is not retried).
						_ = conn.(*net.TCPConn).SetLinger(0)
						return
					}
					body := sseBody(1, simEvent)
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				}
			}(conn, n)
		}
	}()
	c, err := New(Config{Backend: "openai", URL: "http://" + ln.Addr().String() + "/v1/completions", Model: "m", MaxConns: 1, TraceContext: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.h1 == nil {
		t.Fatal("not the lean path")
	}
	p, err := c.Prepare([]dataset.Request{{Prompt: "a", ID: "a"}, {Prompt: "b", ID: "b"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Duration { return 0 }
	var r0, r1 record.Record
	c.Send(context.Background(), &p[0], &r0, now)
	c.Send(context.Background(), &p[1], &r1, now) // stale connection, then a new one
	if !r0.Success || !r1.Success {
		t.Fatalf("errors: %q %q", r0.Error, r1.Error)
	}
	tp := regexp.MustCompile(`(?i)\r\ntraceparent: (00-([0-9a-f]{32})-([0-9a-f]{16})-01)\r\n`)
	var ms [][]string
	for range 3 {
		m := tp.FindStringSubmatch(<-heads)
		if m == nil {
			t.Fatal("a request without a traceparent line")
		}
		ms = append(ms, m)
	}
	if ms[1][2] != r1.TraceID || ms[2][2] != r1.TraceID {
		t.Errorf("the retried request's trace ids %s, %s; record %s", ms[1][2], ms[2][2], r1.TraceID)
	}
	if ms[1][3] == ms[2][3] {
		t.Errorf("both attempts sent parent id %s", ms[1][3])
	}
	if ms[0][2] == r1.TraceID {
		t.Error("two requests share a trace id")
	}
}

// BenchmarkRequestHeaders measures what the send path does to a request's
// head, per path, with trace context off and on: the lean client's
// rendering of head, headers and body into the connection's buffer, and
// net/http's request serialisation (req.Write, which the transport runs
// for every request) of a prepared request's header. Trace context adds
// no allocation on either path; the figures show its cost in ns.
func BenchmarkRequestHeaders(b *testing.B) {
	reqs := []dataset.Request{{Prompt: strings.Repeat("x", 200), PromptLen: 200, OutputLen: 64, ID: "bench-1-0"}}
	for _, trace := range []bool{false, true} {
		c, err := New(Config{Backend: "openai", URL: "http://127.0.0.1:1/v1/completions", Model: "m", TraceContext: trace,
			Headers: map[string]string{"X-Tenant": "bench"}})
		if err != nil {
			b.Fatal(err)
		}
		p, err := c.Prepare(reqs, true)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("path=h1/trace=%v", trace), func(b *testing.B) {
			cn := &h1Conn{Conn: discardConn{}}
			x := h1Exchange{h: c.h1, cn: cn}
			b.ReportAllocs()
			for b.Loop() {
				if err := x.write(&p[0], nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("path=net-http/trace=%v", trace), func(b *testing.B) {
			req, err := http.NewRequest(http.MethodPost, c.cfg.URL, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header = p[0].header
			b.ReportAllocs()
			for b.Loop() {
				if err := req.Header.Write(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
		c.Close()
	}
}

// discardConn is a net.Conn whose writes succeed and go nowhere.
type discardConn struct{ net.Conn }

func (discardConn) Write(b []byte) (int, error) { return len(b), nil }

// TestTraceContextWriteAllocs: rendering a request with its traceparent
// allocates no more than rendering it without (the lines are prepared).
func TestTraceContextWriteAllocs(t *testing.T) {
	reqs := []dataset.Request{{Prompt: "p", ID: "r-0"}}
	allocs := map[bool]float64{}
	for _, trace := range []bool{false, true} {
		c, err := New(Config{Backend: "openai", URL: "http://127.0.0.1:1/v1/completions", Model: "m", TraceContext: trace})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		p, err := c.Prepare(reqs, true)
		if err != nil {
			t.Fatal(err)
		}
		x := h1Exchange{h: c.h1, cn: &h1Conn{Conn: discardConn{}}}
		_ = x.write(&p[0], nil, nil) // size the buffer
		allocs[trace] = testing.AllocsPerRun(100, func() { _ = x.write(&p[0], nil, nil) })
	}
	if allocs[true] > allocs[false] {
		t.Errorf("allocations per request: %v with trace context, %v without", allocs[true], allocs[false])
	}
}
