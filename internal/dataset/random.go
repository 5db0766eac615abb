package dataset

import (
	"context"
	"errors"
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

func init() {
	Register(Kind{Name: "random", New: newRandomSource, IgnoreEOS: IgnoreEOSOnOpenAI, Align: true, NeedsTokenizer: true})
}

// randomSource is the random kind's Source: Random with the run's
// tokenizer, seed, request count and id prefix. It logs vLLM's sampling
// line and re-encoding warnings to Stderr.
type randomSource struct{ spec scenario.RandomDataset }

func newRandomSource(spec scenario.Dataset) (Source, error) {
	if spec.Random == nil {
		return nil, errors.New("the scenario sets no dataset.random")
	}
	return randomSource{spec: *spec.Random}, nil
}

// Requests generates every request before yielding the first: the prompts
// depend on one another through the shared rng.
func (s randomSource) Requests(_ context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		reqs, info, err := Random(s.spec, env.NumPrompts, env.Seed, env.Tokenizer, env.IDPrefix)
		if err != nil {
			yield(Request{}, err)
			return
		}
		fmt.Fprintln(env.Stderr, info.SamplingMessage())
		for _, w := range info.Warnings() {
			fmt.Fprintln(env.Stderr, w)
		}
		for i := range reqs {
			if !yield(reqs[i], nil) {
				return
			}
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
func Random(spec scenario.RandomDataset, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string) ([]Request, RandomInfo, error) {
	var info RandomInfo
	if numPrompts < 0 {
		return nil, info, fmt.Errorf("random dataset: num_prompts %d is negative", numPrompts)
	}
	if spec.PrefixLen < 0 {
		return nil, info, fmt.Errorf("random dataset: prefix_len %d is negative", spec.PrefixLen)
	}
	rIn, rOut := spec.RangeRatio.Input, spec.RangeRatio.Output
	if !(rIn >= 0 && rIn < 1) {
		return nil, info, fmt.Errorf("random dataset: range_ratio.input %v must be in [0, 1)", rIn)
	}
	if !(rOut >= 0 && rOut < 1) {
		return nil, info, fmt.Errorf("random dataset: range_ratio.output %v must be in [0, 1)", rOut)
	}
	vocab := tok.VocabSize()
	if vocab <= 0 {
		return nil, info, fmt.Errorf("random dataset: tokenizer %s has vocabulary size %d", tok.Name(), vocab)
	}
	numSpecial := tok.NumSpecialTokensToAdd()
	realIn := max(0, spec.InputLen-numSpecial)
	info.InputLow = int(math.Floor(float64(realIn) * (1 - rIn)))
	info.InputHigh = int(math.Ceil(float64(realIn) * (1 + rIn)))
	info.OutputLow = max(int(math.Floor(float64(spec.OutputLen)*(1-rOut))), 1)
	info.OutputHigh = max(int(math.Ceil(float64(spec.OutputLen)*(1+rOut))), 1)
	if minTotal := spec.PrefixLen + info.InputLow; minTotal < 1 {
		return nil, info, fmt.Errorf("random dataset: input_len %d is too small: with %d tokenizer special tokens and input range ratio %v, "+
			"the smallest possible prompt (prefix_len + sampled input) has %d tokens; "+
			"increase input_len or prefix_len, or decrease range_ratio, so that "+
			"prefix_len + floor(max(0, input_len - special) * (1 - input range ratio)) >= 1",
			spec.InputLen, numSpecial, rIn, minTotal)
	}

	rng, err := numpy.NewGenerator(seed)
	if err != nil {
		return nil, info, fmt.Errorf("random dataset: %w", err)
	}
	inputLens, err := rng.Integers(int64(info.InputLow), int64(info.InputHigh)+1, numPrompts)
	if err != nil {
		return nil, info, fmt.Errorf("random dataset: input lengths: %w", err)
	}
	outputLens, err := rng.Integers(int64(info.OutputLow), int64(info.OutputHigh)+1, numPrompts)
	if err != nil {
		return nil, info, fmt.Errorf("random dataset: output lengths: %w", err)
	}
	offsets, err := rng.Integers(0, int64(vocab), numPrompts)
	if err != nil {
		return nil, info, fmt.Errorf("random dataset: offsets: %w", err)
	}
	allowed := allowedTokens(vocab, tok.SpecialIDs())
	if len(allowed) == 0 {
		return nil, info, fmt.Errorf("random dataset: tokenizer %s has no non-special tokens", tok.Name())
	}

	var prefix []int
	if spec.PrefixLen > 0 {
		idx, err := rng.Integers(0, int64(len(allowed)), spec.PrefixLen)
		if err != nil {
			return nil, info, fmt.Errorf("random dataset: prefix: %w", err)
		}
		seq := make([]int, len(idx))
		for k, j := range idx {
			seq[k] = allowed[j]
		}
		f := &fixup{seq: seq, target: spec.PrefixLen, tries: maxRetries, keep: true}
		if err := f.finish(tok, rng, vocab); err != nil {
			return nil, info, fmt.Errorf("random dataset: prefix: %w", err)
		}
		prefix, info.PrefixMismatch = f.final, f.mismatch
	}

	fixes := make([]fixup, numPrompts)
	parallel(numPrompts, func(i int) {
		inLen := int(inputLens[i])
		seq := make([]int, 0, len(prefix)+inLen)
		seq = append(seq, prefix...)
		start := int(offsets[i]) + i
		for k := 0; k < inLen; k++ {
			seq = append(seq, allowed[(start+k)%len(allowed)])
		}
		fixes[i] = fixup{seq: seq, target: spec.PrefixLen + inLen, tries: maxRetries}
		fixes[i].run(tok)
	})

	reqs := make([]Request, numPrompts)
	for i := range fixes {
		f := &fixes[i]
		if err := f.finish(tok, rng, vocab); err != nil {
			return nil, info, fmt.Errorf("random dataset: request %d: %w", i, err)
		}
		info.Mismatch += f.mismatch
		reqs[i] = Request{
			Prompt:    f.prompt,
			PromptLen: f.length,
			OutputLen: int(outputLens[i]),
			ID:        idPrefix + strconv.Itoa(i),
		}
		*f = fixup{} // release the prompt's tokens
	}
	if spec.BatchSize > 1 {
		reqs = batch(reqs, spec.BatchSize, idPrefix)
	}
	return reqs, info, nil
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

// batch groups consecutive requests into batches of size b.
func batch(reqs []Request, b int, idPrefix string) []Request {
	out := make([]Request, 0, (len(reqs)+b-1)/b)
	for i := 0; i < len(reqs); i += b {
		group := reqs[i:min(i+b, len(reqs))]
		r := Request{Prompts: make([]string, len(group)), ID: idPrefix + strconv.Itoa(i/b)}
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

// parallel calls fn(i) for every i in [0, n) on up to GOMAXPROCS
// goroutines.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
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
