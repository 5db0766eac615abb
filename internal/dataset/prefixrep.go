package dataset

import (
	"context"
	"fmt"
	"iter"
	"math"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// PrefixRepetitionSpec is the prefix_repetition kind's section of a
// scenario: vLLM's prefix_repetition dataset.
type PrefixRepetitionSpec struct {
	// PrefixLen is the shared prefix length in tokens
	// (--prefix-repetition-prefix-len).
	PrefixLen int `json:"prefix_len"`
	// SuffixLen is the per-request suffix length in tokens
	// (--prefix-repetition-suffix-len).
	SuffixLen int `json:"suffix_len"`
	// NumPrefixes is the number of distinct prefixes
	// (--prefix-repetition-num-prefixes).
	NumPrefixes int `json:"num_prefixes"`
	// OutputLen is the output length in tokens
	// (--prefix-repetition-output-len).
	OutputLen int `json:"output_len"`
	// DisableShuffle keeps requests grouped by prefix (--disable-shuffle).
	DisableShuffle bool `json:"disable_shuffle"`
}

func init() {
	Register(Kind{Name: "prefix_repetition", Spec: newSpec[PrefixRepetitionSpec](), New: newPrefixRepetitionSource, Align: true, NeedsTokenizer: true})
}

// prefixRepetitionSource is the prefix_repetition kind's Source.
type prefixRepetitionSource struct {
	spec PrefixRepetitionSpec
}

func newPrefixRepetitionSource(spec scenario.Dataset) (Source, error) {
	p, err := specOf[PrefixRepetitionSpec](spec)
	if err != nil {
		return nil, err
	}
	switch {
	case p.PrefixLen < 0:
		return nil, fmt.Errorf("dataset.prefix_repetition.prefix_len (--prefix-repetition-prefix-len) is %d; it must be at least 0", p.PrefixLen)
	case p.SuffixLen < 0:
		return nil, fmt.Errorf("dataset.prefix_repetition.suffix_len (--prefix-repetition-suffix-len) is %d; it must be at least 0", p.SuffixLen)
	case p.NumPrefixes <= 0:
		return nil, fmt.Errorf("dataset.prefix_repetition.num_prefixes (--prefix-repetition-num-prefixes) is %d; it must be at least 1", p.NumPrefixes)
	case p.OutputLen < 0:
		return nil, fmt.Errorf("dataset.prefix_repetition.output_len (--prefix-repetition-output-len) is %d; it must be at least 0", p.OutputLen)
	}
	return prefixRepetitionSource{spec: *p}, nil
}

// Requests generates every request before yielding the first: the shuffle
// needs them all.
func (s prefixRepetitionSource) Requests(_ context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		reqs, mismatch, err := PrefixRepetition(s.spec, env.NumPrompts, env.Seed, env.Tokenizer, env.PyGlobal)
		if err != nil {
			yield(Request{}, err)
			return
		}
		if mismatch != 0 {
			fmt.Fprintf(env.Stderr, "Across all generated prompts, there were %d %s tokens "+
				"than expected after decoding and re-encoding. This is "+
				"expected due to the imperfect nature of the sampling "+
				"procedure.\n", abs(mismatch), moreOrFewer(mismatch))
		}
		for i := range reqs {
			if !yield(reqs[i], nil) {
				return
			}
		}
	}
}

// PrefixRepetition generates vLLM's prefix_repetition dataset
// (PrefixRepetitionRandomDataset in upstream vllm/benchmarks/datasets/datasets.py) for numPrompts requests
// with the given seed. It returns the requests in send order and the sum
// of the length mismatches the fix-ups could not remove (vLLM's
// token_mismatch_total, which it only logs). With V = tok.VocabSize():
//
//  1. random.seed(seed) and np.random.seed(seed): CPython's generator
//     (numpy.PyRandom) and NumPy's legacy one (numpy.RandomState), both
//     fresh.
//  2. per, rem = divmod(numPrompts, num_prefixes); per = 0 is an error.
//  3. For each prefix p in order: its tokens are randint(0, V, prefix_len)
//     from the legacy generator, fixed up (below) to prefix_len; then
//     per + (p < rem) requests, each with a suffix drawn and fixed up the
//     same way to suffix_len. A request's prompt is the decoding of prefix
//     + suffix tokens (not re-encoded as a whole), its PromptLen their
//     count, its OutputLen output_len; it has no id (vLLM's prefix
//     repetition requests send no x-request-id).
//  4. Fix-up (vLLM's gen_prompt_decode_to_target_len without an rng): up
//     to 10 times, decode then re-encode without special tokens; equal to
//     the target: done; shorter: append randint(0, V, deficit) from the
//     legacy generator; longer: truncate to the target. After the 10th
//     adjustment the text is decoded and encoded once more and any
//     difference is counted in the mismatch. The tokens kept are the last
//     encoding.
//  5. random.shuffle(requests) unless disable_shuffle.
//
// The seed must be in numpy's range [0, 2³²). pyGlobal, when not nil, is
// Python's global generator: it is reseeded and shuffles, and is left as
// vLLM leaves it; nil uses a generator of its own.
func PrefixRepetition(spec PrefixRepetitionSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, pyGlobal *numpy.PyRandom) ([]Request, int, error) {
	if seed < 0 || seed > math.MaxUint32 {
		return nil, 0, fmt.Errorf("seed %d is outside numpy's range 0..4294967295", seed)
	}
	if spec.NumPrefixes <= 0 {
		return nil, 0, fmt.Errorf("num_prefixes %d must be at least 1", spec.NumPrefixes)
	}
	if spec.PrefixLen < 0 || spec.SuffixLen < 0 {
		return nil, 0, fmt.Errorf("prefix_len %d and suffix_len %d must not be negative", spec.PrefixLen, spec.SuffixLen)
	}
	per, rem := numPrompts/spec.NumPrefixes, numPrompts%spec.NumPrefixes
	if numPrompts < 0 || per == 0 {
		return nil, 0, fmt.Errorf("num_prompts (%d) must be greater than or equal to num_prefixes (%d)", numPrompts, spec.NumPrefixes)
	}
	vocab := tok.VocabSize()
	if vocab <= 0 {
		return nil, 0, fmt.Errorf("tokenizer %s has vocabulary size %d", tok.Name(), vocab)
	}
	if pyGlobal == nil {
		pyGlobal = new(numpy.PyRandom)
	}
	pyGlobal.Seed(seed)
	rs := numpy.NewRandomState(uint32(seed))
	mismatch := 0
	exact := func(target int) ([]int, error) {
		seq, err := randTokens(rs, vocab, target, nil)
		if err != nil {
			return nil, err
		}
		for tries := maxRetries; ; tries-- {
			seq = tok.Encode(tok.Decode(seq), false)
			if tries <= 0 {
				mismatch += len(seq) - target
				return seq, nil
			}
			switch {
			case len(seq) == target:
				return seq, nil
			case len(seq) < target:
				if seq, err = randTokens(rs, vocab, target-len(seq), seq); err != nil {
					return nil, err
				}
			default:
				seq = seq[:target]
			}
		}
	}
	reqs := make([]Request, 0, numPrompts)
	for p := range spec.NumPrefixes {
		prefix, err := exact(spec.PrefixLen)
		if err != nil {
			return nil, 0, fmt.Errorf("prefix %d: %w", p, err)
		}
		n := per
		if p < rem {
			n++
		}
		for range n {
			suffix, err := exact(spec.SuffixLen)
			if err != nil {
				return nil, 0, fmt.Errorf("prefix %d: suffix: %w", p, err)
			}
			combined := make([]int, 0, len(prefix)+len(suffix))
			combined = append(append(combined, prefix...), suffix...)
			reqs = append(reqs, Request{Prompt: tok.Decode(combined), PromptLen: len(combined), OutputLen: spec.OutputLen})
		}
	}
	if !spec.DisableShuffle {
		pyGlobal.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
	}
	return reqs, mismatch, nil
}

// randTokens appends randint(0, vocab, n) from the legacy generator to
// dst.
func randTokens(rs *numpy.RandomState, vocab, n int, dst []int) ([]int, error) {
	ids, err := rs.Randint(0, int64(vocab), n)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		dst = append(dst, int(id))
	}
	return dst, nil
}
