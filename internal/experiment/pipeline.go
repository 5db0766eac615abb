package experiment

import (
	"context"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

// The single-run pipeline lives in internal/pipeline; these names keep the
// command line's calls in one place.

// Env is the process state a run uses (pipeline.Env).
type Env = pipeline.Env

// Outcome is what one run produced (pipeline.Outcome).
type Outcome = pipeline.Outcome

// ArgvMode makes a run write what `vllm bench serve` writes (pipeline.ArgvMode).
type ArgvMode = pipeline.ArgvMode

// ErrAllFailed is returned (wrapped) when a run completed but every request
// failed (pipeline.ErrAllFailed).
var ErrAllFailed = pipeline.ErrAllFailed

// Run executes one scenario run end to end (pipeline.Run).
func Run(ctx context.Context, sc *scenario.Scenario, env Env) (*Outcome, error) {
	return pipeline.Run(ctx, sc, env)
}

// SimTokenizer adapts a client tokenizer to the simulator's interface
// (pipeline.SimTokenizer).
func SimTokenizer(t tokenizer.Tokenizer) sim.Tokenizer { return pipeline.SimTokenizer(t) }

// Folded is a run's result rebuilt from its records file (pipeline.Folded).
type Folded = pipeline.Folded

// Fold rebuilds a run's summary from its records file alone (pipeline.Fold).
func Fold(ctx context.Context, path string, env Env) (*Folded, error) {
	return pipeline.Fold(ctx, path, env)
}

// ServerSamplesLine is the line about a run's sampled server gauges
// printed after its result block (pipeline.ServerSamplesLine).
func ServerSamplesLine(samples []promscrape.ServerSample) string {
	return pipeline.ServerSamplesLine(samples)
}

// ErrOutput is wrapped by the errors of the output checks made before a
// run or an experiment: the results cannot be written where the scenario
// says, or would replace earlier ones (pipeline.ErrOutput).
var ErrOutput = pipeline.ErrOutput

// ErrInput is wrapped by the errors of bad input found before or while
// preparing a run: a server that is not there, a dataset file that is
// missing or malformed (pipeline.ErrInput).
var ErrInput = pipeline.ErrInput
