package backend_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/sim"
)

// toyChatJSON is a test-only backend kind built on the exported API alone:
// a non-streaming chat request (one plain-string user message), decoded
// from the whole response body with encoding/json.
type toyChatJSON struct{}

func (toyChatJSON) Payload(r *dataset.Request, o *backend.PayloadOptions) ([]byte, error) {
	return json.Marshal(map[string]any{
		"model":                 o.Model,
		"messages":              []map[string]string{{"role": "user", "content": r.Prompt}},
		"max_completion_tokens": r.OutputLen,
		"ignore_eos":            o.IgnoreEOS,
	})
}

func (toyChatJSON) Decode(data, text []byte) (backend.Message, []byte, error) {
	var body struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return backend.Message{}, text, err
	}
	m := backend.Message{
		Output:          len(body.Choices) > 0,
		HasPromptTokens: true, PromptTokens: body.Usage.PromptTokens,
		HasOutputTokens: true, OutputTokens: body.Usage.CompletionTokens,
	}
	if m.Output {
		text = append(text, body.Choices[0].Message.Content...)
	}
	return m, text, nil
}

// toyStream is a test-only streaming kind: completions requests without
// stream_options (so no usage frame), decoded with encoding/json; it
// counts output tokens as the server streams one per message.
type toyStream struct{}

func (toyStream) Payload(r *dataset.Request, o *backend.PayloadOptions) ([]byte, error) {
	return json.Marshal(map[string]any{"model": o.Model, "prompt": r.Prompt, "max_tokens": r.OutputLen, "ignore_eos": true, "stream": true})
}

func (toyStream) Decode(data, text []byte) (backend.Message, []byte, error) {
	var chunk struct {
		Choices []struct {
			Text string `json:"text"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &chunk); err != nil {
		return backend.Message{}, text, err
	}
	if len(chunk.Choices) == 0 {
		return backend.Message{}, text, nil
	}
	return backend.Message{Output: true}, append(text, chunk.Choices[0].Text...), nil
}

// register registers k for the test and removes it afterwards.
func register(t *testing.T, k backend.Kind) {
	t.Helper()
	if err := backend.Register(k); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !backend.Unregister(k.Name) {
			t.Errorf("Unregister(%q) found nothing", k.Name)
		}
	})
}

// TestToyBackendsEndToEnd adds two backend kinds through the registry
// alone and runs them against the simulator on both HTTP paths: a new
// backend needs nothing but its registry entry.
func TestToyBackendsEndToEnd(t *testing.T) {
	register(t, backend.Kind{Name: "toy-chat-json", URLSuffix: "chat/completions", APIName: "Toy Chat API",
		Task: backend.TaskGeneration, Codec: toyChatJSON{}})
	register(t, backend.Kind{Name: "toy-stream", URLSuffix: "completions", APIName: "Toy Completions API",
		Task: backend.TaskGeneration, Stream: true, Codec: toyStream{}})

	for _, name := range []string{"toy-chat-json", "toy-stream"} {
		if names := backend.Names(); names[len(names)-1] != name && names[len(names)-2] != name {
			t.Errorf("Names() = %v, want %s registered last", names, name)
		}
		if !slices.Contains(backend.SupportedNames(), name) || backend.OpenAICompatible(name) {
			t.Errorf("%s: supported %v, OpenAI compatible %v", name, backend.SupportedNames(), backend.OpenAICompatible(name))
		}
	}

	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = 2*time.Millisecond, time.Millisecond
	srv, err := sim.Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// https goes through net/http instead of the lean HTTP/1.1 client.
	handler, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tlsSrv := httptest.NewTLSServer(handler.Handler())
	defer tlsSrv.Close()

	const out = 5
	for _, tc := range []struct {
		kind, endpoint string
		chunks         int
	}{
		{"toy-chat-json", "/v1/chat/completions", 1},
		{"toy-stream", "/v1/completions", out},
	} {
		for _, base := range []string{srv.URL(), tlsSrv.URL} {
			t.Run(tc.kind+" "+base[:strings.Index(base, ":")], func(t *testing.T) {
				sendToy(t, base+tc.endpoint, tc.kind, cfg, out, tc.chunks)
			})
		}
	}
}

// sendToy sends one request of the toy kind twice (the second reuses the
// connection) and checks the records.
func sendToy(t *testing.T, url, kind string, cfg sim.Config, out, chunks int) {
	t.Helper()
	c, err := backend.New(backend.Config{Backend: kind, URL: url, Model: cfg.Model, IgnoreEOS: true, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ps, err := c.Prepare([]dataset.Request{{Prompt: "hello there simulator", PromptLen: 1, OutputLen: out, ID: "toy-1"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	for round := range 2 { // the second round reuses the connection
		var rec record.Record
		c.Send(context.Background(), &ps[0], &rec, now)
		if !rec.Success || rec.Status != 200 || rec.Error != "" {
			t.Fatalf("round %d: record %+v", round, rec)
		}
		if len(rec.Chunks) != chunks || rec.End != rec.Chunks[len(rec.Chunks)-1] || rec.Chunks[0]-rec.Start < cfg.TTFT {
			t.Errorf("round %d: start %v chunks %v end %v", round, rec.Start, rec.Chunks, rec.End)
		}
		if n := len(strings.Fields(rec.GeneratedText)); rec.GeneratedText == "" || n > out {
			t.Errorf("round %d: generated text %q", round, rec.GeneratedText)
		}
		if kind == "toy-chat-json" && (rec.OutputTokens != out || rec.PromptLen <= 1) {
			t.Errorf("round %d: usage not read: output tokens %d, prompt len %d", round, rec.OutputTokens, rec.PromptLen)
		}
		if rec.RequestID != "toy-1" {
			t.Errorf("round %d: request id %q", round, rec.RequestID)
		}
	}
}

// TestRegisterRefuses checks Register's validation.
func TestRegisterRefuses(t *testing.T) {
	for _, tc := range []struct {
		kind backend.Kind
		want string
	}{
		{backend.Kind{URLSuffix: "x", APIName: "X", Task: backend.TaskGeneration}, "empty name"},
		{backend.Kind{Name: "toy", APIName: "X", Task: backend.TaskGeneration}, "URLSuffix and APIName must be set"},
		{backend.Kind{Name: "toy", URLSuffix: "x", APIName: "X"}, "invalid task"},
		{backend.Kind{Name: "openai", URLSuffix: "completions", APIName: "X", Task: backend.TaskGeneration}, `"openai": already registered`},
	} {
		if err := backend.Register(tc.kind); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Register(%+v) = %v, want %q", tc.kind, err, tc.want)
		}
	}
	if backend.Unregister("no-such-backend") {
		t.Error("Unregister of an unknown name reported a removal")
	}
}
