// Package report writes what a run reports: vLLM's console result block
// byte for byte, the result JSON in vLLM's key order and Python's JSON
// formatting, and the result file name and file writes.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/py"
)

// width of the result block, and of its label column.
const (
	blockWidth = 50
	labelWidth = 40
	valueWidth = 10
)

// SpecDecodeStats are the speculative-decoding statistics derived from the
// server's /metrics counters (deltas over the run).
type SpecDecodeStats struct {
	// AcceptanceRate is 100 * accepted / draft tokens.
	AcceptanceRate float64
	// AcceptanceLength is 1 + accepted / drafts (0 without drafts).
	AcceptanceLength float64
	// NumDrafts, DraftTokens and AcceptedTokens are the counter deltas.
	NumDrafts      int
	DraftTokens    int
	AcceptedTokens int
	// PerPositionAcceptanceRates are accepted-at-position / drafts, by position.
	PerPositionAcceptanceRates []float64
}

// DiffusionStats are the diffusion (dLLM) decoding statistics derived from
// the server's /metrics counters. The integer fields are the truncated
// values vLLM prints and saves.
type DiffusionStats struct {
	// CommittedThroughput is committed tokens / duration.
	CommittedThroughput float64
	// StepsPerCanvas is denoising steps / canvases.
	StepsPerCanvas float64
	// CommittedPerStep is committed tokens / denoising steps.
	CommittedPerStep float64
	// CommittedTokens, DenoisingSteps and CanvasPositions are the deltas,
	// truncated to integers.
	CommittedTokens int
	DenoisingSteps  int
	CanvasPositions int
}

// ConsoleInput is what the console result block shows and the settings its
// conditional lines depend on. Whether a tokenizer was present and whether
// goodput was configured come from the Summary (HasTokenizer,
// RequestGoodput).
type ConsoleInput struct {
	// Summary is the run's summary.
	Summary *metrics.Summary
	// MaxConcurrency is --max-concurrency, nil when unlimited.
	MaxConcurrency *int
	// RequestRate is the configured rate; +Inf (also the case with ramp-up)
	// hides the "Request rate configured" line.
	RequestRate float64
	// Probe, SpecDecode and Diffusion add their sections when non-nil.
	Probe      *metrics.ProbeSummary
	SpecDecode *SpecDecodeStats
	Diffusion  *DiffusionStats
	// ProfileStop is the outcome of the call that stopped the server's
	// profiler (--profile), whose lines Console.Result prints after the
	// block (WriteConsole does not).
	ProfileStop Profiler
}

// block accumulates console lines in Python's formats.
type block struct{ strings.Builder }

// line writes "{:<40} {:<10}" of a label and an already formatted value.
func (b *block) line(label, value string) {
	b.WriteString(ljust(label, labelWidth))
	b.WriteByte(' ')
	b.WriteString(ljust(value, valueWidth))
	b.WriteByte('\n')
}

func (b *block) int(label string, v int)    { b.line(label, strconv.Itoa(v)) }
func (b *block) f2(label string, v float64) { b.line(label, py.Fixed(v, 2)) }

// count and value write the line of a metric of the table, under its
// console title, as an integer or with .2f.
func (b *block) count(key string, v int)     { b.int(metrics.MustLookup(key).Title, v) }
func (b *block) value(key string, v float64) { b.f2(metrics.MustLookup(key).Title, v) }
func (b *block) header(title string, fill byte) {
	b.WriteString(center(title, fill, blockWidth) + "\n")
}

// WriteConsole writes vLLM's result block, from the centred
// " Serving Benchmark Result " line to the closing line of 50 "=". Lines are
// "{:<40} {:<10}" (integers) or "{:<40} {:<10.2f}" (floats), so they keep
// their trailing spaces; section headers are centred in 50 columns with the
// odd fill character on the right. Conditional lines follow vLLM: maximum
// concurrency when set, the configured rate when finite, token lines only
// with a tokenizer, goodput when configured, RTFx when positive (a pooling
// run prints its input throughput in place of the generation lines), the latency
// sections in metric order (std is not printed), then the probe,
// diffusion or speculative-decoding sections.
func WriteConsole(w io.Writer, in ConsoleInput) error {
	s := in.Summary
	var b block
	b.header(" Serving Benchmark Result ", '=')
	b.count(metrics.KeyCompleted, s.Completed)
	b.count(metrics.KeyFailed, s.Failed)
	if in.MaxConcurrency != nil {
		b.int("Maximum request concurrency:", *in.MaxConcurrency)
	}
	if !math.IsInf(in.RequestRate, 1) {
		b.f2("Request rate configured (RPS):", in.RequestRate)
	}
	b.value(metrics.KeyDuration, s.Duration)
	b.count(metrics.KeyTotalInputTokens, s.TotalInput)
	if s.HasTokenizer && !s.Pooling {
		b.count(metrics.KeyTotalOutputTokens, s.TotalOutput)
	}
	b.value(metrics.KeyRequestThroughput, s.RequestThroughput)
	if s.Pooling {
		b.value(metrics.KeyInputThroughput, s.InputSequenceThroughput)
	} else {
		writeGenerationLines(&b, s)
	}
	if s.HasTokenizer {
		b.value(metrics.KeyTotalTokenThroughput, s.TotalTokenThroughput)
	}
	if p := in.Probe; p != nil {
		b.header("Probe Requests", '-')
		b.count(metrics.KeyProbeCompleted, p.Completed)
		b.count(metrics.KeyProbeFailed, p.Failed)
		b.value(metrics.KeyProbeMedianE2EL, p.MedianE2ELMs)
		b.value(metrics.KeyProbeP99E2EL, p.P99E2ELMs)
		b.value(metrics.KeyProbeMaxE2EL, p.MaxE2ELMs)
	}
	for _, m := range s.Metrics {
		l, ok := metrics.LatencyByName(m.Name)
		if !ok {
			return fmt.Errorf("unknown metric %q", m.Name)
		}
		b.header(l.Header, '-')
		b.value(metrics.StatKey(metrics.StatMean, m.Name), m.Mean)
		b.value(metrics.StatKey(metrics.StatMedian, m.Name), m.Median)
		for _, p := range m.Percentiles {
			b.value(metrics.PercentileKey(p.P, m.Name), p.Value)
		}
	}
	if d := in.Diffusion; d != nil {
		b.header("Diffusion Decoding", '-')
		b.value(metrics.KeyDiffusionCommittedThroughput, d.CommittedThroughput)
		b.value(metrics.KeyDiffusionStepsPerCanvas, d.StepsPerCanvas)
		b.value(metrics.KeyDiffusionCommittedPerStep, d.CommittedPerStep)
		b.count(metrics.KeyDiffusionCommittedTokens, d.CommittedTokens)
		b.count(metrics.KeyDiffusionDenoisingSteps, d.DenoisingSteps)
		b.count(metrics.KeyDiffusionCanvasPositions, d.CanvasPositions)
	}
	if sd := in.SpecDecode; sd != nil && in.Diffusion == nil {
		b.header("Speculative Decoding", '-')
		b.value(metrics.KeySpecAcceptanceRate, sd.AcceptanceRate)
		b.value(metrics.KeySpecAcceptanceLength, sd.AcceptanceLength)
		b.count(metrics.KeySpecNumDrafts, sd.NumDrafts)
		b.count(metrics.KeySpecDraftTokens, sd.DraftTokens)
		b.count(metrics.KeySpecAcceptedTokens, sd.AcceptedTokens)
		if len(sd.PerPositionAcceptanceRates) > 0 {
			b.WriteString(metrics.MustLookup(metrics.KeySpecPerPosition).Title + "\n")
			for i, r := range sd.PerPositionAcceptanceRates {
				b.f2(fmt.Sprintf("  Position %d:", i), r*100)
			}
		}
	}
	b.WriteString(strings.Repeat("=", blockWidth) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeGenerationLines writes the lines of a generation run between the
// request throughput and the total token throughput: goodput when
// configured, the output throughputs with a tokenizer, the peak
// concurrency, and RTFx when positive.
func writeGenerationLines(b *block, s *metrics.Summary) {
	if s.RequestGoodput != nil {
		b.value(metrics.KeyRequestGoodput, *s.RequestGoodput)
	}
	if s.HasTokenizer {
		b.value(metrics.KeyOutputThroughput, s.OutputThroughput)
		b.value(metrics.KeyMaxOutputTokensPerS, s.MaxOutputTokensPerS)
	}
	// vLLM formats the integer peak with .2f ("64.00").
	b.value(metrics.KeyMaxConcurrentRequests, float64(s.MaxConcurrentRequests))
	if s.RTFx > 0 {
		b.value(metrics.KeyRTFx, s.RTFx)
	}
}

// maxPrintedFailures is how many failure texts vLLM prints.
const maxPrintedFailures = 10

// WriteMetricsNotes writes the lines vLLM prints while computing the
// metrics, just before the result block: when requests failed,
// "Failed requests during benchmark run detected (capping to 10):" and
// "Error <i>: <text>" for the first 10 failures. (vLLM then prints a hint
// about its optional Python plotting packages, which does not apply to
// vbench and is left out.)
func WriteMetricsNotes(w io.Writer, s *metrics.Summary) error {
	var b strings.Builder
	if len(s.FailureErrors) > 0 {
		b.WriteString("Failed requests during benchmark run detected (capping to 10):\n")
		for i, e := range s.FailureErrors[:min(len(s.FailureErrors), maxPrintedFailures)] {
			fmt.Fprintf(&b, "Error %d: %s\n", i, e)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
