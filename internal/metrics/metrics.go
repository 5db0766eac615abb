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
	"math"
	"slices"
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
		Success:      r.Success,
		PromptLen:    r.PromptLen,
		OutputTokens: r.OutputTokens,
		TTFT:         r.TTFT(),
		ITLs:         r.ITLs(),
		StartTime:    r.Start.Seconds(),
		QueueTime:    r.ClientQueueTime(),
		Error:        r.Error,
	}
	if r.Success {
		o.Latency = r.Latency()
		o.GeneratedText = r.GeneratedText
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

// Summary is vLLM's generation benchmark summary plus the per-request
// arrays its result JSON carries.
type Summary struct {
	// Duration is the benchmark duration in seconds.
	Duration float64
	// Completed and Failed count successful and failed requests.
	Completed int
	Failed    int
	// TotalInput is the sum of PromptLen over successes.
	TotalInput int
	// TotalOutput is the sum of OutputLens (failures count 0).
	TotalOutput int
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
// lasted duration: an Accumulator fed recs, closed with duration. Records
// marked NotSent (an interrupted run's requests still waiting for a
// concurrency slot) are left out, as vLLM's outputs hold only the requests
// that ran, so they count neither as completed nor as failed.
func Compute(recs []*record.Record, duration time.Duration, opt Options) *Summary {
	acc := NewAccumulator(opt)
	for _, r := range recs {
		acc.Add(r)
	}
	return acc.Close(duration)
}

// Accumulator folds a run's records into its summary as they complete, in
// any order: Add each record (a run's sink), then Close once with the run's
// duration. The summary is the one Compute gives for the same records in
// request order: vLLM's statistics depend on the order of the per-request
// values, so Add only keeps the record, and Close orders the records by
// Index and computes. Add is cheap enough to call while a run is going:
// it converts nothing and appends a pointer. An Accumulator is not safe
// for concurrent use (a run calls its sinks one at a time).
type Accumulator struct {
	opt    Options
	recs   []*record.Record
	sorted bool
}

// NewAccumulator returns an empty accumulator for a run with options opt.
func NewAccumulator(opt Options) *Accumulator {
	return &Accumulator{opt: opt, sorted: true}
}

// Add takes one finished record; a record never sent (NotSent) is left
// out (see Compute).
func (a *Accumulator) Add(rec *record.Record) {
	if rec.NotSent {
		return
	}
	if n := len(a.recs); n > 0 && a.recs[n-1].Index > rec.Index {
		a.sorted = false
	}
	a.recs = append(a.recs, rec)
}

// Len is the number of records added and kept (sent).
func (a *Accumulator) Len() int { return len(a.recs) }

// Close computes the summary of the records added, in request order (by
// Index), for a run that lasted duration (see ComputeOutcomes).
func (a *Accumulator) Close(duration time.Duration) *Summary {
	if !a.sorted {
		slices.SortStableFunc(a.recs, func(x, y *record.Record) int { return x.Index - y.Index })
		a.sorted = true
	}
	outs := make([]Outcome, len(a.recs))
	for i, r := range a.recs {
		outs[i] = FromRecord(r)
	}
	return ComputeOutcomes(outs, duration.Seconds(), a.opt)
}

// ComputeOutcomes is vLLM's calculate_metrics over outcomes in request
// order and a duration in seconds. For each success:
//
//	output_len = OutputTokens if > 0, else CountTokens(GeneratedText) when a
//	             tokenizer is present, else 1   (failures: 0)
//	tpot       = (Latency - TTFT) / (output_len - 1), only when output_len > 1
//	             (for goodput, 0 when output_len <= 1)
//	ttft list  = TTFT, itl list = all ITLs concatenated, e2el list = Latency
//
// client_queue_time (QueueTime of successes) is applicable only with
// MaxConcurrencySet, and e2el_including_client_queue (Latency + QueueTime)
// only with MaxConcurrencySet and RequestRateFinite.
func ComputeOutcomes(outs []Outcome, durationSeconds float64, opt Options) *Summary {
	dur := durationSeconds
	s := &Summary{
		Duration:       dur,
		HasTokenizer:   opt.CountTokens != nil,
		InputLens:      make([]int, len(outs)),
		OutputLens:     make([]int, len(outs)),
		TTFTs:          make([]float64, len(outs)),
		ITLs:           make([][]float64, len(outs)),
		Latencies:      make([]float64, len(outs)),
		StartTimes:     make([]float64, len(outs)),
		QueueTimes:     make([]float64, len(outs)),
		GeneratedTexts: make([]string, len(outs)),
		Errors:         make([]string, len(outs)),
	}
	var ttfts, tpots, allTPOTs, itls, e2els, queues, e2elsQueue []float64
	var succ []Outcome
	for i, o := range outs {
		s.InputLens[i] = o.PromptLen
		s.TTFTs[i] = o.TTFT
		s.ITLs[i] = o.ITLs
		if s.ITLs[i] == nil {
			s.ITLs[i] = []float64{}
		}
		s.Latencies[i] = o.Latency
		s.StartTimes[i] = o.StartTime
		s.QueueTimes[i] = o.QueueTime
		s.GeneratedTexts[i] = o.GeneratedText
		s.Errors[i] = o.Error
		if !o.Success {
			s.Failed++
			s.FailureErrors = append(s.FailureErrors, o.Error)
			continue
		}
		succ = append(succ, o)
		n := outputLen(o, opt.CountTokens)
		s.OutputLens[i] = n
		s.TotalOutput += n
		s.TotalInput += o.PromptLen
		tpot := 0.0
		if n > 1 {
			tpot = (o.Latency - o.TTFT) / float64(n-1)
			tpots = append(tpots, tpot)
		}
		allTPOTs = append(allTPOTs, tpot)
		itls = append(itls, o.ITLs...)
		ttfts = append(ttfts, o.TTFT)
		e2els = append(e2els, o.Latency)
		queues = append(queues, o.QueueTime)
		e2elsQueue = append(e2elsQueue, o.Latency+o.QueueTime)
		s.Completed++
	}

	s.RequestThroughput = float64(s.Completed) / dur
	s.OutputThroughput = float64(s.TotalOutput) / dur
	s.TotalTokenThroughput = float64(s.TotalInput+s.TotalOutput) / dur
	if len(opt.Goodput) > 0 {
		g := float64(countGood(opt.Goodput, ttfts, allTPOTs, e2els)) / dur
		s.RequestGoodput = &g
	}
	if len(succ) > 0 {
		s.MaxOutputTokensPerS = peakOutputTokensPerSecond(succ)
		s.MaxConcurrentRequests = concurrentRequestsPerSecond(succ)
		s.PeakOverlappingRequests = peakConcurrency(succ)
	}

	values := map[string][]float64{TTFT: ttfts, TPOT: tpots, ITL: itls, E2EL: e2els}
	if opt.MaxConcurrencySet {
		values[ClientQueueTime] = queues
		if opt.RequestRateFinite {
			values[E2ELIncludingClientQueue] = e2elsQueue
		}
	}
	for _, name := range MetricOrder {
		v, ok := values[name]
		if !ok || !slices.Contains(opt.PercentileMetrics, name) {
			continue
		}
		if !s.HasTokenizer && (name == TTFT || name == TPOT || name == ITL) {
			continue
		}
		s.Metrics = append(s.Metrics, Describe(name, v, opt.Percentiles))
	}
	if opt.SteadyState != nil {
		s.SteadyState = ComputeSteadyState(outs, s.OutputLens, dur, *opt.SteadyState)
	}
	return s
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

// countGood counts the successes meeting every configured SLO: the SLOs are
// milliseconds, compared as slo/1000 >= value (inclusive), using the TTFT,
// the goodput TPOT (0 when output_len <= 1) and the E2EL of each success.
func countGood(slo map[string]float64, ttfts, tpots, e2els []float64) int {
	type check struct {
		values []float64
		limit  float64
	}
	var checks []check
	for _, c := range []struct {
		name   string
		values []float64
	}{{TTFT, ttfts}, {TPOT, tpots}, {E2EL, e2els}} {
		if ms, ok := slo[c.name]; ok {
			checks = append(checks, check{c.values, ms / 1000})
		}
	}
	if len(checks) == 0 {
		return 0
	}
	good := 0
	for i := range ttfts {
		ok := true
		for _, c := range checks {
			if !(c.limit >= c.values[i]) {
				ok = false
				break
			}
		}
		if ok {
			good++
		}
	}
	return good
}

// secondBins are vLLM's one-second bins over the successes: t0 = min
// StartTime, and int(ceil(max(StartTime + Latency) - t0)) + 1 bins (0 when
// the span is not a number).
func secondBins(succ []Outcome) (t0 float64, nbins int) {
	t0 = succ[0].StartTime
	maxEnd := succ[0].StartTime + succ[0].Latency
	for _, o := range succ[1:] {
		t0 = min(t0, o.StartTime)
		maxEnd = max(maxEnd, o.StartTime+o.Latency)
	}
	if math.IsNaN(maxEnd - t0) {
		return t0, 0
	}
	return t0, int(math.Ceil(maxEnd-t0)) + 1
}

// peakOutputTokensPerSecond is vLLM's max_output_tokens_per_s over the
// successes: with t0 = min StartTime and end = max(StartTime + Latency),
// there are ceil(end - t0) + 1 one-second bins; each token-bearing message
// time (StartTime + TTFT, then adding each ITL in turn) increments bin
// int(t - t0) (truncated), and the result is the fullest bin. It counts SSE
// messages, not tokens.
func peakOutputTokensPerSecond(succ []Outcome) float64 {
	t0, nbins := secondBins(succ)
	if nbins <= 0 {
		return 0
	}
	bins := make([]int, nbins)
	add := func(t float64) {
		// Python's int() truncates toward zero.
		d := t - t0
		if d <= -1 || math.IsNaN(d) {
			return
		}
		if b := int(d); b < nbins {
			bins[b]++
		}
	}
	for _, o := range succ {
		t := o.StartTime + o.TTFT
		add(t)
		for _, itl := range o.ITLs {
			t += itl
			add(t)
		}
	}
	return float64(slices.Max(bins))
}

// concurrentRequestsPerSecond is vLLM's max_concurrent_requests (upstream
// vllm/benchmarks/serve.py calculate_metrics, as of commit 11dfa3169d16):
// with t0 = min StartTime and the one-second bins of
// peakOutputTokensPerSecond, each success adds 1 to every bin from
// int(StartTime - t0) to int(StartTime + Latency - t0), both included
// (truncated as Python's int()); the result is the fullest bin. Requests
// that run one after another within a second all count in it: three
// sequential 0.2 s requests give 3.
func concurrentRequestsPerSecond(succ []Outcome) int {
	t0, nbins := secondBins(succ)
	if nbins <= 0 {
		return 0
	}
	bins := make([]int, nbins)
	for _, o := range succ {
		first, last := int(o.StartTime-t0), int(o.StartTime+o.Latency-t0)
		for b := max(first, 0); b <= last && b < nbins; b++ {
			bins[b]++
		}
	}
	return slices.Max(bins)
}

// peakConcurrency is the true peak of overlapping requests: a sweep over
// the successes' half-open intervals [StartTime, StartTime+Latency), events
// sorted by time with departures before arrivals at equal times, returning
// the largest running count (what open upstream PRs #56647 and #56675
// propose for max_concurrent_requests; vLLM's key keeps its bins).
func peakConcurrency(succ []Outcome) int {
	type event struct {
		t     float64
		delta int
	}
	ev := make([]event, 0, 2*len(succ))
	for _, o := range succ {
		ev = append(ev, event{o.StartTime, 1}, event{o.StartTime + o.Latency, -1})
	}
	slices.SortStableFunc(ev, func(a, b event) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return a.delta - b.delta
	})
	cur, peak := 0, 0
	for _, e := range ev {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}
