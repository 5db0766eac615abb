package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// flush is the data written between two flushes, and when it was flushed,
// relative to the start of the request.
type flush struct {
	at   time.Duration
	data string
}

// recorder is an http.ResponseWriter and http.Flusher that timestamps every
// flush. Inside a synctest bubble the timestamps are exact.
type recorder struct {
	header  http.Header
	status  int
	start   time.Time
	body    bytes.Buffer
	pending bytes.Buffer
	flushes []flush
	// onFlush, when set, runs before a flush is recorded (n = flushes so far,
	// counting only flushes that carry data).
	onFlush func(n int)
}

func newRecorder() *recorder {
	return &recorder{header: http.Header{}, start: time.Now()}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	r.body.Write(p)
	r.pending.Write(p)
	return len(p), nil
}

func (r *recorder) Flush() {
	if r.pending.Len() == 0 {
		return
	}
	if r.onFlush != nil {
		r.onFlush(len(r.flushes))
	}
	r.flushes = append(r.flushes, flush{time.Since(r.start), r.pending.String()})
	r.pending.Reset()
}

// serve runs one request through h with the recorder rec and returns it.
func serve(t *testing.T, h http.Handler, rec *recorder, ctx context.Context, method, path, body string, header map[string]string) *recorder {
	t.Helper()
	req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	h.ServeHTTP(rec, req)
	return rec
}

// call serves one request with a fresh recorder.
func call(t *testing.T, s *Server, method, path, body string) *recorder {
	t.Helper()
	return serve(t, s.Handler(), newRecorder(), context.Background(), method, path, body, nil)
}

// mustNew returns New(cfg) or fails the test.
func mustNew(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// testConfig is the default config with a fixed model name.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.Model = "sim-model"
	return cfg
}

// sseEvents splits an SSE body into the payloads of its "data: " lines.
func sseEvents(t *testing.T, body string) []string {
	t.Helper()
	if !strings.HasSuffix(body, "\n\n") {
		t.Fatalf("SSE body does not end with a blank line: %q", body)
	}
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		payload, ok := strings.CutPrefix(ev, "data: ")
		if !ok || strings.Contains(payload, "\n") {
			t.Fatalf("malformed SSE event %q", ev)
		}
		out = append(out, payload)
	}
	return out
}

// chunk is the decoded form of an SSE chunk or a non-streaming response.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int    `json:"index"`
		Text  string `json:"text"`
		Delta struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		Message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		TotalTokens      int `json:"total_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func decodeChunk(t *testing.T, s string) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return c
}

// streamResult summarises one streamed generation.
type streamResult struct {
	text         string // concatenated text / delta content
	tokenEvents  int    // events with non-empty choices, role delta excluded
	finishReason string
	usage        *[3]int // prompt, total, completion
}

// summarize decodes the events of a streamed body.
func summarize(t *testing.T, body string) streamResult {
	t.Helper()
	var r streamResult
	events := sseEvents(t, body)
	if events[len(events)-1] != "[DONE]" {
		t.Fatalf("last event is %q, want [DONE]", events[len(events)-1])
	}
	for _, ev := range events[:len(events)-1] {
		c := decodeChunk(t, ev)
		if len(c.Choices) == 0 {
			if c.Usage == nil {
				t.Fatalf("event without choices or usage: %s", ev)
			}
			r.usage = &[3]int{c.Usage.PromptTokens, c.Usage.TotalTokens, c.Usage.CompletionTokens}
			continue
		}
		ch := c.Choices[0]
		if ch.Delta.Role != nil {
			continue
		}
		r.tokenEvents++
		r.text += ch.Text
		if ch.Delta.Content != nil {
			r.text += *ch.Delta.Content
		}
		if ch.FinishReason != nil {
			r.finishReason = *ch.FinishReason
		}
	}
	return r
}
