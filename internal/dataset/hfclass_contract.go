package dataset

// This file stands in for hfclasses.go (the hf dataset classes, written on
// another branch) until that branch is merged; the merge deletes it.

import (
	"context"
	"iter"

	"github.com/vbench/vbench/internal/scenario"
)

type hfClass struct {
	Name         string   // vLLM's class name, e.g. "InstructCoderDataset"
	IDs          []string // dataset ids it serves (vLLM's SUPPORTED_DATASET_PATHS)
	DefaultSplit string   // split used when --hf-split is unset ("" = "train")
	// Sample turns the loaded (already shuffled) rows into requests, as the class's
	// sample() does: filtering, prompt building, chat template, output length,
	// request ids and oversampling.
	Sample func(ctx context.Context, rows iter.Seq2[hfRow, error], spec *scenario.HFDataset, env Env) iter.Seq2[Request, error]
}

// hfClassFor returns the class serving dataset id (the Hub id: spec.Name if set, else spec.Path), or nil.
func hfClassFor(id string) *hfClass { return nil }
