package tokenizer

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The golden files were written by testdata/gen/gen.js with Hugging Face
// tokenizers 0.22.2 and OpenAI's tiktoken as references; see
// testdata/NOTICE for the fixtures' sources.

// hfGolden is a golden file for a tokenizer.json.
type hfGolden struct {
	VocabSize     int   `json:"vocab_size"`
	NumSpecial    int   `json:"num_special"`
	SpecialPrefix []int `json:"special_prefix"`
	SpecialSuffix []int `json:"special_suffix"`
	Cases         []struct {
		Text       string  `json:"text"`
		IDs        []int   `json:"ids"`
		IDsSpecial []int   `json:"ids_special"`
		Decoded    *string `json:"decoded"`
	} `json:"cases"`
	Decodes []struct {
		IDs  []int  `json:"ids"`
		Text string `json:"text"`
	} `json:"decodes"`
}

// readGolden decodes a gzipped golden file under testdata/golden.
func readGolden(t testing.TB, name string, v any) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "golden", name+".json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// loadFixture loads testdata/<dir>/tokenizer.json with its config.
func loadFixture(t testing.TB, dir string) *HF {
	t.Helper()
	tj, err := os.ReadFile(filepath.Join("testdata", dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join("testdata", dir, "tokenizer_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewHF(dir, HFFiles{Tokenizer: tj, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// loadVariant builds a variant of a fixture from testdata/variants.json,
// without a config, as the generator did.
func loadVariant(t testing.TB, name string) *HF {
	t.Helper()
	var variants map[string]struct {
		Base string         `json:"base"`
		Set  map[string]any `json:"set"`
	}
	data, err := os.ReadFile(filepath.Join("testdata", "variants.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &variants); err != nil {
		t.Fatal(err)
	}
	v, ok := variants[name]
	if !ok {
		t.Fatalf("no variant %q", name)
	}
	var base map[string]any
	data, err = os.ReadFile(filepath.Join("testdata", v.Base+"-cut", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &base); err != nil {
		t.Fatal(err)
	}
	for k, val := range v.Set {
		if f, ok := strings.CutPrefix(k, "model."); ok {
			base["model"].(map[string]any)[f] = val
		} else {
			base[k] = val
		}
	}
	out, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewHF(name, HFFiles{Tokenizer: out})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// checkGolden compares tok with a golden file: ids with and without
// special tokens, decodings of those ids and of random ids, the
// vocabulary size and the number of special tokens added.
func checkGolden(t *testing.T, tok Tokenizer, g *hfGolden) {
	t.Helper()
	if got := tok.VocabSize(); got != g.VocabSize {
		t.Errorf("VocabSize() = %d, want %d", got, g.VocabSize)
	}
	if got := tok.NumSpecialTokensToAdd(); got != g.NumSpecial {
		t.Errorf("NumSpecialTokensToAdd() = %d, want %d", got, g.NumSpecial)
	}
	fails := 0
	for _, c := range g.Cases {
		got := tok.Encode(c.Text, false)
		if !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%s)\n got %v\nwant %v", shortQ(c.Text), shortIDs(got), shortIDs(c.IDs))
			fails++
		}
		wantSpecial := c.IDsSpecial
		if wantSpecial == nil {
			wantSpecial = slices.Concat(g.SpecialPrefix, c.IDs, g.SpecialSuffix)
		}
		if got := tok.Encode(c.Text, true); !slices.Equal(got, wantSpecial) {
			t.Errorf("Encode(%s, special)\n got %v\nwant %v", shortQ(c.Text), shortIDs(got), shortIDs(wantSpecial))
			fails++
		}
		want := c.Text
		if c.Decoded != nil {
			want = *c.Decoded
		}
		if got := tok.Decode(c.IDs); got != want {
			t.Errorf("Decode(ids of %s) = %s, want %s", shortQ(c.Text), shortQ(got), shortQ(want))
			fails++
		}
		if fails > 10 {
			t.Fatal("too many failures")
		}
	}
	for _, d := range g.Decodes {
		if got := tok.Decode(d.IDs); got != d.Text {
			t.Errorf("Decode(%v) = %q, want %q", d.IDs, got, d.Text)
			fails++
		}
		if fails > 10 {
			t.Fatal("too many failures")
		}
	}
}

func shortQ(s string) string {
	if len(s) > 200 {
		s = s[:200]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return strconvQuote(s) + "..."
	}
	return strconvQuote(s)
}

func shortIDs(ids []int) []int {
	if len(ids) > 60 {
		return ids[:60]
	}
	return ids
}

func TestHFGoldenFixtures(t *testing.T) {
	for _, name := range []string{"qwen3", "mistral"} {
		t.Run(name, func(t *testing.T) {
			var g hfGolden
			readGolden(t, name+"-cut", &g)
			if len(g.Cases) < 500 {
				t.Fatalf("only %d golden cases", len(g.Cases))
			}
			checkGolden(t, loadFixture(t, name+"-cut"), &g)
		})
	}
}

func TestHFGoldenVariants(t *testing.T) {
	for _, name := range []string{
		"qwen3-llama3", "qwen3-gpt2", "qwen3-split",
		"mistral-metaspace", "mistral-metaspace-split", "mistral-metaspace-never", "mistral-unk-fused", "mistral-unk",
	} {
		t.Run(name, func(t *testing.T) {
			var g hfGolden
			readGolden(t, name, &g)
			checkGolden(t, loadVariant(t, name), &g)
		})
	}
}
