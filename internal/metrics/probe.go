package metrics

import (
	"slices"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/record"
)

// ProbeSummary summarises the side-channel probe requests (vLLM's
// --probe-request-rate): counts, and the median, 99th percentile and
// maximum of the successful probes' end-to-end latencies in milliseconds.
type ProbeSummary struct {
	// Completed and Failed count the probes.
	Completed int
	Failed    int
	// MedianE2ELMs is numpy's median of the successful latencies, in ms.
	MedianE2ELMs float64
	// P99E2ELMs is numpy's 99th percentile of them, in ms.
	P99E2ELMs float64
	// MaxE2ELMs is the largest of them, in ms.
	MaxE2ELMs float64
}

// ComputeProbe summarises probe records. It returns nil when no probe
// succeeded, as vLLM then reports no probe statistics at all.
func ComputeProbe(recs []*record.Record) *ProbeSummary {
	var lats []float64
	for _, r := range recs {
		if r.Success {
			lats = append(lats, r.Latency())
		}
	}
	return probeFromLatencies(lats, len(recs))
}

func probeFromLatencies(lats []float64, total int) *ProbeSummary {
	if len(lats) == 0 {
		return nil
	}
	s := sortedCopy(lats)
	return &ProbeSummary{
		Completed:    len(lats),
		Failed:       total - len(lats),
		MedianE2ELMs: numpy.MedianSorted(s) * 1000,
		P99E2ELMs:    numpy.PercentileSorted(s, 99) * 1000,
		MaxE2ELMs:    slices.Max(lats) * 1000,
	}
}
