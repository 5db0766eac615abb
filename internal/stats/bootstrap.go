package stats

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/vbench/vbench/internal/numpy"
)

// StatKind names a statistic of a sample.
type StatKind int

// The statistics a Statistic can be.
const (
	// StatMean is the arithmetic mean.
	StatMean StatKind = iota
	// StatMedian is the median.
	StatMedian
	// StatPercentile is the P-th percentile.
	StatPercentile
	// StatStd is the population standard deviation.
	StatStd
)

// Statistic is a statistic of a flat sample, defined as numpy (and so vLLM's
// summary) defines it, for a sample x sorted ascending into s, n = len(x):
//
//	mean          (1/n) Σ x_i
//	median        s[n/2] for odd n, (s[n/2−1] + s[n/2]) / 2 for even n
//	percentile P  v = (n−1)·P/100, i = ⌊v⌋, f = v − i:
//	              s[i] + (s[i+1]−s[i])·f when f < ½, s[i+1] − (s[i+1]−s[i])·(1−f)
//	              otherwise, and s[n−1] when v ≥ n−1 (numpy's "linear")
//	std           √( (1/n) Σ (x_i − mean)² )  (population, ddof 0)
//
// Every statistic of an empty sample is NaN.
type Statistic struct {
	// Kind is the statistic.
	Kind StatKind
	// P is the percentile in [0, 100] for StatPercentile.
	P float64
}

// String names the statistic: mean, median, p99, std.
func (s Statistic) String() string {
	switch s.Kind {
	case StatMean:
		return "mean"
	case StatMedian:
		return "median"
	case StatPercentile:
		return "p" + strconv.FormatFloat(s.P, 'f', -1, 64)
	case StatStd:
		return "std"
	}
	return fmt.Sprintf("statistic(%d)", int(s.Kind))
}

// Of computes the statistic of x; x is not modified.
func (s Statistic) Of(x []float64) float64 {
	if s.Kind == StatMean {
		return Mean(x)
	}
	return s.of(slices.Clone(x))
}

// of computes the statistic of buf, reordering buf; it allocates nothing.
func (s Statistic) of(buf []float64) float64 {
	if len(buf) == 0 {
		return math.NaN()
	}
	switch s.Kind {
	case StatMean:
		return numpy.Mean(buf)
	case StatStd:
		return numpy.Std(buf, 0)
	case StatMedian:
		return numpy.MedianSelect(buf)
	case StatPercentile:
		return numpy.PercentileSelect(buf, s.P)
	}
	return math.NaN()
}

// Bootstrap is a seeded percentile bootstrap over per-request samples.
type Bootstrap struct {
	// Replicates is the number of resamples (e.g. 2000).
	Replicates int
	// Level is the confidence level, e.g. 0.95.
	Level float64
	// Seed seeds the resampling; the same seed gives the same interval.
	Seed uint64
}

// ErrZeroBase is returned when a relative difference is undefined because
// the base statistic is 0.
var ErrZeroBase = errors.New("relative difference undefined: the base statistic is 0")

// RelDiff estimates the relative difference of a statistic S between two
// independent samples, (S(cand) − S(base)) / S(base), with a percentile
// bootstrap confidence interval.
//
// base and cand are lists of units (requests); a unit holds the values one
// request contributes (its TTFT, or all of its inter-token latencies).
// Each replicate draws n_b units of base and then n_c units of cand with
// replacement, so that the values of one request stay together, and
// computes
//
//	r* = (S(cand*) − S(base*)) / S(base*)
//
// over the concatenated values (replicates where S(base*) is 0 or either
// sample is empty are dropped). The interval is the (1−Level)/2 and
// (1+Level)/2 quantiles of the r*, by numpy's linear method; the estimate
// is computed on the full samples.
//
// The draws are deterministic: a PCG-DXSM generator (math/rand/v2's PCG)
// seeded with (Seed, 0x9e3779b97f4a7c15); each index is ⌊u · n / 2⁶⁴⌋ for
// a 64-bit output u.
func (b Bootstrap) RelDiff(base, cand [][]float64, st Statistic) (Interval, error) {
	if b.Replicates < 1 {
		return Interval{}, fmt.Errorf("bootstrap: need at least 1 replicate, got %d", b.Replicates)
	}
	if !(b.Level > 0 && b.Level < 1) {
		return Interval{}, fmt.Errorf("bootstrap: level %v not in (0, 1)", b.Level)
	}
	sb, sc := st.of(flatten(base, nil)), st.of(flatten(cand, nil))
	if math.IsNaN(sb) || math.IsNaN(sc) {
		return Interval{}, errors.New("bootstrap: empty sample")
	}
	if sb == 0 {
		return Interval{}, ErrZeroBase
	}
	rng := rand.New(rand.NewPCG(b.Seed, 0x9e3779b97f4a7c15))
	draw := func(n int) int {
		hi, _ := bits.Mul64(rng.Uint64(), uint64(n))
		return int(hi)
	}
	rb, rc := newResampler(base, st), newResampler(cand, st)
	reps := make([]float64, 0, b.Replicates)
	for range b.Replicates {
		vb := rb.replicate(draw)
		vc := rc.replicate(draw)
		if r := (vc - vb) / vb; !math.IsNaN(r) && !math.IsInf(r, 0) {
			reps = append(reps, r)
		}
	}
	if len(reps) < b.Replicates/2 {
		return Interval{}, fmt.Errorf("bootstrap: only %d of %d replicates were defined", len(reps), b.Replicates)
	}
	slices.Sort(reps)
	low := numpy.PercentileSorted(reps, 100*(1-b.Level)/2)
	high := numpy.PercentileSorted(reps, 100*(1+b.Level)/2)
	return Interval{Estimate: (sc - sb) / sb, Low: low, High: high, DF: math.NaN()}, nil
}

// resampler draws one bootstrap replicate of a statistic over units.
type resampler struct {
	units [][]float64
	st    Statistic
	// sums and counts of each unit (the mean's fast path).
	sums   []float64
	counts []int
	buf    []float64
}

func newResampler(units [][]float64, st Statistic) *resampler {
	r := &resampler{units: units, st: st}
	if st.Kind == StatMean {
		r.sums = make([]float64, len(units))
		r.counts = make([]int, len(units))
		for i, u := range units {
			for _, v := range u {
				r.sums[i] += v
			}
			r.counts[i] = len(u)
		}
	}
	return r
}

func (r *resampler) replicate(draw func(int) int) float64 {
	n := len(r.units)
	if r.st.Kind == StatMean {
		sum, count := 0.0, 0
		for range n {
			i := draw(n)
			sum += r.sums[i]
			count += r.counts[i]
		}
		if count == 0 {
			return math.NaN()
		}
		return sum / float64(count)
	}
	r.buf = r.buf[:0]
	for range n {
		r.buf = append(r.buf, r.units[draw(n)]...)
	}
	return r.st.of(r.buf)
}

func flatten(units [][]float64, buf []float64) []float64 {
	for _, u := range units {
		buf = append(buf, u...)
	}
	return buf
}
