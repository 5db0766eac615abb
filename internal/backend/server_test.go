package backend

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestNewServerAPICAFile checks that NewServerAPI trusts the CA file it is
// given and reports a CA file it cannot use.
func TestNewServerAPICAFile(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"data":[{"id":"m","root":"r"}]}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	api, err := NewServerAPI(srv.URL, "", nil, false, ca)
	if err != nil {
		t.Fatalf("NewServerAPI: %v", err)
	}
	if id, root, err := api.Models(context.Background()); err != nil || id != "m" || root != "r" {
		t.Errorf("Models = %q, %q, %v; want m, r, nil", id, root, err)
	}

	// Without the CA file the server's certificate is not trusted.
	api, err = NewServerAPI(srv.URL, "", nil, false, "")
	if err != nil {
		t.Fatalf("NewServerAPI: %v", err)
	}
	if _, _, err := api.Models(context.Background()); err == nil {
		t.Error("Models without the CA file: no error, want an unknown authority")
	}

	if _, err := NewServerAPI(srv.URL, "", nil, false, filepath.Join(dir, "missing.pem")); err == nil {
		t.Error("NewServerAPI with a missing CA file: no error")
	}
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewServerAPI(srv.URL, "", nil, false, bad); err == nil {
		t.Error("NewServerAPI with a CA file holding no certificate: no error")
	}
}

// fakeTokenizeServer answers /tokenize and /detokenize in one dialect:
// "vllm", "llamacpp" (which answers vLLM's body with no tokens, as
// llama.cpp does), "none" (no tokens ever), "auth" (401 without the key)
// or "hang" (never answers). Tokens are the bytes of the text.
func fakeTokenizeServer(t *testing.T, mode string, seen *[]*http.Request) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		r.Body = nil
		r.Header.Set("X-Body", fmt.Sprint(body))
		mu.Lock()
		*seen = append(*seen, r)
		mu.Unlock()
		switch mode {
		case "hang":
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		case "auth":
			if r.Header.Get("Authorization") != "Bearer sk-secret" {
				http.Error(w, `{"error":"missing key"}`, http.StatusUnauthorized)
				return
			}
		}
		text, _ := body["prompt"].(string)
		if mode == "llamacpp" {
			text, _ = body["content"].(string)
		}
		switch r.URL.Path {
		case "/tokenize":
			ids := []int{}
			if mode != "none" {
				for _, c := range []byte(text) {
					ids = append(ids, int(c))
				}
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
		case "/detokenize":
			var b []byte
			for _, id := range body["tokens"].([]any) {
				b = append(b, byte(id.(float64)))
			}
			key := "prompt"
			if mode == "llamacpp" {
				key = "content"
			}
			_ = json.NewEncoder(w).Encode(map[string]any{key: string(b)})
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

func TestServerAPIDialects(t *testing.T) {
	for _, mode := range []string{"vllm", "llamacpp"} {
		t.Run(mode, func(t *testing.T) {
			var seen []*http.Request
			srv := fakeTokenizeServer(t, mode, &seen)
			api, err := NewServerAPIWith(srv.URL+"/", ServerOptions{Model: "m", APIKey: "sk-secret", Headers: map[string]string{"X-Tenant": "t1"}})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				ids, err := api.Tokenize(context.Background(), "hi")
				if err != nil || !slices.Equal(ids, []int{'h', 'i'}) {
					t.Fatalf("Tokenize = %v, %v", ids, err)
				}
			}
			if ids, err := api.Tokenize(context.Background(), ""); err != nil || len(ids) != 0 {
				t.Errorf("Tokenize(\"\") = %v, %v, want no tokens and no error", ids, err)
			}
			if text, err := api.Detokenize(context.Background(), []int{'o', 'k'}); err != nil || text != "ok" {
				t.Errorf("Detokenize = %q, %v", text, err)
			}
			want := map[string]string{"vllm": "vLLM", "llamacpp": "llama.cpp"}[mode]
			if got := api.Dialect(); got != want {
				t.Errorf("Dialect() = %q, want %q", got, want)
			}
			// llama.cpp costs one extra call, once: vLLM's body, then its own.
			wantCalls := map[string]int{"vllm": 4, "llamacpp": 5}[mode]
			if len(seen) != wantCalls {
				t.Errorf("%d calls, want %d", len(seen), wantCalls)
			}
			for _, r := range seen {
				if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "vbench/") {
					t.Errorf("%s: User-Agent %q, want vbench/<version>", r.URL.Path, ua)
				}
				if got := r.Header.Get("Authorization"); got != "Bearer sk-secret" {
					t.Errorf("%s: Authorization %q", r.URL.Path, got)
				}
				if got := r.Header.Get("X-Tenant"); got != "t1" {
					t.Errorf("%s: X-Tenant %q", r.URL.Path, got)
				}
			}
			if mode == "llamacpp" {
				if b := seen[1].Header.Get("X-Body"); !strings.Contains(b, "content:hi") || !strings.Contains(b, "add_special:false") {
					t.Errorf("llama.cpp body %s", b)
				}
			} else if b := seen[0].Header.Get("X-Body"); !strings.Contains(b, "prompt:hi") || !strings.Contains(b, "model:m") || !strings.Contains(b, "add_special_tokens:false") {
				t.Errorf("vLLM body %s", b)
			}
		})
	}
}

func TestServerAPIErrors(t *testing.T) {
	tests := []struct {
		mode, key string
		timeout   time.Duration
		want      error
		has       string
	}{
		{"none", "", 0, ErrCannotTokenize, "no tokens for a text of 2 bytes"},
		{"auth", "", 0, ErrServerAuth, "401"},
		{"auth", "sk-wrong", 0, ErrServerAuth, "set OPENAI_API_KEY"},
		{"hang", "", 50 * time.Millisecond, ErrServerTimeout, "within 50ms"},
	}
	for _, tt := range tests {
		t.Run(tt.mode+tt.key, func(t *testing.T) {
			var seen []*http.Request
			srv := fakeTokenizeServer(t, tt.mode, &seen)
			api, err := NewServerAPIWith(srv.URL, ServerOptions{Model: "m", APIKey: tt.key, Timeout: tt.timeout})
			if err != nil {
				t.Fatal(err)
			}
			_, err = api.Tokenize(context.Background(), "hi")
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.has) {
				t.Fatalf("Tokenize error %v, want %v containing %q", err, tt.want, tt.has)
			}
			if tt.key != "" && strings.Contains(err.Error(), tt.key) {
				t.Error("the key was shown")
			}
		})
	}
	// The caller's own deadline is not reported as the server's silence.
	var seen []*http.Request
	srv := fakeTokenizeServer(t, "hang", &seen)
	api, err := NewServerAPIWith(srv.URL, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := api.Tokenize(ctx, "hi"); !errors.Is(err, context.Canceled) || errors.Is(err, ErrServerTimeout) {
		t.Errorf("cancelled Tokenize: %v", err)
	}
}

// The /tokenize dialect one ServerAPI finds is the run's: every WithModel
// copy, earlier or later, uses it without probing again.
func TestWithModelSharesDialect(t *testing.T) {
	var vllmBodies atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if _, ok := body["prompt"]; ok {
			vllmBodies.Add(1)
			_, _ = io.WriteString(w, `{"tokens": []}`) // llama.cpp ignores vLLM's body
			return
		}
		_, _ = io.WriteString(w, `{"tokens": [1, 2]}`)
	}))
	defer srv.Close()
	base, err := NewServerAPI(srv.URL, "", nil, false, "")
	if err != nil {
		t.Fatal(err)
	}
	a, b := base.WithModel("a"), base.WithModel("b")
	if ids, err := a.Tokenize(context.Background(), "hi"); err != nil || len(ids) != 2 {
		t.Fatalf("a.Tokenize = %v, %v", ids, err)
	}
	if got := vllmBodies.Load(); got != 1 {
		t.Fatalf("%d vLLM-dialect probes, want 1", got)
	}
	for _, s := range []*ServerAPI{base, b, base.WithModel("c")} {
		if s.Dialect() != "llama.cpp" {
			t.Errorf("dialect %q, want llama.cpp", s.Dialect())
		}
		if _, err := s.Tokenize(context.Background(), "hi"); err != nil {
			t.Fatal(err)
		}
	}
	if got := vllmBodies.Load(); got != 1 {
		t.Errorf("%d vLLM-dialect probes after the dialect was known, want 1", got)
	}
}

// Messages name the server without its password.
func TestServerAPIBaseRedacted(t *testing.T) {
	api, err := NewServerAPI("http://user:secret@gpu:8000/", "", nil, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := api.Base(); strings.Contains(got, "secret") || !strings.Contains(got, "gpu:8000") {
		t.Errorf("Base() = %q, want the URL without its password", got)
	}
	if _, err := New(Config{Backend: "openai", URL: "http://user:secret@gpu:8000/v1/embeddings"}); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("URL error %v, want one without the password", err)
	}
}

// The profiler calls are not cut off by the bound of the tokenizer calls:
// a /stop_profile that answers only after that bound still succeeds.
func TestProfileOutlivesCallTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond) // flushing a trace
	}))
	defer srv.Close()
	api, err := NewServerAPIWith(srv.URL, ServerOptions{Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Profile(context.Background(), "/stop_profile"); err != nil {
		t.Errorf("Profile: %v", err)
	}
}

func TestServerAPIVocabSize(t *testing.T) {
	tests := []struct {
		name, models, model string
		want                int
	}{
		{"llama.cpp", `{"data":[{"id":"m","meta":{"n_vocab":512}}]}`, "m", 512},
		{"the model's entry", `{"data":[{"id":"a","meta":{"n_vocab":100}},{"id":"b","meta":{"n_vocab":32000}}]}`, "b", 32000},
		{"else the first", `{"data":[{"id":"a","meta":{"n_vocab":100}},{"id":"b"}]}`, "c", 100},
		{"vLLM says nothing", `{"data":[{"id":"m","root":"org/m","max_model_len":4096}]}`, "m", 0},
		{"negative", `{"data":[{"id":"m","meta":{"n_vocab":-1}}]}`, "m", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/models" {
					http.NotFound(w, r)
					return
				}
				_, _ = w.Write([]byte(tt.models))
			}))
			defer srv.Close()
			api, err := NewServerAPI(srv.URL, tt.model, nil, false, "")
			if err != nil {
				t.Fatal(err)
			}
			if n, err := api.VocabSize(context.Background()); err != nil || n != tt.want {
				t.Errorf("VocabSize = %d, %v; want %d", n, err, tt.want)
			}
		})
	}
}
