package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/vbench/vbench/internal/metrics"
)

// RampUp is the ramp-up setting as it appears in the result header and
// file name. vLLM's start and end rates are integers; integral values are
// written as JSON integers.
type RampUp struct {
	// Strategy is linear or exponential.
	Strategy string
	// StartRPS and EndRPS are the first and last request rates.
	StartRPS float64
	EndRPS   float64
}

// Metadata is one --metadata KEY=VALUE pair; the pairs keep their order.
type Metadata struct {
	// Key and Value are the text before and after the first "=", trimmed.
	Key, Value string
}

// RPSChangeEvent is one integer step of the ramped request rate and the
// ISO wall-clock time it was reached.
type RPSChangeEvent struct {
	// RPS is the integer rate reached.
	RPS int
	// Timestamp is Python's datetime.now().isoformat() of that moment.
	Timestamp string
}

// ResultInput is everything the result JSON holds.
type ResultInput struct {
	// Date is the end-of-run local time as YYYYMMDD-HHMMSS.
	Date string
	// Backend is the backend name (also written as endpoint_type).
	Backend string
	// Label is --label; "" writes null.
	Label string
	// ModelID is the model id (--model or the server's /v1/models root).
	ModelID string
	// TokenizerID is the tokenizer id; "" (no client tokenizer) writes null.
	TokenizerID string
	// NumPrompts is --num-prompts.
	NumPrompts int
	// Metadata are the --metadata pairs, in order. A key equal to a later
	// result key keeps its position but ends up with the result's value, as
	// in vLLM's dict merge.
	Metadata []Metadata
	// RequestRate is the configured rate; +Inf is written as "inf".
	RequestRate float64
	// Burstiness is the gamma shape (+Inf is written as Infinity).
	Burstiness float64
	// MaxConcurrency is nil when unlimited (written as null).
	MaxConcurrency *int
	// RampUp adds the ramp-up header keys when non-nil.
	RampUp *RampUp

	// Summary is the run's summary (generation body and statistics).
	Summary *metrics.Summary
	// SaveDetailed keeps input_lens, output_lens, ttfts, itls, start_times,
	// generated_texts and errors; latencies and queue_times are always kept.
	SaveDetailed bool

	// Probe adds the probe_* keys when non-nil.
	Probe *metrics.ProbeSummary
	// RPSChangeEvents adds rps_change_events when non-empty (ramp-up).
	RPSChangeEvents []RPSChangeEvent
	// SpecDecode adds the spec_decode_* keys when non-nil.
	SpecDecode *SpecDecodeStats
	// Diffusion adds the diffusion_* keys when non-nil.
	Diffusion *DiffusionStats

	// VBench, when non-nil, is written last under the key "vbench": the
	// JSON object of what vbench adds (version, scenario hash, resolved
	// scenario, its own measurements), in its own key order.
	VBench json.Marshaler
}

// detailKeys are the keys vLLM drops without --save-detailed.
var detailKeys = []string{"input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors"}

// BuildResult assembles the result JSON object in vLLM's key order:
//
//	date, endpoint_type, backend, label, model_id, tokenizer_id, num_prompts,
//	<metadata...>, request_rate, burstiness, max_concurrency,
//	[ramp_up_strategy, ramp_up_start_rps, ramp_up_end_rps],
//	duration, completed, failed, total_input_tokens, total_output_tokens,
//	request_throughput, request_goodput, output_throughput,
//	total_token_throughput, input_lens, output_lens, ttfts, itls, latencies,
//	start_times, queue_times, generated_texts, errors,
//	max_output_tokens_per_s, max_concurrent_requests, rtfx,
//	(a pooling run: duration, completed, total_input_tokens,
//	total_input_sequences, request_throughput, input_sequence_throughput,
//	total_token_throughput, input_lens, latencies, queue_times, errors),
//	[probe_*], [rps_change_events], [spec_decode_*], [diffusion_*],
//	mean_<m>_ms, median_<m>_ms, std_<m>_ms, p<P>_<m>_ms per metric,
//	[vbench]
//
// with the detail keys removed unless SaveDetailed. Keys are set with
// Python dict semantics, so metadata collisions resolve as in vLLM.
func BuildResult(in ResultInput) *Object {
	o := NewObject()
	o.Set("date", in.Date)
	o.Set("endpoint_type", in.Backend)
	o.Set("backend", in.Backend)
	o.Set("label", nullIfEmpty(in.Label))
	o.Set("model_id", in.ModelID)
	o.Set("tokenizer_id", nullIfEmpty(in.TokenizerID))
	o.Set("num_prompts", in.NumPrompts)
	for _, m := range in.Metadata {
		o.Set(m.Key, m.Value)
	}
	if math.IsInf(in.RequestRate, 1) {
		o.Set("request_rate", "inf")
	} else {
		o.Set("request_rate", in.RequestRate)
	}
	o.Set("burstiness", in.Burstiness)
	if in.MaxConcurrency != nil {
		o.Set("max_concurrency", *in.MaxConcurrency)
	} else {
		o.Set("max_concurrency", nil)
	}
	if r := in.RampUp; r != nil {
		o.Set("ramp_up_strategy", r.Strategy)
		o.Set("ramp_up_start_rps", integralOrFloat(r.StartRPS))
		o.Set("ramp_up_end_rps", integralOrFloat(r.EndRPS))
	}

	s := in.Summary
	if s.Pooling {
		setPoolingBody(o, s)
	} else {
		setGenerationBody(o, s)
	}
	setExtras(o, in)
	for _, m := range s.Metrics {
		o.Set(metrics.StatKey(metrics.StatMean, m.Name), m.Mean)
		o.Set(metrics.StatKey(metrics.StatMedian, m.Name), m.Median)
		o.Set(metrics.StatKey(metrics.StatStd, m.Name), m.Std)
		for _, p := range m.Percentiles {
			o.Set(metrics.PercentileKey(p.P, m.Name), p.Value)
		}
	}
	if !in.SaveDetailed {
		for _, k := range detailKeys {
			o.Delete(k)
		}
	}
	if in.VBench != nil {
		o.Delete("vbench")
		o.Set("vbench", in.VBench)
	}
	return o
}

// setPoolingBody sets vLLM's pooling body: duration, completed,
// total_input_tokens, total_input_sequences, request_throughput,
// input_sequence_throughput, total_token_throughput, input_lens,
// latencies, queue_times, errors (no failed key).
func setPoolingBody(o *Object, s *metrics.Summary) {
	o.Set(metrics.KeyDuration, s.Duration)
	o.Set(metrics.KeyCompleted, s.Completed)
	o.Set(metrics.KeyTotalInputTokens, s.TotalInput)
	o.Set(metrics.KeyTotalInputSequences, s.TotalInputSequences)
	o.Set(metrics.KeyRequestThroughput, s.RequestThroughput)
	o.Set(metrics.KeyInputThroughput, s.InputSequenceThroughput)
	o.Set(metrics.KeyTotalTokenThroughput, s.TotalTokenThroughput)
	o.Set("input_lens", nonNil(s.InputLens))
	o.Set("latencies", nonNil(s.Latencies))
	o.Set("queue_times", nonNil(s.QueueTimes))
	o.Set("errors", nonNil(s.Errors))
}

// setGenerationBody sets vLLM's generation body, from duration to rtfx.
func setGenerationBody(o *Object, s *metrics.Summary) {
	o.Set(metrics.KeyDuration, s.Duration)
	o.Set(metrics.KeyCompleted, s.Completed)
	o.Set(metrics.KeyFailed, s.Failed)
	o.Set(metrics.KeyTotalInputTokens, s.TotalInput)
	o.Set(metrics.KeyTotalOutputTokens, s.TotalOutput)
	o.Set(metrics.KeyRequestThroughput, s.RequestThroughput)
	if s.RequestGoodput != nil {
		o.Set(metrics.KeyRequestGoodput, *s.RequestGoodput)
	} else {
		o.Set(metrics.KeyRequestGoodput, nil)
	}
	o.Set(metrics.KeyOutputThroughput, s.OutputThroughput)
	o.Set(metrics.KeyTotalTokenThroughput, s.TotalTokenThroughput)
	o.Set("input_lens", nonNil(s.InputLens))
	o.Set("output_lens", nonNil(s.OutputLens))
	o.Set("ttfts", nonNil(s.TTFTs))
	itls := make([][]float64, len(s.ITLs))
	for i, v := range s.ITLs {
		itls[i] = nonNil(v)
	}
	o.Set("itls", itls)
	o.Set("latencies", nonNil(s.Latencies))
	o.Set("start_times", nonNil(s.StartTimes))
	o.Set("queue_times", nonNil(s.QueueTimes))
	o.Set("generated_texts", nonNil(s.GeneratedTexts))
	o.Set("errors", nonNil(s.Errors))
	o.Set(metrics.KeyMaxOutputTokensPerS, s.MaxOutputTokensPerS)
	o.Set(metrics.KeyMaxConcurrentRequests, s.MaxConcurrentRequests)
	o.Set(metrics.KeyRTFx, s.RTFx)
}

// setExtras sets the optional keys after the body: probe_*,
// rps_change_events, spec_decode_* and diffusion_*.
func setExtras(o *Object, in ResultInput) {
	if p := in.Probe; p != nil {
		o.Set(metrics.KeyProbeCompleted, p.Completed)
		o.Set(metrics.KeyProbeFailed, p.Failed)
		o.Set(metrics.KeyProbeMedianE2EL, p.MedianE2ELMs)
		o.Set(metrics.KeyProbeP99E2EL, p.P99E2ELMs)
		o.Set(metrics.KeyProbeMaxE2EL, p.MaxE2ELMs)
	}
	if len(in.RPSChangeEvents) > 0 {
		ev := make([]*Object, len(in.RPSChangeEvents))
		for i, e := range in.RPSChangeEvents {
			ev[i] = NewObject()
			ev[i].Set("rps", e.RPS)
			ev[i].Set("timestamp", e.Timestamp)
		}
		o.Set("rps_change_events", ev)
	}
	if sd := in.SpecDecode; sd != nil {
		o.Set(metrics.KeySpecAcceptanceRate, sd.AcceptanceRate)
		o.Set(metrics.KeySpecAcceptanceLength, sd.AcceptanceLength)
		o.Set(metrics.KeySpecNumDrafts, sd.NumDrafts)
		o.Set(metrics.KeySpecDraftTokens, sd.DraftTokens)
		o.Set(metrics.KeySpecAcceptedTokens, sd.AcceptedTokens)
		o.Set(metrics.KeySpecPerPosition, nonNil(sd.PerPositionAcceptanceRates))
	}
	if d := in.Diffusion; d != nil {
		o.Set(metrics.KeyDiffusionCommittedThroughput, d.CommittedThroughput)
		o.Set(metrics.KeyDiffusionStepsPerCanvas, d.StepsPerCanvas)
		o.Set(metrics.KeyDiffusionCommittedPerStep, d.CommittedPerStep)
		o.Set(metrics.KeyDiffusionCommittedTokens, d.CommittedTokens)
		o.Set(metrics.KeyDiffusionDenoisingSteps, d.DenoisingSteps)
		o.Set(metrics.KeyDiffusionCanvasPositions, d.CanvasPositions)
	}
}

// MarshalResult is BuildResult serialised as Python's json.dump does.
func MarshalResult(in ResultInput) ([]byte, error) {
	b, err := MarshalPython(BuildResult(in))
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return b, nil
}

// WriteResult writes MarshalResult(in) to w (no trailing newline).
func WriteResult(w io.Writer, in ResultInput) error {
	b, err := MarshalResult(in)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// integralOrFloat returns an integral f as an int (Python's int-typed values) and
// anything else as the float itself.
func integralOrFloat(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
