package backend

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/record"
)

// simEvent is one completions chunk as vLLM (and vbench sim) sends it.
const simEvent = `data: {"id":"cmpl-bench-1-0","object":"text_completion","created":1767225600,"model":"vbench-sim","choices":[{"index":0,"text":" tok","logprobs":null,"finish_reason":null,"stop_reason":null}]}` + "\n\n"

// sseBody returns n token events, the usage event and [DONE].
func sseBody(n int, event string) string {
	return strings.Repeat(event, n) +
		`data: {"id":"cmpl-bench-1-0","object":"text_completion","created":1767225600,"model":"vbench-sim","choices":[],"usage":{"prompt_tokens":12,"total_tokens":` +
		fmt.Sprint(12+n) + `,"completion_tokens":` + fmt.Sprint(n) + "}}\n\ndata: [DONE]\n\n"
}

// BenchmarkSSEDecode measures the client's per-event work on one core:
// SSE framing plus the chunk decode and the record update Send does for
// every message (events/s counts token events).
func BenchmarkSSEDecode(b *testing.B) {
	for _, tc := range []struct {
		name  string
		event string
		codec Codec
	}{
		{"completions", simEvent, completions{}},
		{"chat", `data: {"id":"chatcmpl-bench-1-0","object":"chat.completion.chunk","created":1767225600,"model":"vbench-sim","choices":[{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":null}]}` + "\n\n", chat{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			const events = 1000
			body := sseBody(events, tc.event)
			rd := strings.NewReader(body)
			rec := &record.Record{Chunks: make([]time.Duration, 0, events+1)}
			st := stream{rec: rec, codec: tc.codec, text: make([]byte, 0, 8*events)}
			now := func() time.Duration { return 0 }
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(body)
				rec.Chunks, st.text = rec.Chunks[:0], st.text[:0]
				if err := readSSE(rd, now, st.message); err != nil || st.err != nil || len(rec.Chunks) != events || rec.OutputTokens != events {
					b.Fatalf("err %v %v, %d chunks, %d tokens", err, st.err, len(rec.Chunks), rec.OutputTokens)
				}
			}
			b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkSSELargeEvents reads 1 MB events arriving in 64 KB reads, as a
// long-context response with big chunks would: throughput in MB/s should
// stay within a small factor of BenchmarkSSEDecode's.
func BenchmarkSSELargeEvents(b *testing.B) {
	event := `data: {"choices":[{"index":0,"text":"` + strings.Repeat("x", 1<<20) + `","finish_reason":null}]}` + "\n\n"
	body := sseBody(8, event)
	rec := &record.Record{}
	st := stream{rec: rec, codec: completions{}}
	now := func() time.Duration { return 0 }
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rec.Chunks, st.text = rec.Chunks[:0], st.text[:0]
		if err := readSSE(&limitedReader{s: body, max: 64 << 10}, now, st.message); err != nil || len(rec.Chunks) != 8 {
			b.Fatalf("err %v, %d chunks", err, len(rec.Chunks))
		}
	}
}

// limitedReader returns at most max bytes per Read.
type limitedReader struct {
	s   string
	max int
}

func (r *limitedReader) Read(p []byte) (int, error) {
	if len(r.s) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.max)], r.s)
	r.s = r.s[n:]
	return n, nil
}

// BenchmarkPrepare measures payload building (done before the clock
// starts) per request, for a 1024-token-sized prompt and a 200 KB one.
func BenchmarkPrepare(b *testing.B) {
	for _, size := range []int{5 << 10, 200 << 10} {
		for _, backend := range []string{"openai", "openai-chat"} {
			b.Run(fmt.Sprintf("%s/%dKB", backend, size>>10), func(b *testing.B) {
				url := "http://h/v1/completions"
				if backend == "openai-chat" {
					url = "http://h/v1/chat/completions"
				}
				c, err := New(Config{Backend: backend, URL: url, Model: "m", IgnoreEOS: true,
					ExtraBody: map[string]any{"temperature": 0.0}})
				if err != nil {
					b.Fatal(err)
				}
				reqs := []dataset.Request{{Prompt: strings.Repeat("hello <wörld> ", size/15), PromptLen: size / 5, OutputLen: 128}}
				b.SetBytes(int64(len(reqs[0].Prompt)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.Prepare(reqs, true); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSend sends requests over loopback HTTP/1.1 to a server that
// streams a canned response, one request at a time: small prompt and
// small events, a 200 KB prompt, and 1 MB events. Large bodies must cost
// in proportion to their bytes, not collapse throughput.
func BenchmarkSend(b *testing.B) {
	bigEvent := `data: {"choices":[{"index":0,"text":"` + strings.Repeat("x", 1<<20) + `","finish_reason":null}]}` + "\n\n"
	for _, tc := range []struct {
		name   string
		prompt int
		body   string
	}{
		{"prompt=200B/events=64x200B", 200, sseBody(64, simEvent)},
		{"prompt=200KB/events=64x200B", 200 << 10, sseBody(64, simEvent)},
		{"prompt=200B/events=4x1MB", 200, sseBody(4, bigEvent)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			for _, nc := range benchPaths(b, Config{URL: srv.URL + "/v1/completions", MaxConns: 1}) {
				c := nc.c
				b.Run("path="+nc.name, func(b *testing.B) {
					p, err := c.Prepare([]dataset.Request{{Prompt: strings.Repeat("x", tc.prompt), OutputLen: 64}}, false)
					if err != nil {
						b.Fatal(err)
					}
					start := time.Now()
					now := func() time.Duration { return time.Since(start) }
					b.SetBytes(int64(len(p[0].body) + len(tc.body)))
					b.ReportAllocs()
					for b.Loop() {
						var rec record.Record
						c.Send(context.Background(), &p[0], &rec, now)
						if !rec.Success {
							b.Fatal(rec.Error)
						}
					}
				})
			}
		})
	}
}

// benchPaths returns a client per path, in a fixed order: the lean
// HTTP/1.1 client and net/http.
func benchPaths(b *testing.B, cfg Config) []namedClient {
	m := paths(b, cfg)
	return []namedClient{{"h1", m["h1"]}, {"net-http", m["net/http"]}}
}

// namedClient is a client and the name of its path.
type namedClient struct {
	name string
	c    *Client
}

// BenchmarkStreamEvents measures the cost per streamed token event end to
// end, the way a run streams: the server flushes every event as its own
// chunk (as vLLM and vbench sim do), and many streams run at once. The
// in-process server's cost is the same for both paths, so the difference
// in ns/event is the client's. allocs/op are per request.
func BenchmarkStreamEvents(b *testing.B) {
	const events = 64
	body := sseBody(events, simEvent)
	parts := strings.SplitAfter(body, "\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for _, p := range parts {
			_, _ = io.WriteString(w, p)
			f.Flush()
		}
	}))
	defer srv.Close()
	for _, streams := range []int{1, 64} {
		for _, nc := range benchPaths(b, Config{URL: srv.URL + "/v1/completions", MaxConns: streams}) {
			c := nc.c
			b.Run(fmt.Sprintf("streams=%d/path=%s", streams, nc.name), func(b *testing.B) {
				p, err := c.Prepare([]dataset.Request{{Prompt: "x", OutputLen: events}}, false)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				now := func() time.Duration { return time.Since(start) }
				b.ReportAllocs()
				b.SetParallelism((streams + 1) / 2)
				if streams == 1 {
					b.SetParallelism(1)
				}
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						var rec record.Record
						c.Send(context.Background(), &p[0], &rec, now)
						if !rec.Success || len(rec.Chunks) != events {
							b.Error(rec.Error)
							return
						}
					}
				})
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
			})
		}
	}
}

// BenchmarkTarget measures the client's own CPU time per token event
// against a server in another process, so the server's cost is not
// counted: start one (vbench sim --addr 127.0.0.1:9000) and set
// VBENCH_BENCH_TARGET=http://127.0.0.1:9000; VBENCH_BENCH_STREAMS sets
// the concurrent streams (default 300). As in vbench calibrate, stream i
// starts i/streams of VBENCH_BENCH_STAGGER (default 690ms, one request's
// duration at the simulator's defaults with 64 tokens) late, so the
// streams' events are spread in time, not bunched; 0 starts all at once.
// b.N counts requests; run it with e.g. -benchtime=4000x. It reports
// cpu-ns/event (user+system time of this process, divided by the token
// events received).
func BenchmarkTarget(b *testing.B) {
	target := os.Getenv("VBENCH_BENCH_TARGET")
	if target == "" {
		b.Skip("VBENCH_BENCH_TARGET is not set")
	}
	streams := 300
	if s := os.Getenv("VBENCH_BENCH_STREAMS"); s != "" {
		var err error
		if streams, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	stagger := 690 * time.Millisecond
	if s := os.Getenv("VBENCH_BENCH_STAGGER"); s != "" {
		var err error
		if stagger, err = time.ParseDuration(s); err != nil {
			b.Fatal(err)
		}
	}
	for _, nc := range benchPaths(b, Config{URL: target + "/v1/completions", Model: "vbench-sim", IgnoreEOS: true, MaxConns: streams}) {
		c := nc.c
		b.Run("path="+nc.name, func(b *testing.B) {
			p, err := c.Prepare([]dataset.Request{{Prompt: "vbench bench", PromptLen: 2, OutputLen: 64}}, false)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			now := func() time.Duration { return time.Since(start) }
			var events, started atomic.Int64
			cpu0 := processCPU()
			b.ReportAllocs()
			b.SetParallelism((streams + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.RunParallel(func(pb *testing.PB) {
				time.Sleep(stagger * time.Duration(started.Add(1)-1) / time.Duration(streams))
				for pb.Next() {
					var rec record.Record
					c.Send(context.Background(), &p[0], &rec, now)
					if !rec.Success {
						b.Error(rec.Error)
						return
					}
					events.Add(int64(len(rec.Chunks)))
				}
			})
			b.ReportMetric(float64(processCPU()-cpu0)/float64(events.Load()), "cpu-ns/event")
		})
	}
}

// processCPU is this process's user+system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
