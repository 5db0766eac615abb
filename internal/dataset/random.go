package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// RangeRatio is vLLM's --random-range-ratio: one ratio for both lengths, or
// separate input and output ratios, each in [0, 1).
type RangeRatio struct {
	// Input is the jitter ratio of prompt lengths.
	Input float64 `json:"input"`
	// Output is the jitter ratio of output lengths.
	Output float64 `json:"output"`
}

// UnmarshalJSON accepts a number (both ratios) or {"input": r, "output": r}.
func (r *RangeRatio) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		r.Input, r.Output = f, f
		return nil
	}
	type plain RangeRatio
	return json.Unmarshal(b, (*plain)(r))
}

// RandomSpec is the random kind's section of a scenario: vLLM's random
// dataset (RandomDataset in upstream vllm/benchmarks/datasets/datasets.py).
type RandomSpec struct {
	// InputLen is the target prompt length in tokens (--random-input-len).
	InputLen int `json:"input_len"`
	// OutputLen is the target output length in tokens (--random-output-len).
	OutputLen int `json:"output_len"`
	// RangeRatio jitters the lengths uniformly in [len·(1−r), len·(1+r)]
	// (--random-range-ratio).
	RangeRatio RangeRatio `json:"range_ratio"`
	// PrefixLen is the length of a random prefix shared by every prompt
	// (--random-prefix-len).
	PrefixLen int `json:"prefix_len"`
	// BatchSize groups this many prompts into one request, for embeddings
	// (--random-batch-size).
	BatchSize int `json:"batch_size"`
	// PromptTokenIDs sends each prompt as its token ids, exactly as drawn
	// (no decoding to text and re-encoding), as vllm-bench's
	// --prompt-token-ids does: the lengths are exact, and the server's
	// tokenizer is not consulted.
	PromptTokenIDs bool `json:"prompt_token_ids,omitempty"`
	// CacheHitFraction and CacheRatio, both positive, make the token-id
	// prompts bimodal, as vllm-bench's --random-cache-hit-fraction and
	// --random-cache-ratio do: a share CacheHitFraction of the requests
	// ("warm") start with the first round(L·CacheRatio) tokens of one shared
	// base of ceil(InputHigh·CacheRatio) tokens, where L is the request's
	// length; the rest of every prompt is its own. input_len is then the
	// whole prompt, and prefix_len is not used.
	CacheHitFraction float64 `json:"cache_hit_fraction,omitempty"`
	CacheRatio       float64 `json:"cache_ratio,omitempty"`
}

// bimodal says whether the spec asks for the bimodal cache mode (both
// CacheHitFraction and CacheRatio positive).
func (s RandomSpec) bimodal() bool { return s.CacheHitFraction > 0 && s.CacheRatio > 0 }

func init() {
	Register(Kind{Name: "random", Spec: newSpec[RandomSpec](), New: newRandomSource,
		IgnoreEOS: IgnoreEOSOnOpenAI, Align: true, NeedsTokenizer: true,
		Count: func(spec scenario.Dataset, n int) int {
			if b := spec.Spec.(*RandomSpec).BatchSize; b > 1 {
				return (n + b - 1) / b
			}
			return n
		},
		Memory: randomMemory,
		Check:  checkRandom})
}

// randomSource is the random kind's Source: Random with the run's
// tokenizer, seed, request count and id prefix. It logs vLLM's sampling
// line and re-encoding warnings to Stderr.
type randomSource struct{ spec RandomSpec }

func newRandomSource(spec scenario.Dataset) (Source, error) {
	r, err := specOf[RandomSpec](spec)
	if err != nil {
		return nil, err
	}
	return randomSource{spec: *r}, nil
}

// checkRandom refuses a random spec whose prompts are always empty: the
// shortest prompt is prefix_len plus floor(input_len·(1−range_ratio.input))
// tokens (fewer once the tokenizer's special tokens are taken off, which
// only the run knows); when that is 0 for any tokenizer, every run fails.
func checkRandom(spec any) []scenario.Problem {
	r := spec.(*RandomSpec)
	if low := int(math.Floor(float64(r.InputLen) * (1 - r.RangeRatio.Input))); r.PrefixLen+low < 1 {
		return []scenario.Problem{scenario.NewProblem(fmt.Sprintf(
			"prompts of %d tokens: want prefix_len + floor(input_len × (1 − range_ratio)) >= 1, e.g. input_len >= 1", r.PrefixLen+low),
			"dataset", "random", "input_len")}
	}
	return nil
}

// randomMemory is the random kind's estimate: nothing per request (the
// requests are made a chunk at a time as the run pulls them), and one
// chunk being made: each prompt's token ids (8 bytes a token, several
// copies while it is decoded and re-encoded) and its text.
func randomMemory(spec scenario.Dataset, _ int) MemoryEstimate {
	r := spec.Spec.(*RandomSpec)
	in := float64(r.PrefixLen) + float64(r.InputLen)*(1+r.RangeRatio.Input)
	return MemoryEstimate{Fixed: randomChunk * (in*32 + 512), PromptTokens: in,
		OutputTokens: float64(r.OutputLen) * (1 + r.RangeRatio.Output)}
}

// randomChunk is how many requests the random source makes at a time.
const randomChunk = 1024

// Requests makes the requests a chunk at a time as they are pulled (see
// randomGen), the fix-ups of a chunk on as many cores as env allows
// (Env.Workers: one once a run's clock has started). vLLM's warnings about
// prompts whose re-encoding kept a different length sum over every
// prompt, so they are printed when the last request has been made.
func (s randomSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		g, err := newRandomGen(s.spec, env.NumPrompts, env.Seed, env.Tokenizer, env.IDPrefix)
		if err != nil {
			yield(Request{}, err)
			return
		}
		fmt.Fprintln(env.Stderr, g.info.SamplingMessage())
		for !g.done() {
			if err := ctx.Err(); err != nil {
				yield(Request{}, err)
				return
			}
			chunk, err := g.next(randomChunk, env.workers())
			if err != nil {
				yield(Request{}, err)
				return
			}
			for i := range chunk {
				if !yield(chunk[i], nil) {
					return
				}
			}
		}
		for _, w := range g.info.Warnings() {
			fmt.Fprintln(env.Stderr, w)
		}
	}
}

// maxRetries is vLLM's max_retry for gen_prompt_decode_to_target_len.
const maxRetries = 10

// RandomInfo is what vLLM's random dataset logs while sampling.
type RandomInfo struct {
	// InputLow..OutputHigh are the closed intervals the lengths were drawn
	// from.
	InputLow, InputHigh   int
	OutputLow, OutputHigh int
	// PrefixMismatch is the shared prefix's re-encoded length minus
	// prefix_len when its retries ran out (0 otherwise).
	PrefixMismatch int
	// Mismatch is the sum over prompts of re-encoded length minus target
	// length, counting only prompts whose retries ran out.
	Mismatch int
}

// SamplingMessage is vLLM's info line
// "Sampling input_len from [lo, hi] and output_len from [lo, hi]".
func (r RandomInfo) SamplingMessage() string {
	return fmt.Sprintf("Sampling input_len from [%d, %d] and output_len from [%d, %d]",
		r.InputLow, r.InputHigh, r.OutputLow, r.OutputHigh)
}

// Warnings returns vLLM's warnings about lengths that re-encoding could not
// fix, in the order vLLM logs them (prefix first); none when both
// mismatches are 0.
func (r RandomInfo) Warnings() []string {
	var w []string
	if r.PrefixMismatch != 0 {
		w = append(w, fmt.Sprintf("Prefix tokenization produced %d %s tokens than expected "+
			"after decoding and re-encoding. This is expected due to "+
			"the imperfect nature of the sampling procedure",
			abs(r.PrefixMismatch), moreOrFewer(r.PrefixMismatch)))
	}
	if r.Mismatch != 0 {
		w = append(w, fmt.Sprintf("Across all generated prompts, there were %d %s tokens "+
			"than expected after decoding and re-encoding. This is "+
			"expected due to the imperfect nature of the sampling "+
			"procedure.", abs(r.Mismatch), moreOrFewer(r.Mismatch)))
	}
	return w
}

func moreOrFewer(n int) string {
	if n > 0 {
		return "more"
	}
	return "fewer"
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Random generates vLLM's random dataset (RandomDataset, upstream vllm/benchmarks/datasets/datasets.py), prompt for
// prompt and token for token, for numPrompts requests with the given seed.
// With V = tok.VocabSize() and S = tok.NumSpecialTokensToAdd():
//
//  1. real = max(0, input_len − S); the input interval is
//     [⌊real·(1−r_in)⌋, ⌈real·(1+r_in)⌉] and the output interval
//     [max(⌊out·(1−r_out)⌋, 1), max(⌈out·(1+r_out)⌉, 1)]; each ratio must
//     be in [0, 1), and prefix_len + ⌊real·(1−r_in)⌋ must be at least 1.
//  2. rng = np.random.default_rng(seed); in this order it draws
//     input_lens = integers(lo, hi+1, N), output_lens = integers(lo,
//     hi+1, N) and offsets = integers(0, V, N).
//  3. allowed = [0, V) without tok.SpecialIDs(), ascending (A of them).
//  4. With prefix_len P > 0, prefix = allowed[integers(0, A, P)], then
//     fixed up (step 6) to target P; the fixed-up tokens are the prefix.
//  5. Request i starts from prefix + [allowed[(offsets[i]+i+k) mod A] for
//     k < input_lens[i]], with target P + input_lens[i].
//  6. Fix-up (vLLM's gen_prompt_decode_to_target_len): up to 10 times,
//     decode then re-encode without special tokens; equal to the target:
//     done; shorter: append integers(0, V, deficit) from the same rng;
//     longer: truncate to the target. After the 10th adjustment the text
//     is decoded and encoded once more and any difference is only counted
//     (RandomInfo.Mismatch).
//  7. Prompt = the last decoded text, PromptLen = the length of its
//     encoding, OutputLen = output_lens[i], ID = idPrefix + i.
//
// With batch_size B > 1 (vLLM's embedding batches), consecutive groups of
// B requests become one Request whose Prompts holds their prompts, whose
// PromptLen is their sum, whose OutputLen is 0, and whose ID is idPrefix +
// the group number.
//
// Parallelism: the fix-ups run on GOMAXPROCS goroutines without changing
// any result. A fix-up draws from the shared rng only when a re-encoding
// comes out short, and every draw must happen in request order. So each
// request first runs its fix-up alone, in parallel, until it finishes or
// needs its first draw (decoding and encoding depend only on the request's
// own tokens); then, in request order, the requests that stopped for a draw
// take it from the rng and continue one by one. The draws are therefore
// the same, in the same order, as in a sequential run. tok must be safe for
// concurrent use.
func Random(spec RandomSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string) ([]Request, RandomInfo, error) {
	g, err := newRandomGen(spec, numPrompts, seed, tok, idPrefix)
	if err != nil {
		return nil, g.info, err
	}
	var reqs []Request
	for !g.done() {
		chunk, err := g.next(max(numPrompts, 1), runtime.GOMAXPROCS(0))
		if err != nil {
			return nil, g.info, err
		}
		reqs = append(reqs, chunk...)
	}
	return reqs, g.info, nil
}

// randomGen makes the random dataset's requests in order, a chunk at a
// time, with exactly Random's draws: each of the three length arrays is
// drawn from a copy of the rng taken where that array's draws begin, and
// the rng itself is moved past them (drawing and dropping) for the prefix
// and the fix-ups' padding. So it holds no per-request array, and a run
// can pull the requests as it needs them.
type randomGen struct {
	spec     RandomSpec
	n        int
	tok      tokenizer.Tokenizer
	idPrefix string
	vocab    int
	allowed  []int
	prefix   []int
	base     []int // the bimodal mode's shared base (RandomSpec.bimodal)
	// in, out and off draw the input lengths, output lengths and offsets;
	// rng draws the prefix and the padding.
	in, out, off, rng *numpy.Generator
	i                 int  // the next request
	addedSpecial      bool // see newRandomGenOf
	// info is what vLLM logs; its Mismatch is complete once done.
	info RandomInfo
}

// newRandomGen checks the spec and draws what comes before the first
// prompt (steps 1 to 4 of Random).
func newRandomGen(spec RandomSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string) (*randomGen, error) {
	return newRandomGenOf(spec, numPrompts, seed, tok, idPrefix, false)
}

// newRandomGenOf is newRandomGen; addedSpecial keeps the tokenizer's added
// special tokens out of the prompts (AddedSpecialIDs, when it has them)
// instead of all_special_ids, as vLLM's random-mm does.
func newRandomGenOf(spec RandomSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string, addedSpecial bool) (*randomGen, error) {
	g := &randomGen{spec: spec, n: numPrompts, tok: tok, idPrefix: idPrefix, addedSpecial: addedSpecial}
	info := &g.info
	if numPrompts < 0 {
		return g, fmt.Errorf("random dataset: num_prompts %d is negative", numPrompts)
	}
	if spec.PrefixLen < 0 {
		return g, fmt.Errorf("random dataset: prefix_len %d is negative", spec.PrefixLen)
	}
	if spec.PromptTokenIDs && spec.BatchSize > 1 {
		return g, fmt.Errorf("random dataset: prompt_token_ids cannot batch prompts (batch_size %d)", spec.BatchSize)
	}
	if spec.bimodal() && !spec.PromptTokenIDs {
		return g, fmt.Errorf("random dataset: cache_hit_fraction and cache_ratio need prompt_token_ids")
	}
	if spec.CacheHitFraction > 1 || spec.CacheRatio > 1 {
		return g, fmt.Errorf("random dataset: cache_hit_fraction %v and cache_ratio %v must be at most 1", spec.CacheHitFraction, spec.CacheRatio)
	}
	rIn, rOut := spec.RangeRatio.Input, spec.RangeRatio.Output
	if !(rIn >= 0 && rIn < 1) {
		return g, fmt.Errorf("random dataset: range_ratio.input %v must be in [0, 1)", rIn)
	}
	if !(rOut >= 0 && rOut < 1) {
		return g, fmt.Errorf("random dataset: range_ratio.output %v must be in [0, 1)", rOut)
	}
	vocab := tok.VocabSize()
	if vocab <= 0 {
		return g, fmt.Errorf("random dataset: tokenizer %s has vocabulary size %d", tok.Name(), vocab)
	}
	g.vocab = vocab
	numSpecial := tok.NumSpecialTokensToAdd()
	realIn := max(0, spec.InputLen-numSpecial)
	info.InputLow = int(math.Floor(float64(realIn) * (1 - rIn)))
	info.InputHigh = int(math.Ceil(float64(realIn) * (1 + rIn)))
	info.OutputLow = max(int(math.Floor(float64(spec.OutputLen)*(1-rOut))), 1)
	info.OutputHigh = max(int(math.Ceil(float64(spec.OutputLen)*(1+rOut))), 1)
	if minTotal := spec.PrefixLen + info.InputLow; minTotal < 1 {
		return g, fmt.Errorf("random dataset: input_len %d is too small: with %d tokenizer special tokens and input range ratio %v, "+
			"the smallest possible prompt (prefix_len + sampled input) has %d tokens; "+
			"increase input_len or prefix_len, or decrease range_ratio, so that "+
			"prefix_len + floor(max(0, input_len - special) * (1 - input range ratio)) >= 1",
			spec.InputLen, numSpecial, rIn, minTotal)
	}

	rng, err := numpy.NewGenerator(seed)
	if err != nil {
		return g, fmt.Errorf("random dataset: %w", err)
	}
	skip := func(int64) {}
	g.in = rng.Clone()
	if err := rng.IntegersFunc(int64(info.InputLow), int64(info.InputHigh)+1, numPrompts, skip); err != nil {
		return g, fmt.Errorf("random dataset: input lengths: %w", err)
	}
	g.out = rng.Clone()
	if err := rng.IntegersFunc(int64(info.OutputLow), int64(info.OutputHigh)+1, numPrompts, skip); err != nil {
		return g, fmt.Errorf("random dataset: output lengths: %w", err)
	}
	g.off = rng.Clone()
	if err := rng.IntegersFunc(0, int64(vocab), numPrompts, skip); err != nil {
		return g, fmt.Errorf("random dataset: offsets: %w", err)
	}
	g.rng = rng
	prohibited := tok.SpecialIDs()
	if g.addedSpecial {
		if a, ok := tok.(interface{ AddedSpecialIDs() []int }); ok {
			prohibited = a.AddedSpecialIDs()
		}
	}
	g.allowed = allowedTokens(vocab, prohibited)
	if len(g.allowed) == 0 {
		return g, fmt.Errorf("random dataset: tokenizer %s has no non-special tokens", tok.Name())
	}

	if spec.bimodal() { // the shared base instead of a prefix
		n := int(math.Ceil(float64(info.InputHigh) * spec.CacheRatio))
		idx, err := rng.Integers(0, int64(len(g.allowed)), n)
		if err != nil {
			return g, fmt.Errorf("random dataset: cache base: %w", err)
		}
		g.base = make([]int, n)
		for k, j := range idx {
			g.base[k] = g.allowed[j]
		}
		return g, nil
	}
	if spec.PrefixLen > 0 {
		idx, err := rng.Integers(0, int64(len(g.allowed)), spec.PrefixLen)
		if err != nil {
			return g, fmt.Errorf("random dataset: prefix: %w", err)
		}
		seq := make([]int, len(idx))
		for k, j := range idx {
			seq[k] = g.allowed[j]
		}
		if spec.PromptTokenIDs { // sent as drawn
			g.prefix = seq
			return g, nil
		}
		f := &fixup{seq: seq, target: spec.PrefixLen, tries: maxRetries, keep: true}
		if err := f.finish(tok, rng, vocab); err != nil {
			return g, fmt.Errorf("random dataset: prefix: %w", err)
		}
		g.prefix, info.PrefixMismatch = f.final, f.mismatch
	}
	return g, nil
}

// done reports whether every request was made.
func (g *randomGen) done() bool { return g.i >= g.n }

// next makes up to k more requests (a multiple of the batch size, when
// batching), fixing them up on up to workers goroutines (steps 5 to 7 of
// Random, and the batching).
func (g *randomGen) next(k, workers int) ([]Request, error) { return g.nextThen(k, workers, nil) }

// nextThen is next with then called on each request, in order, right
// after its fix-up finished (random-mm draws its media there, between
// one prompt's padding and the next's).
func (g *randomGen) nextThen(k, workers int, then func(r *Request) error) ([]Request, error) {
	if b := g.spec.BatchSize; b > 1 {
		k = max(k/b, 1) * b
	}
	from := g.i
	m := min(k, g.n-from)
	draw := func(r *numpy.Generator, low, high int64) int64 {
		var v int64
		r.IntegersFunc(low, high, 1, func(x int64) { v = x }) // the bounds were checked by newRandomGen
		return v
	}
	inLens, outLens, offsets := make([]int, m), make([]int, m), make([]int, m)
	for j := range m {
		inLens[j] = int(draw(g.in, int64(g.info.InputLow), int64(g.info.InputHigh)+1))
		outLens[j] = int(draw(g.out, int64(g.info.OutputLow), int64(g.info.OutputHigh)+1))
		offsets[j] = int(draw(g.off, 0, int64(g.vocab)))
	}
	fixes := make([]fixup, m)
	parallelN(m, workers, func(j int) {
		inLen := inLens[j]
		seq := make([]int, 0, len(g.prefix)+inLen)
		seq = append(seq, g.prefix...)
		start := offsets[j] + from + j
		for t := 0; t < inLen; t++ {
			seq = append(seq, g.allowed[(start+t)%len(g.allowed)])
		}
		fixes[j] = fixup{seq: seq, target: g.spec.PrefixLen + inLen, tries: maxRetries}
		if !g.spec.PromptTokenIDs {
			fixes[j].run(g.tok)
		}
	})
	reqs := make([]Request, m)
	if g.spec.PromptTokenIDs { // the ids as drawn, no fix-up
		for j := range fixes {
			seq := fixes[j].seq
			if g.spec.bimodal() {
				seq = g.bimodalSeq(seq, inLens[j])
			}
			reqs[j] = Request{PromptTokens: seq, PromptLen: len(seq), OutputLen: outLens[j], ID: g.idPrefix + strconv.Itoa(from+j)}
			if then != nil {
				if err := then(&reqs[j]); err != nil {
					return nil, fmt.Errorf("request %d: %w", from+j, err)
				}
			}
		}
		g.i += m
		return reqs, nil
	}
	for j := range fixes {
		f := &fixes[j]
		if err := f.finish(g.tok, g.rng, g.vocab); err != nil {
			return nil, fmt.Errorf("random dataset: request %d: %w", from+j, err)
		}
		g.info.Mismatch += f.mismatch
		reqs[j] = Request{
			Prompt:    f.prompt,
			PromptLen: f.length,
			OutputLen: outLens[j],
			ID:        g.idPrefix + strconv.Itoa(from+j),
		}
		*f = fixup{} // release the prompt's tokens
		if then != nil {
			if err := then(&reqs[j]); err != nil {
				return nil, fmt.Errorf("request %d: %w", from+j, err)
			}
		}
	}
	g.i += m
	if b := g.spec.BatchSize; b > 1 {
		reqs = batch(reqs, b, g.idPrefix, from/b)
	}
	return reqs, nil
}

// bimodalSeq makes a bimodal prompt of l tokens from the request's own
// tokens seq (its last l, after any prefix): warm with probability
// CacheHitFraction (one draw of the shared rng, in request order), it
// starts with min(round(l·CacheRatio), len(base), l) tokens of the base,
// and its own tokens fill the rest.
func (g *randomGen) bimodalSeq(seq []int, l int) []int {
	own := seq[len(seq)-l:]
	cached := 0
	if g.rng.Random() < g.spec.CacheHitFraction {
		cached = min(int(math.Round(float64(l)*g.spec.CacheRatio)), len(g.base), l)
	}
	out := make([]int, 0, l)
	out = append(out, g.base[:cached]...)
	return append(out, own[:l-cached]...)
}

// allowedTokens returns [0, vocab) without the special ids, ascending.
func allowedTokens(vocab int, special []int) []int {
	skip := make(map[int]bool, len(special))
	for _, id := range special {
		skip[id] = true
	}
	allowed := make([]int, 0, vocab)
	for id := 0; id < vocab; id++ {
		if !skip[id] {
			allowed = append(allowed, id)
		}
	}
	return allowed
}

// batch groups consecutive requests into batches of size b, the first
// numbered first.
func batch(reqs []Request, b int, idPrefix string, first int) []Request {
	out := make([]Request, 0, (len(reqs)+b-1)/b)
	for i := 0; i < len(reqs); i += b {
		group := reqs[i:min(i+b, len(reqs))]
		r := Request{Prompts: make([]string, len(group)), ID: idPrefix + strconv.Itoa(first+i/b)}
		for k, g := range group {
			r.Prompts[k] = g.Prompt
			r.PromptLen += g.PromptLen
		}
		out = append(out, r)
	}
	return out
}

// fixup is the state of one run of vLLM's gen_prompt_decode_to_target_len.
type fixup struct {
	seq     []int // tokens to decode next
	target  int
	tries   int  // vLLM's remain_num_try
	keep    bool // keep the final tokens (the prefix needs them)
	deficit int  // > 0: waiting for this many tokens from the rng
	done    bool

	prompt   string // last decoded text
	length   int    // length of its encoding
	final    []int  // that encoding, when keep
	mismatch int    // length − target when the retries ran out
}

// run decodes and re-encodes until the fix-up is done or needs tokens
// from the rng; it draws nothing itself.
func (f *fixup) run(tok tokenizer.Tokenizer) {
	for {
		f.prompt = tok.Decode(f.seq)
		toks := tok.Encode(f.prompt, false)
		switch {
		case f.tries <= 0 || len(toks) == f.target:
			if len(toks) != f.target {
				f.mismatch = len(toks) - f.target
			}
			f.done, f.length, f.seq = true, len(toks), nil
			if f.keep {
				f.final = toks
			}
			return
		case len(toks) < f.target:
			f.seq, f.deficit = toks, f.target-len(toks)
			return
		}
		f.seq = toks[:f.target]
		f.tries--
	}
}

// finish completes the fix-up, padding from rng whenever a re-encoding
// comes out short.
func (f *fixup) finish(tok tokenizer.Tokenizer, rng *numpy.Generator, vocab int) error {
	if !f.done && f.deficit == 0 {
		f.run(tok)
	}
	for !f.done {
		extra, err := rng.Integers(0, int64(vocab), f.deficit)
		if err != nil {
			return err
		}
		for _, id := range extra {
			f.seq = append(f.seq, int(id))
		}
		f.deficit = 0
		f.tries--
		f.run(tok)
	}
	return nil
}

// parallelN calls fn(i) for every i in [0, n) on up to workers goroutines.
func parallelN(n, workers int, fn func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	const chunk = 8
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(start+chunk, n); i++ {
					fn(i)
				}
			}
		})
	}
	wg.Wait()
}
