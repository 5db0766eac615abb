package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
)

func TestGenerateLengths(t *testing.T) {
	tests := []struct {
		name, path, body string
		cfg              func(*Config)
		wantPrompt       int
		wantN            int
		wantFinish       string
	}{
		{"completions max_tokens", "/v1/completions",
			`{"prompt":"a b c","max_tokens":5,"ignore_eos":true}`, nil, 3, 5, "length"},
		{"chat max_completion_tokens wins over max_tokens", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"a b"}],"max_completion_tokens":3,"max_tokens":9,"ignore_eos":true}`, nil, 2, 3, "length"},
		{"chat max_tokens alone", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"a b"}],"max_tokens":4,"ignore_eos":true}`, nil, 2, 4, "length"},
		{"completions ignore max_completion_tokens", "/v1/completions",
			`{"prompt":"a","max_completion_tokens":2,"max_tokens":6,"ignore_eos":true}`, nil, 1, 6, "length"},
		{"default output length", "/v1/completions",
			`{"prompt":"a b","ignore_eos":true}`, func(c *Config) { c.DefaultOutputLen = 7 }, 2, 7, "length"},
		{"default output length capped by the context", "/v1/completions",
			`{"prompt":"a b c d e f g","ignore_eos":true}`, func(c *Config) { c.MaxModelLen = 10 }, 7, 3, "length"},
		{"max_tokens filling the context exactly", "/v1/completions",
			`{"prompt":"a b c","max_tokens":7,"ignore_eos":true}`, func(c *Config) { c.MaxModelLen = 10 }, 3, 7, "length"},
		{"min_tokens equal to max_tokens without ignore_eos", "/v1/completions",
			`{"prompt":"a","max_tokens":4,"min_tokens":4}`, nil, 1, 4, ""},
		{"token-id prompt", "/v1/completions",
			`{"prompt":[1,2,3,4],"max_tokens":2,"ignore_eos":true}`, nil, 4, 2, "length"},
		// The image's size cannot be read: it counts defaultMediaTokens.
		{"chat prompt joins messages and text parts", "/v1/chat/completions",
			`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"one two"},{"type":"image_url","image_url":{"url":"data:"}},{"type":"text","text":"three"}]},{"role":"assistant","content":null}],"max_tokens":1,"ignore_eos":true}`,
			nil, 5 + defaultMediaTokens, 1, "length"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					cfg := testConfig()
					if tt.cfg != nil {
						tt.cfg(&cfg)
					}
					s := bubbleServer(t, cfg)
					body := tt.body
					if stream {
						body = strings.TrimSuffix(body, "}") + `,"stream":true,"stream_options":{"include_usage":true}}`
					}
					rec := call(t, s, "POST", tt.path, body)
					if rec.status != 200 {
						t.Fatalf("status %d: %s", rec.status, rec.body.String())
					}
					var prompt, n int
					var finish string
					if stream {
						r := summarize(t, rec.body.String())
						if r.usage == nil {
							t.Fatal("no usage chunk")
						}
						prompt, n, finish = r.usage[0], r.usage[2], r.finishReason
						if r.tokenEvents != n {
							t.Errorf("%d token events, usage says %d", r.tokenEvents, n)
						}
					} else {
						c := decodeChunk(t, rec.body.String())
						prompt, n = c.Usage.PromptTokens, c.Usage.CompletionTokens
						finish = *c.Choices[0].FinishReason
						if c.Usage.TotalTokens != prompt+n {
							t.Errorf("total_tokens %d != %d + %d", c.Usage.TotalTokens, prompt, n)
						}
					}
					if prompt != tt.wantPrompt || n != tt.wantN {
						t.Errorf("prompt %d, completion %d tokens; want %d, %d", prompt, n, tt.wantPrompt, tt.wantN)
					}
					if tt.wantFinish != "" && finish != tt.wantFinish {
						t.Errorf("finish_reason %q, want %q", finish, tt.wantFinish)
					}
				})
			})
		}
	}
}

// Without ignore_eos a request stops at its seeded natural EOS: never below
// min_tokens or above max_tokens, the same for the same prompt, and the EOS
// token has no text.
func TestGenerateNaturalEOS(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bubbleServer(t, testConfig())
		stops := map[string]int{}
		for i := range 60 {
			body := fmt.Sprintf(`{"prompt":"prompt number %d","max_tokens":12,"min_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`, i)
			first := call(t, s, "POST", "/v1/completions", body)
			r := summarize(t, first.body.String())
			n := r.usage[2]
			if n < 4 || n > 12 {
				t.Fatalf("prompt %d: %d tokens, want 4..12", i, n)
			}
			stops[r.finishReason]++
			words := len(strings.Fields(r.text))
			switch r.finishReason {
			case "stop":
				if words != n-1 {
					t.Errorf("prompt %d: stop after %d tokens has %d words, want %d (EOS has no text)", i, n, words, n-1)
				}
			case "length":
				if n != 12 || words != 12 {
					t.Errorf("prompt %d: length finish with %d tokens, %d words; want 12, 12", i, n, words)
				}
			default:
				t.Fatalf("prompt %d: finish_reason %q", i, r.finishReason)
			}
			again := summarize(t, call(t, s, "POST", "/v1/completions", body).body.String())
			if again.text != r.text || again.finishReason != r.finishReason || *again.usage != *r.usage {
				t.Errorf("prompt %d: second answer differs: %+v vs %+v", i, again, r)
			}
			// ignore_eos always runs to max_tokens.
			ign := strings.Replace(body, `"stream":true`, `"ignore_eos":true,"stream":true`, 1)
			if r := summarize(t, call(t, s, "POST", "/v1/completions", ign).body.String()); r.usage[2] != 12 || r.finishReason != "length" {
				t.Errorf("prompt %d with ignore_eos: %d tokens, %q", i, r.usage[2], r.finishReason)
			}
		}
		if stops["stop"] < 15 || stops["length"] < 15 {
			t.Errorf("finish reasons %v, want both stop and length often", stops)
		}
	})
}

// A completions prompt that is a list of strings or of token-id lists is a
// batch: one choice per prompt, summed usage.
func TestGenerateBatchedPrompts(t *testing.T) {
	tests := []struct {
		name, prompt string
		wantPrompt   int
	}{
		{"list of strings", `["a b c","d e"]`, 5},
		{"list of token-id lists", `[[1,2,3],[4,5]]`, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := bubbleServer(t, testConfig())
				body := `{"prompt":` + tt.prompt + `,"max_tokens":3,"ignore_eos":true}`
				c := decodeChunk(t, call(t, s, "POST", "/v1/completions", body).body.String())
				if len(c.Choices) != 2 || c.Choices[0].Index != 0 || c.Choices[1].Index != 1 {
					t.Fatalf("choices %+v, want indexes 0 and 1", c.Choices)
				}
				if c.Usage.PromptTokens != tt.wantPrompt || c.Usage.CompletionTokens != 6 {
					t.Errorf("usage %+v, want %d prompt and 6 completion tokens", *c.Usage, tt.wantPrompt)
				}
				stream := call(t, s, "POST", "/v1/completions", strings.TrimSuffix(body, "}")+`,"stream":true}`)
				perIndex := map[int]int{}
				finished := map[int]bool{}
				for _, ev := range sseEvents(t, stream.body.String()) {
					if ev == "[DONE]" {
						continue
					}
					ch := decodeChunk(t, ev).Choices[0]
					if finished[ch.Index] {
						t.Errorf("choice %d got a token after its finish", ch.Index)
					}
					perIndex[ch.Index]++
					finished[ch.Index] = ch.FinishReason != nil
				}
				if perIndex[0] != 3 || perIndex[1] != 3 || !finished[0] || !finished[1] {
					t.Errorf("tokens per choice %v, finished %v; want 3 each, both finished", perIndex, finished)
				}
			})
		})
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name, path, body string
		status           int
		typ, message     string
	}{
		{"bad JSON", "/v1/completions", `{"prompt":`, 400, "BadRequestError", "invalid JSON"},
		{"wrong field type", "/v1/completions", `{"prompt":"a","max_tokens":"many"}`, 400, "BadRequestError", "invalid JSON"},
		{"unknown model", "/v1/completions", `{"model":"nope","prompt":"a"}`, 404, "NotFoundError", "The model `nope` does not exist."},
		{"unknown model, chat", "/v1/chat/completions", `{"model":"nope","messages":[{"role":"user","content":"a"}]}`, 404, "NotFoundError", "The model `nope` does not exist."},
		{"missing prompt", "/v1/completions", `{"max_tokens":3}`, 400, "BadRequestError", "Either prompt or prompt_embeds"},
		{"empty prompt", "/v1/completions", `{"prompt":""}`, 400, "BadRequestError", "Either prompt or prompt_embeds"},
		{"empty prompt list", "/v1/completions", `{"prompt":[]}`, 400, "BadRequestError", "Either prompt or prompt_embeds"},
		{"numeric prompt", "/v1/completions", `{"prompt":5}`, 400, "BadRequestError", "prompt must be"},
		{"mixed prompt list", "/v1/completions", `{"prompt":[1,"a"]}`, 400, "BadRequestError", "prompt must be"},
		{"negative token id", "/v1/completions", `{"prompt":[1,-2]}`, 400, "BadRequestError", "non-negative"},
		{"stream_options without stream", "/v1/completions", `{"prompt":"a","stream_options":{"include_usage":true}}`, 400, "BadRequestError", "Stream options can only be defined when `stream=True`."},
		{"max_tokens zero", "/v1/completions", `{"prompt":"a","max_tokens":0}`, 400, "BadRequestError", "max_tokens must be at least 1, got 0."},
		{"max_completion_tokens zero", "/v1/chat/completions", `{"messages":[{"role":"user","content":"a"}],"max_completion_tokens":0}`, 400, "BadRequestError", "max_completion_tokens must be at least 1"},
		{"negative min_tokens", "/v1/completions", `{"prompt":"a","min_tokens":-1}`, 400, "BadRequestError", "min_tokens must be greater than or equal to 0"},
		{"min_tokens above max_tokens", "/v1/completions", `{"prompt":"a","max_tokens":3,"min_tokens":4}`, 400, "BadRequestError", "min_tokens must be less than or equal to max_tokens=3, got 4."},
		{"prompt fills the context", "/v1/completions", `{"prompt":"` + strings.Repeat("w ", 100) + `"}`, 400, "BadRequestError", "maximum context length is 100 tokens. However, your request has 100 input tokens"},
		{"max_tokens past the context", "/v1/completions", `{"prompt":"a b","max_tokens":99}`, 400, "BadRequestError", "'max_tokens' is too large: 99."},
		{"no messages", "/v1/chat/completions", `{"messages":[]}`, 400, "BadRequestError", "messages must be a non-empty list"},
		{"missing messages", "/v1/chat/completions", `{"prompt":"a"}`, 400, "BadRequestError", "messages must be a non-empty list"},
		{"numeric content", "/v1/chat/completions", `{"messages":[{"role":"user","content":3}]}`, 400, "BadRequestError", "messages[0].content must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.MaxModelLen = 100
			s := mustNew(t, cfg)
			rec := serve(t, s.Handler(), newRecorder(), context.Background(), "POST", tt.path, tt.body,
				map[string]string{"X-Request-Id": "r-9"})
			if rec.status != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.status, tt.status, rec.body.String())
			}
			var e map[string]any
			if err := json.Unmarshal(rec.body.Bytes(), &e); err != nil {
				t.Fatalf("error body is not JSON: %v: %s", err, rec.body.String())
			}
			if len(e) != 5 || e["object"] != "error" || e["type"] != tt.typ || e["param"] != nil || e["code"] != float64(tt.status) {
				t.Errorf("error body %v, want object/message/type/param/code with type %s", e, tt.typ)
			}
			if msg, _ := e["message"].(string); !strings.Contains(msg, tt.message) {
				t.Errorf("message %q does not contain %q", msg, tt.message)
			}
			if got := rec.header.Get("X-Request-Id"); got != "r-9" {
				t.Errorf("X-Request-Id %q not echoed on an error", got)
			}
			if st := s.Stats(); st.Requests != 1 || st.Failed != 1 {
				t.Errorf("stats %+v, want 1 request, 1 failed", st)
			}
		})
	}
}

func TestFailEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.FailEvery = 3
		s := bubbleServer(t, cfg)
		var statuses []int
		for i := range 7 {
			path, body := "/v1/completions", `{"prompt":"a","max_tokens":1}`
			if i%2 == 1 {
				path, body = "/v1/chat/completions", `{"messages":[{"role":"user","content":"a"}],"max_tokens":1,"stream":true}`
			}
			rec := call(t, s, "POST", path, body)
			statuses = append(statuses, rec.status)
			if rec.status == 500 {
				var e struct {
					Object, Type string
					Code         int
				}
				if err := json.Unmarshal(rec.body.Bytes(), &e); err != nil || e.Object != "error" || e.Type != "InternalServerError" || e.Code != 500 {
					t.Errorf("request %d: error body %s", i+1, rec.body.String())
				}
			}
			// Other endpoints do not count.
			call(t, s, "GET", "/health", "")
			call(t, s, "POST", "/tokenize", `{"prompt":"a"}`)
		}
		want := []int{200, 200, 500, 200, 200, 500, 200}
		if fmt.Sprint(statuses) != fmt.Sprint(want) {
			t.Errorf("statuses %v, want %v", statuses, want)
		}
		if st := s.Stats(); st.InjectedFailures != 2 || st.Failed != 2 || st.Requests != 7 || st.Completed != 5 {
			t.Errorf("stats %+v, want 7 requests, 2 injected failures, 5 completed", st)
		}
	})
}

func TestNonStreamingResponseShape(t *testing.T) {
	tests := []struct {
		name, path, body string
		keys             []string
		choiceKeys       []string
	}{
		{"completions", "/v1/completions", `{"prompt":"a","max_tokens":3,"ignore_eos":true}`,
			[]string{"id", "object", "created", "model", "choices", "service_tier", "system_fingerprint", "usage"},
			[]string{"index", "text", "logprobs", "finish_reason", "stop_reason", "prompt_logprobs"}},
		{"chat", "/v1/chat/completions", `{"messages":[{"role":"user","content":"a"}],"max_tokens":3,"ignore_eos":true}`,
			[]string{"id", "object", "created", "model", "choices", "service_tier", "system_fingerprint", "usage"},
			[]string{"index", "message", "logprobs", "finish_reason", "stop_reason"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := bubbleServer(t, testConfig())
				rec := serve(t, s.Handler(), newRecorder(), context.Background(), "POST", tt.path, tt.body, map[string]string{"X-Request-Id": "abc"})
				if ct := rec.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				if got := jsonKeys(t, rec.body.Bytes()); fmt.Sprint(got) != fmt.Sprint(tt.keys) {
					t.Errorf("keys %v, want %v", got, tt.keys)
				}
				var raw struct {
					Choices []json.RawMessage `json:"choices"`
				}
				if err := json.Unmarshal(rec.body.Bytes(), &raw); err != nil {
					t.Fatal(err)
				}
				if got := jsonKeys(t, raw.Choices[0]); fmt.Sprint(got) != fmt.Sprint(tt.choiceKeys) {
					t.Errorf("choice keys %v, want %v", got, tt.choiceKeys)
				}
				c := decodeChunk(t, rec.body.String())
				wantID, wantObject := "cmpl-abc", "text_completion"
				text := c.Choices[0].Text
				if tt.name == "chat" {
					wantID, wantObject, text = "chatcmpl-abc", "chat.completion", c.Choices[0].Message.Content
					if c.Choices[0].Message.Role != "assistant" {
						t.Errorf("role %q", c.Choices[0].Message.Role)
					}
				}
				if c.ID != wantID || c.Object != wantObject || c.Model != "sim-model" || c.Created != 946684800 {
					t.Errorf("id %q object %q model %q created %d", c.ID, c.Object, c.Model, c.Created)
				}
				if len(strings.Fields(text)) != 3 {
					t.Errorf("text %q, want 3 words", text)
				}
				// The response is written when the last token is due.
				if end := rec.flushes; len(end) != 0 {
					t.Errorf("non-streaming response flushed %d times", len(end))
				}
			})
		})
	}
}

// jsonKeys returns the keys of a JSON object in document order.
func jsonKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", b)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
