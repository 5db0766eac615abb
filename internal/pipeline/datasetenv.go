package pipeline

import (
	"context"
	"fmt"
	"os"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// datasetEnv is the dataset stage's environment as a run makes it, and
// as `vbench dataset` makes it through BuildDataset, so that both build
// the same requests: the scenario's seed, backend (a kind may template its
// prompts for some backends only), prompt count and request-id
// prefix, Python's global random state (which the run hands on to the LoRA
// assignment), and server, which returns the server's tokenizer for the
// kinds that align with it (nil: no alignment).
func datasetEnv(sc *scenario.Scenario, tok tokenizer.Tokenizer, pyGlobal *numpy.PyRandom, idPrefix string, server func() (dataset.ServerTokenizer, error), obs report.RunObserver) dataset.Env {
	return dataset.Env{
		Tokenizer:   tok,
		Seed:        sc.Seed,
		Backend:     sc.Target.Backend,
		NumPrompts:  sc.Load.NumPrompts,
		MaxModelLen: sc.Load.MaxModelLen,
		IDPrefix:    idPrefix,
		PyGlobal:    pyGlobal,
		Server:      server,
		Stdout:      lineWriter(obs.Message),
		Stderr:      lineWriter(obs.Diagnostic),
	}
}

// alignServer returns the server's tokenizer for prompt alignment, asked
// through tgt's endpoint.
func alignServer(tgt *target, env Env) func() (dataset.ServerTokenizer, error) {
	return func() (dataset.ServerTokenizer, error) {
		api, err := tgt.ep.serverAPI(tgt.modelID, env)
		if err != nil {
			return nil, err
		}
		return newAlignTokenizer(api, lineWriter(env.observer().Diagnostic)), nil
	}
}

// DatasetOptions are BuildDataset's choices beyond the scenario.
type DatasetOptions struct {
	// Tokenizer is the client tokenizer (nil with tokenizer.skip_init).
	Tokenizer tokenizer.Tokenizer
	// Align asks the target server (starting the built-in simulator when
	// the scenario names it) for its tokenizer, as a run does, for the
	// kinds that re-align their prompts with it (random). Without it
	// nothing contacts the server and no prompt is re-aligned.
	Align bool
	// Counts, when set, receives the dataset's filter counts.
	Counts *dataset.Counts
}

// BuildDataset builds sc's requests as a run of sc prepares them, from the
// same dataset environment (see datasetEnv), without sending any. The
// request ids differ only when the scenario sets no request-id prefix: a
// run draws a random one. env's observer receives the dataset's messages.
func BuildDataset(ctx context.Context, sc *scenario.Scenario, env Env, opts DatasetOptions) ([]dataset.Request, error) {
	var server func() (dataset.ServerTokenizer, error)
	if opts.Align {
		ep := newEndpoint(sc)
		tgt, err := resolveTarget(ctx, sc, opts.Tokenizer, env, ep)
		if err != nil {
			return nil, err
		}
		defer tgt.closeSim()
		server = alignServer(tgt, env)
	}
	denv := datasetEnv(sc, opts.Tokenizer, pyGlobalRandom(sc.Seed), requestIDPrefix(sc), server, env.observer())
	denv.Counts = opts.Counts
	reqs, err := dataset.Build(ctx, sc.Dataset, denv)
	if err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, noRequests(sc)
	}
	return reqs, nil
}

// noRequests is the error of a dataset that produced no requests.
func noRequests(sc *scenario.Scenario) error {
	return fmt.Errorf("dataset %s produced no requests (load.num_prompts is %d)", sc.Dataset.Name, sc.Load.NumPrompts)
}

// heldObserver holds vbench's own lines (Diagnostic) while holding is set,
// until flush passes them on or drop forgets them; vLLM's lines pass.
type heldObserver struct {
	report.RunObserver
	holding bool
	lines   []string
}

// Diagnostic holds the line, or passes it on.
func (h *heldObserver) Diagnostic(text string) {
	if h.holding {
		h.lines = append(h.lines, text)
		return
	}
	h.RunObserver.Diagnostic(text)
}

// flush passes the held lines on and stops holding.
func (h *heldObserver) flush() {
	h.holding = false
	for _, l := range h.lines {
		h.RunObserver.Diagnostic(l)
	}
	h.lines = nil
}

// drop forgets the held lines and stops holding.
func (h *heldObserver) drop() {
	h.holding, h.lines = false, nil
}

// localTokenizer reports whether the scenario's tokenizer loads without
// the network: none, a built-in encoding or an existing path.
func localTokenizer(sc *scenario.Scenario) bool {
	name := sc.Tokenizer.Name
	if name == "" {
		name = sc.Target.Model
	}
	if sc.Tokenizer.SkipInit || tokenizer.IsBuiltin(name) {
		return true
	}
	_, err := os.Stat(name)
	return name != "" && err == nil
}
