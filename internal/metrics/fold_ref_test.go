package metrics

import (
	"fmt"
	"math"
	"slices"
)

// The fold's reference: vLLM's calculate_metrics over outcomes held in
// memory, as the summary was computed before the fold streamed
// (refComputeOutcomes). TestFoldMatchesReference checks the fold against
// it on the spill paths a run takes.

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
func refComputeOutcomes(outs []Outcome, durationSeconds float64, opt Options) *Summary {
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
		s.SteadyState = refSteadyState(outs, s.OutputLens, dur, *opt.SteadyState)
	}
	return s
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

// refSteadyState is ComputeSteadyState over the outcomes in memory, as it
// was computed before the fold streamed.
func refSteadyState(outs []Outcome, outputLens []int, duration float64, opt SteadyOptions) *SteadyState {
	w, ok := refSteadyWindow(outs, duration, opt)
	if !ok {
		return nil
	}
	t0 := math.Inf(1)
	for _, o := range outs {
		if o.Success {
			t0 = min(t0, o.StartTime)
		}
	}
	start, end := w.StartS+t0, w.EndS+t0
	in := func(t float64) bool { return t >= start && t < end }
	var completed, inputTokens, outputTokens int
	var ttfts, tpots []float64
	for i, o := range outs {
		if !o.Success {
			continue
		}
		if in(o.StartTime + o.Latency) {
			completed++
		}
		if in(o.StartTime) {
			inputTokens += o.PromptLen
			ttfts = append(ttfts, o.TTFT)
			if n := outputLens[i]; n > 1 {
				tpots = append(tpots, (o.Latency-o.TTFT)/float64(n-1))
			}
		}
		t := o.StartTime + o.TTFT
		if in(t) {
			outputTokens++
		}
		for _, itl := range o.ITLs {
			t += itl
			if t >= end {
				break
			}
			if in(t) {
				outputTokens++
			}
		}
	}
	d := max(w.DurationS, 1e-9)
	ss := &SteadyState{
		Window:            w,
		RequestThroughput: float64(completed) / d,
		InputThroughput:   float64(inputTokens) / d,
		OutputThroughput:  float64(outputTokens) / d,
		TTFT:              steadyStats(TTFT, ttfts, opt.Percentiles),
		TPOT:              steadyStats(TPOT, tpots, SteadyTPOTPercentiles),
	}
	ss.TotalTokenThroughput = ss.InputThroughput + ss.OutputThroughput
	return ss
}

// refSteadyWindow is refSteadyState's window.
func refSteadyWindow(outs []Outcome, duration float64, opt SteadyOptions) (SteadyWindow, bool) {
	if opt.Target <= 0 {
		return SteadyWindow{}, false
	}
	thr := opt.Threshold
	if thr <= 0 {
		thr = DefaultSteadyThreshold
	}
	w := SteadyWindow{TargetConcurrency: opt.Target, Threshold: thr,
		ThresholdAbs: max(1, int(math.Ceil(thr*float64(opt.Target))))}
	var starts, ends []float64
	for _, o := range outs {
		if o.Success {
			starts = append(starts, o.StartTime)
			ends = append(ends, o.StartTime+o.Latency)
		}
	}
	if len(starts) == 0 {
		return w, false
	}
	slices.Sort(starts)
	slices.Sort(ends)
	w.RequestsTotal = len(starts)
	t0 := starts[0]
	up, down := math.NaN(), math.NaN()
	cur := 0
	for i, j := 0, 0; i < len(starts) || j < len(ends); {
		if j < len(ends) && (i == len(starts) || ends[j] <= starts[i]) {
			before := cur
			cur = max(cur-1, 0)
			if before >= w.ThresholdAbs && cur < w.ThresholdAbs {
				down = ends[j]
			}
			j++
			continue
		}
		cur++
		w.ObservedPeak = max(w.ObservedPeak, cur)
		if cur == w.ThresholdAbs && math.IsNaN(up) {
			up = starts[i]
		}
		i++
	}
	if math.IsNaN(up) {
		return w, false
	}
	if math.IsNaN(down) {
		down = ends[len(ends)-1]
	}
	for k := range starts {
		if starts[k] >= up && starts[k] < down {
			w.RequestsStarted++
		}
		if ends[k] >= up && ends[k] < down {
			w.RequestsCompleted++
		}
	}
	if w.RequestsStarted == 0 && w.RequestsCompleted == 0 {
		return w, false
	}
	w.StartS, w.EndS = up-t0, down-t0
	w.DurationS = w.EndS - w.StartS
	minWindow := opt.MinWindow
	if minWindow <= 0 {
		minWindow = max(10, 0.1*duration)
	}
	if w.DurationS < minWindow {
		w.Warning = fmt.Sprintf("steady-state window is %.1fs (%.1f%% of run); may not be representative",
			w.DurationS, 100*w.DurationS/max(duration, 1e-9))
	}
	return w, true
}
