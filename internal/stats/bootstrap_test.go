package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vbench/vbench/internal/numpy"
)

func units(vals ...float64) [][]float64 {
	u := make([][]float64, len(vals))
	for i, v := range vals {
		u[i] = []float64{v}
	}
	return u
}

// The bootstrap distribution of a small sample can be enumerated by hand;
// with enough replicates its percentile interval lands exactly on the
// atoms, whatever the seed.
func TestBootstrapExactAtoms(t *testing.T) {
	tests := []struct {
		name      string
		base      [][]float64
		cand      [][]float64
		st        Statistic
		level     float64
		estimate  float64
		low, high float64
	}{
		// base is constant (S = 10). Resampled means of cand {10, 20} are 10,
		// 15, 20 with probabilities ¼, ½, ¼, so r* = 0, 0.5, 1 with the same
		// probabilities: the 2.5 % and 97.5 % quantiles are 0 and 1; the 30 %
		// and 70 % quantiles both fall on 0.5.
		{"mean 95%", units(10, 10, 10, 10), units(10, 20), Statistic{Kind: StatMean}, 0.95, 0.5, 0, 1},
		{"mean 40%", units(10, 10, 10, 10), units(10, 20), Statistic{Kind: StatMean}, 0.40, 0.5, 0.5, 0.5},
		// Units are resampled whole. cand has units [1 2] and [3]: resamples
		// are [1 2 1 2] (p ¼, median 1.5), [1 2 3] (p ½, median 2), [3 3]
		// (p ¼, median 3). base's median is 2: r* = −0.25, 0, 0.5.
		{"median of clusters", units(2, 2, 2), [][]float64{{1, 2}, {3}}, Statistic{Kind: StatMedian}, 0.95, 0, -0.25, 0.5},
		// p50 by numpy's linear rule on the same resamples: [1 1 2 2] → 1.5,
		// [1 2 3] → 2, [3 3] → 3; identical atoms.
		{"p50 of clusters", units(2, 2), [][]float64{{1, 2}, {3}}, Statistic{Kind: StatPercentile, P: 50}, 0.95, 0, -0.25, 0.5},
		// Identical constant samples: every replicate is exactly 0.
		{"A/A constant", units(5, 5, 5), units(5, 5, 5), Statistic{Kind: StatPercentile, P: 99}, 0.95, 0, 0, 0},
	}
	for _, tt := range tests {
		for _, seed := range []uint64{0, 1, 42} {
			b := Bootstrap{Replicates: 4000, Level: tt.level, Seed: seed}
			iv, err := b.RelDiff(tt.base, tt.cand, tt.st)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if !near(iv.Estimate, tt.estimate, 1e-15) || iv.Low != tt.low || iv.High != tt.high {
				t.Errorf("%s, seed %d: %+v, want %v [%v, %v]", tt.name, seed, iv, tt.estimate, tt.low, tt.high)
			}
		}
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var a, b [][]float64
	for range 50 {
		a = append(a, []float64{20 + r.NormFloat64()})
		b = append(b, []float64{21 + r.NormFloat64()})
	}
	bs := Bootstrap{Replicates: 500, Level: 0.95, Seed: 3}
	first, err := bs.RelDiff(a, b, Statistic{Kind: StatPercentile, P: 90})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := bs.RelDiff(a, b, Statistic{Kind: StatPercentile, P: 90})
	if first.Estimate != again.Estimate || first.Low != again.Low || first.High != again.High {
		t.Errorf("same seed, different intervals: %+v, %+v", first, again)
	}
	bs.Seed = 4
	other, _ := bs.RelDiff(a, b, Statistic{Kind: StatPercentile, P: 90})
	if other.Low == first.Low && other.High == first.High {
		t.Errorf("another seed gave the identical interval %+v", other)
	}
	if !(first.Low < first.Estimate && first.Estimate < first.High) {
		t.Errorf("estimate outside its interval: %+v", first)
	}
}

// For large samples the percentile bootstrap of a difference of means
// agrees with the normal-theory interval
// (c̄ − b̄)/b̄ ± z · √(s_b²/n_b + s_c²/n_c) / b̄ (ignoring b̄'s own noise,
// which is small here).
func TestBootstrapMatchesNormalTheory(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var a, b []float64
	for range 2000 {
		a = append(a, 100+5*r.NormFloat64())
		b = append(b, 101+5*r.NormFloat64())
	}
	iv, err := Bootstrap{Replicates: 4000, Level: 0.95, Seed: 1}.RelDiff(units(a...), units(b...), Statistic{Kind: StatMean})
	if err != nil {
		t.Fatal(err)
	}
	mb := Mean(a)
	half := 1.959963984540054 * math.Sqrt(numpy.Var(a, 1)/2000+numpy.Var(b, 1)/2000) / mb
	est := (Mean(b) - mb) / mb
	if !near(iv.Estimate, est, 1e-12) {
		t.Errorf("estimate %v, want %v", iv.Estimate, est)
	}
	if math.Abs(iv.Low-(est-half)) > 0.1*half || math.Abs(iv.High-(est+half)) > 0.1*half {
		t.Errorf("bootstrap [%v, %v], normal theory [%v, %v]", iv.Low, iv.High, est-half, est+half)
	}
}

func TestBootstrapErrors(t *testing.T) {
	ok := units(1, 2)
	tests := []struct {
		name       string
		b          Bootstrap
		base, cand [][]float64
	}{
		{"no replicates", Bootstrap{Level: 0.95}, ok, ok},
		{"bad level", Bootstrap{Replicates: 10, Level: 95}, ok, ok},
		{"zero base", Bootstrap{Replicates: 10, Level: 0.95}, units(0, 0), ok},
		{"empty", Bootstrap{Replicates: 10, Level: 0.95}, nil, ok},
	}
	for _, tt := range tests {
		if _, err := tt.b.RelDiff(tt.base, tt.cand, Statistic{Kind: StatMean}); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestStatisticOf(t *testing.T) {
	x := []float64{7, 1, 3, 9, 5, 2}
	tests := []struct {
		st   Statistic
		want float64
	}{
		{Statistic{Kind: StatMean}, 27.0 / 6},
		// sorted 1 2 3 5 7 9: median (3+5)/2
		{Statistic{Kind: StatMedian}, 4},
		// p99: v = 5·0.99 = 4.95, s[4] = 7, s[5] = 9, f = 0.95 ≥ ½: 9 − 2·0.05
		{Statistic{Kind: StatPercentile, P: 99}, 9 - 2*(1-0.95)},
		// p10: v = 0.5, s[0] = 1, s[1] = 2, f = 0.5: 2 − 1·0.5
		{Statistic{Kind: StatPercentile, P: 10}, 1.5},
		// p25: v = 1.25: 2 + 1·0.25
		{Statistic{Kind: StatPercentile, P: 25}, 2.25},
		{Statistic{Kind: StatPercentile, P: 100}, 9},
		{Statistic{Kind: StatPercentile, P: 0}, 1},
		// population std: mean 4.5, Σd² = 6.25+12.25+2.25+20.25+0.25+6.25 = 47.5
		{Statistic{Kind: StatStd}, math.Sqrt(47.5 / 6)},
	}
	for _, tt := range tests {
		orig := slices.Clone(x)
		if got := tt.st.Of(x); !near(got, tt.want, 1e-15) {
			t.Errorf("%s = %.17g, want %.17g", tt.st, got, tt.want)
		}
		if !slices.Equal(x, orig) {
			t.Errorf("%s modified its input", tt.st)
		}
	}
	if got := (Statistic{Kind: StatMedian}).Of([]float64{4, 1, 3}); got != 3 {
		t.Errorf("odd median = %v", got)
	}
	if got := (Statistic{Kind: StatMean}).Of(nil); !math.IsNaN(got) {
		t.Errorf("mean of nothing = %v", got)
	}
}
