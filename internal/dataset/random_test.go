package dataset

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// toyTokenizer has the tokens "a".."e" and every two-letter string over
// them (ids 0-4 and 5-29), and encodes greedily, longest token first. A
// decoded run of single letters re-encodes to fewer tokens, so the random
// dataset's fix-up often comes out short and draws from the rng, which is
// what the sequential-equivalence tests need. Id 0 is declared special and
// one special token is "added", to exercise both rules.
type toyTokenizer struct{}

const toyLetters = "abcde"

func toyToken(id int) string {
	if id < 5 {
		return toyLetters[id : id+1]
	}
	id -= 5
	return string([]byte{toyLetters[id/5], toyLetters[id%5]})
}

func (toyTokenizer) Name() string               { return "toy" }
func (toyTokenizer) VocabSize() int             { return 30 }
func (toyTokenizer) SpecialIDs() []int          { return []int{0} }
func (toyTokenizer) NumSpecialTokensToAdd() int { return 1 }

func (toyTokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id >= 0 && id < 30 {
			b.WriteString(toyToken(id))
		}
	}
	return b.String()
}

func (toyTokenizer) Encode(text string, _ bool) []int {
	ids := []int{}
	for i := 0; i < len(text); {
		a := strings.IndexByte(toyLetters, text[i])
		if i+1 < len(text) {
			if b := strings.IndexByte(toyLetters, text[i+1]); a >= 0 && b >= 0 {
				ids = append(ids, 5+5*a+b)
				i += 2
				continue
			}
		}
		if a >= 0 {
			ids = append(ids, a)
		}
		i++
	}
	return ids
}

func o200k(t testing.TB) tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// referenceRandom is vLLM's RandomDataset.sample written out plainly and
// sequentially, with the same generator, as the oracle for Random.
func referenceRandom(t *testing.T, spec RandomSpec, n int, seed int64, tok tokenizer.Tokenizer, prefix string) (reqs []Request, info RandomInfo, pads int) {
	t.Helper()
	rng, err := numpy.NewGenerator(seed)
	if err != nil {
		t.Fatal(err)
	}
	real := max(0, spec.InputLen-tok.NumSpecialTokensToAdd())
	rIn, rOut := spec.RangeRatio.Input, spec.RangeRatio.Output
	info.InputLow = int(math.Floor(float64(real) * (1 - rIn)))
	info.InputHigh = int(math.Ceil(float64(real) * (1 + rIn)))
	info.OutputLow = max(int(math.Floor(float64(spec.OutputLen)*(1-rOut))), 1)
	info.OutputHigh = max(int(math.Ceil(float64(spec.OutputLen)*(1+rOut))), 1)
	must := func(v []int64, err error) []int64 {
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	inLens := must(rng.Integers(int64(info.InputLow), int64(info.InputHigh)+1, n))
	outLens := must(rng.Integers(int64(info.OutputLow), int64(info.OutputHigh)+1, n))
	offsets := must(rng.Integers(0, int64(tok.VocabSize()), n))
	var allowed []int
	for id := range tok.VocabSize() {
		if !slices.Contains(tok.SpecialIDs(), id) {
			allowed = append(allowed, id)
		}
	}
	fix := func(seq []int, target int) (string, []int, int) {
		tries, mismatch := 10, 0
		var prompt string
		for {
			prompt = tok.Decode(seq)
			seq = tok.Encode(prompt, false)
			if tries <= 0 {
				if len(seq) != target {
					mismatch = len(seq) - target
				}
				break
			}
			if len(seq) == target {
				break
			}
			if len(seq) < target {
				pads++
				for _, id := range must(rng.Integers(0, int64(tok.VocabSize()), target-len(seq))) {
					seq = append(seq, int(id))
				}
			} else {
				seq = seq[:target]
			}
			tries--
		}
		return prompt, seq, mismatch
	}
	var prefixToks []int
	if spec.PrefixLen > 0 {
		for _, j := range must(rng.Integers(0, int64(len(allowed)), spec.PrefixLen)) {
			prefixToks = append(prefixToks, allowed[j])
		}
		_, prefixToks, info.PrefixMismatch = fix(prefixToks, spec.PrefixLen)
	}
	reqs = make([]Request, n)
	for i := range n {
		seq := slices.Clone(prefixToks)
		for k := range int(inLens[i]) {
			seq = append(seq, allowed[(int(offsets[i])+i+k)%len(allowed)])
		}
		prompt, toks, mismatch := fix(seq, spec.PrefixLen+int(inLens[i]))
		info.Mismatch += mismatch
		reqs[i] = Request{Prompt: prompt, PromptLen: len(toks), OutputLen: int(outLens[i]), ID: prefix + strconv.Itoa(i)}
	}
	return reqs, info, pads
}

func TestRandomMatchesSequential(t *testing.T) {
	tests := []struct {
		name string
		spec RandomSpec
		n    int
		seed int64
		tok  tokenizer.Tokenizer
	}{
		{"toy fixed lengths", RandomSpec{InputLen: 40, OutputLen: 8}, 300, 0, toyTokenizer{}},
		{"toy ranges and prefix", RandomSpec{InputLen: 30, OutputLen: 20, PrefixLen: 7,
			RangeRatio: RangeRatio{Input: 0.5, Output: 0.3}}, 300, 1, toyTokenizer{}},
		{"o200k", RandomSpec{InputLen: 200, OutputLen: 16, PrefixLen: 20,
			RangeRatio: RangeRatio{Input: 0.2, Output: 0.2}}, 60, 42, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := tt.tok
			if tok == nil {
				tok = o200k(t)
			}
			got, info, err := Random(tt.spec, tt.n, tt.seed, tok, "req-")
			if err != nil {
				t.Fatal(err)
			}
			want, wantInfo, pads := referenceRandom(t, tt.spec, tt.n, tt.seed, tok, "req-")
			if _, toy := tok.(toyTokenizer); toy && pads < tt.n {
				t.Fatalf("only %d fix-ups drew from the rng: the case does not exercise the draws", pads)
			}
			if info != wantInfo {
				t.Errorf("info = %+v, want %+v", info, wantInfo)
			}
			if !slices.EqualFunc(got, want, requestEqual) {
				for i := range want {
					if !requestEqual(got[i], want[i]) {
						t.Fatalf("request %d = %+v, want %+v", i, got[i], want[i])
					}
				}
			}
		})
	}
}

func requestEqual(a, b Request) bool {
	return a.Prompt == b.Prompt && a.PromptLen == b.PromptLen && a.OutputLen == b.OutputLen &&
		a.ID == b.ID && slices.Equal(a.Prompts, b.Prompts)
}

func TestRandomPromptsO200k(t *testing.T) {
	tok := o200k(t)
	spec := RandomSpec{InputLen: 128, OutputLen: 32, PrefixLen: 16,
		RangeRatio: RangeRatio{Input: 0.25, Output: 0.5}}
	reqs, info, err := Random(spec, 100, 7, tok, "bench-1234abcd-")
	if err != nil {
		t.Fatal(err)
	}
	if want := (RandomInfo{InputLow: 96, InputHigh: 160, OutputLow: 16, OutputHigh: 48}); info != want {
		t.Errorf("info = %+v, want %+v", info, want)
	}
	shared := reqs[0].Prompt
	for i, r := range reqs {
		if r.ID != "bench-1234abcd-"+strconv.Itoa(i) {
			t.Errorf("request %d has id %q", i, r.ID)
		}
		if n := len(tok.Encode(r.Prompt, false)); n != r.PromptLen {
			t.Errorf("request %d: PromptLen %d, but the prompt encodes to %d tokens", i, r.PromptLen, n)
		}
		if r.PromptLen < 16+96 || r.PromptLen > 16+160 {
			t.Errorf("request %d: PromptLen %d outside [112, 176]", i, r.PromptLen)
		}
		if r.OutputLen < 16 || r.OutputLen > 48 {
			t.Errorf("request %d: OutputLen %d outside [16, 48]", i, r.OutputLen)
		}
		shared = shared[:commonPrefixLen(shared, r.Prompt)]
	}
	// Every prompt starts with the decoded 16-token prefix; 16 o200k
	// tokens of random text are far more than 16 bytes.
	if len(shared) < 16 {
		t.Errorf("prompts share only %q", shared)
	}
}

func commonPrefixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func TestRandomSeeds(t *testing.T) {
	tok := o200k(t)
	spec := RandomSpec{InputLen: 64, OutputLen: 16, RangeRatio: RangeRatio{Input: 0.5, Output: 0.5}}
	a, _, _ := Random(spec, 20, 1, tok, "")
	b, _, _ := Random(spec, 20, 1, tok, "")
	c, _, _ := Random(spec, 20, 2, tok, "")
	if !slices.EqualFunc(a, b, requestEqual) {
		t.Error("the same seed gave different requests")
	}
	if slices.EqualFunc(a, c, requestEqual) {
		t.Error("different seeds gave the same requests")
	}
}

func TestRandomIntervals(t *testing.T) {
	tests := []struct {
		name string
		spec RandomSpec
		tok  tokenizer.Tokenizer
		want RandomInfo
	}{
		{"fixed", RandomSpec{InputLen: 1024, OutputLen: 128}, nil,
			RandomInfo{InputLow: 1024, InputHigh: 1024, OutputLow: 128, OutputHigh: 128}},
		{"half", RandomSpec{InputLen: 1024, OutputLen: 128, RangeRatio: RangeRatio{Input: 0.5, Output: 0.5}}, nil,
			RandomInfo{InputLow: 512, InputHigh: 1536, OutputLow: 64, OutputHigh: 192}},
		// 1 − 0.9 is 0.09999999999999998 in binary floating point, as in
		// Python, so ⌊100·(1 − 0.9)⌋ is 9.
		{"output clamped to 1", RandomSpec{InputLen: 100, OutputLen: 1, RangeRatio: RangeRatio{Input: 0.9, Output: 0.9}}, nil,
			RandomInfo{InputLow: 9, InputHigh: 190, OutputLow: 1, OutputHigh: 2}},
		{"zero output", RandomSpec{InputLen: 10, OutputLen: 0}, nil,
			RandomInfo{InputLow: 10, InputHigh: 10, OutputLow: 1, OutputHigh: 1}},
		// The toy tokenizer adds one special token: 1024 − 1 = 1023,
		// ⌊1023·0.9⌋ = 920, ⌈1023·1.1⌉ = 1126.
		{"special tokens subtracted", RandomSpec{InputLen: 1024, OutputLen: 10, RangeRatio: RangeRatio{Input: 0.1}}, toyTokenizer{},
			RandomInfo{InputLow: 920, InputHigh: 1126, OutputLow: 10, OutputHigh: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := tt.tok
			if tok == nil {
				tok = o200k(t)
			}
			_, info, err := Random(tt.spec, 0, 0, tok, "")
			if err != nil {
				t.Fatal(err)
			}
			if info != tt.want {
				t.Errorf("info = %+v, want %+v", info, tt.want)
			}
		})
	}
}

func TestRandomErrors(t *testing.T) {
	tests := []struct {
		name string
		spec RandomSpec
		n    int
		seed int64
		want string
	}{
		{"input ratio one", RandomSpec{InputLen: 10, OutputLen: 10, RangeRatio: RangeRatio{Input: 1}}, 1, 0, "range_ratio.input 1 must be in [0, 1)"},
		{"negative input ratio", RandomSpec{InputLen: 10, OutputLen: 10, RangeRatio: RangeRatio{Input: -0.1}}, 1, 0, "range_ratio.input"},
		{"NaN output ratio", RandomSpec{InputLen: 10, OutputLen: 10, RangeRatio: RangeRatio{Output: math.NaN()}}, 1, 0, "range_ratio.output NaN"},
		// The toy tokenizer adds one special token, leaving nothing of 1.
		{"input too small", RandomSpec{InputLen: 1, OutputLen: 10}, 1, 0, "input_len 1 is too small"},
		{"negative prompts", RandomSpec{InputLen: 10, OutputLen: 10}, -1, 0, "num_prompts -1 is negative"},
		{"negative prefix", RandomSpec{InputLen: 10, OutputLen: 10, PrefixLen: -2}, 1, 0, "prefix_len -2 is negative"},
		{"negative seed", RandomSpec{InputLen: 10, OutputLen: 10}, 1, -5, "seed -5 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Random(tt.spec, tt.n, tt.seed, toyTokenizer{}, "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	// A prefix makes a zero-length sampled input acceptable.
	if _, _, err := Random(RandomSpec{InputLen: 1, OutputLen: 1, PrefixLen: 1}, 1, 0, toyTokenizer{}, ""); err != nil {
		t.Errorf("prefix_len 1 with empty input: %v", err)
	}
}

func TestRandomBatch(t *testing.T) {
	spec := RandomSpec{InputLen: 12, OutputLen: 4, BatchSize: 3}
	got, _, err := Random(spec, 7, 3, toyTokenizer{}, "p")
	if err != nil {
		t.Fatal(err)
	}
	spec.BatchSize = 1
	single, _, err := Random(spec, 7, 3, toyTokenizer{}, "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d batches, want 3", len(got))
	}
	for b, r := range got {
		group := single[3*b : min(3*b+3, len(single))]
		sum := 0
		var prompts []string
		for _, s := range group {
			sum += s.PromptLen
			prompts = append(prompts, s.Prompt)
		}
		want := Request{Prompts: prompts, PromptLen: sum, OutputLen: 0, ID: "p" + strconv.Itoa(b)}
		if !requestEqual(r, want) {
			t.Errorf("batch %d = %+v, want %+v", b, r, want)
		}
	}
}

func TestRandomInfoMessages(t *testing.T) {
	tests := []struct {
		info RandomInfo
		want []string
	}{
		{RandomInfo{}, nil},
		{RandomInfo{Mismatch: 5}, []string{"Across all generated prompts, there were 5 more tokens than expected after decoding and re-encoding. This is expected due to the imperfect nature of the sampling procedure."}},
		{RandomInfo{Mismatch: -3, PrefixMismatch: 2}, []string{
			"Prefix tokenization produced 2 more tokens than expected after decoding and re-encoding. This is expected due to the imperfect nature of the sampling procedure",
			"Across all generated prompts, there were 3 fewer tokens than expected after decoding and re-encoding. This is expected due to the imperfect nature of the sampling procedure.",
		}},
	}
	for _, tt := range tests {
		if got := tt.info.Warnings(); !slices.Equal(got, tt.want) {
			t.Errorf("Warnings(%+v) = %q, want %q", tt.info, got, tt.want)
		}
	}
	info := RandomInfo{InputLow: 920, InputHigh: 1126, OutputLow: 1, OutputHigh: 2}
	if got, want := info.SamplingMessage(), "Sampling input_len from [920, 1126] and output_len from [1, 2]"; got != want {
		t.Errorf("SamplingMessage() = %q, want %q", got, want)
	}
}

// BenchmarkRandom10kx1024 prepares 10,000 random prompts of 1,024 tokens
// with o200k_base, the size of the ≤ 3 s acceptance check. Run it with
// -benchtime=1x for a single cold-tokenizer-cache figure.
func BenchmarkRandom10kx1024(b *testing.B) {
	tok := o200k(b)
	spec := RandomSpec{InputLen: 1024, OutputLen: 128}
	for b.Loop() {
		reqs, _, err := Random(spec, 10000, 0, tok, "")
		if err != nil {
			b.Fatal(err)
		}
		if len(reqs) != 10000 {
			b.Fatalf("got %d requests", len(reqs))
		}
	}
}

// TestRandomChunksEqualWhole: the requests made a chunk at a time, as a run
// pulls them, are the ones Random makes at once, request by request, with
// a prefix, range ratios and batches.
func TestRandomChunksEqualWhole(t *testing.T) {
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []RandomSpec{
		{InputLen: 12, OutputLen: 5},
		{InputLen: 20, OutputLen: 9, PrefixLen: 4, RangeRatio: RangeRatio{Input: 0.5, Output: 0.3}},
		{InputLen: 6, OutputLen: 3, BatchSize: 3},
	} {
		const n = 50
		want, _, err := Random(spec, n, 7, tok, "r-")
		if err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{1, 7, 16} {
			g, err := newRandomGen(spec, n, 7, tok, "r-")
			if err != nil {
				t.Fatal(err)
			}
			var got []Request
			for !g.done() {
				reqs, err := g.next(chunk, 2)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, reqs...)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%+v in chunks of %d: requests differ from Random's", spec, chunk)
			}
		}
	}
}

// The random kind asks Env.Workers before each chunk it makes, and makes
// the same requests on one goroutine as on every core.
func TestRandomWorkers(t *testing.T) {
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	spec := scenario.Dataset{Name: "random", Spec: &RandomSpec{InputLen: 10, OutputLen: 4}}
	n := 2*randomChunk + 5
	build := func(workers func() int) []Request {
		t.Helper()
		reqs, err := Build(context.Background(), spec, Env{Tokenizer: tok, Seed: 3, NumPrompts: n, IDPrefix: "w-", Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		return reqs
	}
	asked := 0
	one := build(func() int { asked++; return 1 })
	if asked != 3 {
		t.Errorf("Workers asked %d times for %d requests in chunks of %d, want 3", asked, n, randomChunk)
	}
	if all := build(nil); !reflect.DeepEqual(one, all) {
		t.Error("the requests made on one goroutine differ from those made on every core")
	}
}

// With prompt_token_ids each prompt is its drawn token ids: no text, the
// exact drawn length, the same lengths and output lengths as the text
// prompts of the same seed (the draws before the fix-ups are the same),
// every prompt starting with the same raw prefix; batches are refused.
func TestRandomPromptTokenIDs(t *testing.T) {
	tok := o200k(t)
	spec := RandomSpec{InputLen: 64, OutputLen: 16, PrefixLen: 8, RangeRatio: RangeRatio{Input: 0.5, Output: 0.5}}
	text, _, err := Random(spec, 40, 3, tok, "r-")
	if err != nil {
		t.Fatal(err)
	}
	spec.PromptTokenIDs = true
	ids, _, err := Random(spec, 40, 3, tok, "r-")
	if err != nil {
		t.Fatal(err)
	}
	prefix := ids[0].PromptTokens[:8]
	for i, r := range ids {
		if r.Prompt != "" || r.PromptLen != len(r.PromptTokens) || r.ID != text[i].ID || r.OutputLen != text[i].OutputLen {
			t.Fatalf("request %d: %+v against the text request %+v", i, r, text[i])
		}
		if r.PromptLen < 8+32 || r.PromptLen > 8+96 {
			t.Errorf("request %d: %d tokens, outside [40, 104]", i, r.PromptLen)
		}
		if !slices.Equal(r.PromptTokens[:8], prefix) {
			t.Errorf("request %d does not start with the shared prefix", i)
		}
	}
	spec.BatchSize = 2
	if _, _, err := Random(spec, 4, 3, tok, "r-"); err == nil || !strings.Contains(err.Error(), "prompt_token_ids cannot batch prompts") {
		t.Errorf("a batch with prompt_token_ids: %v", err)
	}
}

// The bimodal cache mode: about cache_hit_fraction of the token-id prompts
// start with round(L·cache_ratio) tokens of one shared base, the others
// share nothing with it; every prompt keeps its drawn length; the mode
// needs prompt_token_ids.
func TestRandomBimodal(t *testing.T) {
	tok := o200k(t)
	spec := RandomSpec{InputLen: 100, OutputLen: 8, PromptTokenIDs: true, CacheHitFraction: 0.3, CacheRatio: 0.5, PrefixLen: 7}
	reqs, _, err := Random(spec, 400, 11, tok, "b-")
	if err != nil {
		t.Fatal(err)
	}
	warm := 0
	base := reqs[0].PromptTokens // find the base from the warm prompts: they agree on their first 50
	for _, r := range reqs {
		if r.PromptLen != 100 || len(r.PromptTokens) != 100 {
			t.Fatalf("a prompt of %d tokens, want 100", r.PromptLen)
		}
	}
	counts := map[int]int{}
	for _, r := range reqs {
		counts[r.PromptTokens[0]]++
	}
	first, most := 0, 0
	for tokID, n := range counts {
		if n > most {
			first, most = tokID, n
		}
	}
	for _, r := range reqs {
		if r.PromptTokens[0] == first {
			base = r.PromptTokens[:50]
			break
		}
	}
	for _, r := range reqs {
		if slices.Equal(r.PromptTokens[:50], base) {
			warm++
		}
	}
	if warm < 90 || warm > 150 { // 400 · 0.3 = 120
		t.Errorf("%d warm prompts of 400, want about 120", warm)
	}
	spec.PromptTokenIDs = false
	if _, _, err := Random(spec, 4, 11, tok, "b-"); err == nil || !strings.Contains(err.Error(), "need prompt_token_ids") {
		t.Errorf("bimodal without prompt_token_ids: %v", err)
	}
}
