package tokenizer

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/hub"
)

// gpt2PySource declares GPT-2's split pattern, which keeps digits
// together where Llama-3's and Kimi's cut them in threes.
const gpt2PySource = "class T:\n    pat_str = r\"\"\"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+\"\"\"\n"

func TestChooseTiktokenPattern(t *testing.T) {
	const (
		kimiMap    = `{"auto_map":{"AutoTokenizer":["tokenization_kimi.TikTokenTokenizer",null]}}`
		mineMap    = `{"auto_map":{"AutoTokenizer":["tokenization_mine.MyTokenizer",null]}}`
		noPatPy    = "class T:\n    def __init__(self):\n        pass\n"
		unknownMsg = "the split pattern of m/tiktoken.model is unknown"
	)
	tests := []struct {
		name   string
		config string            // "" for no tokenizer_config.json
		files  map[string]string // companion files
		want   string            // the pattern, when wantErr is ""
		reads  []string          // the files read, in order
		errs   []string          // substrings of the error
	}{
		{name: "no config", want: "", reads: legacyPatternSources},
		{name: "no auto_map", config: `{"tokenizer_class":"PreTrainedTokenizerFast"}`, want: "", reads: legacyPatternSources},
		{name: "no auto_map, tokenizer.py", config: `{}`, files: map[string]string{"tokenizer.py": gpt2PySource}, want: gpt2Pattern, reads: legacyPatternSources},
		{name: "no auto_map, tokenization_kimi.py", config: `{}`, files: map[string]string{"tokenization_kimi.py": kimiPySource}, want: kimiPattern, reads: legacyPatternSources[:1]},
		{name: "auto_map of other classes only", config: `{"auto_map":{"AutoConfig":"configuration_x.XConfig"}}`, want: "", reads: legacyPatternSources},
		{name: "kimi without .py", config: kimiMap, want: kimiPattern, reads: []string{"tokenization_kimi.py"}},
		{name: "kimi with .py", config: kimiMap, files: map[string]string{"tokenization_kimi.py": kimiPySource}, want: kimiPattern, reads: []string{"tokenization_kimi.py"}},
		{name: "the .py wins over the known name", config: kimiMap, files: map[string]string{"tokenization_kimi.py": gpt2PySource}, want: gpt2Pattern, reads: []string{"tokenization_kimi.py"}},
		{name: "kimi as a string", config: `{"auto_map":{"AutoTokenizer":"tokenization_kimi.TikTokenTokenizer"}}`, want: kimiPattern, reads: []string{"tokenization_kimi.py"}},
		{name: "kimi from another repository", config: `{"auto_map":{"AutoTokenizer":["moonshotai/Kimi-K2-Instruct--tokenization_kimi.TikTokenTokenizer",null]}}`, want: kimiPattern, reads: []string{"tokenization_kimi.py"}},
		{name: "unknown module with .py", config: mineMap, files: map[string]string{"tokenization_mine.py": gpt2PySource}, want: gpt2Pattern, reads: []string{"tokenization_mine.py"}},
		{name: "unknown module, tokenizer.py is not its file", config: mineMap, files: map[string]string{"tokenizer.py": gpt2PySource},
			reads: []string{"tokenization_mine.py"},
			errs:  []string{unknownMsg, "auto_map names tokenization_mine, whose file is not beside tiktoken.model", "knows the patterns of tokenization_kimi only", "put the model's tokenization_mine.py beside tiktoken.model"}},
		{name: "unknown module without .py", config: mineMap,
			reads: []string{"tokenization_mine.py"},
			errs:  []string{unknownMsg, "put the model's tokenization_mine.py beside tiktoken.model"}},
		{name: "unknown module, .py without pat_str", config: mineMap, files: map[string]string{"tokenization_mine.py": noPatPy},
			reads: []string{"tokenization_mine.py"},
			errs:  []string{unknownMsg, "tokenization_mine.py, which tokenizer_config.json's auto_map names, has no pat_str vbench can read"}},
		{name: "a module path is not read", config: `{"auto_map":{"AutoTokenizer":["../../etc/passwd.X",null]}}`,
			errs: []string{unknownMsg, "put the model's tokenization_*.py beside tiktoken.model"}},
		{name: "auto_map naming no module", config: `{"auto_map":{"AutoTokenizer":[null,null]}}`,
			errs: []string{unknownMsg, "names no module"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var config []byte
			if tt.config != "" {
				config = []byte(tt.config)
			}
			var reads []string
			read := func(name string) ([]byte, error) {
				if strings.ContainsAny(name, `/\`) {
					t.Errorf("read(%q): a path outside the directory", name)
				}
				reads = append(reads, name)
				if s, ok := tt.files[name]; ok {
					return []byte(s), nil
				}
				return nil, nil
			}
			got, err := chooseTiktokenPattern("m/tiktoken.model", config, read)
			if tt.errs != nil {
				if err == nil {
					t.Fatalf("pattern %q, want an error", got)
				}
				for _, s := range tt.errs {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error %q is not one line", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("pattern %q, want %q", got, tt.want)
			}
			// Reads stop at the first file with a pattern.
			if tt.reads != nil && !slices.Equal(reads, tt.reads) {
				t.Errorf("read %q, want %q", reads, tt.reads)
			}
		})
	}
}

// TestLoadDirUnknownPattern checks that a tiktoken model whose config
// names a tokenizer module vbench does not know, without the module's
// file, is refused instead of tokenized with Llama-3's pattern, and that
// the module's file, once beside the rank file, supplies the pattern.
func TestLoadDirUnknownPattern(t *testing.T) {
	dir := copyFixture(t, "tiktoken-cut", "tiktoken.model", "tokenizer_config.json")
	setAutoMap(t, dir, `"auto_map":{"AutoTokenizer":["tokenization_mine.MyTokenizer",null]}`)
	for _, load := range []func() (Tokenizer, error){
		func() (Tokenizer, error) { return LoadDir(dir, "mine") },
		func() (Tokenizer, error) { return LoadFile(filepath.Join(dir, "tiktoken.model"), "mine") },
	} {
		tok, err := load()
		if err == nil {
			t.Fatalf("loaded %T; want an error: the split pattern is unknown", tok)
		}
		want := "tokenizer mine: the split pattern of " + filepath.Join(dir, "tiktoken.model") + " is unknown"
		if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "put the model's tokenization_mine.py beside tiktoken.model") {
			t.Errorf("error %q, want %q … put the model's tokenization_mine.py beside tiktoken.model", err, want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenization_mine.py"), []byte(gpt2PySource), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadDir(dir, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if got := pieces(tok.(*Tiktoken), "1234567"); !slices.Equal(got, []string{"1234567"}) {
		t.Errorf("pieces %q: the pattern of tokenization_mine.py was not used", got)
	}
}

// TestResolveHubAutoMapModule checks that a tiktoken model on the Hub
// gets the split pattern of the module its config's auto_map names (the
// file is downloaded with the rank file), and that one whose module the
// repository lacks and vbench does not know is refused.
func TestResolveHubAutoMapModule(t *testing.T) {
	ctx := context.Background()
	files := fixtureFiles(t, "tiktoken-cut", "tiktoken.model", "tokenizer_config.json")
	files["tokenizer_config.json"] = `{"auto_map":{"AutoTokenizer":["tokenization_mine.MyTokenizer",null]},` + strings.TrimSpace(files["tokenizer_config.json"])[1:]
	resolve := func(files map[string]string) (*Resolved, error) {
		srv := httptest.NewServer(&fakeHub{files: files})
		t.Cleanup(srv.Close)
		return Resolve(ctx, Spec{Name: "org/model"}, &hub.Client{Endpoint: srv.URL, CacheDir: t.TempDir()})
	}
	if res, err := resolve(files); err == nil {
		t.Errorf("resolved %s without tokenization_mine.py; want an error", res.Source)
	} else if !strings.Contains(err.Error(), "split pattern") || !strings.Contains(err.Error(), "put the model's tokenization_mine.py beside tiktoken.model") {
		t.Errorf("error %q, want one saying the split pattern is unknown and how to supply it", err)
	}
	files["tokenization_mine.py"] = gpt2PySource
	res, err := resolve(files)
	if err != nil {
		t.Fatal(err)
	}
	if got := pieces(res.Tokenizer.(*Tiktoken), "1234567"); !slices.Equal(got, []string{"1234567"}) {
		t.Errorf("pieces %q: the pattern of the downloaded tokenization_mine.py was not used", got)
	}
}
