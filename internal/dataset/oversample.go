package dataset

import (
	"fmt"
	"io"
	"strconv"

	"github.com/vbench/vbench/internal/numpy"
)

// maybeOversample is vLLM's BenchmarkDataset.maybe_oversample_requests:
// unless noOversample, when fewer than n requests were sampled it reseeds
// CPython's random with seed and appends copies of random.choice picks
// from the sampled requests, request i of the copies getting the id
// idPrefix + (len(reqs) + i). It logs vLLM's info lines to logw and fails
// where vLLM raises: nothing to pick from, or a duplicate request id.
func maybeOversample(reqs []Request, n int, seed int64, idPrefix string, noOversample bool, logw io.Writer) ([]Request, error) {
	return maybeOversampleFrom(nil, reqs, n, seed, idPrefix, noOversample, logw)
}

// maybeOversampleFrom is maybeOversample drawing from global, Python's
// global random generator (Env.PyGlobal), which it reseeds as vLLM does,
// so that later draws from it (the LoRA modules' random assignment)
// continue where vLLM's would; with global nil, from a generator of its
// own.
func maybeOversampleFrom(global *numpy.PyRandom, reqs []Request, n int, seed int64, idPrefix string, noOversample bool, logw io.Writer) ([]Request, error) {
	if noOversample {
		fmt.Fprintf(logw, "Skipping oversampling. Total samples: %d.\n", len(reqs))
		return reqs, nil
	}
	if len(reqs) < n {
		if len(reqs) == 0 {
			return nil, fmt.Errorf("no requests to oversample to %d (the dataset gave none)", n)
		}
		rng := global
		if rng == nil {
			rng = numpy.NewPyRandom(seed)
		} else {
			rng.Seed(seed)
		}
		have := len(reqs)
		for i := range n - have {
			r := reqs[rng.Choice(have)]
			r.ID = idPrefix + strconv.Itoa(have+i)
			reqs = append(reqs, r)
		}
		fmt.Fprintf(logw, "Oversampled requests to reach %d total samples.\n", n)
	}
	seen := make(map[string]bool, len(reqs))
	for _, r := range reqs {
		if seen[r.ID] {
			return nil, fmt.Errorf("duplicate request id %q in the sampled requests", r.ID)
		}
		seen[r.ID] = true
	}
	return reqs, nil
}
