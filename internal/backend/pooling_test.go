package backend

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/record"
)

// Each pooling kind's payload is vLLM's, keys in its order, and its
// num_input_sequences is vLLM's (_get_num_input_sequences; rerank: the
// documents).
func TestPoolingPayloads(t *testing.T) {
	one := dataset.Request{Prompt: "hi <there>", PromptLen: 3, ID: "e-0"}
	batch := dataset.Request{Prompts: []string{"a b", "c"}, PromptLen: 3}
	rerank := dataset.Request{Prompts: []string{"query", "doc one", "doc two", "doc three"}, PromptLen: 9}
	extra := map[string]any{"encoding_format": "float", "dimensions": 8}
	// With an image, clip blanks the prompt; vlm2vec rewrites it by the
	// parity of the id's trailing number, image part first; Infinity sends
	// a blanked prompt's one image as input with its modality (and refuses
	// an image with a prompt on infinity-embeddings).
	img := func(id string) dataset.Request {
		return dataset.Request{Prompt: "what is it", PromptLen: 3, ID: id, Messages: []dataset.Message{{Role: dataset.RoleUser,
			Parts: []dataset.Part{{Type: dataset.PartText, Text: "what is it"}, {Type: dataset.PartImage, URL: "data:image/jpeg;base64,AA"}}}}}
	}
	imgPart := `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AA"}}`
	tests := []struct {
		backend, url string
		req          dataset.Request
		extra        map[string]any
		want         string
		sequences    int
	}{
		{"openai-embeddings", "/v1/embeddings", one, nil,
			`{"model":"m","input":"hi <there>","truncate_prompt_tokens":-1}`, 1},
		{"openai-embeddings", "/v1/embeddings", batch, extra,
			`{"model":"m","input":["a b","c"],"truncate_prompt_tokens":-1,"dimensions":8,"encoding_format":"float"}`, 2},
		{"openai-embeddings-chat", "/v1/embeddings", one, nil,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi <there>"}]}],"truncate_prompt_tokens":-1}`, 1},
		{"openai-embeddings-clip", "/v1/embeddings", one, nil,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi <there>"}]}],"truncate_prompt_tokens":-1}`, 1},
		{"openai-embeddings-vlm2vec", "/v1/embeddings", one, nil,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi <there>"}]}],"truncate_prompt_tokens":-1}`, 1},
		{"openai-embeddings-chat", "/v1/embeddings", img("mm-4"), nil,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"what is it"},` + imgPart + `]}],"truncate_prompt_tokens":-1}`, 1},
		{"openai-embeddings-clip", "/v1/embeddings", img("mm-4"), nil,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":""},` + imgPart + `]}],"truncate_prompt_tokens":-1}`, 1},
		{"openai-embeddings-vlm2vec", "/v1/embeddings", img("mm-4"), nil,
			`{"model":"m","messages":[{"role":"user","content":[` + imgPart + `,{"type":"text","text":"Represent the given image."}]}],"truncate_prompt_tokens":-1}`, 1},
		{"openai-embeddings-vlm2vec", "/v1/embeddings", img("mm-7"), nil,
			`{"model":"m","messages":[{"role":"user","content":[` + imgPart + `,{"type":"text","text":"Represent the given image with the following question: what is it"}]}],"truncate_prompt_tokens":-1}`, 1},
		{"openai-embeddings-vlm2vec", "/v1/embeddings", img("no-number"), nil,
			`{"model":"m","messages":[{"role":"user","content":[` + imgPart + `,{"type":"text","text":"Represent the given image."}]}],"truncate_prompt_tokens":-1}`, 1},
		{"infinity-embeddings", "/embeddings", one, nil, `{"model":"m","input":"hi <there>"}`, 1},
		{"infinity-embeddings-clip", "/embeddings", img("mm-1"), nil, `{"model":"m","input":"data:image/jpeg;base64,AA","modality":"image"}`, 1},
		{"infinity-embeddings-clip", "/embeddings", batch, nil, `{"model":"m","input":["a b","c"]}`, 2},
		{"vllm-pooling", "/pooling", one, extra,
			`{"model":"m","truncate_prompt_tokens":-1,"input":"hi <there>","dimensions":8,"encoding_format":"float"}`, 1},
		// Rerank takes neither ignore_eos nor the extra body.
		{"vllm-rerank", "/rerank", rerank, extra,
			`{"model":"m","query":"query","documents":["doc one","doc two","doc three"],"truncate_prompt_tokens":-1}`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			c, err := New(Config{Backend: tt.backend, URL: "http://h" + tt.url, Model: "m", ExtraBody: tt.extra})
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Prepare([]dataset.Request{tt.req}, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(p[0].body); got != tt.want {
				t.Errorf("payload\n got %s\nwant %s", got, tt.want)
			}
			if p[0].sequences != tt.sequences {
				t.Errorf("sequences %d, want %d", p[0].sequences, tt.sequences)
			}
		})
	}
}

// Requests a pooling kind cannot send are refused before the run, naming
// why.
func TestPoolingRefusals(t *testing.T) {
	tests := []struct {
		backend, url string
		req          dataset.Request
		want         string
	}{
		{"vllm-rerank", "/rerank", dataset.Request{Prompt: "one"}, "needs a query and at least one document"},
		{"openai-embeddings-chat", "/v1/embeddings", dataset.Request{Prompts: []string{"a", "b"}}, "batch of prompts"},
		{"openai-embeddings-chat", "/v1/embeddings", dataset.Request{PromptTokens: []int{1}}, "list of token ids"},
		{"infinity-embeddings", "/embeddings", dataset.Request{}, "the prompt is empty"},
		{"openai-embeddings", "/v1/embeddings", dataset.Request{Prompt: "x", Messages: []dataset.Message{{Role: dataset.RoleUser,
			Parts: []dataset.Part{{Type: dataset.PartImage, URL: "http://i"}}}}}, "carries image content"},
		{"infinity-embeddings", "/embeddings", dataset.Request{Prompt: "x", Messages: []dataset.Message{{Role: dataset.RoleUser,
			Parts: []dataset.Part{{Type: dataset.PartImage, URL: "http://i"}}}}}, "which infinity-embeddings does not send with a prompt: use infinity-embeddings-clip"},
		{"infinity-embeddings-clip", "/embeddings", dataset.Request{Prompt: "x", Messages: []dataset.Message{{Role: dataset.RoleUser,
			Parts: []dataset.Part{{Type: dataset.PartImage, URL: "http://i"}, {Type: dataset.PartImage, URL: "http://j"}}}}}, "2 media items"},
	}
	for _, tt := range tests {
		c, err := New(Config{Backend: tt.backend, URL: "http://h" + tt.url, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Prepare([]dataset.Request{tt.req}, false); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Prepare = %v, want %q", tt.backend, err, tt.want)
		}
	}
}

// A pooling response is one message timed when the whole body is in (TTFT
// = E2EL); its prompt length is usage.prompt_tokens (0 without), the
// metadata header's usage for encoding_format bytes, the dataset's for
// bytes_only; a failure reports prompt length 0, as vLLM's pooling output
// does. Both HTTP paths (the lean client and net/http, over TLS) agree.
func TestPoolingSend(t *testing.T) {
	tests := []struct {
		name, format, metadata, body string
		status                       int
		want                         record.Record
	}{
		{"float", "float", "", `{"object":"list","data":[{"embedding":[0.5,-1]}],"usage":{"prompt_tokens":11,"total_tokens":11}}`, 200,
			record.Record{Success: true, PromptLen: 11, InputSequences: 2, Status: 200}},
		{"no usage", "", "", `{"data":[]}`, 200, record.Record{Success: true, PromptLen: 0, InputSequences: 2, Status: 200}},
		{"bytes", "bytes", `{"id":"x","usage":{"prompt_tokens":7}}`, "\x00\x01\x02\x03", 200,
			record.Record{Success: true, PromptLen: 7, InputSequences: 2, Status: 200}},
		{"bytes without metadata", "bytes", "", "\x00\x01", 200,
			record.Record{Error: "encoding_format bytes: the response has no metadata header", InputSequences: 2, Status: 200}},
		{"bytes_only", "bytes_only", "", "\x00\x01\x02\x03", 200,
			record.Record{Success: true, PromptLen: 5, InputSequences: 2, Status: 200}},
		{"bad JSON", "float", "", `{"data":`, 200, record.Record{Error: "invalid JSON in response body", InputSequences: 2, Status: 200}},
		{"server error", "", "", `{"message":"boom"}`, 500, record.Record{Error: "Internal Server Error", InputSequences: 2, Status: 500}},
	}
	for _, tls := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.name
			if tls {
				name += " over net/http"
			}
			t.Run(name, func(t *testing.T) {
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.ReadAll(r.Body)
					if tt.metadata != "" {
						w.Header().Set("metadata", tt.metadata)
					}
					w.WriteHeader(tt.status)
					_, _ = io.WriteString(w, tt.body)
				})
				srv := httptest.NewUnstartedServer(h)
				if tls {
					srv.StartTLS()
				} else {
					srv.Start()
				}
				defer srv.Close()
				var extra map[string]any
				if tt.format != "" {
					extra = map[string]any{"encoding_format": tt.format}
				}
				c, err := New(Config{Backend: "openai-embeddings", URL: srv.URL + "/v1/embeddings", Model: "m", ExtraBody: extra, Insecure: true})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if (c.h1 != nil) == tls {
					t.Fatalf("h1 path %v with TLS %v", c.h1 != nil, tls)
				}
				p, err := c.Prepare([]dataset.Request{{Prompts: []string{"a", "b"}, PromptLen: 5, ID: "e-1"}}, true)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				var rec record.Record
				c.Send(context.Background(), &p[0], &rec, func() time.Duration { return time.Since(start) })
				if rec.Success != tt.want.Success || rec.PromptLen != tt.want.PromptLen || rec.InputSequences != tt.want.InputSequences ||
					rec.Status != tt.want.Status || !strings.HasPrefix(rec.Error, tt.want.Error) || tt.want.Error == "" && rec.Error != "" {
					t.Errorf("record %+v\nwant %+v", rec, tt.want)
				}
				if tt.want.Success && (len(rec.Chunks) != 1 || rec.End != rec.Chunks[0] || rec.TTFT() != rec.Latency() || rec.Latency() <= 0) {
					t.Errorf("times: start %v chunks %v end %v", rec.Start, rec.Chunks, rec.End)
				}
			})
		}
	}
}
