package dataset

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// TestRandomRerankMatchesVLLM compares RandomRerank with
// testdata/randomrerank_golden.json, vLLM's RandomDatasetForReranking
// restated in Python by testdata/randomrerank_golden.py with the toy
// tokenizer: the batches' prompts, lengths and ids, and the logged
// sampling intervals.
func TestRandomRerankMatchesVLLM(t *testing.T) {
	data, err := os.ReadFile("testdata/randomrerank_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name       string  `json:"name"`
		Seed       int64   `json:"seed"`
		N          int     `json:"n"`
		InputLen   int     `json:"input_len"`
		RangeRatio float64 `json:"range_ratio"`
		BatchSize  int     `json:"batch_size"`
		Reranker   bool    `json:"reranker"`
		Mismatch   int     `json:"mismatch"`
		Query      [4]int  `json:"query_interval"`
		Doc        [4]int  `json:"doc_interval"`
		Requests   []struct {
			Prompts   []string `json:"prompts"`
			PromptLen int      `json:"prompt_len"`
			ID        string   `json:"id"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 4 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			spec := RandomRerankSpec{RandomSpec: RandomSpec{InputLen: c.InputLen, RangeRatio: RangeRatio{c.RangeRatio, c.RangeRatio}, BatchSize: c.BatchSize},
				NoReranker: !c.Reranker}
			got, info, err := RandomRerank(spec, c.N, c.Seed, toyTokenizer{}, "p-")
			if err != nil {
				t.Fatal(err)
			}
			wantLines := []string{
				RandomInfo{InputLow: c.Query[0], InputHigh: c.Query[1], OutputLow: c.Query[2], OutputHigh: c.Query[3]}.SamplingMessage(),
				RandomInfo{InputLow: c.Doc[0], InputHigh: c.Doc[1], OutputLow: c.Doc[2], OutputHigh: c.Doc[3]}.SamplingMessage(),
			}
			if !slices.Equal(info.Sampling, wantLines) || info.Mismatch != c.Mismatch {
				t.Errorf("info %+v, want %q and mismatch %d", info, wantLines, c.Mismatch)
			}
			if len(got) != len(c.Requests) {
				t.Fatalf("%d requests, want %d", len(got), len(c.Requests))
			}
			for i, w := range c.Requests {
				g := got[i]
				if !slices.Equal(g.Prompts, w.Prompts) || g.PromptLen != w.PromptLen || g.ID != w.ID || g.OutputLen != 0 || g.Prompt != "" {
					t.Errorf("request %d = %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
}

// The kind is registered under the schema's name, and its checks and
// errors name what is wrong.
func TestRandomRerankKind(t *testing.T) {
	k, ok := Lookup("random_rerank")
	if !ok || !k.NeedsTokenizer || k.Align || k.IgnoreEOS != IgnoreEOSAsSet {
		t.Fatalf("kind %+v, %v", k, ok)
	}
	for _, tc := range []struct {
		spec RandomRerankSpec
		want string
	}{
		{RandomRerankSpec{RandomSpec: RandomSpec{InputLen: 8, PrefixLen: 2, BatchSize: 1}}, "has no shared prefix"},
		{RandomRerankSpec{RandomSpec: RandomSpec{InputLen: 8, BatchSize: 1}, NoReranker: true}, "want batch_size >= 2"},
	} {
		probs := k.Check(&tc.spec)
		if len(probs) != 1 || !strings.Contains(probs[0].Msg, tc.want) {
			t.Errorf("Check(%+v) = %v, want %q", tc.spec, probs, tc.want)
		}
	}
	if _, _, err := RandomRerank(RandomRerankSpec{RandomSpec: RandomSpec{InputLen: 8, BatchSize: 2}, NoReranker: true}, 1, 0, toyTokenizer{}, ""); err == nil ||
		!strings.Contains(err.Error(), "needs num_prompts > 1") {
		t.Errorf("one prompt without a reranker: %v", err)
	}
	src, err := k.New(scenario.Dataset{Name: "random_rerank", Spec: &RandomRerankSpec{RandomSpec: RandomSpec{InputLen: 12, BatchSize: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	n := 0
	for r, err := range src.Requests(context.Background(), Env{Tokenizer: toyTokenizer{}, NumPrompts: 5, IDPrefix: "x", Stderr: &stderr}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != "x"+string(rune('0'+n)) || len(r.Prompts) < 2 {
			t.Errorf("request %d: %+v", n, r)
		}
		n++
	}
	if n != 3 || strings.Count(stderr.String(), "Sampling input_len from") != 2 {
		t.Errorf("%d requests, log %q", n, stderr.String())
	}
}
