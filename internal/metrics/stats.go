package metrics

import (
	"math"
	"slices"
)

// pairwiseBlock is numpy's PW_BLOCKSIZE: the largest run summed with the
// eight-accumulator unrolled loop before the range is split in two.
const pairwiseBlock = 128

// PairwiseSum returns the sum of x exactly as numpy's add.reduce computes it
// for a contiguous float64 array (its pairwise_sum):
//
//   - n < 8: a plain left-to-right loop starting from 0.0;
//   - 8 <= n <= 128: eight partial sums r[k] = x[k] + x[k+8] + x[k+16] + ...
//     over the largest multiple of 8 elements, combined as
//     ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the remaining n mod 8
//     elements added one by one;
//   - n > 128: split at n2 = floor(n/2) rounded down to a multiple of 8 and
//     return PairwiseSum(x[:n2]) + PairwiseSum(x[n2:]).
//
// Matching the association order is what gives last-ulp parity with numpy.
func PairwiseSum(x []float64) float64 {
	n := len(x)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range x {
			res += v
		}
		return res
	case n <= pairwiseBlock:
		var r [8]float64
		copy(r[:], x[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += x[i]
			r[1] += x[i+1]
			r[2] += x[i+2]
			r[3] += x[i+3]
			r[4] += x[i+4]
			r[5] += x[i+5]
			r[6] += x[i+6]
			r[7] += x[i+7]
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += x[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return PairwiseSum(x[:n2]) + PairwiseSum(x[n2:])
	}
}

// Mean is numpy.mean: PairwiseSum(x) / n. An empty slice gives 0 (vLLM
// replaces an empty list by the scalar 0 before calling numpy).
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return PairwiseSum(x) / float64(len(x))
}

// Std is numpy.std with ddof 0 (the population standard deviation):
//
//	m = PairwiseSum(x) / n
//	d_i = (x_i - m)^2
//	std = sqrt(PairwiseSum(d) / n)
//
// An empty slice gives 0.
func Std(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return 0
	}
	m := PairwiseSum(x) / float64(n)
	d := make([]float64, n)
	for i, v := range x {
		dv := v - m
		d[i] = float64(dv * dv)
	}
	return math.Sqrt(PairwiseSum(d) / float64(n))
}

// Median is numpy.median: with s = x sorted ascending and n = len(x), the
// middle element s[n/2] when n is odd, else the numpy mean of the two middle
// elements, (s[n/2-1] + s[n/2]) / 2. It is not always bit-identical to
// Percentile(x, 50), which interpolates instead. An empty slice gives 0.
func Median(x []float64) float64 {
	return medianSorted(sortedCopy(x))
}

// Percentile is numpy.percentile(x, p) with the default "linear" method:
//
//	s = x sorted ascending, v = (n-1) * (p/100), i = floor(v), t = v - i
//	result = s[i] + (s[i+1]-s[i])*t        if t < 0.5
//	result = s[i+1] - (s[i+1]-s[i])*(1-t)  if t >= 0.5
//
// with v >= n-1 giving s[n-1] and v < 0 giving s[0]; the two-sided lerp is
// numpy's, kept for last-ulp parity. An empty slice gives 0.
func Percentile(x []float64, p float64) float64 {
	return percentileSorted(sortedCopy(x), p)
}

func sortedCopy(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

func medianSorted(s []float64) float64 {
	n := len(s)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return s[n/2]
	default:
		// numpy takes the mean of the two middle elements: (0+a+b)/2.
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func percentileSorted(s []float64, p float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	v := float64(n-1) * (p / 100)
	switch {
	case math.IsNaN(v) || v >= float64(n-1):
		return s[n-1]
	case v < 0:
		return s[0]
	}
	i := int(math.Floor(v))
	t := v - float64(i)
	a, b := s[i], s[i+1]
	diff := b - a
	if t >= 0.5 {
		return b - float64(diff*(1-t))
	}
	return a + float64(diff*t)
}
