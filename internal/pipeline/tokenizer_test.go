package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// fakeTokenizeServer answers vLLM's /tokenize and /detokenize with the
// o200k_base encoding.
func fakeTokenizeServer(t *testing.T) *httptest.Server {
	t.Helper()
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model            string `json:"model"`
			Prompt           string `json:"prompt"`
			AddSpecialTokens *bool  `json:"add_special_tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "served" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		ids := tok.Encode(req.Prompt, false)
		_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids, "count": len(ids), "max_model_len": 4096})
	})
	mux.HandleFunc("POST /detokenize", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tokens []int `json:"tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"prompt": tok.Decode(req.Tokens)})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestLoadTokenizerEnv(t *testing.T) {
	const secret = "hf_SECRETnotForOutput"
	srv := fakeTokenizeServer(t)
	cache := t.TempDir()
	// A Hub cache holding org/cached at main.
	snap := filepath.Join(cache, "models--org--cached", "snapshots", "0123456789abcdef0123456789abcdef01234567")
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "tokenizer", "testdata", "qwen3-cut", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(snap, "tokenizer.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cache, "models--org--cached", "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "models--org--cached", "refs", "main"), []byte("0123456789abcdef0123456789abcdef01234567"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HF_HUB_CACHE": cache, "HF_HUB_OFFLINE": "1", "HF_TOKEN": secret}
	getenv := func(k string) string { return env[k] }

	server := func(name string) *scenario.Scenario {
		sc := &scenario.Scenario{}
		sc.Target.BaseURL = srv.URL + "/"
		sc.Target.Model = "org/model"
		sc.Target.ServedModelName = "served"
		sc.Tokenizer.Name = name
		return sc
	}
	simulator := func(name string) *scenario.Scenario {
		sc := &scenario.Scenario{}
		sc.Target.Simulator = &scenario.Simulator{Model: "sim"}
		sc.Tokenizer.Name = name
		return sc
	}
	tests := []struct {
		name     string
		sc       *scenario.Scenario
		kind     string // "" for an error
		stderr   string
		errorHas string
	}{
		{"builtin", server("o200k_base"), "*tokenizer.Tiktoken", "tokenizer: built-in tiktoken encoding o200k_base\n", ""},
		{"hub cache", server("org/cached"), "*tokenizer.HF", "tokenizer: tokenizer.json of org/cached@main from the Hugging Face cache (offline)", ""},
		{"model as tokenizer", func() *scenario.Scenario { sc := server(""); sc.Target.Model = "org/cached"; return sc }(),
			"*tokenizer.HF", "org/cached@main", ""},
		{"server fallback", server("org/unknown"), "*tokenizer.Server",
			"tokenizer: the server's /tokenize and /detokenize at " + srv.URL + " (vLLM dialect, a vocabulary assumed to hold 131072 tokens), because no local tokenizer loaded: tokenizer org/unknown: org/unknown@main: tokenizer.json: not in the cache", ""},
		{"simulator needs a client tokenizer", simulator("org/unknown"), "", "", "org/unknown"},
		{"server fallback fails", func() *scenario.Scenario { sc := server("org/unknown"); sc.Target.ServedModelName = "other"; return sc }(),
			"", "", "falling back to the server's tokenizer at " + srv.URL + " failed too"},
		{"skip init", func() *scenario.Scenario { sc := server("org/unknown"); sc.Tokenizer.SkipInit = true; return sc }(), "<nil>", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			tok, name, err := loadTokenizerEnv(context.Background(), tt.sc, Env{Stderr: &stderr, Getenv: getenv}, newEndpoint(tt.sc))
			if strings.Contains(stderr.String(), secret) || err != nil && strings.Contains(err.Error(), secret) {
				t.Fatal("the token was shown")
			}
			if tt.kind == "" {
				if err == nil || !strings.Contains(err.Error(), tt.errorHas) {
					t.Fatalf("error %v, want one containing %q", err, tt.errorHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := typeOf(tok); got != tt.kind {
				t.Errorf("tokenizer %s, want %s", got, tt.kind)
			}
			// One line, or two for the server: what it asks, then what it got.
			lines := 1
			if tt.kind == "*tokenizer.Server" {
				lines = 2
			}
			if !strings.Contains(stderr.String(), tt.stderr) || strings.Count(stderr.String(), "\n") > lines {
				t.Errorf("stderr %q, want %d line(s) containing %q", stderr.String(), lines, tt.stderr)
			}
			if tok != nil && name == "" {
				t.Error("no tokenizer name")
			}
		})
	}

	t.Run("server tokenizer works", func(t *testing.T) {
		tok, _, err := loadTokenizerEnv(context.Background(), server("org/unknown"), Env{Stderr: &bytes.Buffer{}, Getenv: getenv}, newEndpoint(server("org/unknown")))
		if err != nil {
			t.Fatal(err)
		}
		ids := tok.Encode("hello world", false)
		if len(ids) != 2 || tok.Decode(ids) != "hello world" {
			t.Errorf("Encode = %v, Decode = %q", ids, tok.Decode(ids))
		}
	})

	t.Run("mode warns once", func(t *testing.T) {
		modeWarning = sync.Once{}
		var stderr bytes.Buffer
		for range 2 {
			sc := server("o200k_base")
			sc.Tokenizer.Mode = "slow"
			if _, _, err := loadTokenizerEnv(context.Background(), sc, Env{Stderr: &stderr, Getenv: getenv}, newEndpoint(sc)); err != nil {
				t.Fatal(err)
			}
		}
		if n := strings.Count(stderr.String(), `WARNING: tokenizer mode "slow" is accepted for compatibility`); n != 1 {
			t.Errorf("the warning appeared %d times:\n%s", n, stderr.String())
		}
	})
}

func typeOf(v tokenizer.Tokenizer) string {
	switch v.(type) {
	case nil:
		return "<nil>"
	case *tokenizer.HF:
		return "*tokenizer.HF"
	case *tokenizer.Tiktoken:
		return "*tokenizer.Tiktoken"
	case *tokenizer.Server:
		return "*tokenizer.Server"
	}
	return "other"
}

func TestCheckTokenizerName(t *testing.T) {
	tests := []struct {
		name, tokenizer, model, want string
		skip                         bool
	}{
		{"typo", "o300k_base", "org/m", `tokenizer.name (--tokenizer): unknown tokenizer "o300k_base"; did you mean o200k_base?`, false},
		{"model as tokenizer", "", "cl100k-base", `target.model (--model, the default tokenizer): unknown tokenizer "cl100k-base"; did you mean cl100k_base?`, false},
		{"built-in", "o200k_base", "org/m", "", false},
		{"hub id", "gpt2", "org/m", "", false},
		{"skip init", "o300k_base", "org/m", "", true},
		{"missing relative path", "./no-such-tokenizer", "org/m", `tokenizer.name (--tokenizer): ./no-such-tokenizer: no such tokenizer path (no such file or directory)`, false},
		{"missing absolute path", "/no/such/tokenizer.json", "org/m", `tokenizer.name (--tokenizer): /no/such/tokenizer.json: no such tokenizer path`, false},
		{"missing parent path", "../no-such-dir/tok", "org/m", `tokenizer.name (--tokenizer): ../no-such-dir/tok: no such tokenizer path`, false},
		{"home path", "~/no-such-tokenizer", "org/m", `tokenizer.name (--tokenizer): ~/no-such-tokenizer: no such tokenizer path (no such file or directory) (vbench does not expand ~`, false},
		{"windows path", `C:\models\tok`, "org/m", `tokenizer.name (--tokenizer): C:\models\tok: no such tokenizer path`, false},
		{"existing path", "../pipeline", "org/m", "", false},
		{"hub id with slash", "org/tok", "org/m", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := &scenario.Scenario{}
			sc.Tokenizer.Name, sc.Target.Model, sc.Tokenizer.SkipInit = tt.tokenizer, tt.model, tt.skip
			err := checkTokenizerName(sc)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("error %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v, want %q... wrapping ErrUnsupported (exit 2)", err, tt.want)
			}
		})
	}
}

func TestAlignTokenizer(t *testing.T) {
	srv := fakeTokenizeServer(t)
	sc := &scenario.Scenario{}
	var stderr bytes.Buffer
	env := Env{Stderr: &stderr, Getenv: func(k string) string { return map[string]string{envServerTimeout: "5s"}[k] }}
	api, err := newServerAPI(sc, srv.URL, "served", env)
	if err != nil {
		t.Fatal(err)
	}
	a := newAlignTokenizer(api, env.Stderr)
	a.progress = 0 // a progress line after every call
	ctx := context.Background()
	ids, err := a.Tokenize(ctx, "hello world")
	if err != nil || len(ids) != 2 {
		t.Fatalf("Tokenize = %v, %v", ids, err)
	}
	if text, err := a.Detokenize(ctx, ids); err != nil || text != "hello world" {
		t.Fatalf("Detokenize = %q, %v", text, err)
	}
	// The fake server refuses another model: the first failure is told once.
	a.api, err = newServerAPI(sc, srv.URL, "other", env)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := a.Tokenize(ctx, "x"); err == nil {
			t.Fatal("no error for another model")
		}
	}
	want := "aligning prompts with the server's /tokenize at " + srv.URL + " (each call times out after 5s)\n" +
		"aligning prompts: 1 calls to /tokenize and /detokenize in 0s\n" +
		"aligning prompts: 2 calls to /tokenize and /detokenize in 0s\n" +
		"vbench: aligning prompts: POST /tokenize: Bad Request: bad request\n" +
		"aligning prompts: 3 calls to /tokenize and /detokenize in 0s\n" +
		"aligning prompts: 4 calls to /tokenize and /detokenize in 0s\n"
	// The elapsed time is the machine's: only its form is checked.
	if got := regexp.MustCompile(`in \d+s\n`).ReplaceAllString(stderr.String(), "in 0s\n"); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}

func TestNewServerAPITimeout(t *testing.T) {
	for v, want := range map[string]string{"": "30s", "250ms": "250ms", "soon": "want a positive duration", "-1s": "want a positive duration"} {
		api, err := newServerAPI(&scenario.Scenario{}, "http://127.0.0.1:1", "m", Env{Getenv: func(k string) string {
			return map[string]string{envServerTimeout: v}[k]
		}})
		var got string
		if err != nil {
			got = err.Error()
		} else {
			got = api.Timeout().String()
		}
		if !strings.Contains(got, want) {
			t.Errorf("%s=%q: got %q, want %q", envServerTimeout, v, got, want)
		}
	}
}
