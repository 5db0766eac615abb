package tokenizer

import (
	"os"
	"path/filepath"
	"slices"
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
