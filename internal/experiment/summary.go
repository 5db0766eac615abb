package experiment

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	vstats "github.com/vbench/vbench/internal/stats"
)

// Level is the confidence level of every interval in the summaries.
const Level = 0.95

// The per-request bootstrap of comparisons: BootstrapReplicates resamples
// with seed BootstrapSeed, fewer (down to 200) when a comparison would
// resample more than 10⁸ values in all, so that a comparison of very long
// runs stays within seconds.
const (
	BootstrapReplicates = 2000
	BootstrapSeed       = 0
	minReplicates       = 200
	bootstrapBudget     = 1e8
)

// member is one loaded run of a summary row.
type member struct {
	res    *Result
	repeat int
}

// summarize folds loaded results into the summary of an experiment shaped
// by spec. Each result goes to the row of its Experiment's point and
// variant. paired says the rows' repeats were run in pairs (repeat i of
// every variant back to back, with the same seed), which makes the
// comparison over repeats a paired t interval rather than Welch's. name
// turns a result path into the name shown in the summary.
func summarize(spec *Spec, hash string, results []*Result, paired bool, name func(string) string) *report.ExperimentSummary {
	sum := &report.ExperimentSummary{Name: spec.Name, Hash: hash, Axes: spec.Axes, Baseline: spec.Baseline, Level: Level}
	if len(spec.Variants) < 2 {
		sum.Baseline = ""
	}
	// Headline metrics in first-seen order.
	seen := map[string]bool{}
	for _, r := range results {
		for _, k := range r.Keys {
			if d, ok := metrics.Lookup(k); ok && d.Headline && !seen[k] {
				seen[k] = true
				sum.Metrics = append(sum.Metrics, k)
			}
		}
	}
	// The rows hold the headline metrics and any gated metric besides
	// (a gate may name a non-headline metric such as total_input_tokens).
	rowKeys := slices.Clone(sum.Metrics)
	for _, g := range spec.Gates {
		if !slices.Contains(rowKeys, g.Metric) {
			rowKeys = append(rowKeys, g.Metric)
		}
	}
	variants := spec.Variants
	if len(variants) == 0 {
		variants = []string{""}
	}
	type rowKey struct {
		point   int
		variant string
	}
	members := map[rowKey][]member{}
	for _, r := range results {
		if r.Experiment == nil {
			continue
		}
		k := rowKey{r.Experiment.Point, r.Experiment.Variant}
		members[k] = append(members[k], member{r, r.Experiment.Repeat})
	}
	rowIndex := map[rowKey]int{}
	var rowMembers [][]member
	for pi, pt := range spec.Points {
		for _, v := range variants {
			k := rowKey{pi, v}
			ms := members[k]
			slices.SortStableFunc(ms, func(a, b member) int { return a.repeat - b.repeat })
			ms = slices.CompactFunc(ms, func(a, b member) bool { return a.repeat == b.repeat })
			row := report.SummaryRow{Point: pt.Name, Variant: v, PerRun: map[string][]float64{}, Stats: map[string]vstats.Summary{},
				Missing: max(spec.Repeat-len(ms), 0)}
			for _, val := range pt.Values {
				row.Values = append(row.Values, ValueText(val))
			}
			for _, m := range ms {
				row.Files = append(row.Files, name(m.res.Path))
				if m.res.StoppedEarly != "" {
					if row.StoppedEarly == nil {
						row.StoppedEarly = map[string]string{}
					}
					row.StoppedEarly[name(m.res.Path)] = m.res.StoppedEarly
				}
			}
			for _, key := range rowKeys {
				var vals []float64
				for _, m := range ms {
					if x, ok := m.res.Values[key]; ok {
						vals = append(vals, x)
					}
				}
				if len(vals) > 0 {
					row.PerRun[key] = vals
					row.Stats[key] = vstats.Describe(vals, Level)
				}
			}
			rowIndex[k] = len(sum.Rows)
			sum.Rows = append(sum.Rows, row)
			rowMembers = append(rowMembers, ms)
			if p, ok := paretoPoint(ms); ok {
				p.Label = strings.TrimSpace(strings.Join([]string{pt.Name, v}, " "))
				sum.Pareto = append(sum.Pareto, p)
			}
		}
	}
	markFrontier(sum.Pareto)
	if len(spec.Variants) < 2 {
		return sum
	}

	keys := comparedMetrics(sum.Metrics, spec.Gates)
	usedBootstrap := false
	comparisons := map[[3]string]report.Comparison{}
	for pi, pt := range spec.Points {
		bi := rowIndex[rowKey{pi, spec.Baseline}]
		for _, v := range spec.Variants {
			if v == spec.Baseline {
				continue
			}
			ci := rowIndex[rowKey{pi, v}]
			for _, key := range keys {
				c, ok := compare(sum.Rows[bi], sum.Rows[ci], rowMembers[bi], rowMembers[ci], key, paired)
				if !ok {
					continue
				}
				c.Point = pt.Name
				if c.Method == report.MethodBootstrap {
					usedBootstrap = true
				}
				comparisons[[3]string{pt.Name, v, key}] = c
				sum.Comparisons = append(sum.Comparisons, c)
			}
		}
	}
	if usedBootstrap {
		sum.Bootstrap = fmt.Sprintf("over per-request samples in blocks of concurrent requests, %d resamples (fewer for very large samples), seed %d", BootstrapReplicates, BootstrapSeed)
	}
	for _, g := range spec.Gates {
		for _, pt := range spec.Points {
			for _, v := range spec.Variants {
				if v == spec.Baseline {
					continue
				}
				c, ok := comparisons[[3]string{pt.Name, v, g.Metric}]
				sum.Gates = append(sum.Gates, checkGate(g, pt.Name, v, spec.Baseline, c, ok)...)
			}
		}
	}
	return sum
}

// comparedMetrics are the metrics compared between variants: those the
// metric table marks Compared (the throughputs and the latency means,
// medians and percentiles), then any gated metric not among them.
func comparedMetrics(keys []string, gates []scenario.Gate) []string {
	var out []string
	for _, k := range keys {
		if d, ok := metrics.Lookup(k); ok && d.Compared {
			out = append(out, k)
		}
	}
	for _, g := range gates {
		if !slices.Contains(out, g.Metric) {
			out = append(out, g.Metric)
		}
	}
	return out
}

// compare compares one metric of a variant's row with the baseline's row.
// The change is relative to the baseline's mean: (c̄ − b̄) / b̄. Its
// interval comes, in order of preference, from the repeats when both rows
// have at least two runs (the paired or Welch t interval of c̄ − b̄,
// divided by b̄), or from a percentile bootstrap over the rows' pooled
// per-request samples when the metric is a latency statistic whose samples
// all runs have (and, for a percentile P, at least minTail values lie
// beyond it: n·min(P, 100−P)/100 ≥ 5); otherwise there is none and the
// verdict is "untested".
// The verdict is better or worse when the interval excludes 0, in the
// metric's good or bad direction, and "no significant difference"
// otherwise. ok is false when a row lacks the metric.
func compare(base, cand report.SummaryRow, bm, cm []member, key string, paired bool) (report.Comparison, bool) {
	bv, cv := base.PerRun[key], cand.PerRun[key]
	if len(bv) == 0 || len(cv) == 0 {
		return report.Comparison{}, false
	}
	c := report.Comparison{Variant: cand.Variant, Baseline: base.Variant, Metric: key,
		Base: vstats.Mean(bv), Value: vstats.Mean(cv), Low: math.NaN(), High: math.NaN()}
	c.Change = (c.Value - c.Base) / c.Base
	if c.Base == 0 {
		c.Change = math.NaN()
	}
	var iv vstats.Interval
	var err error
	switch {
	case c.Base == 0:
		err = vstats.ErrZeroBase
	case len(bv) >= 2 && len(cv) >= 2:
		if paired && len(bv) == len(bm) && len(cv) == len(cm) && sameRepeats(bm, cm) {
			c.Method = report.MethodPaired
			iv, err = vstats.PairedDiff(bv, cv, Level)
		} else {
			c.Method = report.MethodWelch
			iv, err = vstats.WelchDiff(bv, cv, Level)
		}
		iv = iv.Scale(1 / c.Base)
	default:
		st, metric, ok := statisticOf(key)
		bu, okb := pooledSamples(bm, metric)
		cu, okc := pooledSamples(cm, metric)
		if !ok || !okb || !okc {
			err = fmt.Errorf("no per-request samples")
			break
		}
		if st.Kind == vstats.StatPercentile && min(st.P, 100-st.P)/100*float64(min(countValues(bu), countValues(cu))) < minTail {
			err = fmt.Errorf("too few samples beyond the %s", st)
			break
		}
		c.Method = report.MethodBootstrap
		iv, err = vstats.Bootstrap{Replicates: replicates(bu, cu, st), Level: Level, Seed: BootstrapSeed}.RelDiff(bu, cu, st)
	}
	if err != nil {
		c.Method = ""
		c.Verdict = report.VerdictUntested
		return c, true
	}
	c.Low, c.High = iv.Low, iv.High
	better := metrics.BetterNone
	if d, ok := metrics.Lookup(key); ok {
		better = d.Better
	}
	switch {
	case !iv.Excludes(0):
		c.Verdict = report.VerdictSame
	case better == metrics.BetterNone:
		c.Verdict = report.VerdictChanged
	case (iv.Low > 0) == (better == metrics.BetterLower):
		c.Verdict = report.VerdictWorse
	default:
		c.Verdict = report.VerdictBetter
	}
	return c, true
}

// minTail is the number of values a sample needs beyond a percentile (in
// the nearer tail) for the bootstrap to estimate it: the bootstrap of an
// extreme order statistic, such as the P99 of 40 values, is no guide to
// its uncertainty.
const minTail = 5

func countValues(units [][]float64) int {
	n := 0
	for _, u := range units {
		n += len(u)
	}
	return n
}

// sameRepeats reports whether two rows hold the same repeat numbers.
func sameRepeats(a, b []member) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].repeat != b[i].repeat {
			return false
		}
	}
	return true
}

// statisticOf maps a latency statistic key to the statistic and metric of
// the per-request samples: p99_ttft_ms → (percentile 99, "ttft").
func statisticOf(key string) (vstats.Statistic, string, bool) {
	stat, metric, ok := metrics.SplitStatKey(key)
	if !ok {
		return vstats.Statistic{}, "", false
	}
	switch {
	case stat == metrics.StatMean:
		return vstats.Statistic{Kind: vstats.StatMean}, metric, true
	case stat == metrics.StatMedian:
		return vstats.Statistic{Kind: vstats.StatMedian}, metric, true
	case stat == metrics.StatStd:
		return vstats.Statistic{Kind: vstats.StatStd}, metric, true
	case strings.HasPrefix(stat, "p"):
		p, err := strconv.ParseFloat(stat[1:], 64)
		if err != nil {
			return vstats.Statistic{}, "", false
		}
		return vstats.Statistic{Kind: vstats.StatPercentile, P: p}, metric, true
	}
	return vstats.Statistic{}, "", false
}

// pooledSamples gathers the runs' per-request samples of a metric into
// the units the bootstrap resamples: within each run, consecutive requests
// in dispatch order are grouped into blocks (see blockSize), and the
// blocks of all runs are pooled. ok is false when a run has no samples.
func pooledSamples(ms []member, metric string) ([][]float64, bool) {
	var units [][]float64
	for _, m := range ms {
		u, ok := m.res.Samples[metric]
		if !ok || len(u) == 0 {
			return nil, false
		}
		units = append(units, blocks(u, blockSize(len(u), m.res.MeanConcurrency))...)
	}
	return units, len(units) > 0
}

// blockSize is the number of consecutive requests per bootstrap block:
// the run's mean concurrency rounded, but small enough to leave at least
// 8 blocks, and at least 1. Requests in flight together share the server's
// state (the same batches, the same stalls), so their latencies are not
// independent; resampling blocks of about that many requests (a block
// bootstrap over time) keeps that dependence inside the units and keeps
// the interval from being too narrow.
func blockSize(n int, meanConcurrency float64) int {
	b := int(math.Round(meanConcurrency))
	return max(min(b, n/8), 1)
}

// blocks concatenates consecutive units, size at a time (the last block
// may be smaller).
func blocks(units [][]float64, size int) [][]float64 {
	if size <= 1 {
		return units
	}
	var out [][]float64
	for i := 0; i < len(units); i += size {
		var b []float64
		for _, u := range units[i:min(i+size, len(units))] {
			b = append(b, u...)
		}
		out = append(out, b)
	}
	return out
}

// replicates is BootstrapReplicates, reduced so that one comparison
// resamples at most bootstrapBudget values (units, for the mean), but not
// below minReplicates.
func replicates(a, b [][]float64, st vstats.Statistic) int {
	cost := float64(len(a) + len(b))
	if st.Kind != vstats.StatMean {
		cost = 0
		for _, u := range append(slices.Clip(a), b...) {
			cost += float64(len(u))
		}
	}
	n := BootstrapReplicates
	if cost > 0 && cost*float64(n) > bootstrapBudget {
		n = max(minReplicates, int(bootstrapBudget/cost))
	}
	return n
}

// ParseLimit reads a relative limit such as "5%" or "2.5%" as a fraction.
func ParseLimit(s string) (float64, error) {
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		return 0, fmt.Errorf("invalid limit %q: want a percentage such as \"5%%\"", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("invalid limit %q: want a percentage such as \"5%%\"", s)
	}
	return f / 100, nil
}

// checkGate checks one gate for one variant at one point. With limit L, a
// max_increase gate is beyond its limit when the change exceeds +L, a
// max_decrease gate when it is below −L; the excess is by how much. A gate
// fails when its metric is beyond the limit and, where the comparison has
// a confidence interval, the interval excludes no change (so noise alone
// cannot fail it); without an interval (one run each and no per-request
// samples of the metric) the estimate alone decides. A gate whose metric
// is missing, or whose baseline value is 0, fails.
func checkGate(g scenario.Gate, point, variant, baseline string, c report.Comparison, ok bool) []report.GateResult {
	var out []report.GateResult
	for _, lim := range []struct{ kind, limit string }{{"max_increase", g.MaxIncrease}, {"max_decrease", g.MaxDecrease}} {
		if lim.limit == "" {
			continue
		}
		r := report.GateResult{Metric: g.Metric, Kind: lim.kind, Limit: lim.limit, Point: point, Variant: variant,
			Baseline: baseline, Change: c.Change, Low: c.Low, High: c.High}
		l, err := ParseLimit(lim.limit)
		switch {
		case err != nil:
			r.Failed, r.Reason = true, err.Error()
		case !ok:
			r.Failed, r.Reason = true, "the metric is not in the results"
			r.Change, r.Low, r.High = math.NaN(), math.NaN(), math.NaN()
		case math.IsNaN(c.Change):
			r.Failed, r.Reason = true, "the baseline value is 0, so the relative change is undefined"
		default:
			change := c.Change
			if lim.kind == "max_decrease" {
				change = -change
			}
			r.Excess = max(change-l, 0)
			significant := math.IsNaN(c.Low) ||
				(lim.kind == "max_increase" && c.Low > 0) || (lim.kind == "max_decrease" && c.High < 0)
			r.Failed = r.Excess > 0 && significant
		}
		out = append(out, r)
	}
	return out
}

// paretoPoint is a row's per-user and per-GPU output throughput, the means
// over its runs that have both (see report.ParetoPoint).
func paretoPoint(ms []member) (report.ParetoPoint, bool) {
	var users, gpus []float64
	for _, m := range ms {
		v := m.res.Values
		tput, ok := v[metrics.KeyOutputThroughput]
		n := v["max_concurrency"]
		if n <= 0 {
			n = v["max_concurrent_requests"]
		}
		if !ok || n <= 0 || m.res.GPUs <= 0 {
			continue
		}
		users = append(users, tput/n)
		gpus = append(gpus, tput/m.res.GPUs)
	}
	if len(users) == 0 {
		return report.ParetoPoint{}, false
	}
	return report.ParetoPoint{PerUser: vstats.Mean(users), PerGPU: vstats.Mean(gpus)}, true
}

// markFrontier marks the points that no other point beats on both axes,
// as vLLM's plot_pareto does: by per-user throughput descending, a point
// is on the frontier when its per-GPU throughput is at least the best so
// far.
func markFrontier(ps []report.ParetoPoint) {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(ps[b].PerUser, ps[a].PerUser); c != 0 {
			return c
		}
		return cmp.Compare(ps[b].PerGPU, ps[a].PerGPU)
	})
	best := math.Inf(-1)
	for _, i := range order {
		if ps[i].PerGPU >= best-1e-9 {
			ps[i].Frontier = true
			best = math.Max(best, ps[i].PerGPU)
		}
	}
}
