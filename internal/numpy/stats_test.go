package numpy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPairwiseSum(t *testing.T) {
	ones := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 1
		}
		return x
	}
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"short loop", []float64{1, 2, 3}, 6},
		// n=9: r0..r7 = x0..x7 (no full second block), then x8 added last:
		// ((1e16+1)+(1+1)) + ((1+1)+(1+1)) = 1e16+6, + 1 rounds to even 1e16+8.
		// A naive loop gives 1e16 (every +1 is a tie rounding back).
		{"unrolled block", append([]float64{1e16}, ones(8)...), 1e16 + 8},
		// ten 0.1: ((0.2+0.2)+(0.1+0.1))+((0.1+0.1)+(0.1+0.1)) = 1 exactly;
		// a naive loop gives 0.9999999999999999.
		{"ten tenths", slices.Repeat([]float64{0.1}, 10), 1},
		// n=136 > 128 splits at 64: the first half sums to 1e16+56 (r0
		// stays 1e16, r1..r7 = 8), the second half to 72.
		{"split", append([]float64{1e16}, ones(135)...), 1e16 + 128},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PairwiseSum(tt.in); got != tt.want {
				t.Errorf("PairwiseSum = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStatistics(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name                string
		in                  []float64
		mean, median, std   float64
		percentile, p, pval float64
	}{
		{name: "empty", in: nil, mean: nan, median: nan, std: nan, p: 99, pval: nan},
		{name: "single", in: []float64{3}, mean: 3, median: 3, std: 0, p: 99, pval: 3},
		{name: "classic std", in: []float64{2, 4, 4, 4, 5, 5, 7, 9}, mean: 5, median: 4.5, std: 2, p: 50, pval: 4.5},
		// mean 2.5, variance (2.25+0.25+0.25+2.25)/4 = 1.25.
		{name: "unsorted", in: []float64{4, 1, 3, 2}, mean: 2.5, median: 2.5, std: math.Sqrt(1.25), p: 25, pval: 1.75},
		// v = 4*0.99 = 3.96, t = 0.96 >= 0.5: 5 - 1*(1-0.96) = 4.96.
		{name: "p99 of five", in: []float64{1, 2, 3, 4, 5}, mean: 3, median: 3, std: math.Sqrt(2), p: 99, pval: 4.96},
		{name: "p0", in: []float64{7, 5, 6}, mean: 6, median: 6, std: math.Sqrt(2.0 / 3), p: 0, pval: 5},
		{name: "p100", in: []float64{7, 5, 6}, mean: 6, median: 6, std: math.Sqrt(2.0 / 3), p: 100, pval: 7},
		// numpy's two-sided lerp: v = 0.946, so b - (b-a)*(1-t) = 1.23626,
		// where a + (b-a)*t would give 1.2362600000000001.
		{name: "upper lerp", in: []float64{0.47, 1.28}, mean: 0.875, median: 0.875, std: 0.405, p: 94.6, pval: 1.23626},
		{name: "lower lerp", in: []float64{0, 10}, mean: 5, median: 5, std: 5, p: 25, pval: 2.5},
		// numpy's median is (a+b)/2 of the middle pair; a+(b-a)/2 would give
		// 1.0908576411683315.
		{name: "median of pair", in: []float64{1.8117601157885834, 0.36995516654807925},
			mean: 1.0908576411683313, median: 1.0908576411683313, std: 0.720902474620252, p: 50, pval: 1.0908576411683313},
	}
	same := func(got, want float64) bool { return got == want || math.IsNaN(got) && math.IsNaN(want) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mean(tt.in); !same(got, tt.mean) {
				t.Errorf("Mean = %v, want %v", got, tt.mean)
			}
			if got := Median(tt.in); !same(got, tt.median) {
				t.Errorf("Median = %v, want %v", got, tt.median)
			}
			if got := MedianSelect(slices.Clone(tt.in)); !same(got, tt.median) {
				t.Errorf("MedianSelect = %v, want %v", got, tt.median)
			}
			if got := Std(tt.in, 0); !same(got, tt.std) && math.Abs(got-tt.std) > 1e-15*max(1, tt.std) {
				t.Errorf("Std = %v, want %v", got, tt.std)
			}
			if got := Percentile(tt.in, tt.p); !same(got, tt.pval) {
				t.Errorf("Percentile(%v) = %v, want %v", tt.p, got, tt.pval)
			}
			if got := PercentileSelect(slices.Clone(tt.in), tt.p); !same(got, tt.pval) {
				t.Errorf("PercentileSelect(%v) = %v, want %v", tt.p, got, tt.pval)
			}
		})
	}
}

func TestSelectKth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 15, 16, 17, 100, 1001} {
		for _, dup := range []bool{false, true} {
			x := make([]float64, n)
			for i := range x {
				x[i] = r.Float64()
				if dup {
					x[i] = float64(r.IntN(4))
				}
			}
			sorted := slices.Sorted(slices.Values(x))
			for _, k := range []int{0, n / 3, n / 2, n - 1} {
				buf := slices.Clone(x)
				if got := selectKth(buf, k); got != sorted[k] {
					t.Fatalf("n=%d dup=%v k=%d: %v, want %v", n, dup, k, got, sorted[k])
				}
				for i := range buf {
					if (i < k && buf[i] > buf[k]) || (i > k && buf[i] < buf[k]) {
						t.Fatalf("n=%d k=%d: not partitioned at %d", n, k, i)
					}
				}
			}
		}
	}
}
