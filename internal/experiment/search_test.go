package experiment

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// findCapacity finds the largest passing grid load for a threshold
// verdict, whatever the threshold and start, probing each load at most
// once and far fewer loads than a linear sweep.
func TestFindCapacity(t *testing.T) {
	for _, tc := range []struct {
		name      string
		g         searchGrid
		start     float64
		threshold float64 // loads ≤ threshold pass
		lo, hi    float64
		hasLo     bool
		hasHi     bool
		probes    []float64
	}{
		{"concurrency", searchGrid{1, 32, 1}, 1, 8.5, 8, 9, true, true, []float64{1, 2, 4, 8, 16, 12, 10, 9}},
		{"at the first step", searchGrid{1, 32, 1}, 1, 1, 1, 2, true, true, []float64{1, 2}},
		{"nothing passes", searchGrid{1, 32, 1}, 1, 0.5, 0, 1, false, true, []float64{1}},
		{"everything passes", searchGrid{1, 32, 1}, 1, 100, 32, 0, true, false, []float64{1, 2, 4, 8, 16, 32}},
		{"start too high", searchGrid{1, 64, 1}, 64, 5, 5, 6, true, true, []float64{64, 32, 16, 8, 4, 6, 5}},
		{"start fails down to min", searchGrid{1, 64, 1}, 16, 0, 0, 1, false, true, []float64{16, 8, 4, 2, 1}},
		{"max not a power of two", searchGrid{1, 20, 1}, 1, 19, 19, 20, true, true, []float64{1, 2, 4, 8, 16, 20, 18, 19}},
		{"rates at half steps", searchGrid{0.5, 10, 0.5}, 0.5, 3.2, 3, 3.5, true, true, []float64{0.5, 1, 2, 4, 3, 3.5}},
		{"min above one", searchGrid{4, 40, 2}, 4, 13, 12, 14, true, true, []float64{4, 8, 16, 12, 14}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var probes []float64
			judge := func(x float64) (bool, error) {
				if slices.Contains(probes, x) {
					t.Errorf("load %v probed twice", x)
				}
				if x < tc.g.min || x > tc.g.max {
					t.Errorf("load %v outside [%v, %v]", x, tc.g.min, tc.g.max)
				}
				probes = append(probes, x)
				return x <= tc.threshold, nil
			}
			lo, hi, hasLo, hasHi, err := findCapacity(tc.g, tc.start, judge)
			if err != nil {
				t.Fatal(err)
			}
			if lo != tc.lo || hi != tc.hi || hasLo != tc.hasLo || hasHi != tc.hasHi {
				t.Errorf("findCapacity = %v, %v, %v, %v; want %v, %v, %v, %v", lo, hi, hasLo, hasHi, tc.lo, tc.hi, tc.hasLo, tc.hasHi)
			}
			if !slices.Equal(probes, tc.probes) {
				t.Errorf("probed %v, want %v", probes, tc.probes)
			}
			if len(probes) >= tc.g.linear() && tc.g.linear() > 4 {
				t.Errorf("%d probes, a linear sweep has %d", len(probes), tc.g.linear())
			}
		})
	}
	boom := errors.New("boom")
	if _, _, _, _, err := findCapacity(searchGrid{1, 8, 1}, 1, func(float64) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("a probe's error became %v", err)
	}
}

// Every threshold on a grid is found exactly (a property over many
// grids, starts and thresholds).
func TestFindCapacityExhaustive(t *testing.T) {
	for max := 1.0; max <= 40; max++ {
		g := searchGrid{1, max, 1}
		for start := 1.0; start <= max; start++ {
			for th := 0.0; th <= max+1; th++ {
				lo, hi, hasLo, hasHi, err := findCapacity(g, start, func(x float64) (bool, error) { return x <= th, nil })
				if err != nil {
					t.Fatal(err)
				}
				wantLo, wantHi := math.Min(th, max), th+1
				if hasLo != (th >= 1) || hasHi != (th < max) ||
					(hasLo && lo != wantLo) || (hasHi && hi != wantHi) {
					t.Fatalf("max %v start %v threshold %v: %v %v %v %v", max, start, th, lo, hi, hasLo, hasHi)
				}
			}
		}
	}
}

func ptr(x float64) *float64 { return &x }

// assess judges a probe's runs on their means, asks for another run when a
// bound lies within the noise (one run within margin; a confidence
// interval holding the bound), and lists the missed SLOs worst first.
func TestAssess(t *testing.T) {
	slos := []scenario.SLO{{Metric: "p99_ttft_ms", Max: ptr(500)}, {Metric: "output_throughput", Min: ptr(1000)}}
	for _, tc := range []struct {
		name     string
		vals     [][]float64
		pass     bool
		noisy    bool
		violated []string
	}{
		{"clear pass", [][]float64{{300}, {2000}}, true, false, nil},
		{"one run near the upper bound", [][]float64{{490}, {2000}}, true, true, nil},
		{"one run just over it", [][]float64{{510}, {2000}}, false, true, []string{"p99_ttft_ms <= 500"}},
		{"one run near the lower bound", [][]float64{{300}, {1040}}, true, true, nil},
		{"both missed, worst first", [][]float64{{550}, {500}}, false, false, []string{"output_throughput >= 1000", "p99_ttft_ms <= 500"}},
		{"runs agree below the bound", [][]float64{{490, 491}, {2000, 2000}}, true, false, nil},
		{"runs straddle the bound", [][]float64{{480, 515}, {2000, 2000}}, true, true, nil},
		{"three runs, mean over", [][]float64{{505, 506, 507}, {2000, 2000, 2000}}, false, false, []string{"p99_ttft_ms <= 500"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			means, pass, noisy, violated := assess(slos, tc.vals, 0.05)
			if pass != tc.pass || noisy != tc.noisy || !slices.Equal(violated, tc.violated) {
				t.Errorf("assess = pass %v, noisy %v, violated %q; want %v, %v, %q", pass, noisy, violated, tc.pass, tc.noisy, tc.violated)
			}
			if got, want := means["p99_ttft_ms"], mean(tc.vals[0]); math.Abs(got-want) > 1e-9 {
				t.Errorf("mean %v, want %v", got, want)
			}
		})
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// The failure rate is failed / (completed + failed); a metric the result
// lacks is an error.
func TestSLOValue(t *testing.T) {
	res := &Result{Values: map[string]float64{"completed": 97, "failed": 3, "p99_ttft_ms": 12}}
	if v, err := sloValue(res, FailureRate); err != nil || v != 0.03 {
		t.Errorf("failure rate %v, %v; want 0.03", v, err)
	}
	if v, err := sloValue(res, "p99_ttft_ms"); err != nil || v != 12 {
		t.Errorf("p99_ttft_ms %v, %v", v, err)
	}
	if _, err := sloValue(res, "p90_ttft_ms"); err == nil {
		t.Error("a missing metric gave no error")
	}
	if _, err := sloValue(&Result{Values: map[string]float64{}}, FailureRate); err == nil {
		t.Error("a run without requests gave a failure rate")
	}
}
