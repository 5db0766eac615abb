package numpy

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

// sqDev is (v − m)², rounded before any addition: the explicit conversion
// keeps the compiler from fusing it into a multiply-add, which numpy's
// separate multiply and add ufuncs never do.
func sqDev(v, m float64) float64 {
	d := v - m
	return float64(d * d)
}

// pairwiseSqDev is PairwiseSum of the squared deviations (x_i − m)², with
// the same association order, without materialising them.
func pairwiseSqDev(x []float64, m float64) float64 {
	n := len(x)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range x {
			res += sqDev(v, m)
		}
		return res
	case n <= pairwiseBlock:
		var r [8]float64
		for k := range r {
			r[k] = sqDev(x[k], m)
		}
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += sqDev(x[i], m)
			r[1] += sqDev(x[i+1], m)
			r[2] += sqDev(x[i+2], m)
			r[3] += sqDev(x[i+3], m)
			r[4] += sqDev(x[i+4], m)
			r[5] += sqDev(x[i+5], m)
			r[6] += sqDev(x[i+6], m)
			r[7] += sqDev(x[i+7], m)
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += sqDev(x[i], m)
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSqDev(x[:n2], m) + pairwiseSqDev(x[n2:], m)
	}
}

// Mean is numpy.mean(x): PairwiseSum(x) / n; NaN for an empty x.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return PairwiseSum(x) / float64(len(x))
}

// Var is numpy.var(x, ddof=ddof):
//
//	m = PairwiseSum(x) / n
//	var = PairwiseSum((x_i − m)²) / (n − ddof)
//
// ddof 0 is the population variance, ddof 1 the sample variance (Bessel's
// correction). NaN when n − ddof ≤ 0 (numpy warns and returns nan or inf).
// It allocates nothing.
func Var(x []float64, ddof int) float64 {
	n := len(x)
	if n-ddof <= 0 {
		return math.NaN()
	}
	m := PairwiseSum(x) / float64(n)
	return pairwiseSqDev(x, m) / float64(n-ddof)
}

// Std is numpy.std(x, ddof=ddof) = √Var(x, ddof): ddof 0 is the population
// standard deviation (numpy's default), ddof 1 the sample one. NaN when
// n − ddof ≤ 0.
func Std(x []float64, ddof int) float64 {
	return math.Sqrt(Var(x, ddof))
}

// Median is numpy.median(x): with s = x sorted ascending, s[n/2] for odd n,
// else (s[n/2−1] + s[n/2]) / 2, numpy's mean of the middle pair. It is not
// always bit-identical to Percentile(x, 50), which interpolates instead. x
// is not modified; NaN for an empty x.
func Median(x []float64) float64 {
	return MedianSorted(sortedCopy(x))
}

// MedianSorted is Median of s, which must be sorted ascending.
func MedianSorted(s []float64) float64 {
	n := len(s)
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return s[n/2]
	default:
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// Percentile is numpy.percentile(x, p) with the default "linear" method:
//
//	s = x sorted ascending, v = (n−1)·(p/100), i = ⌊v⌋, t = v − i
//	result = s[i] + (s[i+1]−s[i])·t        if t < 0.5
//	result = s[i+1] − (s[i+1]−s[i])·(1−t)  if t ≥ 0.5
//
// with v ≥ n−1 (or p NaN) giving s[n−1] and v < 0 giving s[0]; the
// two-sided lerp is numpy's, kept for last-ulp parity. x is not modified;
// NaN for an empty x.
func Percentile(x []float64, p float64) float64 {
	return PercentileSorted(sortedCopy(x), p)
}

// PercentileSorted is Percentile of s, which must be sorted ascending.
func PercentileSorted(s []float64, p float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	i, t, ok := position(n, p)
	if !ok {
		return s[i]
	}
	return lerp(s[i], s[i+1], t)
}

// MedianSelect is Median computed by selection instead of a full sort: it
// reorders x and allocates nothing. The result equals Median(x).
func MedianSelect(x []float64) float64 {
	n := len(x)
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return selectKth(x, n/2)
	}
	a := selectKth(x, n/2-1)
	return (a + slices.Min(x[n/2:])) / 2
}

// PercentileSelect is Percentile computed by selection instead of a full
// sort: it reorders x and allocates nothing. The result equals
// Percentile(x, p).
func PercentileSelect(x []float64, p float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	i, t, ok := position(n, p)
	switch {
	case ok:
		a := selectKth(x, i)
		return lerp(a, slices.Min(x[i+1:]), t)
	case i == 0:
		return slices.Min(x)
	default:
		return slices.Max(x)
	}
}

// position locates percentile p among n ≥ 1 sorted values: the lower
// index i and the fraction t towards i+1, or ok = false when the result is
// s[i] itself (v < 0, v ≥ n−1 or p NaN).
func position(n int, p float64) (i int, t float64, ok bool) {
	v := float64(n-1) * (p / 100)
	switch {
	case math.IsNaN(v) || v >= float64(n-1):
		return n - 1, 0, false
	case v < 0:
		return 0, 0, false
	}
	i = int(math.Floor(v))
	return i, v - float64(i), true
}

// lerp is numpy's two-sided linear interpolation between a and b at t.
func lerp(a, b, t float64) float64 {
	diff := b - a
	if t >= 0.5 {
		return b - float64(diff*(1-t))
	}
	return a + float64(diff*t)
}

func sortedCopy(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// selectKth reorders x so that x[k] is its k-th smallest value (0-based),
// with x[:k] ≤ x[k] ≤ x[k+1:], and returns it: Hoare's quickselect with a
// median-of-three pivot, falling back to a full sort on degenerate input.
func selectKth(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for depth := 0; hi > lo; depth++ {
		if hi-lo < 16 || depth > 64 {
			slices.Sort(x[lo : hi+1])
			break
		}
		mid := lo + (hi-lo)/2
		if x[mid] < x[lo] {
			x[mid], x[lo] = x[lo], x[mid]
		}
		if x[hi] < x[lo] {
			x[hi], x[lo] = x[lo], x[hi]
		}
		if x[hi] < x[mid] {
			x[hi], x[mid] = x[mid], x[hi]
		}
		pivot := x[mid]
		i, j := lo, hi
		for i <= j {
			for x[i] < pivot {
				i++
			}
			for x[j] > pivot {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}

// FloatReader yields values in order: ReadFloats fills buf with the next
// len(buf) of them.
type FloatReader interface {
	ReadFloats(buf []float64) error
}

// PairwiseSumFrom is PairwiseSum of the next n values of r, read in order
// and never more than 128 at a time: the same association order, so the
// same result to the last bit, without holding the values.
func PairwiseSumFrom(r FloatReader, n int) (float64, error) {
	var buf [pairwiseBlock]float64
	return pairwiseFrom(r, n, &buf, PairwiseSum)
}

// pairwiseFrom applies the split of PairwiseSum to the next n values of r
// down to blocks of at most 128, which block sums.
func pairwiseFrom(r FloatReader, n int, buf *[pairwiseBlock]float64, block func([]float64) float64) (float64, error) {
	if n <= pairwiseBlock {
		if err := r.ReadFloats(buf[:n]); err != nil {
			return 0, err
		}
		return block(buf[:n]), nil
	}
	n2 := n / 2
	n2 -= n2 % 8
	a, err := pairwiseFrom(r, n2, buf, block)
	if err != nil {
		return 0, err
	}
	b, err := pairwiseFrom(r, n-n2, buf, block)
	return a + b, err
}

// MeanStdFrom is Mean and Std(ddof 0) of n values read twice from the
// start through open (the mean, then the squared deviations): the same
// figures as Mean and Std of the values in memory. NaN for n = 0.
func MeanStdFrom(open func() FloatReader, n int) (mean, std float64, err error) {
	if n == 0 {
		return math.NaN(), math.NaN(), nil
	}
	sum, err := PairwiseSumFrom(open(), n)
	if err != nil {
		return 0, 0, err
	}
	m := sum / float64(n)
	var buf [pairwiseBlock]float64
	sq, err := pairwiseFrom(open(), n, &buf, func(x []float64) float64 { return pairwiseSqDev(x, m) })
	if err != nil {
		return 0, 0, err
	}
	return m, math.Sqrt(sq / float64(n)), nil
}

// PercentileRanks are the 0-based positions in n ≥ 1 sorted values that
// Percentile(p) reads (one or two).
func PercentileRanks(n int, p float64) []int {
	i, _, ok := position(n, p)
	if !ok {
		return []int{i}
	}
	return []int{i, i + 1}
}

// MedianRanks are the positions in n ≥ 1 sorted values that Median reads.
func MedianRanks(n int) []int {
	if n%2 == 1 {
		return []int{n / 2}
	}
	return []int{n/2 - 1, n / 2}
}

// PercentileOf is PercentileSorted of n ≥ 1 sorted values of which at
// gives the ones at PercentileRanks(n, p).
func PercentileOf(n int, at func(int) float64, p float64) float64 {
	i, t, ok := position(n, p)
	if !ok {
		return at(i)
	}
	return lerp(at(i), at(i+1), t)
}

// MedianOf is MedianSorted of n ≥ 1 sorted values of which at gives the
// ones at MedianRanks(n).
func MedianOf(n int, at func(int) float64) float64 {
	if n%2 == 1 {
		return at(n / 2)
	}
	return (at(n/2-1) + at(n/2)) / 2
}
