package stats

import (
	"fmt"
	"math"

	"github.com/vbench/vbench/internal/numpy"
)

// Interval is an estimate with a confidence interval.
type Interval struct {
	// Estimate is the point estimate.
	Estimate float64
	// Low and High bound the interval; NaN when there is none.
	Low, High float64
	// DF is the degrees of freedom of a t interval (NaN otherwise).
	DF float64
}

// Excludes reports whether v lies outside [Low, High]: the difference is
// significant at the interval's level when the interval excludes 0.
func (iv Interval) Excludes(v float64) bool {
	return !math.IsNaN(iv.Low) && !math.IsNaN(iv.High) && (v < iv.Low || v > iv.High)
}

// Scale returns the interval with every bound multiplied by k (a negative k
// swaps the bounds).
func (iv Interval) Scale(k float64) Interval {
	out := Interval{Estimate: iv.Estimate * k, Low: iv.Low * k, High: iv.High * k, DF: iv.DF}
	if k < 0 {
		out.Low, out.High = out.High, out.Low
	}
	return out
}

// PairedDiff is the paired t interval of the mean difference of candidate
// minus base, for runs that were made in pairs (repeat i of each variant,
// run back to back with the same seed):
//
//	d_i = cand_i − base_i,  d̄ ± t_{(1+level)/2, n−1} · s_d / √n
//
// with s_d the sample standard deviation of the d_i. It needs n ≥ 2 pairs.
func PairedDiff(base, cand []float64, level float64) (Interval, error) {
	if len(base) != len(cand) {
		return Interval{}, fmt.Errorf("paired interval: %d base values but %d candidate values", len(base), len(cand))
	}
	if len(base) < 2 {
		return Interval{}, fmt.Errorf("paired interval: need at least 2 pairs, got %d", len(base))
	}
	d := make([]float64, len(base))
	for i := range d {
		d[i] = cand[i] - base[i]
	}
	s := Describe(d, level)
	return Interval{Estimate: s.Mean, Low: s.CILow, High: s.CIHigh, DF: float64(len(d) - 1)}, nil
}

// WelchDiff is Welch's t interval of the difference of means, candidate
// minus base, for independent samples of sizes n_b, n_c ≥ 2 with sample
// variances s_b², s_c²:
//
//	(c̄ − b̄) ± t_{(1+level)/2, ν} · √(s_b²/n_b + s_c²/n_c)
//	ν = (s_b²/n_b + s_c²/n_c)² / ( (s_b²/n_b)²/(n_b−1) + (s_c²/n_c)²/(n_c−1) )
//
// (the Welch–Satterthwaite degrees of freedom, generally not an integer).
// When both variances are 0 the interval is the point difference.
func WelchDiff(base, cand []float64, level float64) (Interval, error) {
	if len(base) < 2 || len(cand) < 2 {
		return Interval{}, fmt.Errorf("welch interval: need at least 2 values on each side, got %d and %d", len(base), len(cand))
	}
	d := Mean(cand) - Mean(base)
	vb := numpy.Var(base, 1) / float64(len(base))
	vc := numpy.Var(cand, 1) / float64(len(cand))
	se2 := vb + vc
	if se2 == 0 {
		return Interval{Estimate: d, Low: d, High: d, DF: math.NaN()}, nil
	}
	df := se2 * se2 / (vb*vb/float64(len(base)-1) + vc*vc/float64(len(cand)-1))
	half := TQuantile((1+level)/2, df) * math.Sqrt(se2)
	return Interval{Estimate: d, Low: d - half, High: d + half, DF: df}, nil
}
