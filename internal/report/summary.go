package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/stats"
)

// ExperimentSummary is what an experiment (sweep, repeat, compare) or a
// set of saved results reports: for each row (one sweep point of one
// variant) the statistics of each headline metric over the row's runs,
// each variant compared with the baseline, and the gates. It is derived
// from the runs' results; summaries are never merged from summaries.
type ExperimentSummary struct {
	// Name is the experiment's name ("" when none).
	Name string
	// Hash is the experiment scenario's hash ("" for loose result files).
	Hash string
	// Axes are the sweep's field paths, in column order.
	Axes []string
	// Baseline is the variant the others are compared with ("" when no
	// variants are compared).
	Baseline string
	// Level is the confidence level of every interval, e.g. 0.95.
	Level float64
	// Metrics are the headline metric keys (result JSON keys), in order.
	Metrics []string
	// Rows are the rows in run order: sweep points, and within a point the
	// variants, baseline first.
	Rows []SummaryRow
	// Comparisons hold each non-baseline row against the baseline row of
	// the same point, metric by metric.
	Comparisons []Comparison
	// Bootstrap describes the per-request bootstrap used for comparisons
	// ("" when none was used), e.g. "2000 resamples, seed 0".
	Bootstrap string
	// Gates are the gate checks, one per gate, point and variant.
	Gates []GateResult
	// Pareto are the rows' per-user and per-GPU output throughputs, when
	// the runs say how many GPUs the server has (target.gpus).
	Pareto []ParetoPoint
}

// ParetoPoint is one row's place in the Pareto chart: the means over its
// runs of output tokens/s per user (output_throughput divided by
// max_concurrency, else by max_concurrent_requests, as vLLM's
// plot_pareto falls back) and per GPU (divided by target.gpus).
type ParetoPoint struct {
	// Label names the row: its sweep point and variant.
	Label string
	// PerUser and PerGPU are the throughputs, tokens/s.
	PerUser, PerGPU float64
	// Frontier marks the points no other point beats on both axes.
	Frontier bool
}

// SummaryRow is one sweep point of one variant.
type SummaryRow struct {
	// Point is the point's name, e.g. "max_concurrency=8" ("" without a
	// sweep).
	Point string
	// Values are the point's axis values as text, in Axes order.
	Values []string
	// Variant is the variant's name ("" without compare).
	Variant string
	// Files are the row's result files, in repeat order.
	Files []string
	// Missing counts the planned runs of the row that have no result.
	Missing int
	// StoppedEarly maps the row's runs that stopped early (load.early_stop)
	// to why, by file; they are in the row, with fewer requests.
	StoppedEarly map[string]string
	// PerRun holds each metric's value in each run, in Files order.
	PerRun map[string][]float64
	// Stats are each metric's statistics over the runs.
	Stats map[string]stats.Summary
}

// Verdicts of a comparison.
const (
	// VerdictBetter: the interval excludes no change, in the good direction.
	VerdictBetter = "better"
	// VerdictWorse: the interval excludes no change, in the bad direction.
	VerdictWorse = "worse"
	// VerdictSame: the interval includes no change.
	VerdictSame = "no significant difference"
	// VerdictChanged: significant, for a metric with no better direction.
	VerdictChanged = "changed"
	// VerdictUntested: there is no interval (one run each and no
	// per-request samples of the metric).
	VerdictUntested = "untested"
)

// Methods of a comparison's interval.
const (
	// MethodBootstrap is the percentile bootstrap over per-request samples.
	MethodBootstrap = "bootstrap"
	// MethodPaired is the paired t interval over repeats.
	MethodPaired = "paired t"
	// MethodWelch is Welch's t interval over repeats.
	MethodWelch = "welch t"
)

// Comparison is one metric of one variant against the baseline, at one
// sweep point.
type Comparison struct {
	// Point is the sweep point's name ("" without a sweep).
	Point string
	// Variant and Baseline name the compared variants.
	Variant, Baseline string
	// Metric is the metric key.
	Metric string
	// Base and Value are the metric's means over the baseline's and the
	// variant's runs.
	Base, Value float64
	// Change is the relative difference (Value − Base) / Base.
	Change float64
	// Low and High bound the confidence interval of Change; NaN when
	// there is none.
	Low, High float64
	// Method is how the interval was obtained (MethodBootstrap, ...), ""
	// when there is none.
	Method string
	// Verdict is one of the Verdict constants.
	Verdict string
}

// GateResult is one gate checked at one sweep point for one variant.
type GateResult struct {
	// Metric is the gated metric key.
	Metric string
	// Kind is "max_increase" or "max_decrease".
	Kind string
	// Limit is the limit as written, e.g. "5%".
	Limit string
	// Point, Variant and Baseline say what was compared.
	Point, Variant, Baseline string
	// Change is the relative change of the metric, Low and High its
	// interval (NaN when none).
	Change, Low, High float64
	// Failed reports the gate failed.
	Failed bool
	// Excess is how far the change went beyond the limit, as a fraction
	// (0.93 = 93 percentage points); 0 when within.
	Excess float64
	// Reason explains a failure that is not a measured change (e.g. the
	// metric is missing from the results), "" otherwise.
	Reason string
}

// HasVariants reports whether the rows belong to named variants.
func (s *ExperimentSummary) HasVariants() bool {
	for _, r := range s.Rows {
		if r.Variant != "" {
			return true
		}
	}
	return false
}

// FailedGates returns the gates that failed.
func (s *ExperimentSummary) FailedGates() []GateResult {
	var out []GateResult
	for _, g := range s.Gates {
		if g.Failed {
			out = append(out, g)
		}
	}
	return out
}

// column is one metric column of the console table.
type column struct{ key, title string }

// MetricTitle is the short human name of a metric key in tables and
// charts, from the metric table: "P99 TTFT (ms)", "output tok/s"; a key
// with no short name is its own title.
func MetricTitle(key string) string {
	if d, ok := metrics.Lookup(key); ok {
		return d.Label()
	}
	return key
}

// consoleColumns picks the console table's columns from the metrics:
// failures (when any), request and output throughput, and for TTFT, TPOT,
// ITL and E2EL the mean plus, for TTFT and E2EL, the highest percentile.
func (s *ExperimentSummary) consoleColumns() []column {
	has := map[string]bool{}
	for _, m := range s.Metrics {
		has[m] = true
	}
	var cols []column
	for _, r := range s.Rows {
		if st, ok := r.Stats[metrics.KeyFailed]; ok && st.Max > 0 {
			cols = append(cols, column{metrics.KeyFailed, MetricTitle(metrics.KeyFailed)})
			break
		}
	}
	for _, k := range []string{metrics.KeyRequestThroughput, metrics.KeyOutputThroughput} {
		if has[k] {
			cols = append(cols, column{k, MetricTitle(k)})
		}
	}
	for _, m := range []string{metrics.TTFT, metrics.TPOT, metrics.ITL, metrics.E2EL} {
		if k := metrics.StatKey(metrics.StatMean, m); has[k] {
			cols = append(cols, column{k, MetricTitle(k)})
		}
		if m == metrics.TTFT || m == metrics.E2EL {
			if k := highestPercentile(s.Metrics, m); k != "" {
				cols = append(cols, column{k, MetricTitle(k)})
			}
		}
	}
	return cols
}

// highestPercentile returns the p<P>_<metric>_ms key with the largest P.
func highestPercentile(keys []string, metric string) string {
	best, bestP := "", -1.0
	for _, k := range keys {
		stat, m, ok := metrics.SplitStatKey(k)
		if !ok || m != metric || !strings.HasPrefix(stat, "p") {
			continue
		}
		if p, err := strconv.ParseFloat(stat[1:], 64); err == nil && p > bestP {
			best, bestP = k, p
		}
	}
	return best
}

// formatCell is a mean, with ± the 95 % half width when there are several
// runs.
func formatCell(st stats.Summary) string {
	if st.N == 0 || math.IsNaN(st.Mean) {
		return "-"
	}
	v := strconv.FormatFloat(st.Mean, 'f', 2, 64)
	if st.N > 1 && !math.IsNaN(st.HalfWidth()) {
		v += " ±" + strconv.FormatFloat(st.HalfWidth(), 'f', 2, 64)
	}
	return v
}

// formatPct formats a fraction as a signed percentage: 0.0512 → "+5.1%".
func formatPct(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
}

func signedPct(f float64) string {
	s := formatPct(f)
	if !math.IsNaN(f) && f >= 0 {
		s = "+" + s
	}
	return s
}

// formatCI formats a relative interval: "[+2.1%, +9.8%]".
func formatCI(low, high float64) string {
	if math.IsNaN(low) || math.IsNaN(high) {
		return "-"
	}
	return "[" + signedPct(low) + ", " + signedPct(high) + "]"
}

// table writes rows of cells as left-aligned columns two spaces apart.
func table(w io.Writer, rows [][]string) error {
	widths := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		line := ""
		for i, c := range r {
			if i == len(r)-1 {
				line += c
			} else {
				line += ljust(c, widths[i]) + "  "
			}
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// axisTitle is an axis's column title: its last field name, or the whole
// path when two axes share a last name.
func (s *ExperimentSummary) axisTitle(i int) string {
	last := func(p string) string { return p[strings.LastIndex(p, ".")+1:] }
	for j, other := range s.Axes {
		if j != i && last(other) == last(s.Axes[i]) {
			return s.Axes[i]
		}
	}
	return last(s.Axes[i])
}

// rowLabels are the leading cells of a row: its axis values and variant.
func (s *ExperimentSummary) rowLabels(r SummaryRow, variants bool) []string {
	var cells []string
	if len(s.Axes) > 0 {
		cells = append(cells, r.Values...)
	} else if r.Point != "" {
		cells = append(cells, r.Point)
	}
	if variants {
		cells = append(cells, r.Variant)
	}
	return cells
}

func (s *ExperimentSummary) labelTitles(variants bool) []string {
	var cells []string
	for i := range s.Axes {
		cells = append(cells, s.axisTitle(i))
	}
	if len(s.Axes) == 0 && len(s.Rows) > 0 && s.Rows[0].Point != "" {
		cells = append(cells, "result")
	}
	if variants {
		cells = append(cells, "variant")
	}
	return cells
}

// WriteSummaryTable writes the console summary: a centred title, a line
// saying what the cells are, and one row per sweep point and variant with
// its run count and headline metrics (the mean, ± the half width of the
// confidence interval when there are several runs).
func WriteSummaryTable(w io.Writer, s *ExperimentSummary) error {
	variants := s.HasVariants()
	cols := s.consoleColumns()
	maxRuns := 0
	for _, r := range s.Rows {
		maxRuns = max(maxRuns, len(r.Files))
	}
	var b strings.Builder
	b.WriteString(center(" Experiment Summary ", '=', blockWidth) + "\n")
	if s.Name != "" {
		b.WriteString("Experiment: " + s.Name + "\n")
	}
	if maxRuns > 1 {
		fmt.Fprintf(&b, "Cells: mean over the runs ± half width of the %s confidence interval (Student t).\n", levelText(s.Level))
	}
	rows := [][]string{append(s.labelTitles(variants), "runs")}
	for _, c := range cols {
		rows[0] = append(rows[0], c.title)
	}
	for _, r := range s.Rows {
		runs := strconv.Itoa(len(r.Files))
		if r.Missing > 0 {
			runs += fmt.Sprintf(" (%d missing)", r.Missing)
		}
		if k := len(r.StoppedEarly); k > 0 {
			runs += fmt.Sprintf(" (%d stopped early)", k)
		}
		cells := append(s.rowLabels(r, variants), runs)
		for _, c := range cols {
			cells = append(cells, formatCell(r.Stats[c.key]))
		}
		rows = append(rows, cells)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return table(w, rows)
}

func levelText(level float64) string {
	return strconv.FormatFloat(100*level, 'f', -1, 64) + " %"
}

// WriteComparisonTable writes each variant against the baseline: the
// baseline's and the variant's mean, the relative change, its confidence
// interval, how the interval was obtained and the verdict. It writes
// nothing when there are no comparisons.
func WriteComparisonTable(w io.Writer, s *ExperimentSummary) error {
	if len(s.Comparisons) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(center(" Comparison with "+s.Baseline+" ", '=', blockWidth) + "\n")
	fmt.Fprintf(&b, "Change = (variant − baseline) / baseline, with its %s confidence interval (CI).\n", levelText(s.Level))
	if s.Bootstrap != "" {
		fmt.Fprintf(&b, "Bootstrap: %s.\n", s.Bootstrap)
	}
	for _, c := range s.Comparisons {
		if c.Verdict == VerdictUntested {
			b.WriteString("Untested: no interval, from one run each without enough per-request samples; repeat the runs for one.\n")
			break
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	sweep := len(s.Axes) > 0
	head := []string{}
	if sweep {
		head = append(head, "point")
	}
	rows := [][]string{append(head, "variant", "metric", "baseline", "value", "change", "CI", "method", "verdict")}
	for _, c := range s.Comparisons {
		var cells []string
		if sweep {
			cells = append(cells, c.Point)
		}
		method := c.Method
		if method == "" {
			method = "-"
		}
		cells = append(cells, c.Variant, c.Metric, strconv.FormatFloat(c.Base, 'f', 2, 64),
			strconv.FormatFloat(c.Value, 'f', 2, 64), signedPct(c.Change), formatCI(c.Low, c.High), method, c.Verdict)
		rows = append(rows, cells)
	}
	if err := table(w, rows); err != nil {
		return err
	}
	_, err := io.WriteString(w, strings.Join(VerdictLines(s), "\n")+"\n")
	return err
}

// VerdictLines sums up the comparisons of each variant at each point in
// one line, e.g. "slow vs fast: worse in 9, better in 0 of 9 tested
// metrics (3 untested)" or "b vs a: no significant difference in any of
// 9 tested metrics (6 untested)". Each interval is a 95 % one on its own,
// so about one metric in twenty differs by chance alone.
func VerdictLines(s *ExperimentSummary) []string {
	type tally struct {
		where                                  string
		worse, better, changed, same, untested int
	}
	var order []string
	counts := map[string]*tally{}
	for _, c := range s.Comparisons {
		where := c.Variant + " vs " + c.Baseline
		if c.Point != "" {
			where += " at " + c.Point
		}
		t := counts[where]
		if t == nil {
			t = &tally{where: where}
			counts[where] = t
			order = append(order, where)
		}
		switch c.Verdict {
		case VerdictWorse:
			t.worse++
		case VerdictBetter:
			t.better++
		case VerdictChanged:
			t.changed++
		case VerdictSame:
			t.same++
		default:
			t.untested++
		}
	}
	var lines []string
	for _, k := range order {
		t := counts[k]
		tested := t.worse + t.better + t.changed + t.same
		var line string
		switch {
		case tested == 0:
			line = fmt.Sprintf("%s: no metric could be tested", t.where)
		case tested == t.same:
			line = fmt.Sprintf("%s: no significant difference in any of %d tested metrics", t.where, tested)
		default:
			line = fmt.Sprintf("%s: worse in %d, better in %d", t.where, t.worse, t.better)
			if t.changed > 0 {
				line += fmt.Sprintf(", changed in %d", t.changed)
			}
			line += fmt.Sprintf(" of %d tested metrics", tested)
		}
		if t.untested > 0 {
			line += fmt.Sprintf(" (%d untested)", t.untested)
		}
		lines = append(lines, line)
	}
	return lines
}

// GateLine describes one gate check on one line, e.g.
//
//	FAIL p99_ttft_ms max_increase 5%: slow vs fast +93.9% [+92.0%, +95.8%], 88.9 points over the limit
func GateLine(g GateResult) string {
	status := "PASS"
	if g.Failed {
		status = "FAIL"
	}
	where := g.Variant + " vs " + g.Baseline
	if g.Point != "" {
		where += " at " + g.Point
	}
	line := fmt.Sprintf("%s %s %s %s: %s", status, g.Metric, g.Kind, g.Limit, where)
	if g.Reason != "" {
		return line + ": " + g.Reason
	}
	line += " " + signedPct(g.Change)
	if !math.IsNaN(g.Low) {
		line += " " + formatCI(g.Low, g.High)
	}
	if g.Failed {
		line += fmt.Sprintf(", %s points over the limit", strconv.FormatFloat(100*g.Excess, 'f', 1, 64))
	} else if g.Excess > 0 {
		line += ", beyond the limit but not significant"
	}
	return line
}

// WriteGateReport writes one GateLine per gate check under a "Gates:"
// heading; nothing when there are no gates.
func WriteGateReport(w io.Writer, s *ExperimentSummary) error {
	if len(s.Gates) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("Gates:\n")
	for _, g := range s.Gates {
		b.WriteString("  " + GateLine(g) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteExperimentConsole writes the summary table, the comparison table
// and the gate report, separated by blank lines.
func WriteExperimentConsole(w io.Writer, s *ExperimentSummary) error {
	if err := WriteSummaryTable(w, s); err != nil {
		return err
	}
	for _, r := range s.Rows { // never mixed silently with full runs
		for _, f := range slices.Sorted(maps.Keys(r.StoppedEarly)) {
			if _, err := fmt.Fprintf(w, "Stopped early: %s (%s)\n", f, r.StoppedEarly[f]); err != nil {
				return err
			}
		}
	}
	if len(s.Comparisons) > 0 {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		if err := WriteComparisonTable(w, s); err != nil {
			return err
		}
	}
	if len(s.Gates) > 0 {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		return WriteGateReport(w, s)
	}
	return nil
}
