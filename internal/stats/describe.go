// Package stats holds the statistics vbench reports over repeated runs and
// comparisons: the sample mean and standard deviation, the coefficient of
// variation, Student-t confidence intervals (one sample, paired, Welch),
// the Student-t distribution itself, and a seeded percentile bootstrap over
// per-request samples.
//
// It is a leaf package: it imports no other vbench package. Undefined
// quantities (the standard deviation of one value, a confidence interval
// from one run) are NaN, never a made-up number.
package stats

import (
	"math"
	"slices"

	"github.com/vbench/vbench/internal/numpy"
)

// Summary describes a sample x_1..x_n of one metric over n runs.
type Summary struct {
	// N is the number of values.
	N int
	// Mean is the arithmetic mean  x̄ = (1/n) Σ x_i, summed pairwise as
	// numpy sums.
	Mean float64
	// Std is the sample standard deviation with Bessel's correction,
	// s = sqrt( Σ (x_i − x̄)² / (n − 1) ) (numpy.std with ddof 1); NaN
	// when n < 2.
	Std float64
	// Min and Max are the smallest and largest value.
	Min, Max float64
	// CV is the coefficient of variation s / |x̄|; NaN when n < 2 or x̄ = 0.
	CV float64
	// CILow and CIHigh bound the confidence interval of the mean,
	// x̄ ± t_{(1+level)/2, n−1} · s / √n, with t the Student-t quantile
	// (see TQuantile); NaN when n < 2.
	CILow, CIHigh float64
	// Level is the confidence level of the interval, e.g. 0.95.
	Level float64
}

// Describe summarises x with a confidence interval at level (e.g. 0.95).
// An empty x gives N = 0 and every other field NaN.
func Describe(x []float64, level float64) Summary {
	nan := math.NaN()
	s := Summary{N: len(x), Mean: nan, Std: nan, Min: nan, Max: nan, CV: nan, CILow: nan, CIHigh: nan, Level: level}
	if len(x) == 0 {
		return s
	}
	s.Mean = Mean(x)
	s.Min, s.Max = slices.Min(x), slices.Max(x)
	if len(x) < 2 {
		return s
	}
	s.Std = numpy.Std(x, 1)
	if s.Mean != 0 {
		s.CV = s.Std / math.Abs(s.Mean)
	}
	half := TQuantile((1+level)/2, float64(len(x)-1)) * s.Std / math.Sqrt(float64(len(x)))
	if s.Std == 0 {
		half = 0
	}
	s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	return s
}

// HalfWidth is half the width of the confidence interval, (CIHigh −
// CILow) / 2 = t · s / √n; NaN when there is no interval.
func (s Summary) HalfWidth() float64 { return (s.CIHigh - s.CILow) / 2 }

// Mean is numpy.mean: the pairwise sum over n (see numpy.Mean); NaN for an
// empty slice.
func Mean(x []float64) float64 { return numpy.Mean(x) }
