package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
)

func TestTokenizeDetokenize(t *testing.T) {
	s := mustNew(t, testConfig())
	tests := []struct {
		name, body string
		wantCount  int
	}{
		{"prompt", `{"model":"sim-model","prompt":"baba zuzu w6400 hello","add_special_tokens":false}`, 4},
		{"prompt without model", `{"prompt":"one two three"}`, 3},
		{"empty prompt", `{"prompt":""}`, 0},
		{"messages", `{"model":"sim-model","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"one two"}]}]}`, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := call(t, s, "POST", "/tokenize", tt.body)
			if rec.status != 200 {
				t.Fatalf("status %d: %s", rec.status, rec.body.String())
			}
			if got := jsonKeys(t, rec.body.Bytes()); fmt.Sprint(got) != "[count max_model_len tokens token_strs]" {
				t.Errorf("keys %v", got)
			}
			var tok struct {
				Count       int       `json:"count"`
				MaxModelLen int       `json:"max_model_len"`
				Tokens      []int     `json:"tokens"`
				TokenStrs   *[]string `json:"token_strs"`
			}
			if err := json.Unmarshal(rec.body.Bytes(), &tok); err != nil {
				t.Fatal(err)
			}
			if tok.Count != tt.wantCount || len(tok.Tokens) != tt.wantCount || tok.MaxModelLen != 131072 || tok.TokenStrs != nil {
				t.Errorf("tokenize = %s, want count %d", rec.body.String(), tt.wantCount)
			}
			// /detokenize then /tokenize again gives the same ids.
			ids, _ := json.Marshal(tok.Tokens)
			de := call(t, s, "POST", "/detokenize", `{"model":"sim-model","tokens":`+string(ids)+`}`)
			var text struct {
				Prompt string `json:"prompt"`
			}
			if err := json.Unmarshal(de.body.Bytes(), &text); err != nil || de.status != 200 {
				t.Fatalf("detokenize: %d %s", de.status, de.body.String())
			}
			prompt, _ := json.Marshal(text.Prompt)
			again := call(t, s, "POST", "/tokenize", `{"prompt":`+string(prompt)+`}`)
			var tok2 struct {
				Tokens []int `json:"tokens"`
			}
			if err := json.Unmarshal(again.body.Bytes(), &tok2); err != nil || !slices.Equal(tok2.Tokens, tok.Tokens) {
				t.Errorf("round trip: %v → %q → %v", tok.Tokens, text.Prompt, tok2.Tokens)
			}
		})
	}
}

// /tokenize of chat messages counts exactly what a chat request reports as
// usage.prompt_tokens, and /tokenize of a prompt what a completion reports.
func TestTokenizeMatchesUsage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bubbleServer(t, testConfig())
		msgs := `[{"role":"user","content":[{"type":"text","text":"alpha beta"},{"type":"text","text":"gamma"}]},{"role":"assistant","content":"delta"}]`
		count := func(body string) int {
			var tok struct{ Count int }
			if err := json.Unmarshal(call(t, s, "POST", "/tokenize", body).body.Bytes(), &tok); err != nil {
				t.Fatal(err)
			}
			return tok.Count
		}
		chat := decodeChunk(t, call(t, s, "POST", "/v1/chat/completions", `{"messages":`+msgs+`,"max_tokens":1}`).body.String())
		if n := count(`{"messages":` + msgs + `}`); n != chat.Usage.PromptTokens || n != 4 {
			t.Errorf("tokenize messages = %d, chat usage prompt_tokens = %d, want 4 both", n, chat.Usage.PromptTokens)
		}
		cmpl := decodeChunk(t, call(t, s, "POST", "/v1/completions", `{"prompt":"a few more words here","max_tokens":1}`).body.String())
		if n := count(`{"prompt":"a few more words here"}`); n != cmpl.Usage.PromptTokens || n != 5 {
			t.Errorf("tokenize prompt = %d, completion usage prompt_tokens = %d, want 5 both", n, cmpl.Usage.PromptTokens)
		}
	})
}

func TestTokenizeTokenStrs(t *testing.T) {
	s := mustNew(t, testConfig())
	rec := call(t, s, "POST", "/tokenize", `{"prompt":"kimi Hello","return_token_strs":true}`)
	var tok struct {
		Tokens    []int    `json:"tokens"`
		TokenStrs []string `json:"token_strs"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &tok); err != nil {
		t.Fatal(err)
	}
	if len(tok.TokenStrs) != 2 || tok.TokenStrs[0] != "kimi" || tok.TokenStrs[1] != fmt.Sprintf("w%d", tok.Tokens[1]) {
		t.Errorf("token_strs %q for tokens %v", tok.TokenStrs, tok.Tokens)
	}
}

func TestTokenizeErrors(t *testing.T) {
	s := mustNew(t, testConfig())
	tests := []struct {
		name, path, body string
		status           int
	}{
		{"bad JSON", "/tokenize", `{"prompt"`, 400},
		{"unknown model", "/tokenize", `{"model":"other","prompt":"a"}`, 404},
		{"neither prompt nor messages", "/tokenize", `{"model":"sim-model"}`, 400},
		{"both prompt and messages", "/tokenize", `{"prompt":"a","messages":[{"role":"user","content":"a"}]}`, 400},
		{"bad messages", "/tokenize", `{"messages":"a"}`, 400},
		{"detokenize bad JSON", "/detokenize", `[`, 400},
		{"detokenize unknown model", "/detokenize", `{"model":"other","tokens":[1]}`, 404},
		{"detokenize negative id", "/detokenize", `{"tokens":[1,-1]}`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := call(t, s, "POST", tt.path, tt.body)
			var e struct{ Object string }
			if rec.status != tt.status || json.Unmarshal(rec.body.Bytes(), &e) != nil || e.Object != "error" {
				t.Errorf("got %d %s, want %d with an error object", rec.status, rec.body.String(), tt.status)
			}
		})
	}
}

func TestModels(t *testing.T) {
	cfg := testConfig()
	cfg.Model, cfg.MaxModelLen = "org/My-Model", 4096
	s := mustNew(t, cfg)
	rec := call(t, s, "GET", "/v1/models", "")
	if rec.status != 200 {
		t.Fatalf("status %d", rec.status)
	}
	if got := jsonKeys(t, rec.body.Bytes()); fmt.Sprint(got) != "[object data]" {
		t.Errorf("keys %v", got)
	}
	var list struct {
		Object string            `json:"object"`
		Data   []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &list); err != nil || list.Object != "list" || len(list.Data) != 1 {
		t.Fatalf("models %s", rec.body.String())
	}
	wantKeys := "[id object created owned_by root parent max_model_len permission]"
	if got := jsonKeys(t, list.Data[0]); fmt.Sprint(got) != wantKeys {
		t.Errorf("model keys %v, want %s", got, wantKeys)
	}
	var m struct {
		ID, Object, OwnedBy, Root string
		Parent                    *string
		MaxModelLen               int `json:"max_model_len"`
		Permission                []map[string]any
	}
	if err := json.Unmarshal(list.Data[0], &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != "org/My-Model" || m.Root != "org/My-Model" || m.Object != "model" || m.Parent != nil || m.MaxModelLen != 4096 {
		t.Errorf("model %+v", m)
	}
	if !strings.Contains(string(list.Data[0]), `"owned_by":"vllm"`) {
		t.Errorf("owned_by not vllm: %s", list.Data[0])
	}
	if len(m.Permission) != 1 || m.Permission[0]["object"] != "model_permission" || m.Permission[0]["allow_sampling"] != true {
		t.Errorf("permission %v", m.Permission)
	}
}

func TestHealthAndUnknownPaths(t *testing.T) {
	s := mustNew(t, testConfig())
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/health", 200, ""},
		{"GET", "/nope", 404, ""},
		{"GET", "/v1/completions", 405, ""},
		{"POST", "/v1/models", 405, ""},
	}
	for _, tt := range tests {
		rec := call(t, s, tt.method, tt.path, "")
		if rec.status != tt.status && !(rec.status == 0 && tt.status == 200) {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.path, rec.status, tt.status)
		}
		if tt.body != "" || tt.status == 200 {
			if got := rec.body.String(); got != tt.body {
				t.Errorf("%s %s: body %q, want %q", tt.method, tt.path, got, tt.body)
			}
		}
	}
}

// charTokenizer is a custom tokenizer: one token per byte.
type charTokenizer struct{}

func (charTokenizer) Encode(text string) []int {
	ids := make([]int, len(text))
	for i := range len(text) {
		ids[i] = int(text[i])
	}
	return ids
}

func (charTokenizer) Decode(ids []int) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return string(b)
}

func TestCustomTokenizer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.Tokenizer = charTokenizer{}
		s := bubbleServer(t, cfg)
		r := summarize(t, call(t, s, "POST", "/v1/completions", `{"prompt":"hello","max_tokens":20,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`).body.String())
		if r.usage[0] != 5 || r.usage[2] != 20 || len(r.text) != 20 {
			t.Errorf("usage %v, text %q: want 5 prompt tokens and 20 one-byte tokens", *r.usage, r.text)
		}
		for _, c := range r.text {
			if !strings.ContainsRune("abdefghijklmnoprstuvz ", c) {
				t.Errorf("generated %q is not from the tokenizer's sample text", c)
			}
		}
		var tok struct{ Count int }
		if err := json.Unmarshal(call(t, s, "POST", "/tokenize", `{"prompt":"hello"}`).body.Bytes(), &tok); err != nil || tok.Count != 5 {
			t.Errorf("tokenize count %d, want 5", tok.Count)
		}
	})
}

type emptyTokenizer struct{}

func (emptyTokenizer) Encode(string) []int { return nil }
func (emptyTokenizer) Decode([]int) string { return "" }

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{"default is valid", func(*Config) {}, ""},
		{"zero latencies are valid", func(c *Config) { c.TTFT, c.ITL = 0, 0 }, ""},
		{"negative ttft", func(c *Config) { c.TTFT = -1 }, "ttft must not be negative"},
		{"negative itl", func(c *Config) { c.ITL = -1 }, "itl must not be negative"},
		{"negative jitter", func(c *Config) { c.Jitter = -1 }, "jitter must not be negative"},
		{"negative prefill", func(c *Config) { c.PrefillPerToken = -1 }, "prefill per token must not be negative"},
		{"zero output length", func(c *Config) { c.DefaultOutputLen = 0 }, "default output length must be at least 1"},
		{"no model", func(c *Config) { c.Model = "" }, "model name must not be empty"},
		{"tiny context", func(c *Config) { c.MaxModelLen = 1 }, "max model length must be at least 2"},
		{"negative fail-every", func(c *Config) { c.FailEvery = -2 }, "fail-every must not be negative"},
		{"tokenizer without text", func(c *Config) { c.Tokenizer = emptyTokenizer{} }, "decodes no token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.mutate(&cfg)
			_, err := New(cfg)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("New: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("New error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	cfg := DefaultConfig()
	cfg.TTFT, cfg.Model = -1, ""
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "ttft") || !strings.Contains(err.Error(), "model") {
		t.Errorf("New reports %v, want every invalid field", err)
	}
}
