package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/stats"
)

// sweepSummary is a two-point sweep of two variants, the first point run
// twice per variant (a confidence interval), the second once.
func sweepSummary() *ExperimentSummary {
	row := func(point, value, variant string, files []string, vals map[string][]float64) SummaryRow {
		r := SummaryRow{Point: point, Values: []string{value}, Variant: variant, Files: files,
			PerRun: vals, Stats: map[string]stats.Summary{}}
		for k, v := range vals {
			r.Stats[k] = stats.Describe(v, 0.95)
		}
		return r
	}
	nan := math.NaN()
	return &ExperimentSummary{
		Name: "demo", Hash: "sha256:abc", Axes: []string{"load.max_concurrency"}, Baseline: "a", Level: 0.95,
		Metrics: []string{"completed", "output_throughput", "mean_ttft_ms", "p99_ttft_ms"},
		Rows: []SummaryRow{
			row("max_concurrency=1", "1", "a", []string{"a1.json", "a1b.json"}, map[string][]float64{
				"completed": {10, 10}, "output_throughput": {100, 110}, "mean_ttft_ms": {20, 22}, "p99_ttft_ms": {30, 30}}),
			row("max_concurrency=1", "1", "b", []string{"b1.json", "b1b.json"}, map[string][]float64{
				"completed": {10, 10}, "output_throughput": {50, 60}, "mean_ttft_ms": {40, 40}, "p99_ttft_ms": {50, 50}}),
			row("max_concurrency=8", "8", "a", []string{"a8.json"}, map[string][]float64{
				"completed": {10}, "output_throughput": {400}, "mean_ttft_ms": {25}, "p99_ttft_ms": {35}}),
			row("max_concurrency=8", "8", "b", []string{"b8.json"}, map[string][]float64{
				"completed": {10}, "output_throughput": {200}, "mean_ttft_ms": {45}, "p99_ttft_ms": {60}}),
		},
		Comparisons: []Comparison{
			{Point: "max_concurrency=1", Variant: "b", Baseline: "a", Metric: "mean_ttft_ms", Base: 21, Value: 40,
				Change: 19.0 / 21, Low: 0.5, High: 1.3, Method: MethodPaired, Verdict: VerdictWorse},
			{Point: "max_concurrency=8", Variant: "b", Baseline: "a", Metric: "output_throughput", Base: 400, Value: 200,
				Change: -0.5, Low: nan, High: nan, Verdict: VerdictUntested},
		},
		Gates: []GateResult{
			{Metric: "mean_ttft_ms", Kind: "max_increase", Limit: "5%", Point: "max_concurrency=1", Variant: "b", Baseline: "a",
				Change: 19.0 / 21, Low: 0.5, High: 1.3, Failed: true, Excess: 19.0/21 - 0.05},
			{Metric: "missing_ms", Kind: "max_increase", Limit: "5%", Variant: "b", Baseline: "a",
				Change: nan, Low: nan, High: nan, Failed: true, Reason: "the metric is not in the results"},
		},
	}
}

func TestWriteExperimentConsole(t *testing.T) {
	var b bytes.Buffer
	if err := WriteExperimentConsole(&b, sweepSummary()); err != nil {
		t.Fatal(err)
	}
	// Two runs: 100, 110 → 105 ± t(0.975, 1)·√50/√2 = 12.7062·5 = 63.53.
	want := `=============== Experiment Summary ===============
Experiment: demo
Cells: mean over the runs ± half width of the 95 % confidence interval (Student t).
max_concurrency  variant  runs  output tok/s   mean TTFT (ms)  P99 TTFT (ms)
1                a        2     105.00 ±63.53  21.00 ±12.71    30.00 ±0.00
1                b        2     55.00 ±63.53   40.00 ±0.00     50.00 ±0.00
8                a        1     400.00         25.00           35.00
8                b        1     200.00         45.00           60.00

=============== Comparison with a ================
Change = (variant − baseline) / baseline, with its 95 % confidence interval (CI).
Untested: no interval, from one run each without enough per-request samples; repeat the runs for one.
point              variant  metric             baseline  value   change  CI                 method    verdict
max_concurrency=1  b        mean_ttft_ms       21.00     40.00   +90.5%  [+50.0%, +130.0%]  paired t  worse
max_concurrency=8  b        output_throughput  400.00    200.00  -50.0%  -                  -         untested
b vs a at max_concurrency=1: worse in 1, better in 0 of 1 tested metrics
b vs a at max_concurrency=8: no metric could be tested (1 untested)

Gates:
  FAIL mean_ttft_ms max_increase 5%: b vs a at max_concurrency=1 +90.5% [+50.0%, +130.0%], 85.5 points over the limit
  FAIL missing_ms max_increase 5%: b vs a: the metric is not in the results
`
	if b.String() != want {
		t.Errorf("console\n%s\nwant\n%s", b.String(), want)
	}
}

func TestGateLine(t *testing.T) {
	g := GateResult{Metric: "p99_ttft_ms", Kind: "max_increase", Limit: "5%", Variant: "b", Baseline: "a",
		Change: 0.08, Low: -0.01, High: 0.17, Excess: 0.03}
	if got, want := GateLine(g), "PASS p99_ttft_ms max_increase 5%: b vs a +8.0% [-1.0%, +17.0%], beyond the limit but not significant"; got != want {
		t.Errorf("GateLine = %q, want %q", got, want)
	}
	g = GateResult{Metric: "output_throughput", Kind: "max_decrease", Limit: "3%", Variant: "b", Baseline: "a",
		Change: -0.01, Low: math.NaN(), High: math.NaN()}
	if got, want := GateLine(g), "PASS output_throughput max_decrease 3%: b vs a -1.0%"; got != want {
		t.Errorf("GateLine = %q, want %q", got, want)
	}
}

func TestWriteSummaryCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSummaryCSV(&b, sweepSummary()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	if len(recs) != 5 || strings.Join(head[:10], ",") != "load.max_concurrency,variant,runs,completed,completed_std,completed_min,completed_max,completed_cv,completed_ci_low,completed_ci_high" ||
		head[len(head)-1] != "files" {
		t.Fatalf("csv head %q (%d records)", head, len(recs))
	}
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	// Row 1: output_throughput 100, 110: mean 105, std √50, cv √50/105.
	r := recs[1]
	if r[0] != "1" || r[1] != "a" || r[2] != "2" || r[col("output_throughput")] != "105" ||
		r[col("output_throughput_std")] != "7.0710678118654755" || r[col("output_throughput_min")] != "100" ||
		r[col("files")] != "a1.json;a1b.json" {
		t.Errorf("row 1 %q", r)
	}
	// One run: the undefined std, CV and interval are empty cells.
	r = recs[3]
	for _, c := range []string{"output_throughput_std", "output_throughput_cv", "output_throughput_ci_low", "output_throughput_ci_high"} {
		if r[col(c)] != "" {
			t.Errorf("%s of one run = %q", c, r[col(c)])
		}
	}
	b.Reset()
	if err := WriteComparisonCSV(&b, sweepSummary()); err != nil {
		t.Fatal(err)
	}
	if want := "point,variant,baseline,metric,baseline_value,value,change,ci_low,ci_high,method,verdict\n" +
		"max_concurrency=1,b,a,mean_ttft_ms,21,40,0.9047619047619048,0.5,1.3,paired t,worse\n" +
		"max_concurrency=8,b,a,output_throughput,400,200,-0.5,,,,untested\n"; b.String() != want {
		t.Errorf("comparison csv\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteSummaryJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSummaryJSON(&b, sweepSummary()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Axes []string `json:"axes"`
		Rows []struct {
			Point   string `json:"point"`
			Values  []struct{ Path, Value string }
			Variant string `json:"variant"`
			Runs    int    `json:"runs"`
			Metrics []struct {
				Name   string     `json:"name"`
				Mean   *float64   `json:"mean"`
				Std    *float64   `json:"std"`
				Values []*float64 `json:"values"`
			} `json:"metrics"`
		} `json:"rows"`
		Comparisons []struct {
			Low *float64 `json:"ci_low"`
		} `json:"comparisons"`
		Gates []struct {
			Failed bool   `json:"failed"`
			Reason string `json:"reason"`
		} `json:"gates"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	r := got.Rows[2]
	if r.Point != "max_concurrency=8" || r.Variant != "a" || r.Runs != 1 || len(r.Metrics) != 4 || r.Metrics[1].Name != "output_throughput" {
		t.Fatalf("row %+v", r)
	}
	if m := r.Metrics[1]; *m.Mean != 400 || m.Std != nil || len(m.Values) != 1 || *m.Values[0] != 400 {
		t.Errorf("one-run metric: mean %v std %v values %v (std must be null)", m.Mean, m.Std, m.Values)
	}
	if got.Comparisons[1].Low != nil || !got.Gates[1].Failed || got.Gates[1].Reason == "" {
		t.Errorf("comparisons %+v gates %+v", got.Comparisons, got.Gates)
	}
}

func TestChartSVG(t *testing.T) {
	s := sweepSummary()
	svg := ChartSVG(s, "mean_ttft_ms")
	// Well-formed XML.
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, svg)
		}
	}
	// x: the throughputs reach 400, with 5 % headroom 420 → ticks of 100
	// up to 500; y: TTFT up to 45 (b's interval at point 1 is [40, 40];
	// a's reaches 21 + 12.7 = 33.7), 47.25 with headroom → ticks of 10 up
	// to 50. Plot area: x 70..590 (520 wide), y 40..390 (350 high).
	// Variant a: (105, 21) → (70 + 105/500·520, 390 − 21/50·350) =
	// (179.2, 243.0); (400, 25) → (486.0, 215.0).
	for _, want := range []string{
		`<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="179.2,243.0 486.0,215.0"/>`,
		`<polyline fill="none" stroke="#d62728" stroke-width="2" points="127.2,110.0 278.0,75.0"/>`,
		`>500</text>`, `>50</text>`,
		`<title>a max_concurrency=1: 105.00 tok/s, 21.00 ms</title>`,
		`>mean TTFT (ms) vs output tok/s</text>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %s", want)
		}
	}
	// a's first point has a TTFT interval (two runs): an error bar from
	// py(21 − 12.7062) to py(21 + 12.7062).
	lo, hi := 390-(21-12.706204736174705)/50*350, 390-(21+12.706204736174705)/50*350
	if want := `<line x1="179.2" y1="` + svgNum(lo) + `" x2="179.2" y2="` + svgNum(hi) + `" stroke="#1f77b4" clip-path="url(#plot-mean-ttft-ms)"/>`; !strings.Contains(svg, want) {
		t.Errorf("svg lacks the error bar %s", want)
	}
	// a's first point: throughput 100, 110 → 105 ± 63.5, whose upper end
	// (168.5) is within 1.5 × 400: the x axis would reach it anyway.
	if ChartSVG(s, "p99_e2el_ms") != "" {
		t.Error("a chart of a metric no row has")
	}
}

// TestChartSVGWholeIntervals checks that the y axis reaches the top of a
// confidence interval far above its mean (repeats of a noisy P99): the
// bar is drawn whole, not cut at the frame.
func TestChartSVGWholeIntervals(t *testing.T) {
	s := sweepSummary()
	s.Rows = s.Rows[:1]
	r := &s.Rows[0]
	r.PerRun["p99_ttft_ms"] = []float64{20, 24, 21, 40}
	r.Stats["p99_ttft_ms"] = stats.Describe(r.PerRun["p99_ttft_ms"], 0.95)
	st := r.Stats["p99_ttft_ms"]
	if st.CIHigh < 1.5*st.Mean {
		t.Fatalf("the fixture's interval [%v, %v] around %v does not reach 1.5 times its mean", st.CILow, st.CIHigh, st.Mean)
	}
	svg := ChartSVG(s, "p99_ttft_ms")
	// 1.05 · 40.5… → ticks of 10 up to 50; the bar's top is py(High) ≥ the
	// frame's top (40).
	if !strings.Contains(svg, `>50</text>`) {
		t.Errorf("the y axis does not reach the interval's top %v:\n%s", st.CIHigh, svg)
	}
	hi := 390 - st.CIHigh/50*350
	if want := `y2="` + svgNum(hi) + `"`; !strings.Contains(svg, want) || hi < 40 {
		t.Errorf("svg lacks the whole error bar up to %s", want)
	}
}

func TestNiceAxis(t *testing.T) {
	tests := []struct{ hi, step, top float64 }{
		{400, 100, 400}, {45, 10, 50}, {2517.5, 1000, 3000}, {2400, 500, 2500}, {0.73, 0.2, 0.8}, {0, 0.2, 1}, {1, 0.2, 1},
	}
	for _, tt := range tests {
		step, top := niceAxis(tt.hi)
		if math.Abs(step-tt.step) > 1e-12 || math.Abs(top-tt.top) > 1e-9 {
			t.Errorf("niceAxis(%v) = %v, %v; want %v, %v", tt.hi, step, top, tt.step, tt.top)
		}
	}
	if got := tickLabel(0.6000000000000001, 0.2); got != "0.6" {
		t.Errorf("tickLabel = %q", got)
	}
}

func TestWriteHTMLSelfContained(t *testing.T) {
	s := sweepSummary()
	s.Name = `<script>alert("x")</script>`
	var b bytes.Buffer
	if err := WriteHTML(&b, s); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	html = strings.ReplaceAll(html, `clip-path="url(#plot-`, "")
	for _, bad := range []string{"<script", "src=", "href=", "@import", "url(", "http://", "https://"} {
		if bad == "http://" {
			html = strings.ReplaceAll(html, `xmlns="http://www.w3.org/2000/svg"`, "")
		}
		if strings.Contains(html, bad) {
			t.Errorf("report.html holds %q: it must open offline and escape names", bad)
		}
	}
	for _, want := range []string{"<!DOCTYPE html>", "<svg ", `&lt;script&gt;`, `<td class="l worse">worse</td>`,
		`<li class="fail">FAIL mean_ttft_ms max_increase 5%`, "<h2>Throughput and latency</h2>"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if got := ChartMetrics([]string{"mean_ttft_ms", "p50_ttft_ms", "p99.9_ttft_ms", "mean_tpot_ms", "mean_e2el_ms"}); strings.Join(got, ",") != "p99.9_ttft_ms,mean_tpot_ms,mean_e2el_ms" {
		t.Errorf("ChartMetrics = %q", got)
	}
}

// TestMetricHelpers pins the titles of the summaries and the table's
// headline and direction flags they use.
func TestMetricHelpers(t *testing.T) {
	tests := []struct {
		key, title string
		headline   bool
		better     metrics.Better
	}{
		{"p99_ttft_ms", "P99 TTFT (ms)", true, metrics.BetterLower},
		{"p99.9_e2el_ms", "P99.9 E2EL (ms)", true, metrics.BetterLower},
		{"std_itl_ms", "std ITL (ms)", true, metrics.BetterNone},
		{"median_client_queue_time_ms", "median queue (ms)", true, metrics.BetterLower},
		{"mean_e2el_including_client_queue_ms", "mean E2EL+queue (ms)", true, metrics.BetterLower},
		{"p90_custom_ms", "P90 custom (ms)", true, metrics.BetterLower},
		{"output_throughput", "output tok/s", true, metrics.BetterHigher},
		{"request_throughput", "req/s", true, metrics.BetterHigher},
		{"total_token_throughput", "total tok/s", true, metrics.BetterHigher},
		{"request_goodput", "goodput req/s", true, metrics.BetterHigher},
		{"failed", "failed", true, metrics.BetterLower},
		{"max_concurrent_requests", "max_concurrent_requests", true, metrics.BetterNone},
		{"total_input_tokens", "total_input_tokens", false, metrics.BetterNone},
	}
	for _, tt := range tests {
		d, _ := metrics.Lookup(tt.key)
		if MetricTitle(tt.key) != tt.title || d.Headline != tt.headline || d.Better != tt.better {
			t.Errorf("%s: title %q headline %v better %v", tt.key, MetricTitle(tt.key), d.Headline, d.Better)
		}
	}
	if got := MetricTitle("num_prompts"); got != "num_prompts" {
		t.Errorf("MetricTitle of an unknown key = %q", got)
	}
}
