package backend

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/record"
)

func TestPayload(t *testing.T) {
	two := 2
	req := dataset.Request{Prompt: "hi <there>", PromptLen: 3, OutputLen: 5, ID: "p-0"}
	lora := req
	lora.Model = "sql-lora"
	tokens := dataset.Request{PromptTokens: []int{17, 4, 99}, PromptLen: 3, OutputLen: 5, ID: "t-0"}
	tests := []struct {
		name string
		cfg  Config
		want string
		req  *dataset.Request
	}{
		{"completions", Config{Backend: "openai", URL: "http://h/v1/completions", Model: "m"},
			`{"model":"m","prompt":"hi <there>","repetition_penalty":1,"max_tokens":5,"logprobs":null,"stream":true,"stream_options":{"include_usage":true}}`, nil},
		{"vllm with ignore_eos, logprobs and extra body overriding in place", Config{Backend: "vllm", URL: "http://h/v1/completions", Model: "m",
			IgnoreEOS: true, Logprobs: &two, ExtraBody: map[string]any{"temperature": 0, "max_tokens": 7}},
			`{"model":"m","prompt":"hi <there>","repetition_penalty":1,"max_tokens":7,"logprobs":2,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true,"temperature":0}`, nil},
		{"chat", Config{Backend: "openai-chat", URL: "http://h/v1/chat/completions", Model: "m"},
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi <there>"}]}],"max_completion_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`, nil},
		// A request's own model (a LoRA module) replaces the run's.
		{"completions with a LoRA module", Config{Backend: "openai", URL: "http://h/v1/completions", Model: "m"},
			`{"model":"sql-lora","prompt":"hi <there>","repetition_penalty":1,"max_tokens":5,"logprobs":null,"stream":true,"stream_options":{"include_usage":true}}`, &lora},
		{"chat with a LoRA module", Config{Backend: "openai-chat", URL: "http://h/v1/chat/completions", Model: "m"},
			`{"model":"sql-lora","messages":[{"role":"user","content":[{"type":"text","text":"hi <there>"}]}],"max_completion_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`, &lora},
		// timed_trace's token-id prompts go as a list, as vLLM sends them.
		{"completions with token ids", Config{Backend: "vllm", URL: "http://h/v1/completions", Model: "m", IgnoreEOS: true},
			`{"model":"m","prompt":[17,4,99],"repetition_penalty":1,"max_tokens":5,"logprobs":null,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`, &tokens},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := req
			if tt.req != nil {
				r = *tt.req
			}
			p, err := c.Prepare([]dataset.Request{r}, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(p[0].body); got != tt.want {
				t.Errorf("payload\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The chat API takes no token ids: a token-id prompt is refused before the
// run.
func TestChatRefusesTokenIDs(t *testing.T) {
	c, err := New(Config{Backend: "openai-chat", URL: "http://h/v1/chat/completions", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Prepare([]dataset.Request{{PromptTokens: []int{1, 2}, PromptLen: 2, OutputLen: 1}}, true)
	if err == nil || !strings.Contains(err.Error(), "only a completions backend (vllm or openai) can send") {
		t.Errorf("Prepare = %v, want the token-id refusal", err)
	}
}

func TestNewValidatesURL(t *testing.T) {
	tests := []struct {
		backend, url, wantErr string
	}{
		{"openai", "http://h/v1/completions", ""},
		{"openai", "http://h/v1/profile", ""},
		{"openai-chat", "http://h/v1/completions", "OpenAI Chat Completions API URL must end with"},
		{"openai", "http://h/v1/embeddings", "OpenAI Completions API URL must end with"},
		{"nope", "http://h/v1/completions", `unknown backend "nope"`},
		{"vllm-rerank", "http://h/rerank", ""},
		{"vllm-rerank", "http://h/v1/embeddings", "vLLM score API URL must end with"},
		{"openai-embeddings", "http://h/v1/embeddings", ""},
		{"vllm-pooling", "http://h/pooling", ""},
		{"openai-audio", "http://h/v1/audio/transcriptions", ""},
		{"openai-audio", "http://h/v1/audio/translations", ""},
		{"openai-audio", "http://h/v1/chat/completions", "OpenAI Audio API URL must end with one of: {'transcriptions', 'translations', 'profile'}"},
	}
	for _, tt := range tests {
		_, err := New(Config{Backend: tt.backend, URL: tt.url})
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("New(%s, %s) = %v, want error containing %q", tt.backend, tt.url, err, tt.wantErr)
		}
	}
}

// captured is the last request a streamServer received. The client's
// reads and the server's writes are not ordered for the race detector
// (they meet only through TCP), so the capture takes a lock.
type captured struct {
	mu   sync.Mutex
	req  *http.Request
	body string
}

func (c *captured) get() (*http.Request, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.req, c.body
}

// streamServer serves the given SSE body and captures the request.
func streamServer(t *testing.T, status int, body string) (*httptest.Server, *captured) {
	t.Helper()
	got := &captured{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.mu.Lock()
		got.req, got.body = r.Clone(context.Background()), string(b)
		got.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(status)
		for _, part := range strings.SplitAfter(body, "\n\n") {
			_, _ = io.WriteString(w, part)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func TestSend(t *testing.T) {
	completions := "data: {\"choices\":[{\"text\":\"a\"}]}\n\n" +
		"data: {\"choices\":[{\"text\":\"\"}]}\n\n" +
		"data: {\"choices\":[{\"text\":\"b\",\"finish_reason\":\"length\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":3}}\n\n" +
		"data: [DONE]\n\n"
	chat := "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"y\"}}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2}}\n\n" +
		"data: [DONE]\n\n"
	tests := []struct {
		name, backend, endpoint string
		status                  int
		body                    string
		want                    record.Record
		chunks                  int
		exact                   bool // Config.ExactCounting
	}{
		{"completions", "openai", "/v1/completions", 200, completions,
			record.Record{Success: true, GeneratedText: "ab", PromptLen: 11, OutputTokens: 3, Status: 200}, 3, false},
		// Exact counting skips the chunk with empty text.
		{"completions, exact counting", "openai", "/v1/completions", 200, completions,
			record.Record{Success: true, GeneratedText: "ab", PromptLen: 11, OutputTokens: 3, Status: 200}, 2, true},
		// vLLM's client ignores usage in a chunk with choices: the
		// request's prompt length stays, and the output is counted
		// from the text later; the role chunk is an arrival.
		{"chat with usage in the last content chunk", "openai-chat", "/v1/chat/completions", 200, chat,
			record.Record{Success: true, GeneratedText: "xy", PromptLen: 4, OutputTokens: 0, Status: 200}, 3, false},
		{"chat with usage in the last content chunk, exact counting", "openai-chat", "/v1/chat/completions", 200, chat,
			record.Record{Success: true, GeneratedText: "xy", PromptLen: 9, OutputTokens: 2, Status: 200}, 2, true},
		{"server error", "openai", "/v1/completions", 500, `{"message":"boom"}`,
			record.Record{Error: `Internal Server Error: {"message":"boom"}`, PromptLen: 4, Status: 500}, 0, false},
		{"usage only", "openai", "/v1/completions", 200, "data: {\"choices\":[],\"usage\":{\"completion_tokens\":0}}\n\ndata: [DONE]\n\n",
			record.Record{Error: "Never received a valid chunk to calculate TTFT.This response will be marked as failed!", PromptLen: 4, Status: 200}, 0, false},
		{"bad JSON", "openai", "/v1/completions", 200, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {oops\n\n",
			record.Record{Error: "invalid JSON in SSE message", PromptLen: 4, Status: 200, GeneratedText: "a"}, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, capture := streamServer(t, tt.status, tt.body)
			c, err := New(Config{Backend: tt.backend, URL: srv.URL + tt.endpoint, Model: "m",
				Headers: map[string]string{"X-Secret": "s3"}, APIKey: "k", ExactCounting: tt.exact})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			p, err := c.Prepare([]dataset.Request{{Prompt: "p", PromptLen: 4, OutputLen: 3, ID: "id-7"}}, true)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			var rec record.Record
			c.Send(context.Background(), &p[0], &rec, func() time.Duration { return time.Since(start) })
			if rec.Success != tt.want.Success || rec.GeneratedText != tt.want.GeneratedText || rec.PromptLen != tt.want.PromptLen ||
				rec.OutputTokens != tt.want.OutputTokens || rec.Status != tt.want.Status || !strings.HasPrefix(rec.Error, tt.want.Error) {
				t.Errorf("record %+v\nwant %+v", rec, tt.want)
			}
			if len(rec.Chunks) != tt.chunks {
				t.Errorf("%d chunks, want %d", len(rec.Chunks), tt.chunks)
			}
			if tt.chunks > 0 && (rec.TTFT() <= 0 || rec.End != rec.Chunks[len(rec.Chunks)-1] || rec.Start <= 0) {
				t.Errorf("times: start %v chunks %v end %v", rec.Start, rec.Chunks, rec.End)
			}
			got, _ := capture.get()
			if got == nil {
				t.Fatal("the server got no request")
			}
			if got.Header.Get("x-request-id") != "id-7" || got.Header.Get("X-Secret") != "s3" ||
				got.Header.Get("Authorization") != "Bearer k" || got.Header.Get("Content-Type") != "application/json" {
				t.Errorf("headers %v", got.Header)
			}
			if rec.RequestID != "id-7" {
				t.Errorf("request id %q", rec.RequestID)
			}
		})
	}
}

func TestSendConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, err := New(Config{Backend: "openai", URL: url + "/v1/completions", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Prepare([]dataset.Request{{Prompt: "p", OutputLen: 1}}, false)
	var rec record.Record
	c.Send(context.Background(), &p[0], &rec, func() time.Duration { return time.Nanosecond })
	if rec.Success || !strings.Contains(rec.Error, "connect") {
		t.Errorf("record %+v, want a connection failure", rec)
	}
}

// TestPreparedHeaders checks that each prepared request carries its own
// x-request-id, that requests without one send none, and that sending
// leaves the shared headers unchanged.
func TestPreparedHeaders(t *testing.T) {
	srv, capture := streamServer(t, 200, "data: [DONE]\n\n")
	c, err := New(Config{Backend: "openai", URL: srv.URL + "/v1/completions", Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reqs := []dataset.Request{{Prompt: "a", ID: "id-1"}, {Prompt: "b", ID: "id-2"}, {Prompt: "c"}}
	withIDs, err := c.Prepare(reqs, true)
	if err != nil {
		t.Fatal(err)
	}
	noIDs, err := c.Prepare(reqs, false)
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Duration { return 0 }
	for round := range 2 {
		for i, p := range append(withIDs, noIDs...) {
			var rec record.Record
			c.Send(context.Background(), &p, &rec, now)
			want := ""
			if i < 2 {
				want = reqs[i].ID
			}
			got, _ := capture.get()
			if id := got.Header.Get("x-request-id"); id != want || got.Header.Get("Authorization") != "Bearer k" {
				t.Errorf("round %d request %d: x-request-id %q, want %q; headers %v", round, i, id, want, got.Header)
			}
		}
	}
	if len(c.header) != 3 { // Content-Type, User-Agent, Authorization
		t.Errorf("client headers changed: %v", c.header)
	}
}
