package metrics

import (
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// foldOutcomes makes n outcomes with failures, ties, repeated values and
// several inter-token latencies each.
func foldOutcomes(n int, seed uint64) []Outcome {
	rng := rand.New(rand.NewPCG(seed, 1))
	outs := make([]Outcome, n)
	for i := range outs {
		o := Outcome{Success: rng.IntN(10) != 0, PromptLen: 1 + rng.IntN(50), StartTime: float64(i) * 0.003,
			TTFT: float64(rng.IntN(40)) / 1000, QueueTime: rng.Float64() / 100}
		if o.Success {
			o.OutputTokens = rng.IntN(6) // 0: counted by the tokenizer
			o.GeneratedText = strings.Repeat("ab ", rng.IntN(5))
			for range rng.IntN(6) {
				o.ITLs = append(o.ITLs, rng.Float64()/50)
			}
			o.Latency = o.TTFT + 0.2*rng.Float64()
		} else {
			o.Error = "boom " + strings.Repeat("x", i%3)
		}
		outs[i] = o
	}
	return outs
}

// TestFoldMatchesReference checks the fold against vLLM's statistics over
// the outcomes in memory (refComputeOutcomes), in memory and through spill
// files, with the order statistics sorted whole and merged from runs.
func TestFoldMatchesReference(t *testing.T) {
	opt := Options{PercentileMetrics: MetricOrder, Percentiles: []float64{0, 25, 50, 90, 99, 99.9, 100},
		Goodput: map[string]float64{"ttft": 20, "e2el": 150}, CountTokens: func(s string) int { return len(strings.Fields(s)) },
		MaxConcurrencySet: true, RequestRateFinite: true, SteadyState: &SteadyOptions{Target: 30, Percentiles: []float64{50, 99}}}
	for _, tc := range []struct {
		name    string
		n       int
		sortMem int
		spill   bool
	}{
		{"memory", 3000, 4 << 20, false},
		{"file", 3000, 4 << 20, true},
		{"file-merged-runs", 5001, 97, true},
		{"memory-merged-runs", 777, 8, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(v int) { sortMemValues = v }(sortMemValues)
			sortMemValues = tc.sortMem
			outs := foldOutcomes(tc.n, uint64(tc.n))
			want := refComputeOutcomes(outs, 12.5, opt)
			o := opt
			if tc.spill {
				o.SpillDir = t.TempDir()
			}
			acc := NewAccumulator(o)
			defer acc.Release()
			for k := range outs { // completion order: a permutation
				i := (k*7919 + 13) % len(outs)
				acc.addOutcome(i, &outs[i])
			}
			got, err := acc.Close(12500 * time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if err := acc.Arrays(got, true); err != nil {
				t.Fatal(err)
			}
			want.FailureErrors = want.FailureErrors[:min(len(want.FailureErrors), maxFailureErrors)]
			if !reflect.DeepEqual(got, want) {
				t.Errorf("fold differs from the reference:\n got %+v\nwant %+v", got, want)
			}
			if got.PeakOverlappingRequests < 2 || got.Failed == 0 || got.MaxOutputTokensPerS == 0 || got.SteadyState == nil {
				t.Errorf("the data does not exercise the fold: %+v", got)
			}
		})
	}
}

// TestFoldLeavesNoFiles checks that a spilling fold's files are gone from
// its directory while it runs (unlinked at once).
func TestFoldLeavesNoFiles(t *testing.T) {
	dir := t.TempDir()
	acc := NewAccumulator(Options{SpillDir: dir, PercentileMetrics: MetricOrder})
	for i, o := range foldOutcomes(100, 3) {
		acc.addOutcome(i, &o)
	}
	if _, err := acc.Close(time.Second); err != nil {
		t.Fatal(err)
	}
	if ents, _ := osReadDir(dir); len(ents) != 0 {
		t.Errorf("spill files left in %s: %v", dir, ents)
	}
	acc.Release()
}

func osReadDir(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, err
}
