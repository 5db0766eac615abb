package tokenizer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tiktokenGolden is a golden file written with OpenAI's tiktoken.
type tiktokenGolden struct {
	Cases []struct {
		Text string `json:"text"`
		IDs  []int  `json:"ids"`
	} `json:"cases"`
}

func checkTiktokenGolden(t *testing.T, tok Tokenizer, g *tiktokenGolden, lossless bool) {
	t.Helper()
	fails := 0
	for _, c := range g.Cases {
		got := tok.Encode(c.Text, false)
		if !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%s)\n got %v\nwant %v", shortQ(c.Text), shortIDs(got), shortIDs(c.IDs))
			fails++
		}
		if back := tok.Decode(c.IDs); lossless && back != c.Text {
			t.Errorf("Decode(Encode(%s)) = %s", shortQ(c.Text), shortQ(back))
			fails++
		}
		if fails > 10 {
			t.Fatal("too many failures")
		}
	}
}

func TestTiktokenGoldenO200k(t *testing.T) {
	var g tiktokenGolden
	readGolden(t, "o200k_base", &g)
	if len(g.Cases) < 500 {
		t.Fatalf("only %d golden cases", len(g.Cases))
	}
	checkTiktokenGolden(t, mustBuiltin(t, "o200k_base"), &g, true)
}

func loadTiktokenFixture(t testing.TB) *Tiktoken {
	t.Helper()
	ranks, err := os.ReadFile(filepath.Join("testdata", "tiktoken-cut", "tiktoken.model"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join("testdata", "tiktoken-cut", "tokenizer_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewTiktokenFile("tiktoken-cut", ranks, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestTiktokenGoldenCustomFile(t *testing.T) {
	var g tiktokenGolden
	readGolden(t, "tiktoken-cut", &g)
	if len(g.Cases) < 500 {
		t.Fatalf("only %d golden cases", len(g.Cases))
	}
	tok := loadTiktokenFixture(t)
	checkTiktokenGolden(t, tok, &g, true)
	if got, want := tok.VocabSize(), 3000+256; got != want {
		t.Errorf("VocabSize() = %d, want %d", got, want)
	}
	ids := tok.SpecialIDs()
	if len(ids) != 256 || ids[0] != 3000 || ids[255] != 3255 {
		t.Errorf("SpecialIDs() = %v..., want 3000..3255", ids[:min(len(ids), 4)])
	}
	if got := tok.Decode([]int{3000, 3003, 3010}); got != "<|begin_of_text|><|eot_id|><|reserved_token_10|>" {
		t.Errorf("Decode(specials) = %q", got)
	}
}

// kimiPySource is a tokenization_kimi.py-style declaration of Kimi K2's
// split pattern, as LoadDir reads it from a model directory.
const kimiPySource = `class TikTokenTokenizer(PreTrainedTokenizer):
    def __init__(self, vocab_file, **kwargs):
        mergeable_ranks = load_tiktoken_bpe(vocab_file)
        num_base_tokens = len(mergeable_ranks)
        self.pat_str = "|".join(
            [
                r"""[\p{Han}]+""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        )
`

func TestKimiPatternExtracted(t *testing.T) {
	got, ok := ExtractTiktokenPattern(kimiPySource)
	if !ok || got != kimiPattern {
		t.Fatalf("ExtractTiktokenPattern(kimi) = %q, %v, want kimiPattern", got, ok)
	}
}

// TestTiktokenGoldenKimiCut checks Kimi K2's split pattern on the cut
// rank file, against tiktoken (whose Rust regex has the class
// intersection and the Han script), with the pattern found as LoadDir
// finds it: read from tokenization_kimi.py, and known by the module name
// that tokenizer_config.json's auto_map gives when the .py is not there
// (Kimi K2's directory as daulet/tokenizers ships it).
func TestTiktokenGoldenKimiCut(t *testing.T) {
	var g tiktokenGolden
	readGolden(t, "tiktoken-cut-kimi", &g)
	if len(g.Cases) < 500 {
		t.Fatalf("only %d golden cases", len(g.Cases))
	}
	for _, tt := range []struct {
		name    string
		autoMap bool
		py      bool
	}{
		{"tokenization_kimi.py", false, true},
		{"auto_map and tokenization_kimi.py", true, true},
		{"auto_map without tokenization_kimi.py", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyFixture(t, "tiktoken-cut", "tiktoken.model", "tokenizer_config.json")
			if tt.autoMap {
				writeKimiConfig(t, dir)
			}
			if tt.py {
				if err := os.WriteFile(filepath.Join(dir, "tokenization_kimi.py"), []byte(kimiPySource), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tok, err := LoadDir(dir, "kimi-cut")
			if err != nil {
				t.Fatal(err)
			}
			checkTiktokenGolden(t, tok, &g, true)
		})
	}
}

// kimiAutoMap is the auto_map of Kimi K2's tokenizer_config.json.
const kimiAutoMap = `"auto_map":{"AutoTokenizer":["tokenization_kimi.TikTokenTokenizer",null]}`

// writeKimiConfig adds Kimi K2's auto_map to dir's tokenizer_config.json.
func writeKimiConfig(t *testing.T, dir string) {
	t.Helper()
	setAutoMap(t, dir, kimiAutoMap)
}

// setAutoMap adds a member (`"auto_map":{...}`) to the object in dir's
// tokenizer_config.json.
func setAutoMap(t *testing.T, dir, member string) {
	t.Helper()
	p := filepath.Join(dir, "tokenizer_config.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(data))
	if !strings.HasPrefix(s, "{") {
		t.Fatalf("%s is not an object", p)
	}
	if err := os.WriteFile(p, []byte("{"+member+","+s[1:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestKimiSplitPieces(t *testing.T) {
	tok, err := NewTiktokenFile("kimi", []byte("YQ== 0\n"), nil, kimiPattern)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want []string
	}{
		{"中文abc", []string{"中文", "abc"}},
		{"abc中文", []string{"abc", "中文"}},
		{"漢字's cat", []string{"漢字", "'s", " cat"}},
		{"日本語のテキスト", []string{"日本語", "のテキスト"}},
		{"々あ〇七", []string{"々", "あ", "〇七"}}, // 々 and 〇 are Han, あ is not
		{"!⺀x", []string{"!⺀", "x"}},       // ⺀ is Han but not a letter
		{"大\u0301学", []string{"大", "\u0301", "学"}},
		{"a!\n/b", []string{"a", "!\n", "/b"}}, // [\r\n]*, not o200k_base's [\r\n/]*
		{"中 /文/", []string{"中", " /", "文", "/"}},
	}
	for _, tt := range tests {
		if got := pieces(tok, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("pieces of %q = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestKimiMemoMatchesScratch is TestMemoMatchesScratch for Kimi's pattern
// (whose matcher must record every rune it looks at for the memo), on the
// Han-heavy golden texts.
func TestKimiMemoMatchesScratch(t *testing.T) {
	ranks, err := os.ReadFile(filepath.Join("testdata", "tiktoken-cut", "tiktoken.model"))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := NewTiktokenFile("kimi-cut", ranks, nil, kimiPattern)
	if err != nil {
		t.Fatal(err)
	}
	var g tiktokenGolden
	readGolden(t, "tiktoken-cut-kimi", &g)
	r := rand.New(rand.NewPCG(3, 3))
	tails := []string{"", " ", "\n", "'s", "a", "A", "\u0301", "漢", "々", "⺀", "!", "/", "1"}
	for _, c := range g.Cases {
		text := c.Text
		if len(text) < memoKeyLen {
			continue
		}
		for range 5 {
			tk.Encode(text, false) // remember text
			cut := memoKeyLen + r.IntN(len(text)-memoKeyLen+1)
			variant := LossyUTF8([]byte(text[:cut])) + tails[r.IntN(len(tails))]
			got := tk.Encode(variant, false)
			if want := encodeFresh(tk, variant); !slices.Equal(got, want) {
				t.Fatalf("memo encoding of %q differs from scratch:\n got %v\nwant %v", variant, got, want)
			}
		}
	}
}
