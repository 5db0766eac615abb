package tokenizer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/hub"
)

func copyFixture(t *testing.T, dir string, files ...string) string {
	t.Helper()
	out := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestLoadDirAndFile(t *testing.T) {
	hello := func(t *testing.T, tok Tokenizer) {
		t.Helper()
		if got := tok.Decode(tok.Encode("hello world", false)); got != "hello world" {
			t.Errorf("round trip = %q", got)
		}
	}
	t.Run("tokenizer.json dir", func(t *testing.T) {
		tok, err := LoadDir(filepath.Join("testdata", "qwen3-cut"), "q")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tok.(*HF); !ok || tok.Name() != "q" {
			t.Errorf("got %T named %q", tok, tok.Name())
		}
		hello(t, tok)
	})
	t.Run("tiktoken dir", func(t *testing.T) {
		tok, err := LoadDir(filepath.Join("testdata", "tiktoken-cut"), "k")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tok.(*Tiktoken); !ok {
			t.Errorf("got %T", tok)
		}
		hello(t, tok)
	})
	t.Run("renamed rank file", func(t *testing.T) {
		dir := copyFixture(t, "tiktoken-cut", "tiktoken.model")
		if err := os.Rename(filepath.Join(dir, "tiktoken.model"), filepath.Join(dir, "mine.tiktoken")); err != nil {
			t.Fatal(err)
		}
		tok, err := LoadDir(dir, "k")
		if err != nil {
			t.Fatal(err)
		}
		hello(t, tok)
		tok, err = LoadFile(filepath.Join(dir, "mine.tiktoken"), "k")
		if err != nil {
			t.Fatal(err)
		}
		hello(t, tok)
	})
	t.Run("pattern from tokenizer.py", func(t *testing.T) {
		dir := copyFixture(t, "tiktoken-cut", "tiktoken.model")
		py := "class T:\n    pat_str = \"|\".join(\n        [\n            r\"\"\"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+\"\"\",  # gpt-2\n        ]\n    )\n"
		if err := os.WriteFile(filepath.Join(dir, "tokenizer.py"), []byte(py), 0o644); err != nil {
			t.Fatal(err)
		}
		tok, err := LoadDir(dir, "k")
		if err != nil {
			t.Fatal(err)
		}
		// GPT-2's pattern keeps digits together; Llama-3's cuts them in 3s.
		if got := pieces(tok.(*Tiktoken), "1234567"); !slices.Equal(got, []string{"1234567"}) {
			t.Errorf("pieces %q: the pattern of tokenizer.py was not used", got)
		}
	})
	errs := []struct {
		name, path, want string
		dir              bool
	}{
		{"empty dir", t.TempDir(), "no tokenizer.json or tiktoken file", true},
		{"sentencepiece model", writeTemp(t, "tokenizer.model", "\x0a\x0b\x00binary"), "SentencePiece .model files are not supported", false},
		{"other file", writeTemp(t, "vocab.txt", "a\nb\n"), "want a tokenizer.json", false},
		{"bad json", writeTemp(t, "tokenizer.json", "{"), "tokenizer.json: invalid JSON at line 1, column 2", false},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.dir {
				_, err = LoadDir(tt.path, "x")
			} else {
				_, err = LoadFile(tt.path, "x")
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExtractTiktokenPattern(t *testing.T) {
	tests := []struct {
		src, want string
		ok        bool
	}{
		{`pat_str = r"a|b"`, "a|b", true},
		{"pat_str = '\\\\s+'", `\s+`, true},
		{"x = 1\npat_str = \"|\".join([r\"\"\"a\"\"\", r'b',  # c\n 'c'])", "a|b|c", true},
		{"pat_str=\"\".join([\n  r\"x\",\n  r\"y\",\n])", "xy", true},
		{"pat_str = build()", "", false},
		{"no pattern here", "", false},
		{`pat_str = r"unterminated`, "", false},
	}
	for _, tt := range tests {
		got, ok := ExtractTiktokenPattern(tt.src)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ExtractTiktokenPattern(%q) = %q, %v, want %q, %v", tt.src, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNewTiktokenFileErrors(t *testing.T) {
	tests := []struct{ name, ranks, pattern, want string }{
		{"unknown pattern", "YQ== 0\n", `\w+`, `the split pattern "\\w+" is not supported`},
		{"empty", "\n\n", "", "the rank file has no tokens"},
		{"bad rank", "YQ== x\n", "", `bad rank "x"`},
		{"bad token", "!!! 0\n", "", `bad token "!!!"`},
		{"duplicate rank", "YQ== 0\nYg== 0\n", "", "rank 0 appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewTiktokenFile("x", []byte(tt.ranks), nil, tt.pattern)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// fakeHub serves the files of one repository at one commit, the way the
// Hugging Face Hub does (see internal/hub for the full fake).
type fakeHub struct {
	files map[string]string
	hits  atomic.Int32
}

const fakeCommit = "0123456789abcdef0123456789abcdef01234567"

func (h *fakeHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.hits.Add(1)
	const prefix = "/org/model/resolve/"
	if !strings.HasPrefix(r.URL.Path, prefix) {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, prefix)
	rev, file, _ := strings.Cut(rest, "/")
	if rev != "main" && rev != fakeCommit {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("X-Repo-Commit", fakeCommit)
	content, ok := h.files[file]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	sum := sha256.Sum256([]byte(content))
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
	if r.Method == http.MethodGet {
		_, _ = w.Write([]byte(content))
	}
}

func fixtureFiles(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(data)
	}
	return out
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	jsonHub := &fakeHub{files: fixtureFiles(t, "qwen3-cut", "tokenizer.json", "tokenizer_config.json")}
	tiktokenHub := &fakeHub{files: fixtureFiles(t, "tiktoken-cut", "tiktoken.model", "tokenizer_config.json")}
	emptyHub := &fakeHub{files: map[string]string{"config.json": "{}"}}
	client := func(h http.Handler) *hub.Client {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return &hub.Client{Endpoint: srv.URL, CacheDir: t.TempDir()}
	}
	tests := []struct {
		name   string
		spec   Spec
		hub    *hub.Client
		kind   string // "" for an error
		source string // substring of Source, or of the error
	}{
		{"builtin", Spec{Name: "o200k_base"}, nil, "*tokenizer.Tiktoken", "built-in tiktoken encoding o200k_base"},
		{"directory", Spec{Name: filepath.Join("testdata", "qwen3-cut")}, nil, "*tokenizer.HF", "tokenizer in directory"},
		{"file", Spec{Name: filepath.Join("testdata", "mistral-cut", "tokenizer.json")}, nil, "*tokenizer.HF", "tokenizer file"},
		{"hub tokenizer.json", Spec{Name: "org/model"}, client(jsonHub), "*tokenizer.HF", "tokenizer.json of org/model@main from the Hugging Face Hub"},
		{"hub revision in name", Spec{Name: "org/model@" + fakeCommit}, client(jsonHub), "*tokenizer.HF", "org/model@" + fakeCommit},
		{"hub revision field", Spec{Name: "org/model", Revision: fakeCommit}, client(jsonHub), "*tokenizer.HF", "org/model@" + fakeCommit},
		{"hub tiktoken", Spec{Name: "org/model"}, client(tiktokenHub), "*tokenizer.Tiktoken", "tiktoken.model of org/model@main"},
		{"hub without tokenizer", Spec{Name: "org/model"}, client(emptyHub), "", "the repository has none of tokenizer.json, tiktoken.model, qwen.tiktoken, vocab.tiktoken"},
		{"hub unknown repo", Spec{Name: "org/other"}, client(jsonHub), "", "repository not found"},
		{"hub unknown revision", Spec{Name: "org/model@dev"}, client(jsonHub), "", "revision not found"},
		{"two revisions", Spec{Name: "org/model@a", Revision: "b"}, client(jsonHub), "", `names revision "a" but tokenizer.revision is "b"`},
		{"revision of a path", Spec{Name: "testdata", Revision: "main"}, nil, "", "is a local path, which has no revision"},
		{"no hub", Spec{Name: "org/model"}, nil, "", "the Hub is not used"},
		{"not a name", Spec{Name: "no such thing!"}, nil, "", "is not a built-in encoding"},
		{"empty", Spec{}, nil, "", "no tokenizer name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Resolve(ctx, tt.spec, tt.hub)
			if tt.kind == "" {
				if err == nil || !errors.Is(err, ErrNotLocal) || !strings.Contains(err.Error(), tt.source) {
					t.Fatalf("error %v, want ErrNotLocal containing %q", err, tt.source)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := typeName(res.Tokenizer); got != tt.kind {
				t.Errorf("tokenizer %s, want %s", got, tt.kind)
			}
			if !strings.Contains(res.Source, tt.source) {
				t.Errorf("Source %q does not contain %q", res.Source, tt.source)
			}
			if res.Tokenizer.Name() != tt.spec.Name {
				t.Errorf("Name() = %q, want %q", res.Tokenizer.Name(), tt.spec.Name)
			}
		})
	}
	// The companion file was fetched: the config's special tokens count.
	res, err := Resolve(ctx, Spec{Name: "org/model"}, client(jsonHub))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Tokenizer.SpecialIDs()); got != 14 {
		t.Errorf("%d special ids, want 14 (from tokenizer_config.json)", got)
	}
}

// typeName names a tokenizer's type.
func typeName(v any) string {
	switch v.(type) {
	case *HF:
		return "*tokenizer.HF"
	case *Tiktoken:
		return "*tokenizer.Tiktoken"
	}
	return "other"
}

// fakeServerAPI tokenizes with a fixture, failing the first fails calls.
type fakeServerAPI struct {
	tok   Tokenizer
	fails atomic.Int32
	calls atomic.Int32
}

func (f *fakeServerAPI) Tokenize(_ context.Context, prompt string) ([]int, error) {
	f.calls.Add(1)
	if f.fails.Add(-1) >= 0 {
		return nil, errors.New("connection refused")
	}
	return f.tok.Encode(prompt, false), nil
}

func (f *fakeServerAPI) Detokenize(_ context.Context, ids []int) (string, error) {
	f.calls.Add(1)
	if f.fails.Add(-1) >= 0 {
		return "", errors.New("connection refused")
	}
	return f.tok.Decode(ids), nil
}

func TestServerTokenizer(t *testing.T) {
	ctx := context.Background()
	api := &fakeServerAPI{tok: loadFixture(t, "qwen3-cut")}
	s, err := NewServer(ctx, "org/model", api)
	if err != nil {
		t.Fatal(err)
	}
	if s.VocabSize() != serverMinVocab || s.NumSpecialTokensToAdd() != 0 || len(s.SpecialIDs()) != 0 || s.Name() != "org/model" {
		t.Errorf("facts: vocab %d, special %d %v, name %q", s.VocabSize(), s.NumSpecialTokensToAdd(), s.SpecialIDs(), s.Name())
	}
	ids := s.Encode("hello world", true)
	if want := api.tok.Encode("hello world", false); !slices.Equal(ids, want) {
		t.Errorf("Encode = %v, want %v", ids, want)
	}
	if got := s.Decode(ids); got != "hello world" {
		t.Errorf("Decode = %q", got)
	}
	// Two failures are retried away.
	api.fails.Store(2)
	if got := s.Decode(ids); got != "hello world" || s.Err() != nil {
		t.Errorf("after two failures: Decode = %q, Err = %v", got, s.Err())
	}
	// Three are not.
	api.fails.Store(3)
	if got := s.Encode("x", false); got != nil {
		t.Errorf("Encode after failures = %v, want nil", got)
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "/tokenize: connection refused") {
		t.Errorf("Err() = %v", err)
	}
	// After a failure for good, calls fail at once without asking.
	before := api.calls.Load()
	if got, text := s.Encode("y", false), s.Decode([]int{1}); got != nil || text != "" || api.calls.Load() != before {
		t.Errorf("after a failure: Encode = %v, Decode = %q, %d more calls; want nil, \"\", none", got, text, api.calls.Load()-before)
	}
	// The probe fails: no tokenizer.
	api.fails.Store(3)
	if _, err := NewServer(ctx, "x", api); err == nil {
		t.Error("NewServer with a failing server: no error")
	}
	// A large vocabulary is estimated from the probe.
	big := &fakeServerAPI{tok: stubTokenizer{id: 150000}}
	if s, err := NewServer(ctx, "x", big); err != nil || s.VocabSize() != 300000 {
		t.Errorf("vocab estimate %v, %v; want 300000", s.VocabSize(), err)
	}
}

// stubTokenizer encodes everything as one id.
type stubTokenizer struct{ id int }

func (s stubTokenizer) Name() string               { return "stub" }
func (s stubTokenizer) Encode(string, bool) []int  { return []int{s.id} }
func (s stubTokenizer) Decode([]int) string        { return "" }
func (s stubTokenizer) VocabSize() int             { return s.id + 1 }
func (s stubTokenizer) SpecialIDs() []int          { return nil }
func (s stubTokenizer) NumSpecialTokensToAdd() int { return 0 }

// hashingAPI tokenizes every prompt to one huge id, as a server whose ids
// are hashes of words does.
type hashingAPI struct{ id int }

func (h hashingAPI) Tokenize(context.Context, string) ([]int, error) { return []int{h.id}, nil }

func (h hashingAPI) Detokenize(context.Context, []int) (string, error) { return "", nil }

func TestServerTokenizerVocabEstimate(t *testing.T) {
	for _, tt := range []struct{ maxID, want int }{
		{10, serverMinVocab},
		{100000, 200000},
		{288097803, serverMaxVocab},
	} {
		s, err := NewServer(context.Background(), "m", hashingAPI{tt.maxID})
		if err != nil {
			t.Fatal(err)
		}
		if s.VocabSize() != tt.want {
			t.Errorf("probe max id %d: vocab %d, want %d", tt.maxID, s.VocabSize(), tt.want)
		}
	}
}

func TestCheckName(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "o300k_base")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, suggest string }{
		{"o300k_base", "o200k_base"},
		{"o200k-base", "o200k_base"},
		{"O200K_BASE", "o200k_base"},
		{"o20k_base", "o200k_base"},
		{"cl100k_bsae", "cl100k_base"},
		{"cl100k", "cl100k_base"},
		{"p50k", "p50k_base"},
		{"r50k_base@main", "r50k_base"},
		{"c100k_base", "cl100k_base"},
		// Not typos: built-ins, Hub ids (with or without an owner), paths.
		{"o200k_base", ""},
		{"p50k_base", ""},
		{"gpt2", ""},
		{"t5-base", ""},
		{"bert-base-uncased", ""},
		{"roberta-base", ""},
		{"albert-base-v2", ""},
		{"someone/o300k_base", ""},
		{existing, ""},
		{"", ""},
	}
	for _, tt := range tests {
		err := CheckName(tt.name)
		if tt.suggest == "" {
			if err != nil {
				t.Errorf("CheckName(%q) = %v, want nil", tt.name, err)
			}
			continue
		}
		want := fmt.Sprintf("unknown tokenizer %q; did you mean %s?", tt.name, tt.suggest)
		if err == nil || !errors.Is(err, ErrUnknownName) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("CheckName(%q) = %v, want %q...", tt.name, err, want)
		}
	}
}

func TestResolveTypoIsNotLocalFallback(t *testing.T) {
	_, err := Resolve(context.Background(), Spec{Name: "o300k_base"}, nil)
	if !errors.Is(err, ErrUnknownName) || errors.Is(err, ErrNotLocal) {
		t.Fatalf("Resolve(o300k_base) = %v, want ErrUnknownName and not ErrNotLocal (no fallback to the server)", err)
	}
}

// TestResolveSilentHub: a Hub that never answers costs one metadata
// timeout, not one per candidate file, and Resolve says first what it
// waits for.
func TestResolveSilentHub(t *testing.T) {
	var requests atomic.Int32
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)
	h := &hub.Client{Endpoint: srv.URL, CacheDir: t.TempDir(), MetaTimeout: 50 * time.Millisecond}
	var progress strings.Builder
	_, err := Resolve(context.Background(), Spec{Name: "org/model", Progress: &progress}, h)
	if !errors.Is(err, ErrNotLocal) || !errors.Is(err, hub.ErrUnreachable) {
		t.Fatalf("Resolve = %v, want ErrNotLocal and hub.ErrUnreachable", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests to the silent Hub, want 1", n)
	}
	if want := "tokenizer: fetching org/model@main from the Hugging Face Hub at " + srv.URL; !strings.HasPrefix(progress.String(), want) {
		t.Errorf("progress %q, want %q...", progress.String(), want)
	}
}
