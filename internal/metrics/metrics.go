// Package metrics folds per-request records into vLLM's benchmark summary,
// computed exactly as vLLM's calculate_metrics does: the same inclusion
// rules, the same formulas, and numpy's summation and interpolation order,
// so that the statistics agree with the Python client to the last bit when
// fed the same per-request values.
//
// All per-request quantities are seconds; every reported latency statistic
// is the statistic of the seconds values multiplied by 1000 (milliseconds).
package metrics

import (
	"time"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/record"
)

// Names of the latency metrics, in the fixed order vLLM reports them.
const (
	TTFT                     = "ttft"
	TPOT                     = "tpot"
	ITL                      = "itl"
	E2EL                     = "e2el"
	ClientQueueTime          = "client_queue_time"
	E2ELIncludingClientQueue = "e2el_including_client_queue"
)

// MetricOrder is the fixed order in which latency metrics are computed,
// printed and saved, whatever order they were selected in.
var MetricOrder = []string{TTFT, TPOT, ITL, E2EL, ClientQueueTime, E2ELIncludingClientQueue}

// Options are the run settings that change what the summary contains.
type Options struct {
	// PercentileMetrics are the selected latency metrics (vLLM's
	// --percentile-metrics, default "ttft,tpot,itl" for generation). Unknown
	// names are ignored, as vLLM ignores them.
	PercentileMetrics []string
	// Percentiles are the reported percentiles (vLLM's --metric-percentiles,
	// default [99]), each in [0, 100].
	Percentiles []float64
	// Goodput maps "ttft", "tpot" and "e2el" to SLOs in milliseconds; nil (or
	// empty) means no goodput, and then Summary.RequestGoodput is nil.
	Goodput map[string]float64
	// CountTokens counts the tokens of a generated text (the tokenizer, with no
	// special tokens added). It is the output length of a successful request
	// whose server reported no completion_tokens. Nil means there is no client
	// tokenizer: such a request then counts 1 token, and the token-based
	// statistics (ttft, tpot, itl) are not applicable.
	CountTokens func(text string) int
	// MaxConcurrencySet is true when --max-concurrency was given; only then
	// is client_queue_time applicable.
	MaxConcurrencySet bool
	// RequestRateFinite is true when the request rate is finite; together
	// with MaxConcurrencySet it makes e2el_including_client_queue applicable.
	RequestRateFinite bool
	// SteadyState, when not nil, asks for the steady-state window of a
	// closed-loop run (Summary.SteadyState); nil computes none.
	SteadyState *SteadyOptions
	// AccountTokens asks an Accumulator for the token accounting
	// (Accumulator.TokenAccounting): every success's text is counted with
	// CountTokens, after the run.
	AccountTokens bool
	// Pooling makes the summary vLLM's pooling one
	// (calculate_metrics_for_embeddings): successes count their prompt
	// tokens and input sequences and nothing is generated, so only the
	// E2EL and client-queue metrics apply, whatever PercentileMetrics
	// selects.
	Pooling bool
	// SpillDir is the directory an Accumulator keeps the run's
	// per-request figures in (in unlinked files); "" keeps them in memory.
	SpillDir string
}

// Outcome is one request's result in vLLM's terms (its RequestFuncOutput):
// every time is float seconds. FromRecord derives it from a record; the
// golden tests build it directly from vLLM's saved arrays.
type Outcome struct {
	// Success is true when at least one token-bearing message arrived.
	Success bool
	// PromptLen is the prompt length in tokens (server usage when reported).
	PromptLen int
	// OutputTokens is usage.completion_tokens, or 0 when not reported.
	OutputTokens int
	// InputSequences is a pooling request's number of inputs (vLLM's
	// num_input_sequences).
	InputSequences int
	// InputAudioSeconds is the duration of the audio the request uploaded
	// (vLLM's input_audio_duration).
	InputAudioSeconds float64
	// ReasoningChunks counts the messages that carried reasoning text
	// (0: none did, and the reasoning fields are unset); TTFR is the time
	// to the first of them, TTFA to the first answer text after them (0:
	// none came), and ReasoningTokens the server's reasoning token count.
	ReasoningChunks, ReasoningTokens int
	TTFR, TTFA                       float64
	// GeneratedText is the concatenated generated text.
	GeneratedText string
	// TTFT is the time to first token (0 when no chunk arrived).
	TTFT float64
	// Latency is the end-to-end latency (0 when the request failed early).
	Latency float64
	// ITLs are the inter-token latencies, one per message after the first.
	ITLs []float64
	// StartTime is the send time relative to the run start.
	StartTime float64
	// QueueTime is the client queue time (waiting on the concurrency limit).
	QueueTime float64
	// Error is the error text of a failed request ("" on success).
	Error string
}

// FromRecord converts a record to an Outcome: TTFT, Latency, ITLs and
// QueueTime come from the record's methods, StartTime is Start in seconds.
// A failed request gets Latency 0 and GeneratedText "" whatever the record
// holds, because vLLM assigns both only when a response completes
// successfully; its TTFT and ITLs (from any chunks that did arrive) are kept,
// as vLLM keeps them.
//
// Times are differences of integer nanoseconds converted once to seconds,
// whereas Python subtracts float perf_counter() readings; the two agree to
// within about 1e-13 s.
func FromRecord(r *record.Record) Outcome {
	o := Outcome{
		Success:           r.Success,
		PromptLen:         r.PromptLen,
		OutputTokens:      r.OutputTokens,
		InputSequences:    r.InputSequences,
		ReasoningChunks:   r.ReasoningChunks,
		InputAudioSeconds: r.InputAudioSeconds,
		ReasoningTokens:   r.ReasoningTokens,
		TTFT:              r.TTFT(),
		ITLs:              r.ITLs(),
		StartTime:         r.Start.Seconds(),
		QueueTime:         r.ClientQueueTime(),
		Error:             r.Error,
	}
	if r.Success {
		o.Latency = r.Latency()
		o.GeneratedText = r.GeneratedText
	}
	if r.ReasoningChunks > 0 {
		o.TTFR = (r.FirstReasoning - r.Start).Seconds()
		if r.FirstAnswer > 0 {
			o.TTFA = (r.FirstAnswer - r.Start).Seconds()
		}
	}
	return o
}

// PercentileValue is one percentile of a metric.
type PercentileValue struct {
	// P is the percentile, e.g. 99 or 99.9.
	P float64
	// Value is the percentile of the metric in milliseconds.
	Value float64
}

// MetricStats are the statistics of one latency metric, in milliseconds:
// Mean, Median, Std (population) and Percentiles as numpy computes them
// (see Mean, Median, Std, Percentile); all 0 when the metric had no values.
type MetricStats struct {
	// Name is the metric name (TTFT, TPOT, ...).
	Name string
	// Mean is numpy's mean of the values, times 1000.
	Mean float64
	// Median is numpy's median of the values, times 1000.
	Median float64
	// Std is numpy's population standard deviation, times 1000.
	Std float64
	// Percentiles are the requested percentiles, in the requested order.
	Percentiles []PercentileValue
}

// Describe computes the statistics of values (seconds) reported in
// milliseconds: each statistic of the seconds values, times 1000.
func Describe(name string, values []float64, percentiles []float64) MetricStats {
	s := sortedCopy(values)
	st := MetricStats{
		Name:   name,
		Mean:   Mean(values) * 1000,
		Median: numpy.MedianSorted(s) * 1000,
		Std:    Std(values) * 1000,
	}
	for _, p := range percentiles {
		st.Percentiles = append(st.Percentiles, PercentileValue{P: p, Value: numpy.PercentileSorted(s, p) * 1000})
	}
	return st
}

// Summary is vLLM's benchmark summary (generation or, with Pooling, its
// pooling one) plus the per-request arrays its result JSON carries.
type Summary struct {
	// Pooling marks the summary of a pooling run (Options.Pooling): it has
	// no output figures, and its result JSON and console block are vLLM's
	// pooling ones.
	Pooling bool
	// Duration is the benchmark duration in seconds.
	Duration float64
	// Completed and Failed count successful and failed requests.
	Completed int
	Failed    int
	// TotalInput is the sum of PromptLen over successes.
	TotalInput int
	// TotalOutput is the sum of OutputLens (failures count 0).
	TotalOutput int
	// TotalInputSequences is the sum of a pooling run's successes' input
	// sequences.
	TotalInputSequences int
	// InputSequenceThroughput = TotalInputSequences / Duration (pooling).
	InputSequenceThroughput float64
	// RequestThroughput = Completed / Duration.
	RequestThroughput float64
	// RequestGoodput = good / Duration, where a success is good when each
	// configured SLO s (ms) satisfies s/1000 >= its value (inclusive); nil
	// when no goodput was configured.
	RequestGoodput *float64
	// OutputThroughput = TotalOutput / Duration.
	OutputThroughput float64
	// TotalTokenThroughput = (TotalInput + TotalOutput) / Duration.
	TotalTokenThroughput float64
	// HasTokenizer records whether a client tokenizer was present
	// (Options.CountTokens != nil); the console hides token lines without it.
	HasTokenizer bool
	// MaxOutputTokensPerS is the fullest one-second bin of token-bearing
	// messages (see peakOutputTokensPerSecond); 0 without successes.
	MaxOutputTokensPerS float64
	// MaxConcurrentRequests is vLLM's max_concurrent_requests: the fullest
	// one-second bin of active successful requests (see
	// concurrentRequestsPerSecond); 0 without successes.
	MaxConcurrentRequests int
	// PeakOverlappingRequests is the true peak number of overlapping
	// successful requests (see peakConcurrency), which vLLM's one-second
	// bins overstate; 0 without successes.
	PeakOverlappingRequests int
	// RTFx is the inverse real-time factor (input audio seconds / duration);
	// always 0 for text requests.
	RTFx float64

	// Metrics are the selected and applicable latency statistics, in
	// MetricOrder.
	Metrics []MetricStats

	// InputLens is each request's PromptLen, in request order (all
	// per-request arrays include the failures).
	InputLens []int
	// OutputLens is each request's output length (0 for failures).
	OutputLens []int
	// TTFTs is each request's TTFT in seconds (0 when no chunk arrived).
	TTFTs []float64
	// ITLs is each request's inter-token latencies in seconds.
	ITLs [][]float64
	// Latencies is each request's end-to-end latency in seconds (0 for
	// failures).
	Latencies []float64
	// StartTimes is each request's send time in seconds from the run start.
	StartTimes []float64
	// QueueTimes is each request's client queue time in seconds.
	QueueTimes []float64
	// GeneratedTexts is each request's generated text.
	GeneratedTexts []string
	// Errors is each request's error text ("" for successes).
	Errors []string

	// FailureErrors are the error texts of the failed requests, in order.
	FailureErrors []string

	// Reasoning summarises the successes whose streams carried reasoning
	// (a reasoning model's); nil when none did.
	Reasoning *ReasoningSummary

	// SteadyState is the steady-state window and its metrics when
	// Options.SteadyState asked for them and the run has one (see
	// ComputeSteadyState); nil otherwise.
	SteadyState *SteadyState
}

// Metric returns the statistics of the named metric, if it was reported.
func (s *Summary) Metric(name string) (MetricStats, bool) {
	for _, m := range s.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return MetricStats{}, false
}

// Compute folds records (in request order) into the summary of a run that
// lasted duration: an Accumulator fed recs in memory, closed with
// duration, with every per-request array (Arrays). Records marked NotSent
// (an interrupted run's requests still waiting for a concurrency slot) are
// left out, as vLLM's outputs hold only the requests that ran, so they
// count neither as completed nor as failed.
func Compute(recs []*record.Record, duration time.Duration, opt Options) *Summary {
	opt.SpillDir = ""
	acc := NewAccumulator(opt)
	for _, r := range recs {
		acc.Add(r)
	}
	return closeInMemory(acc, duration.Seconds())
}

// closeInMemory closes an accumulator that spills to memory, where
// nothing can fail, with every per-request array.
func closeInMemory(acc *Accumulator, dur float64) *Summary {
	s, err := acc.close(dur)
	if err == nil {
		err = acc.Arrays(s, true)
	}
	if err != nil {
		panic("internal error: a metrics fold in memory failed: " + err.Error())
	}
	acc.Release()
	return s
}

// ComputeOutcomes is vLLM's calculate_metrics over outcomes in request
// order and a duration in seconds, with every per-request array. For each
// success:
//
//	output_len = OutputTokens if > 0, else CountTokens(GeneratedText) when a
//	             tokenizer is present, else 1   (failures: 0)
//	tpot       = (Latency - TTFT) / (output_len - 1), only when output_len > 1
//	             (for goodput, 0 when output_len <= 1)
//	ttft list  = TTFT, itl list = all ITLs concatenated, e2el list = Latency
//
// client_queue_time (QueueTime of successes) is applicable only with
// MaxConcurrencySet, and e2el_including_client_queue (Latency + QueueTime)
// only with MaxConcurrencySet and RequestRateFinite. It is the
// Accumulator's fold, in memory: a run's summary comes from the same code.
func ComputeOutcomes(outs []Outcome, durationSeconds float64, opt Options) *Summary {
	opt.SpillDir = ""
	acc := NewAccumulator(opt)
	for i := range outs {
		acc.addOutcome(i, &outs[i])
	}
	return closeInMemory(acc, durationSeconds)
}

// outputLen is vLLM's output length of a successful request: the server's
// completion_tokens when positive, else the tokenizer's count of the
// generated text, else 1 when there is no tokenizer.
func outputLen(o Outcome, count func(string) int) int {
	switch {
	case o.OutputTokens > 0:
		return o.OutputTokens
	case count != nil:
		return count(o.GeneratedText)
	default:
		return 1
	}
}
