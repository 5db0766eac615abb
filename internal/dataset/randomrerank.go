package dataset

import (
	"context"
	"fmt"
	"iter"
	"math"
	"runtime"
	"strconv"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// RandomRerankSpec is the random_rerank kind's section of a scenario:
// vLLM's random-rerank dataset (RandomDatasetForReranking in upstream
// vllm/benchmarks/datasets/datasets.py), random queries with batches of
// random documents for the vllm-rerank backend. It has random's fields;
// vLLM reads input_len, range_ratio and batch_size of them.
type RandomRerankSpec struct {
	RandomSpec
	// NoReranker counts tokens for a model that is not a reranker, which
	// adds no separator token between query and document (--no-reranker).
	NoReranker bool `json:"no_reranker"`
}

func init() {
	Register(Kind{Name: "random_rerank", Spec: newSpec[RandomRerankSpec](), New: newRandomRerankSource,
		NeedsTokenizer: true, Check: checkRandomRerank})
}

// checkRandomRerank refuses what vLLM's class asserts or ignores: a
// prefix (it has none), and without a reranker a batch of fewer than two.
func checkRandomRerank(spec any) []scenario.Problem {
	r := spec.(*RandomRerankSpec)
	var out []scenario.Problem
	if r.PrefixLen != 0 {
		out = append(out, scenario.NewProblem("random_rerank has no shared prefix (vLLM ignores --random-prefix-len for it): want prefix_len 0",
			"dataset", "random_rerank", "prefix_len"))
	}
	if r.NoReranker && r.BatchSize < 2 {
		out = append(out, scenario.NewProblem(fmt.Sprintf("without a reranker every request's first input is the query and the rest of its batch documents: want batch_size >= 2, got %d", r.BatchSize),
			"dataset", "random_rerank", "batch_size"))
	}
	return out
}

// randomRerankSource is the random_rerank kind's Source.
type randomRerankSource struct{ spec RandomRerankSpec }

func newRandomRerankSource(spec scenario.Dataset) (Source, error) {
	r, err := specOf[RandomRerankSpec](spec)
	if err != nil {
		return nil, err
	}
	return randomRerankSource{spec: *r}, nil
}

// Requests makes every request (RandomRerank) and yields them, logging
// vLLM's two sampling lines and its re-encoding warning.
func (s randomRerankSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		reqs, info, err := RandomRerank(s.spec, env.NumPrompts, env.Seed, env.Tokenizer, env.IDPrefix)
		for _, line := range info.Sampling {
			fmt.Fprintln(env.Stderr, line)
		}
		if err != nil {
			yield(Request{}, err)
			return
		}
		for _, w := range info.Warnings() {
			fmt.Fprintln(env.Stderr, w)
		}
		for _, r := range reqs {
			if err := ctx.Err(); err != nil {
				yield(Request{}, err)
				return
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// RerankInfo is what vLLM's random-rerank dataset logs while sampling.
type RerankInfo struct {
	// Sampling are its "Sampling input_len from ..." lines: the query's,
	// then the documents'.
	Sampling []string
	// Mismatch is the sum over query and documents of re-encoded length
	// minus target length, for those whose retries ran out.
	Mismatch int
}

// Warnings returns vLLM's warning about lengths re-encoding could not
// fix; none when Mismatch is 0.
func (r RerankInfo) Warnings() []string { return RandomInfo{Mismatch: r.Mismatch}.Warnings() }

// RandomRerank generates vLLM's random-rerank dataset for numPrompts
// documents (numPrompts − 1 without a reranker). With S the separator
// tokens (1 for a reranker, else 0), V = tok.VocabSize() and rng =
// np.random.default_rng(seed):
//
//  1. The query's length is drawn as random's input lengths are (its
//     special tokens off, the input range ratio; one draw each of input
//     length, output length 0 and offset) from input_len/2 − S, or
//     input_len without a reranker.
//  2. The documents' lengths and offsets likewise, for every document,
//     from input_len − query length − S, or input_len.
//  3. The query (index 0) and document i (index i + 1) are the allowed
//     tokens (random's) from offset + index on, fixed up as random's
//     prompts are, padding from rng: the query first, then the documents.
//  4. Consecutive batches of batch_size documents (batch_size − 1 without
//     a reranker) become one request: Prompts = the query then the
//     documents, PromptLen = (query length + S) × documents + their
//     lengths (query length + theirs without a reranker), OutputLen 0,
//     ID = idPrefix + the batch number.
func RandomRerank(spec RandomRerankSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string) ([]Request, RerankInfo, error) {
	var info RerankInfo
	reranker := !spec.NoReranker
	sep := 0
	if reranker {
		sep = 1
	}
	n, batch := numPrompts, spec.BatchSize
	if !reranker {
		if n <= 1 || batch <= 1 {
			return nil, info, fmt.Errorf("random_rerank without a reranker needs num_prompts > 1 and batch_size > 1, got %d and %d", n, batch)
		}
		n, batch = n-1, batch-1
	}
	if n < 1 || batch < 1 {
		return nil, info, fmt.Errorf("random_rerank: want num_prompts and batch_size >= 1, got %d and %d", numPrompts, spec.BatchSize)
	}
	rIn := spec.RangeRatio.Input
	if !(rIn >= 0 && rIn < 1) {
		return nil, info, fmt.Errorf("random_rerank: range_ratio.input %v must be in [0, 1)", rIn)
	}
	vocab := tok.VocabSize()
	if vocab <= 0 {
		return nil, info, fmt.Errorf("random_rerank: tokenizer %s has vocabulary size %d", tok.Name(), vocab)
	}
	rng, err := numpy.NewGenerator(seed)
	if err != nil {
		return nil, info, fmt.Errorf("random_rerank: %w", err)
	}
	special := tok.NumSpecialTokensToAdd()
	// lengths draws vLLM's get_sampling_params for m requests of target
	// length target and output length 0: the lengths and offsets.
	lengths := func(m, target int) (lens, offs []int, err error) {
		real := max(0, target-special)
		lo, hi := int(math.Floor(float64(real)*(1-rIn))), int(math.Ceil(float64(real)*(1+rIn)))
		info.Sampling = append(info.Sampling, RandomInfo{InputLow: lo, InputHigh: hi, OutputLow: 1, OutputHigh: 1}.SamplingMessage())
		in, err := rng.Integers(int64(lo), int64(hi)+1, m)
		if err != nil {
			return nil, nil, err
		}
		if _, err := rng.Integers(1, 2, m); err != nil {
			return nil, nil, err
		}
		off, err := rng.Integers(0, int64(vocab), m)
		if err != nil {
			return nil, nil, err
		}
		lens, offs = make([]int, m), make([]int, m)
		for i := range m {
			lens[i], offs[i] = int(in[i]), int(off[i])
		}
		return lens, offs, nil
	}
	qParam := spec.InputLen
	if reranker {
		qParam = spec.InputLen/2 - sep
	}
	qLens, qOffs, err := lengths(1, qParam)
	if err != nil {
		return nil, info, fmt.Errorf("random_rerank: query length: %w", err)
	}
	dParam := spec.InputLen
	if reranker {
		dParam = spec.InputLen - qLens[0] - sep
	}
	dLens, dOffs, err := lengths(n, dParam)
	if err != nil {
		return nil, info, fmt.Errorf("random_rerank: document lengths: %w", err)
	}
	allowed := allowedTokens(vocab, tok.SpecialIDs())
	if len(allowed) == 0 {
		return nil, info, fmt.Errorf("random_rerank: tokenizer %s has no non-special tokens", tok.Name())
	}
	// The fix-ups run in parallel until each needs the rng, then finish
	// in order (see Random).
	fixes := make([]fixup, n+1)
	parallelN(n+1, runtime.GOMAXPROCS(0), func(j int) {
		length, off := qLens[0], qOffs[0]
		if j > 0 {
			length, off = dLens[j-1], dOffs[j-1]
		}
		seq := make([]int, length)
		for k := range seq {
			seq[k] = allowed[(off+j+k)%len(allowed)]
		}
		fixes[j] = fixup{seq: seq, target: length, tries: maxRetries}
		fixes[j].run(tok)
	})
	for j := range fixes {
		if err := fixes[j].finish(tok, rng, vocab); err != nil {
			return nil, info, fmt.Errorf("random_rerank: input %d: %w", j, err)
		}
		info.Mismatch += fixes[j].mismatch
	}
	query := fixes[0]
	var reqs []Request
	for i := 0; i < n; i += batch {
		docs := fixes[1+i : 1+min(i+batch, n)]
		r := Request{Prompts: make([]string, 0, len(docs)+1), ID: idPrefix + strconv.Itoa(i/batch)}
		r.Prompts = append(r.Prompts, query.prompt)
		r.PromptLen = query.length
		if reranker {
			r.PromptLen = (query.length + sep) * len(docs)
		}
		for _, d := range docs {
			r.Prompts = append(r.Prompts, d.prompt)
			r.PromptLen += d.length
		}
		reqs = append(reqs, r)
	}
	return reqs, info, nil
}
