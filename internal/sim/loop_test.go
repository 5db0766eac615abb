package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The loop's heap pops in due order, also after removals from its middle,
// and keeps every stream's index right.
func TestLoopHeap(t *testing.T) {
	lp := &streamLoop{}
	rng := rand.New(rand.NewPCG(3, 4))
	var all []*generation
	for range 400 {
		g := &generation{}
		g.loop.due = time.Duration(rng.IntN(1000))
		lp.heap.push(g)
		all = append(all, g)
	}
	removed := map[*generation]bool{}
	for range 100 {
		g := all[rng.IntN(len(all))]
		if removed[g] {
			continue
		}
		if lp.heap.s[g.loop.idx].x != g {
			t.Fatalf("stale index %d", g.loop.idx)
		}
		lp.heap.remove(g.loop.idx)
		removed[g] = true
		if g.loop.idx != -1 {
			t.Fatalf("removed stream keeps index %d", g.loop.idx)
		}
	}
	var want, got []time.Duration
	for _, g := range all {
		if !removed[g] {
			want = append(want, g.loop.due)
		}
	}
	slices.Sort(want)
	for lp.heap.len() > 0 {
		for i, e := range lp.heap.s {
			g := e.x
			if g.loop.idx != i {
				t.Fatalf("heap[%d] has index %d", i, g.loop.idx)
			}
		}
		got = append(got, lp.heap.remove(0).loop.due)
	}
	if !slices.Equal(got, want) {
		t.Errorf("pops out of order")
	}
}

// More streams than one loop takes: every stream is complete and counted.
func TestLoopManyStreams(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
	s := startServer(t, cfg)
	const streams, tokens = 3 * loopShare, 20
	var wg sync.WaitGroup
	errs := make(chan error, streams)
	for i := range streams {
		wg.Go(func() {
			resp := post(t, context.Background(), s.URL()+"/v1/completions",
				fmt.Sprintf(`{"prompt":"p %d","max_tokens":%d,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`, i, tokens), nil)
			r := summarize(t, readAll(t, resp))
			if r.tokenEvents != tokens || r.usage == nil || r.usage[2] != tokens {
				errs <- fmt.Errorf("stream %d: %+v", i, r)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := s.Stats(); st.Completed != streams || st.Running != 0 || st.GeneratedTokens != streams*tokens {
		t.Errorf("stats %+v", st)
	}
}

// A client that stops reading does not hold up the other streams of its
// loop: once the socket buffers are full its stream goes on from its own
// goroutine (blocked in a write, as with net/http) until the client leaves.
func TestLoopStalledClient(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL, cfg.MaxModelLen = 0, 0, 1<<20
	s := startServer(t, cfg)
	c, err := net.Dial("tcp", s.URL()[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"prompt":"p","max_tokens":1000000,"ignore_eos":true,"stream":true}`
	if _, err := fmt.Fprintf(c, "POST /v1/completions HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		t.Fatal(err)
	}
	// Wait until the stalled stream fills the buffers and leaves its loop.
	for st := s.Stats(); st.GeneratedTokens < 10000 || loops[0].len() != 0; st = s.Stats() {
		time.Sleep(5 * time.Millisecond) // the test's timeout bounds this
	}
	// Another stream, on the same loop (fewer than loopShare streams run),
	// completes meanwhile.
	resp := post(t, context.Background(), s.URL()+"/v1/completions",
		`{"prompt":"q","max_tokens":50,"ignore_eos":true,"stream":true}`, nil)
	if r := summarize(t, readAll(t, resp)); r.tokenEvents != 50 {
		t.Errorf("the other stream: %+v", r)
	}
	if st := s.Stats(); st.Completed != 1 || st.Running != 1 || st.Aborted != 0 {
		t.Errorf("stats while the stalled client waits: %+v", st)
	}
	c.Close()
	for st := s.Stats(); st.Aborted != 1 || st.Running != 0; st = s.Stats() {
		time.Sleep(5 * time.Millisecond)
	}
	if st := s.Stats(); st.GeneratedTokens >= 1000000 {
		t.Errorf("stats %+v", st)
	}
}

// A streamed response hands its connection back: a keep-alive client
// reuses it for the next request.
func TestRawStreamKeepAlive(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
	s := startServer(t, cfg)
	var reused []bool
	for i := range 3 {
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { reused = append(reused, info.Reused) },
		})
		resp := post(t, ctx, s.URL()+"/v1/completions",
			fmt.Sprintf(`{"prompt":"p %d","max_tokens":5,"ignore_eos":true,"stream":true}`, i), map[string]string{"X-Request-Id": "id-" + strconv.Itoa(i)})
		if got := resp.Header.Get("X-Request-Id"); got != "id-"+strconv.Itoa(i) || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
			t.Errorf("headers %v", resp.Header)
		}
		if r := summarize(t, readAll(t, resp)); r.tokenEvents != 5 {
			t.Errorf("stream %d: %+v", i, r)
		}
	}
	if !slices.Equal(reused, []bool{false, true, true}) {
		t.Errorf("connection reused %v, want [false true true]", reused)
	}
	if st := s.Stats(); st.Completed != 3 || st.Running != 0 {
		t.Errorf("stats %+v", st)
	}
}

// Two requests written at once on one connection (pipelined) and a final
// "Connection: close" one are all answered, in order, and the server closes
// the connection after the last.
func TestRawStreamPipelinedAndClose(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
	s := startServer(t, cfg)
	c := dialRaw(t, s)
	req := func(id string, close bool) string {
		body := `{"prompt":"p","max_tokens":3,"ignore_eos":true,"stream":true}`
		h := "POST /v1/completions HTTP/1.1\r\nHost: sim\r\nX-Request-Id: " + id + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
		if close {
			h += "Connection: close\r\n"
		}
		return h + "\r\n" + body
	}
	if _, err := io.WriteString(c, req("a", false)+req("b", false)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	read := func(id string) *http.Response {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %s: %v", id, err)
		}
		if got := resp.Header.Get("X-Request-Id"); got != id {
			t.Errorf("response for %q, want %q", got, id)
		}
		if r := summarize(t, readAll(t, resp)); r.tokenEvents != 3 {
			t.Errorf("stream %s: %+v", id, r)
		}
		return resp
	}
	read("a")
	read("b")
	if _, err := io.WriteString(c, req("c", true)); err != nil {
		t.Fatal(err)
	}
	if resp := read("c"); !resp.Close {
		t.Error("no Connection: close on the last response")
	}
	if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("after Connection: close read %d, %v; want EOF", n, err)
	}
}

// failOnce is a listener whose first Accept fails with a non-timeout
// error, as when the process runs out of file descriptors.
type failOnce struct {
	net.Listener
	failed bool
}

func (l *failOnce) Accept() (net.Conn, error) {
	if !l.failed {
		l.failed = true
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

// An accept error other than a closed listener is passed on, and accepting
// goes on after it.
func TestInjectListenerAcceptError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	il := newInjectListener(&failOnce{Listener: ln})
	defer il.Close()
	if _, err := il.Accept(); !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("first Accept: %v, want EMFILE", err)
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := il.Accept()
	if err != nil {
		t.Fatalf("Accept after the error: %v", err)
	}
	got.Close()
}

// Pipelining round after round on one connection keeps working, and the
// connection keeps its non-blocking writes (its wrapper passes them on).
func TestRawStreamPipelinedRounds(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
	s := startServer(t, cfg)
	c := dialRaw(t, s)
	req := streamRequest(2)
	br := bufio.NewReader(c)
	for round := range 4 {
		if _, err := io.WriteString(c, req+req); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("round %d response %d: %v", round, i, err)
			}
			if r := summarize(t, readAll(t, resp)); r.tokenEvents != 2 {
				t.Errorf("round %d response %d: %+v", round, i, r)
			}
		}
	}
	if st := s.Stats(); st.Completed != 8 {
		t.Errorf("stats %+v", st)
	}
	var pc net.Conn = &prefixConn{Conn: c}
	if _, ok := pc.(syscall.Conn); !ok {
		t.Error("prefixConn hides the connection's SyscallConn")
	}
}

// A loop's non-blocking write allocates nothing.
func TestTryWriteAllocations(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	g := &generation{}
	g.sysConn, _ = c.(syscall.Conn).SyscallConn()
	g.nbWrite = g.writeNB
	msg := []byte("data: x\n\n")
	allocs := testing.AllocsPerRun(200, func() {
		if err := g.tryWrite(msg); err != nil || g.stalled {
			t.Fatalf("tryWrite: %v, stalled %v", err, g.stalled)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per write", allocs)
	}
}

// With CloseAfterStream the whole response arrives, still advertising
// keep-alive, and then the server closes the connection (after the delay);
// without it the connection serves the next request.
func TestCloseAfterStream(t *testing.T) {
	tests := []struct {
		name   string
		close  bool
		delay  time.Duration
		closed bool
	}{
		{"keep-alive", false, 0, false},
		{"close at once", true, 0, true},
		{"close after a delay", true, 20 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
			cfg.CloseAfterStream, cfg.CloseAfterStreamDelay = tt.close, tt.delay
			s := startServer(t, cfg)
			c := dialRaw(t, s)
			req := streamRequest(4)
			br := bufio.NewReader(c)
			for round := range 2 {
				if _, err := io.WriteString(c, req); err != nil {
					t.Fatal(err)
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if resp.Close {
					t.Errorf("round %d: the response announces the close", round)
				}
				raw, err := readRawChunked(br)
				if err != nil || strings.Count(raw, "data: ") != 5 { // 4 tokens and [DONE]
					t.Fatalf("round %d: body %q, %v", round, raw, err)
				}
				if !tt.closed {
					continue
				}
				_ = c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a bound on a hang, not a timing check
				if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
					t.Errorf("after the stream read %d, %v; want EOF", n, err)
				}
				break
			}
			if st := s.Stats(); st.Running != 0 || st.Completed == 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// Streams on a server that limits its connections (whose connections are
// wrapped to be counted) are still written by the loops, through their
// rings on Linux.
func TestLoopServesLimitedConns(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, 100*time.Microsecond
	cfg.MaxConns = 4
	s := startServer(t, cfg)
	before := ringSends.Load()
	if raw := rawStream(t, s, "limited", 20); strings.Count(raw, "data: ") != 21 {
		t.Fatalf("body %q", raw)
	}
	if runtime.GOOS == "linux" && ringSends.Load() == before && os.Getenv("VBENCH_ALLOW_NO_URING") != "1" {
		t.Error("no send went through io_uring")
	}
}

// dialRaw connects to s for a test that speaks HTTP/1.1 itself; the
// connection is closed when the test ends.
func dialRaw(t *testing.T, s *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.URL()[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// streamRequest is a streamed completion request for tokens tokens, as
// raw HTTP/1.1 (keep-alive).
func streamRequest(tokens int) string {
	body := fmt.Sprintf(`{"prompt":"p","max_tokens":%d,"ignore_eos":true,"stream":true}`, tokens)
	return "POST /v1/completions HTTP/1.1\r\nHost: sim\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}
