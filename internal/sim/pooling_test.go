package sim

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// embeddingsAnswer is the part of an embeddings or pooling answer the
// tests read.
type embeddingsAnswer struct {
	Object string `json:"object"`
	Model  string `json:"model"`
	Data   []struct {
		Index     int             `json:"index"`
		Object    string          `json:"object"`
		Embedding json.RawMessage `json:"embedding"`
		Data      json.RawMessage `json:"data"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

func decodeAnswer(t *testing.T, body string) embeddingsAnswer {
	t.Helper()
	var a embeddingsAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("answer %q: %v", body, err)
	}
	return a
}

// The embeddings endpoint answers one unit vector per input, the same for
// the same input whatever the request, with the inputs' tokens as usage;
// base64 and bytes carry the same float32s.
func TestEmbeddings(t *testing.T) {
	s := mustNew(t, testConfig())
	rec := call(t, s, "POST", "/v1/embeddings", `{"model":"sim-model","input":["alpha beta","gamma"],"truncate_prompt_tokens":-1}`)
	if rec.status != 200 {
		t.Fatalf("status %d: %s", rec.status, rec.body.String())
	}
	a := decodeAnswer(t, rec.body.String())
	if a.Object != "list" || a.Model != "sim-model" || len(a.Data) != 2 || a.Usage.PromptTokens != 3 || a.Usage.TotalTokens != 3 {
		t.Fatalf("answer %+v", a)
	}
	var v0 []float64
	if err := json.Unmarshal(a.Data[0].Embedding, &v0); err != nil || len(v0) != DefaultEmbeddingDim {
		t.Fatalf("embedding %s: %v", a.Data[0].Embedding, err)
	}
	norm := 0.0
	for _, x := range v0 {
		norm += x * x
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Errorf("|v|² = %v, want 1", norm)
	}
	// The same input alone, and chat-style, gives the same vector.
	one := decodeAnswer(t, call(t, s, "POST", "/v1/embeddings", `{"input":"alpha beta","dimensions":16}`).body.String())
	chat := decodeAnswer(t, call(t, s, "POST", "/v1/embeddings", `{"messages":[{"role":"user","content":[{"type":"text","text":"alpha beta"}]}]}`).body.String())
	if string(one.Data[0].Embedding) != string(a.Data[0].Embedding) || string(chat.Data[0].Embedding) != string(a.Data[0].Embedding) {
		t.Errorf("vectors differ:\n%s\n%s\n%s", a.Data[0].Embedding, one.Data[0].Embedding, chat.Data[0].Embedding)
	}
	// base64: the float32s, little-endian.
	b64 := decodeAnswer(t, call(t, s, "POST", "/v1/embeddings", `{"input":"alpha beta","encoding_format":"base64"}`).body.String())
	var enc string
	if err := json.Unmarshal(b64.Data[0].Embedding, &enc); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(raw) != 4*DefaultEmbeddingDim {
		t.Fatalf("base64 %q: %v", enc, err)
	}
	for i, want := range v0 {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); float64(got) != want {
			t.Errorf("component %d: base64 %v, float %v", i, got, want)
		}
	}
	// bytes: the raw float32s, the usage in the metadata header; bytes_only:
	// the raw float32s alone.
	rec = call(t, s, "POST", "/v1/embeddings", `{"input":"alpha beta","encoding_format":"bytes"}`)
	if rec.body.String() != string(raw) {
		t.Errorf("bytes body differs from the base64 one")
	}
	var md struct {
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(rec.header.Get("metadata")), &md); err != nil || md.Usage.PromptTokens != 2 {
		t.Errorf("metadata %q: %v", rec.header.Get("metadata"), err)
	}
	rec = call(t, s, "POST", "/v1/embeddings", `{"input":"alpha beta","encoding_format":"bytes_only"}`)
	if rec.body.String() != string(raw) || rec.header.Get("metadata") != "" {
		t.Errorf("bytes_only: body %q, metadata %q", rec.body.String(), rec.header.Get("metadata"))
	}
}

// /pooling answers "data" per input; /rerank scores each document against
// the query, best first, with query and documents counted.
func TestPoolingAndRerank(t *testing.T) {
	s := mustNew(t, testConfig())
	p := decodeAnswer(t, call(t, s, "POST", "/pooling", `{"model":"sim-model","truncate_prompt_tokens":-1,"input":"alpha beta"}`).body.String())
	if len(p.Data) != 1 || p.Data[0].Object != "pooling" || len(p.Data[0].Data) == 0 || p.Usage.PromptTokens != 2 {
		t.Errorf("pooling answer %+v", p)
	}
	rec := call(t, s, "POST", "/rerank", `{"model":"sim-model","query":"alpha","documents":["beta gamma","alpha","delta"],"truncate_prompt_tokens":-1}`)
	var r struct {
		Usage   poolUsage `json:"usage"`
		Results []struct {
			Index          int     `json:"index"`
			RelevanceScore float64 `json:"relevance_score"`
		} `json:"results"`
	}
	if err := json.Unmarshal(rec.body.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Usage.PromptTokens != 5 || len(r.Results) != 3 {
		t.Fatalf("rerank answer %s", rec.body.String())
	}
	// The document equal to the query scores 1 and comes first.
	if r.Results[0].Index != 1 || math.Abs(r.Results[0].RelevanceScore-1) > 1e-6 || r.Results[1].RelevanceScore < r.Results[2].RelevanceScore {
		t.Errorf("rerank results %+v", r.Results)
	}
}

// Bad pooling requests get vLLM-style 400s, and a pooling request takes
// the prefill time of its tokens.
func TestPoolingErrorsAndLatency(t *testing.T) {
	cfg := testConfig()
	cfg.MaxModelLen = 4
	cfg.TTFT, cfg.PrefillPerToken = 20*time.Millisecond, 5*time.Millisecond
	s := mustNew(t, cfg)
	for body, want := range map[string]string{
		`{"input":"a b c d e"}`:                     "maximum context length is 4",
		`{"input":"a","encoding_format":"fp8"}`:     "encoding_format must be one of",
		`{"input":"a","dimensions":0}`:              "dimensions must be in",
		`{"input":"a","truncate_prompt_tokens":-2}`: "truncate_prompt_tokens must be -1 or positive",
		`{"input":""}`:                              "must be provided and non-empty",
		`{"model":"other","input":"a"}`:             "does not exist",
		`{"input":"a",`:                             "invalid JSON",
	} {
		rec := call(t, s, "POST", "/v1/embeddings", body)
		if rec.status != 400 && rec.status != 404 || !strings.Contains(rec.body.String(), want) {
			t.Errorf("%s: %d %s, want %q", body, rec.status, rec.body.String(), want)
		}
	}
	if rec := call(t, s, "POST", "/rerank", `{"query":"a","documents":[]}`); rec.status != 400 {
		t.Errorf("rerank without documents: %d", rec.status)
	}
	// Truncation keeps the last tokens: 4 of 5, so 20ms + 4·5ms.
	start := time.Now()
	rec := call(t, s, "POST", "/v1/embeddings", `{"input":"a b c d e","truncate_prompt_tokens":-1}`)
	if a := decodeAnswer(t, rec.body.String()); a.Usage.PromptTokens != 4 {
		t.Errorf("truncated usage %d, want 4", a.Usage.PromptTokens)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("answered after %v, before its prefill time of 40ms", d)
	}
}
