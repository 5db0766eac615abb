package tokenizer_test

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/tokenizer"
)

// TestRandomDatasetWithFixtures builds vLLM's random dataset with the
// cut-down Qwen3 (byte-level, no special tokens added) and Mistral
// (SentencePiece-style, adds BOS) tokenizers: every prompt re-encodes to
// its PromptLen, the lengths respect the special tokens the tokenizer
// adds, and the result does not depend on the goroutines' timing.
func TestRandomDatasetWithFixtures(t *testing.T) {
	tests := []struct {
		dir        string
		numSpecial int
	}{
		{"qwen3-cut", 0},
		{"mistral-cut", 1},
		{"tiktoken-cut", 0},
	}
	spec := dataset.RandomSpec{InputLen: 200, OutputLen: 16, PrefixLen: 10,
		RangeRatio: dataset.RangeRatio{Input: 0.25, Output: 0.5}}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			tok, err := tokenizer.LoadDir(filepath.Join("testdata", tt.dir), tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.NumSpecialTokensToAdd(); got != tt.numSpecial {
				t.Fatalf("NumSpecialTokensToAdd() = %d, want %d", got, tt.numSpecial)
			}
			reqs, info, err := dataset.Random(spec, 64, 42, tok, "r-")
			if err != nil {
				t.Fatal(err)
			}
			real := float64(spec.InputLen - tt.numSpecial)
			if lo, hi := int(math.Floor(real*0.75)), int(math.Ceil(real*1.25)); info.InputLow != lo || info.InputHigh != hi {
				t.Errorf("input interval [%d, %d], want [%d, %d]", info.InputLow, info.InputHigh, lo, hi)
			}
			slack := abs(info.Mismatch) + abs(info.PrefixMismatch)
			exact := 0
			for i, r := range reqs {
				if n := len(tok.Encode(r.Prompt, false)); n != r.PromptLen {
					t.Errorf("request %d: PromptLen %d, but the prompt encodes to %d tokens", i, r.PromptLen, n)
				}
				lo, hi := spec.PrefixLen+info.InputLow, spec.PrefixLen+info.InputHigh
				if r.PromptLen < lo-slack || r.PromptLen > hi+slack {
					t.Errorf("request %d: PromptLen %d outside [%d, %d] ± %d", i, r.PromptLen, lo, hi, slack)
				}
				if r.PromptLen >= lo && r.PromptLen <= hi {
					exact++
				}
				if r.OutputLen < 8 || r.OutputLen > 24 {
					t.Errorf("request %d: OutputLen %d", i, r.OutputLen)
				}
			}
			if exact < len(reqs)*3/4 {
				t.Errorf("only %d of %d prompts have a length in the interval", exact, len(reqs))
			}
			again, _, err := dataset.Random(spec, 64, 42, tok, "r-")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(again, reqs, func(a, b dataset.Request) bool {
				return a.Prompt == b.Prompt && a.PromptLen == b.PromptLen && a.OutputLen == b.OutputLen && a.ID == b.ID
			}) {
				t.Error("the same seed gave different prompts")
			}
		})
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
