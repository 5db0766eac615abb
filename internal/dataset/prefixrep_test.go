package dataset

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
)

// TestPrefixRepetitionMatchesVLLM compares PrefixRepetition with
// testdata/prefixrep_golden.json, vLLM's selection restated in Python by
// testdata/prefixrep_golden.py with the toy tokenizer (same ids, decode
// and encode as toyTokenizer): the prompts, their lengths and their order.
func TestPrefixRepetitionMatchesVLLM(t *testing.T) {
	data, err := os.ReadFile("testdata/prefixrep_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name           string  `json:"name"`
		Seed           int64   `json:"seed"`
		N              int     `json:"n"`
		PrefixLen      int     `json:"prefix_len"`
		SuffixLen      int     `json:"suffix_len"`
		NumPrefixes    int     `json:"num_prefixes"`
		OutputLen      int     `json:"output_len"`
		DisableShuffle bool    `json:"disable_shuffle"`
		Mismatch       int     `json:"mismatch"`
		NextRandom     float64 `json:"next_random"`
		Requests       []struct {
			Prompt    string `json:"prompt"`
			PromptLen int    `json:"prompt_len"`
			OutputLen int    `json:"output_len"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 5 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			spec := PrefixRepetitionSpec{PrefixLen: c.PrefixLen, SuffixLen: c.SuffixLen,
				NumPrefixes: c.NumPrefixes, OutputLen: c.OutputLen, DisableShuffle: c.DisableShuffle}
			py := numpy.NewPyRandom(12345) // reseeded by the dataset, as vLLM's
			got, mismatch, err := PrefixRepetition(spec, c.N, c.Seed, toyTokenizer{}, py)
			if err != nil {
				t.Fatal(err)
			}
			if next := py.Random(); next != c.NextRandom {
				t.Errorf("Python's global generator then draws %v, want %v", next, c.NextRandom)
			}
			if mismatch != c.Mismatch {
				t.Errorf("mismatch %d, want %d", mismatch, c.Mismatch)
			}
			if len(got) != len(c.Requests) {
				t.Fatalf("%d requests, want %d", len(got), len(c.Requests))
			}
			for i, w := range c.Requests {
				g := got[i]
				if g.Prompt != w.Prompt || g.PromptLen != w.PromptLen || g.OutputLen != w.OutputLen || g.ID != "" {
					t.Errorf("request %d = {%q %d %d id %q}, want {%q %d %d no id}", i, g.Prompt, g.PromptLen, g.OutputLen, g.ID, w.Prompt, w.PromptLen, w.OutputLen)
				}
			}
		})
	}
}

// The kind runs through the registry: a tokenizer is required, the
// prompts are re-aligned with the server's tokenizer (as vLLM does for
// random and prefix_repetition), ignore_eos is left as set, and the
// requests carry no id whatever the prefix.
func TestPrefixRepetitionRegistered(t *testing.T) {
	k, ok := Lookup("prefix_repetition")
	if !ok {
		t.Fatal("prefix_repetition is not registered")
	}
	if !k.Align || !k.NeedsTokenizer || k.IgnoreEOS != IgnoreEOSAsSet {
		t.Errorf("kind = %+v, want Align, NeedsTokenizer, IgnoreEOSAsSet", k)
	}
	spec := scenario.Dataset{Name: "prefix_repetition", Spec: &PrefixRepetitionSpec{PrefixLen: 8, SuffixLen: 4, NumPrefixes: 2, OutputLen: 5}}
	reqs, err := Build(context.Background(), spec, Env{Tokenizer: toyTokenizer{}, NumPrompts: 5, IDPrefix: "p-", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for _, r := range reqs {
		if r.ID != "" || r.PromptLen != 12 || r.OutputLen != 5 {
			t.Errorf("request %+v: want no id, prompt_len 12, output_len 5", r)
		}
	}
	if _, err := Build(context.Background(), spec, Env{NumPrompts: 5}); err == nil {
		t.Error("Build without a tokenizer succeeded")
	}
}

func TestPrefixRepetitionErrors(t *testing.T) {
	ok := PrefixRepetitionSpec{PrefixLen: 4, SuffixLen: 4, NumPrefixes: 3, OutputLen: 2}
	for _, tc := range []struct {
		name string
		spec PrefixRepetitionSpec
		n    int
		seed int64
		want string
	}{
		{"fewer prompts than prefixes", ok, 2, 0, "num_prompts (2) must be greater than or equal to num_prefixes (3)"},
		{"negative seed", ok, 3, -1, "outside numpy's range"},
		{"seed too big", ok, 3, 1 << 32, "outside numpy's range"},
		{"no prefixes", PrefixRepetitionSpec{NumPrefixes: 0}, 3, 0, "num_prefixes 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := PrefixRepetition(tc.spec, tc.n, tc.seed, toyTokenizer{}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		spec PrefixRepetitionSpec
		want string
	}{
		{PrefixRepetitionSpec{PrefixLen: -1, NumPrefixes: 1}, "dataset.prefix_repetition.prefix_len (--prefix-repetition-prefix-len) is -1"},
		{PrefixRepetitionSpec{SuffixLen: -2, NumPrefixes: 1}, "dataset.prefix_repetition.suffix_len"},
		{PrefixRepetitionSpec{NumPrefixes: 0}, "dataset.prefix_repetition.num_prefixes (--prefix-repetition-num-prefixes) is 0"},
		{PrefixRepetitionSpec{NumPrefixes: 1, OutputLen: -1}, "dataset.prefix_repetition.output_len"},
	} {
		_, err := newPrefixRepetitionSource(scenario.Dataset{Name: "prefix_repetition", Spec: &tc.spec})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.spec, err, tc.want)
		}
	}
}
