package metrics

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestCalculateMetricsGolden feeds 3000 outcomes to ComputeOutcomes and
// wants every value of vLLM's calculate_metrics, bit for bit, as
// testdata/gen_calc_metrics.py (which restates it with numpy, run with
// Debian's python3) computed them: the counts and throughputs, goodput,
// the one-second peaks, and the mean, median, std and four percentiles of
// TTFT, TPOT, ITL and E2EL.
func TestCalculateMetricsGolden(t *testing.T) {
	f, err := os.Open("testdata/calc_metrics_golden.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Duration    float64            `json:"duration"`
		Percentiles []float64          `json:"percentiles"`
		Goodput     map[string]float64 `json:"goodput"`
		Outputs     []struct {
			Success      bool      `json:"success"`
			Start        float64   `json:"start"`
			TTFT         float64   `json:"ttft"`
			ITL          []float64 `json:"itl"`
			Latency      float64   `json:"latency"`
			PromptLen    int       `json:"prompt_len"`
			OutputTokens int       `json:"output_tokens"`
		} `json:"outputs"`
		Expected map[string]float64 `json:"expected"`
	}
	if err := json.NewDecoder(zr).Decode(&g); err != nil {
		t.Fatal(err)
	}
	if len(g.Outputs) != 3000 {
		t.Fatalf("%d outputs, want 3000", len(g.Outputs))
	}
	outs := make([]Outcome, len(g.Outputs))
	for i, o := range g.Outputs {
		outs[i] = Outcome{Success: o.Success, StartTime: o.Start, TTFT: o.TTFT, ITLs: o.ITL, Latency: o.Latency,
			PromptLen: o.PromptLen, OutputTokens: o.OutputTokens, GeneratedText: "x"}
	}
	s := ComputeOutcomes(outs, g.Duration, Options{
		PercentileMetrics: []string{TTFT, TPOT, ITL, E2EL},
		Percentiles:       g.Percentiles,
		Goodput:           g.Goodput,
		// A tokenizer, as vLLM's TTFT, TPOT and ITL need; every success
		// has the server's count, so it is never asked.
		CountTokens: func(string) int { t.Fatal("a success without the server's count"); return 0 },
	})
	got := map[string]float64{
		"completed":               float64(s.Completed),
		"failed":                  float64(s.Failed),
		"total_input_tokens":      float64(s.TotalInput),
		"total_output_tokens":     float64(s.TotalOutput),
		"request_throughput":      s.RequestThroughput,
		"output_throughput":       s.OutputThroughput,
		"total_token_throughput":  s.TotalTokenThroughput,
		"max_output_tokens_per_s": s.MaxOutputTokensPerS,
		"max_concurrent_requests": float64(s.MaxConcurrentRequests),
	}
	if s.RequestGoodput != nil {
		got["request_goodput"] = *s.RequestGoodput
	}
	for _, m := range s.Metrics {
		got[StatKey(StatMean, m.Name)] = m.Mean
		got[StatKey(StatMedian, m.Name)] = m.Median
		got[StatKey(StatStd, m.Name)] = m.Std
		for _, p := range m.Percentiles {
			got[PercentileKey(p.P, m.Name)] = p.Value
		}
	}
	if len(g.Expected) != 38 {
		t.Fatalf("%d expected values, want the 38 of gen_calc_metrics.py (10 totals, 7 statistics of 4 metrics)", len(g.Expected))
	}
	for k, want := range g.Expected {
		v, ok := got[k]
		if !ok {
			t.Errorf("%s: not computed", k)
			continue
		}
		if math.Float64bits(v) != math.Float64bits(want) {
			t.Errorf("%s = %v, vLLM's formula gives %v", k, v, want)
		}
	}
}
