package numpy

import (
	"errors"
	"math"
	"sort"
)

// uint64 returns the legacy 64-bit draw: two 32-bit outputs, the first in
// the high half (mt19937_next64).
func (s *RandomState) uint64() uint64 {
	hi := uint64(s.Uint32())
	return hi<<32 | uint64(s.Uint32())
}

// mask returns the smallest all-ones bit mask >= v.
func mask(v uint64) uint64 {
	v |= v >> 1
	v |= v >> 2
	v |= v >> 4
	v |= v >> 8
	v |= v >> 16
	v |= v >> 32
	return v
}

// bounded returns an integer in [0, rng] by masked rejection, as the
// legacy generator's randint (random_bounded_uint64_fill with use_masked)
// and random_interval draw it: 32-bit outputs when rng fits in 32 bits,
// 64-bit ones otherwise.
func (s *RandomState) bounded(rng uint64) uint64 {
	switch {
	case rng == 0:
		return 0
	case rng == math.MaxUint32:
		return uint64(s.Uint32())
	case rng < math.MaxUint32:
		m := uint32(mask(rng))
		for {
			if v := s.Uint32() & m; uint64(v) <= rng {
				return uint64(v)
			}
		}
	case rng == math.MaxUint64:
		return s.uint64()
	}
	m := mask(rng)
	for {
		if v := s.uint64() & m; v <= rng {
			return v
		}
	}
}

// Randint returns RandomState.randint(low, high, size) with the default
// int64 dtype: size integers in [low, high), each low plus a masked
// rejection draw. It fails when low >= high, as NumPy does.
func (s *RandomState) Randint(low, high int64, size int) ([]int64, error) {
	if low >= high {
		return nil, errors.New("low >= high")
	}
	rng := uint64(high) - uint64(low) - 1
	out := make([]int64, size)
	for i := range out {
		out[i] = low + int64(s.bounded(rng))
	}
	return out, nil
}

// RandomSample returns np.random.random_sample(): a double in [0, 1).
func (s *RandomState) RandomSample() float64 {
	return s.Float64()
}

// Shuffle shuffles n elements in place as RandomState.shuffle does for a
// one-dimensional array or a list: for i from n-1 down to 1, swap i with
// random_interval(i), a masked rejection draw in [0, i].
func (s *RandomState) Shuffle(n int, swap func(i, j int)) { fisherYates(n, s.bounded, swap) }

// fisherYates shuffles n elements as NumPy's shuffles do: for i from n-1
// down to 1, swap i with draw(i), a value in [0, i].
func fisherYates(n int, draw func(uint64) uint64, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, int(draw(uint64(i))))
	}
}

// Permutation returns RandomState.permutation(n): arange(n) shuffled.
func (s *RandomState) Permutation(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	s.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Choice returns RandomState.choice(n, size, replace, p) as indices into a
// population of n: with replacement and no p, randint(0, n, size); with p,
// searchsorted(cdf, random_sample(size), side="right") on the normalised
// running sum of p; without replacement and no p, permutation(n)[:size];
// without replacement and with p, NumPy's rounds of weighted draws that
// zero the found entries. pandas' DataFrame.sample(n, random_state=seed,
// replace=...) is NewRandomState(seed).Choice(len(df), n, replace, nil).
// The errors are NumPy's ValueErrors.
func (s *RandomState) Choice(n, size int, replace bool, p []float64) ([]int64, error) {
	if n <= 0 {
		return nil, errors.New("a must be greater than 0 unless no samples are taken")
	}
	if size < 0 {
		return nil, errors.New("negative dimensions are not allowed")
	}
	if p != nil {
		if len(p) != n {
			return nil, errors.New("a and p must have same size")
		}
		for _, v := range p {
			if v < 0 || math.IsNaN(v) {
				return nil, errors.New("probabilities are not non-negative")
			}
		}
		if math.Abs(kahanSum(p)-1) > math.Sqrt(0x1p-52) {
			return nil, errors.New("probabilities do not sum to 1")
		}
	}
	if replace {
		if p == nil {
			return s.Randint(0, int64(n), size)
		}
		cdf := normCumsum(p)
		out := make([]int64, size)
		for i := range out {
			out[i] = int64(searchRight(cdf, s.RandomSample()))
		}
		return out, nil
	}
	if size > n {
		return nil, errors.New("cannot take a larger sample than population when 'replace=False'")
	}
	if p == nil {
		return s.Permutation(n)[:size], nil
	}
	nonzero := 0
	for _, v := range p {
		if v > 0 {
			nonzero++
		}
	}
	if nonzero < size {
		return nil, errors.New("fewer non-zero entries in p than size")
	}
	p = append([]float64(nil), p...)
	found := make([]int64, 0, size)
	for len(found) < size {
		x := make([]float64, size-len(found))
		for i := range x {
			x[i] = s.RandomSample()
		}
		for _, f := range found {
			p[f] = 0
		}
		cdf := normCumsum(p)
		// np.unique(new, return_index=True): the first occurrence of each
		// value; taken in order of first occurrence.
		seen := map[int]bool{}
		for _, u := range x {
			j := searchRight(cdf, u)
			if !seen[j] {
				seen[j] = true
				found = append(found, int64(j))
			}
		}
	}
	return found, nil
}

// normCumsum returns cumsum(p) / cumsum(p)[-1], NumPy's sequential running
// sum.
func normCumsum(p []float64) []float64 {
	cdf := make([]float64, len(p))
	var s float64
	for i, v := range p {
		s += v
		cdf[i] = s
	}
	last := cdf[len(cdf)-1]
	for i := range cdf {
		cdf[i] /= last
	}
	return cdf
}

// searchRight is searchsorted(cdf, x, side="right"): the first index whose
// value is greater than x.
func searchRight(cdf []float64, x float64) int {
	return sort.Search(len(cdf), func(i int) bool { return cdf[i] > x })
}

// kahanSum is NumPy's kahan_sum, which choice uses to check that p sums
// to 1.
func kahanSum(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	sum, c := x[0], 0.0
	for _, v := range x[1:] {
		y := v - c
		t := sum + y
		c = (t - sum) - y
		sum = t
	}
	return sum
}
