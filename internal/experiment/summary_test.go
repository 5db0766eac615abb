package experiment

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	vstats "github.com/vbench/vbench/internal/stats"
)

// fakeRun is a result of one run: the point and variant it belongs to,
// its repeat, its summary values and per-request samples.
func fakeRun(point int, variant string, repeat int, values map[string]float64, samples map[string][][]float64) *Result {
	r := &Result{Path: variant + "-" + string(rune('0'+repeat)) + ".json", Values: values, Samples: samples,
		Experiment: &RunInfo{Point: point, Variant: variant, Repeat: repeat}}
	for _, k := range []string{"completed", "request_throughput", "output_throughput", "mean_ttft_ms", "p99_ttft_ms", "std_ttft_ms"} {
		if _, ok := values[k]; ok {
			r.Keys = append(r.Keys, k)
		}
	}
	return r
}

func abSpec(gates ...scenario.Gate) *Spec {
	return &Spec{Points: []Point{{}}, Variants: []string{"a", "b"}, Baseline: "a", Repeat: 3, Gates: gates}
}

func findComparison(t *testing.T, s *report.ExperimentSummary, metric string) report.Comparison {
	t.Helper()
	for _, c := range s.Comparisons {
		if c.Metric == metric {
			return c
		}
	}
	t.Fatalf("no comparison of %s in %+v", metric, s.Comparisons)
	return report.Comparison{}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestSummarizeRows(t *testing.T) {
	spec := &Spec{Axes: []string{"load.max_concurrency"}, Repeat: 3,
		Points: []Point{{Name: "max_concurrency=1", Values: rawValues("1")}, {Name: "max_concurrency=8", Values: rawValues("8")}}}
	var results []*Result
	for rep, v := range []float64{100, 110, 120} {
		results = append(results, fakeRun(1, "", rep, map[string]float64{"completed": 10, "output_throughput": v}, nil))
	}
	results = append(results, fakeRun(0, "", 0, map[string]float64{"completed": 10, "output_throughput": 50}, nil))
	s := summarize(spec, "sha256:x", results, true, func(p string) string { return "dir/" + p })
	if len(s.Rows) != 2 || s.Rows[0].Point != "max_concurrency=1" || s.Rows[1].Values[0] != "8" {
		t.Fatalf("rows %+v", s.Rows)
	}
	if got := s.Metrics; len(got) != 2 || got[0] != "completed" || got[1] != "output_throughput" {
		t.Errorf("metrics %q", got)
	}
	// Point 0 ran once of three; point 1 three times: 100, 110, 120.
	r0, r1 := s.Rows[0], s.Rows[1]
	if r0.Missing != 2 || len(r0.Files) != 1 || r1.Missing != 0 || r1.Files[2] != "dir/-2.json" {
		t.Errorf("files %q missing %d / %q missing %d", r0.Files, r0.Missing, r1.Files, r1.Missing)
	}
	st := r1.Stats["output_throughput"]
	// x̄ = 110, s = 10, half width = t(0.975, 2) · 10/√3.
	half := 4.3026527297494638523 * 10 / math.Sqrt(3)
	if st.N != 3 || st.Mean != 110 || st.Std != 10 || st.Min != 100 || st.Max != 120 || !near(st.CV, 10.0/110) ||
		!near(st.CILow, 110-half) || !near(st.CIHigh, 110+half) {
		t.Errorf("stats %+v", st)
	}
	if len(s.Comparisons) != 0 || len(s.Gates) != 0 || s.Baseline != "" {
		t.Errorf("a sweep without variants compared: %+v", s.Comparisons)
	}
}

func rawValues(vals ...string) (out []json.RawMessage) {
	for _, v := range vals {
		out = append(out, json.RawMessage(v))
	}
	return out
}

func TestCompareOverRepeats(t *testing.T) {
	// Paired: d = (−10, −10, −7), d̄ = −9, s_d = √3, s_d/√3 = 1, so the
	// interval is −9 ± t(0.975, 2) = −9 ± 4.30265; relative to b̄ = 105.
	base := []float64{100, 110, 105}
	cand := []float64{90, 100, 98}
	gate := scenario.Gate{Metric: "output_throughput", MaxDecrease: "3%"}
	var results []*Result
	for i := range base {
		results = append(results,
			fakeRun(0, "a", i, map[string]float64{"output_throughput": base[i]}, nil),
			fakeRun(0, "b", i, map[string]float64{"output_throughput": cand[i]}, nil))
	}
	const tq = 4.3026527297494638523
	s := summarize(abSpec(gate), "", results, true, func(p string) string { return p })
	c := findComparison(t, s, "output_throughput")
	if c.Method != report.MethodPaired || c.Base != 105 || !near(c.Value, 96) || !near(c.Change, -9.0/105) ||
		!near(c.Low, (-9-tq)/105) || !near(c.High, (-9+tq)/105) || c.Verdict != report.VerdictWorse {
		t.Errorf("paired comparison %+v", c)
	}
	// −8.57 % is 5.57 points beyond the 3 % limit, and significant.
	if len(s.Gates) != 1 || !s.Gates[0].Failed || !near(s.Gates[0].Excess, 9.0/105-0.03) {
		t.Errorf("gates %+v", s.Gates)
	}

	// Unpaired (saved results of unknown pairing): Welch's interval.
	s = summarize(abSpec(), "", results, false, func(p string) string { return p })
	c = findComparison(t, s, "output_throughput")
	// s_b² = 25, s_c² = 28; se² = 53/3; ν = (53/3)² / ((25/3)²/2 + (28/3)²/2).
	if c.Method != report.MethodWelch || !near(c.Change, -9.0/105) || c.Verdict != report.VerdictSame {
		t.Errorf("welch comparison %+v", c)
	}
	df := (53.0 / 3) * (53.0 / 3) / ((25.0/3)*(25.0/3)/2 + (28.0/3)*(28.0/3)/2)
	if want := (-9 - tqWelch(df)*math.Sqrt(53.0/3)) / 105; !near(c.Low, want) {
		t.Errorf("welch low %v, want %v (df %v)", c.Low, want, df)
	}
}

// tqWelch is t(0.975, ν) for the Welch example, from the stats package's
// own pinned quantile function.
func tqWelch(df float64) float64 { return vstats.TQuantile(0.975, df) }

func TestCompareBootstrap(t *testing.T) {
	units := func(v float64, n int) [][]float64 {
		u := make([][]float64, n)
		for i := range u {
			u[i] = []float64{v}
		}
		return u
	}
	tests := []struct {
		name      string
		base      map[string][][]float64
		cand      map[string][][]float64
		metric    string
		verdict   string
		method    string
		low, high float64
	}{
		// Every TTFT doubles: every replicate's change is exactly +100 %.
		{"constant shift", map[string][][]float64{"ttft": units(0.02, 50)}, map[string][][]float64{"ttft": units(0.04, 50)},
			"mean_ttft_ms", report.VerdictWorse, report.MethodBootstrap, 1, 1},
		{"identical", map[string][][]float64{"ttft": units(0.02, 50)}, map[string][][]float64{"ttft": units(0.02, 50)},
			"mean_ttft_ms", report.VerdictSame, report.MethodBootstrap, 0, 0},
		// 50 values have 0.5 beyond their P99: too few for the bootstrap.
		{"p99 of 50 values", map[string][][]float64{"ttft": units(0.02, 50)}, map[string][][]float64{"ttft": units(0.04, 50)},
			"p99_ttft_ms", report.VerdictUntested, "", math.NaN(), math.NaN()},
		// 500 values have 5 beyond their P99.
		{"p99 of 500 values", map[string][][]float64{"ttft": units(0.02, 500)}, map[string][][]float64{"ttft": units(0.04, 500)},
			"p99_ttft_ms", report.VerdictWorse, report.MethodBootstrap, 1, 1},
		{"no samples", nil, nil, "mean_ttft_ms", report.VerdictUntested, "", math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := abSpec(scenario.Gate{Metric: tt.metric, MaxIncrease: "5%"})
			spec.Repeat = 1
			b := fakeRun(0, "a", 0, map[string]float64{"mean_ttft_ms": 20, "p99_ttft_ms": 20}, tt.base)
			c := fakeRun(0, "b", 0, map[string]float64{"mean_ttft_ms": 40, "p99_ttft_ms": 40}, tt.cand)
			if tt.verdict == report.VerdictSame {
				c.Values = b.Values
			}
			s := summarize(spec, "", []*Result{b, c}, true, func(p string) string { return p })
			got := findComparison(t, s, tt.metric)
			nanEq := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
			if got.Verdict != tt.verdict || got.Method != tt.method || !nanEq(got.Low, tt.low) || !nanEq(got.High, tt.high) {
				t.Errorf("comparison %+v", got)
			}
			// The gate fails on a significant +100 %, and on an untested one
			// (the estimate alone decides); an identical pair passes.
			g := s.Gates[0]
			if g.Failed != (tt.verdict != report.VerdictSame) {
				t.Errorf("gate %+v", g)
			}
			if tt.verdict != report.VerdictSame && !near(g.Excess, 0.95) {
				t.Errorf("excess %v, want 0.95", g.Excess)
			}
		})
	}
}

func TestGates(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		gate   scenario.Gate
		c      report.Comparison
		ok     bool
		failed []bool
		reason string
	}{
		{"within", scenario.Gate{Metric: "m", MaxIncrease: "5%"}, report.Comparison{Change: 0.04, Low: 0.01, High: 0.07}, true, []bool{false}, ""},
		{"beyond and significant", scenario.Gate{Metric: "m", MaxIncrease: "5%"}, report.Comparison{Change: 0.08, Low: 0.01, High: 0.15}, true, []bool{true}, ""},
		{"beyond but not significant", scenario.Gate{Metric: "m", MaxIncrease: "5%"}, report.Comparison{Change: 0.08, Low: -0.01, High: 0.17}, true, []bool{false}, ""},
		{"beyond without interval", scenario.Gate{Metric: "m", MaxIncrease: "5%"}, report.Comparison{Change: 0.051, Low: nan, High: nan}, true, []bool{true}, ""},
		{"decrease", scenario.Gate{Metric: "m", MaxDecrease: "3%"}, report.Comparison{Change: -0.031, Low: -0.05, High: -0.01}, true, []bool{true}, ""},
		{"an increase passes a decrease gate", scenario.Gate{Metric: "m", MaxDecrease: "3%"}, report.Comparison{Change: 0.5, Low: 0.4, High: 0.6}, true, []bool{false}, ""},
		{"both limits", scenario.Gate{Metric: "m", MaxIncrease: "10%", MaxDecrease: "10%"}, report.Comparison{Change: -0.2, Low: nan, High: nan}, true, []bool{false, true}, ""},
		{"missing metric", scenario.Gate{Metric: "m", MaxIncrease: "5%"}, report.Comparison{}, false, []bool{true}, "the metric is not in the results"},
		{"zero baseline", scenario.Gate{Metric: "m", MaxIncrease: "5%"}, report.Comparison{Change: nan, Low: nan, High: nan}, true, []bool{true}, "the baseline value is 0"},
	}
	for _, tt := range tests {
		got := checkGate(tt.gate, "p", "b", "a", tt.c, tt.ok)
		if len(got) != len(tt.failed) {
			t.Fatalf("%s: %d results", tt.name, len(got))
		}
		for i, g := range got {
			if g.Failed != tt.failed[i] || !strings.HasPrefix(g.Reason, tt.reason) {
				t.Errorf("%s: gate %d %+v", tt.name, i, g)
			}
		}
	}
	if got := checkGate(scenario.Gate{Metric: "m", MaxIncrease: "5%"}, "", "b", "a", report.Comparison{Change: 0.08, Low: -0.01, High: 0.17}, true)[0]; !near(got.Excess, 0.03) {
		t.Errorf("excess of a non-significant breach %v, want 0.03", got.Excess)
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]float64{"5%": 0.05, "2.5%": 0.025, "0%": 0, " 10% ": 0.1} {
		if got, err := ParseLimit(in); err != nil || !near(got, want) {
			t.Errorf("ParseLimit(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"5", "-1%", "x%", "%"} {
		if _, err := ParseLimit(bad); err == nil {
			t.Errorf("ParseLimit(%q) accepted", bad)
		}
	}
}

func TestBlocks(t *testing.T) {
	u := [][]float64{{1}, {2, 3}, {4}, {5}, {}}
	got := blocks(u, 2)
	want := [][]float64{{1, 2, 3}, {4, 5}, nil}
	if len(got) != len(want) {
		t.Fatalf("blocks %v", got)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("block %d = %v, want %v", i, got[i], want[i])
		}
	}
	tests := []struct {
		n    int
		conc float64
		want int
	}{{100, 8.4, 8}, {40, 8, 5}, {10, 4, 1}, {100, 0, 1}, {1000, 63.6, 64}}
	for _, tt := range tests {
		if got := blockSize(tt.n, tt.conc); got != tt.want {
			t.Errorf("blockSize(%d, %v) = %d, want %d", tt.n, tt.conc, got, tt.want)
		}
	}
}
