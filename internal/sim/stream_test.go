package sim

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// bubbleServer returns a server for a synctest bubble: plain Go timers, since
// the waker's OS sleeps do not move the fake clock.
func bubbleServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	cfg.PlainTimers = true
	return mustNew(t, cfg)
}

// The exact bytes of 2-token streams. In a synctest bubble the clock starts
// at 2000-01-01T00:00:00Z, so "created" is 946684800.
func TestStreamFraming(t *testing.T) {
	const head = `data: {"id":"cmpl-bench-1","object":"text_completion","created":946684800,"model":"sim-model","choices":[`
	const chatHead = `data: {"id":"chatcmpl-bench-1","object":"chat.completion.chunk","created":946684800,"model":"sim-model","choices":[`
	tests := []struct {
		name, path, body string
		want             []string // events, each followed by "\n\n"
	}{{
		name: "completions with usage",
		path: "/v1/completions",
		body: `{"model":"sim-model","prompt":"hello world","max_tokens":2,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
		want: []string{
			head + `{"index":0,"text":" disu","logprobs":null,"finish_reason":null,"stop_reason":null}]}`,
			head + `{"index":0,"text":" voru","logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
			head + `],"usage":{"prompt_tokens":2,"total_tokens":4,"completion_tokens":2}}`,
			`data: [DONE]`,
		},
	}, {
		name: "completions without usage",
		path: "/v1/completions",
		body: `{"prompt":"hello world","max_tokens":2,"ignore_eos":true,"stream":true}`,
		want: []string{
			head + `{"index":0,"text":" disu","logprobs":null,"finish_reason":null,"stop_reason":null}]}`,
			head + `{"index":0,"text":" voru","logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
			`data: [DONE]`,
		},
	}, {
		name: "completions with usage off",
		path: "/v1/completions",
		body: `{"prompt":"hello world","max_tokens":2,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":false}}`,
		want: []string{
			head + `{"index":0,"text":" disu","logprobs":null,"finish_reason":null,"stop_reason":null}]}`,
			head + `{"index":0,"text":" voru","logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
			`data: [DONE]`,
		},
	}, {
		name: "chat with usage",
		path: "/v1/chat/completions",
		body: `{"model":"sim-model","messages":[{"role":"user","content":[{"type":"text","text":"hello world"}]}],"max_completion_tokens":2,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
		want: []string{
			chatHead + `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
			chatHead + `{"index":0,"delta":{"content":" disu"},"logprobs":null,"finish_reason":null}]}`,
			chatHead + `{"index":0,"delta":{"content":" voru"},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
			chatHead + `],"usage":{"prompt_tokens":2,"total_tokens":4,"completion_tokens":2}}`,
			`data: [DONE]`,
		},
	}, {
		name: "chat without usage",
		path: "/v1/chat/completions",
		body: `{"messages":[{"role":"user","content":"hello world"}],"max_tokens":2,"ignore_eos":true,"stream":true}`,
		want: []string{
			chatHead + `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
			chatHead + `{"index":0,"delta":{"content":" disu"},"logprobs":null,"finish_reason":null}]}`,
			chatHead + `{"index":0,"delta":{"content":" voru"},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
			`data: [DONE]`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := bubbleServer(t, testConfig())
				rec := serve(t, s.Handler(), newRecorder(), context.Background(), "POST", tt.path, tt.body,
					map[string]string{"X-Request-Id": "bench-1"})
				if rec.status != 200 {
					t.Fatalf("status %d: %s", rec.status, rec.body.String())
				}
				if ct := rec.header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
					t.Errorf("Content-Type = %q", ct)
				}
				if id := rec.header.Get("X-Request-Id"); id != "bench-1" {
					t.Errorf("X-Request-Id = %q, want the request's", id)
				}
				want := strings.Join(tt.want, "\n\n") + "\n\n"
				if got := rec.body.String(); got != want {
					t.Errorf("body:\n%s\nwant:\n%s", got, want)
				}
			})
		})
	}
}

// Every token event is flushed exactly at t0 + d_k of Schedule (the fake
// clock makes the writer's lateness zero).
func TestStreamFollowsSchedule(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name, path, body string
		cfg              func(*Config)
		prompt           string
		n                int
	}{
		{"completions, jitter and prefill", "/v1/completions",
			`{"prompt":"a b c d e","max_tokens":30,"ignore_eos":true,"stream":true}`,
			func(c *Config) {
				c.TTFT, c.ITL, c.Jitter, c.PrefillPerToken, c.Seed = 30*ms, 7*ms, 4*ms, 100*time.Microsecond, 3
			},
			"a b c d e", 30},
		{"chat, no jitter", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"x y"}],"max_completion_tokens":5,"ignore_eos":true,"stream":true}`,
			func(c *Config) { c.TTFT, c.ITL = 50*ms, 10*ms },
			"x y", 5},
		{"zero itl", "/v1/completions",
			`{"prompt":"q","max_tokens":4,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
			func(c *Config) { c.TTFT, c.ITL = 5*ms, 0 },
			"q", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := testConfig()
				tt.cfg(&cfg)
				s := bubbleServer(t, cfg)
				rec := serve(t, s.Handler(), newRecorder(), context.Background(), "POST", tt.path, tt.body, nil)
				ids := WordTokenizer{}.Encode(tt.prompt)
				want := Schedule(cfg, len(ids), tt.n, promptKey(ids, 0))
				var got []time.Duration
				for i, f := range rec.flushes {
					events := sseEvents(t, f.data)
					for _, ev := range events {
						if ev == "[DONE]" || strings.Contains(ev, `"choices":[]`) {
							continue
						}
						if strings.Contains(ev, `"role":"assistant"`) {
							if i != 0 || len(got) != 0 {
								t.Errorf("role delta in flush %d after %d tokens, want it first", i, len(got))
							}
							continue
						}
						got = append(got, f.at)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("token flush times\n got %v\nwant %v", got, want)
				}
				if st := s.Stats(); st.LatenessMax != 0 || st.Events != uint64(tt.n) {
					t.Errorf("stats: %d events, max lateness %v; want %d events, 0 lateness", st.Events, st.LatenessMax, tt.n)
				}
			})
		})
	}
}

// A slow write delays only itself: later tokens keep their absolute due
// times, and events that became due meanwhile go out in the same write.
func TestStreamLateWriteDoesNotShiftSchedule(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		stall    time.Duration // how long the first token's flush takes
		wantAt   []time.Duration
		wantMax  time.Duration
		wantMean time.Duration
	}{
		{"stall shorter than itl", 4 * ms,
			[]time.Duration{54 * ms, 60 * ms, 70 * ms, 80 * ms}, 4 * ms, 1 * ms},
		{"stall spanning two tokens", 25 * ms,
			// token 0 due 50 flushed at 75; tokens 1 and 2 (due 60, 70) were
			// due when the writer woke at 75: one write, flushed at 75.
			[]time.Duration{75 * ms, 75 * ms, 75 * ms, 80 * ms}, 25 * ms, 11250 * time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := testConfig()
				cfg.TTFT, cfg.ITL = 50*ms, 10*ms
				s := bubbleServer(t, cfg)
				rec := newRecorder()
				rec.onFlush = func(n int) {
					if n == 0 {
						time.Sleep(tt.stall)
					}
				}
				serve(t, s.Handler(), rec, context.Background(), "POST", "/v1/completions",
					`{"prompt":"p","max_tokens":4,"ignore_eos":true,"stream":true}`, nil)
				var got []time.Duration
				for _, f := range rec.flushes {
					for _, ev := range sseEvents(t, f.data) {
						if ev != "[DONE]" {
							got = append(got, f.at)
						}
					}
				}
				if !slices.Equal(got, tt.wantAt) {
					t.Errorf("token flush times %v, want %v", got, tt.wantAt)
				}
				st := s.Stats()
				if st.LatenessMax != tt.wantMax || st.LatenessMean != tt.wantMean || st.Events != 4 {
					t.Errorf("lateness max %v mean %v over %d events, want max %v mean %v over 4",
						st.LatenessMax, st.LatenessMean, st.Events, tt.wantMax, tt.wantMean)
				}
			})
		})
	}
}

// A client that goes away ends the handler at once, even mid-sleep.
func TestStreamCancellation(t *testing.T) {
	tests := []struct {
		name, body string
		cancelAt   time.Duration
		wantTokens int
	}{
		{"during the ttft", `{"prompt":"p","max_tokens":100,"stream":true,"ignore_eos":true}`, 30 * time.Millisecond, 0},
		{"between tokens", `{"prompt":"p","max_tokens":100,"stream":true,"ignore_eos":true}`, 75 * time.Millisecond, 3},
		{"non-streaming", `{"prompt":"p","max_tokens":100,"ignore_eos":true}`, 75 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := testConfig()
				cfg.TTFT, cfg.ITL = 50*time.Millisecond, 10*time.Millisecond
				s := bubbleServer(t, cfg)
				ctx, cancel := context.WithCancel(context.Background())
				rec := newRecorder()
				done := make(chan struct{})
				go func() {
					defer close(done)
					serve(t, s.Handler(), rec, ctx, "POST", "/v1/completions", tt.body, nil)
				}()
				time.Sleep(tt.cancelAt)
				cancel()
				synctest.Wait()
				select {
				case <-done:
				default:
					t.Fatal("handler still running after the client went away")
				}
				end := time.Since(rec.start)
				if end != tt.cancelAt {
					t.Errorf("handler returned at %v, want %v", end, tt.cancelAt)
				}
				if got := s.Stats(); got.GeneratedTokens != uint64(tt.wantTokens) || got.Aborted != 1 || got.Running != 0 || got.Completed != 0 {
					t.Errorf("stats after cancel: %+v; want %d tokens, 1 aborted, 0 running, 0 completed", got, tt.wantTokens)
				}
				wantTTFT := uint64(min(tt.wantTokens, 1))
				if got := s.metrics.ttft.count.Load(); got != wantTTFT || s.metrics.e2e.count.Load() != 0 {
					t.Errorf("%d TTFT and %d e2e observations, want %d and 0", got, s.metrics.e2e.count.Load(), wantTTFT)
				}
			})
		})
	}
}
