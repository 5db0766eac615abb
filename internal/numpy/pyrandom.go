package numpy

import (
	"errors"
	"math"
	"math/bits"
	"sort"
)

// PyRandom reproduces CPython's random.Random bit for bit: the MT19937
// twister seeded as random.seed(n) seeds it for an integer n, and the
// module's integer and sequence methods built on getrandbits and random().
// The algorithms are those of CPython 3.10 to 3.13 (Lib/random.py), which
// agree for every method here. It is not safe for concurrent use.
type PyRandom struct {
	MT19937
}

// NewPyRandom returns the generator random.seed(seed) leaves: init_by_array
// with the 32-bit words of |seed| (see PythonSeedKey).
func NewPyRandom(seed int64) *PyRandom {
	u := uint64(seed)
	if seed < 0 {
		u = -u
	}
	return &PyRandom{MT19937: *NewMT19937Key(PythonSeedKey(u))}
}

// Seed reseeds r as random.seed(seed) does.
func (r *PyRandom) Seed(seed int64) {
	*r = *NewPyRandom(seed)
}

// Random returns random.random(): a double in [0, 1) from two 32-bit
// outputs (genrand_res53).
func (r *PyRandom) Random() float64 {
	return r.Float64()
}

// Getrandbits returns random.getrandbits(k) for 0 <= k <= 64: with k <= 32
// the top k bits of one output; above, 32-bit words least significant
// first, the last one shifted down to the bits that remain.
func (r *PyRandom) Getrandbits(k int) uint64 {
	switch {
	case k <= 0:
		return 0
	case k <= 32:
		return uint64(r.Uint32() >> (32 - k))
	case k <= 64:
		lo := uint64(r.Uint32())
		hi := uint64(r.Uint32() >> (64 - k))
		return hi<<32 | lo
	}
	panic("numpy: Getrandbits wider than 64 bits")
}

// randbelow returns random._randbelow(n) for n > 0: getrandbits of n's bit
// length, redrawn until it is below n.
func (r *PyRandom) randbelow(n uint64) uint64 {
	k := bits.Len64(n)
	v := r.Getrandbits(k)
	for v >= n {
		v = r.Getrandbits(k)
	}
	return v
}

// Randbelow returns random._randbelow(n): a uniform integer in [0, n). It
// panics when n <= 0, where Python raises.
func (r *PyRandom) Randbelow(n int) int {
	if n <= 0 {
		panic("numpy: Randbelow of a non-positive bound")
	}
	return int(r.randbelow(uint64(n)))
}

// Randrange returns random.randrange(start, stop): start + _randbelow(stop
// - start); it fails on an empty range, as Python does.
func (r *PyRandom) Randrange(start, stop int) (int, error) {
	if stop <= start {
		return 0, errors.New("empty range in randrange")
	}
	return start + int(r.randbelow(uint64(stop-start))), nil
}

// Randint returns random.randint(a, b), an integer in [a, b]:
// randrange(a, b+1).
func (r *PyRandom) Randint(a, b int) (int, error) {
	return r.Randrange(a, b+1)
}

// Shuffle shuffles n elements in place as random.shuffle does (Fisher-Yates
// from the end: for i from n-1 down to 1, swap i with _randbelow(i+1)).
func (r *PyRandom) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		j := int(r.randbelow(uint64(i + 1)))
		swap(i, j)
	}
}

// Choice returns the index random.choice(seq) picks from a sequence of n
// elements: _randbelow(n). It panics when n <= 0 (Python raises
// IndexError).
func (r *PyRandom) Choice(n int) int {
	if n <= 0 {
		panic("numpy: Choice from an empty sequence")
	}
	return int(r.randbelow(uint64(n)))
}

// Choices returns the k indices random.choices(seq, k=k) picks, with
// replacement, from a sequence of n elements: floor(random() · n) each.
func (r *PyRandom) Choices(n, k int) []int {
	out := make([]int, k)
	fn := float64(n)
	for i := range out {
		out[i] = int(math.Floor(r.Random() * fn))
	}
	return out
}

// ChoicesWeighted returns the k indices random.choices(seq, weights, k=k)
// picks: the running sums of weights (added left to right), then for each
// pick bisect_right(cum, random() · total, 0, n-1). It fails where Python
// raises: no weights, a total that is not positive and finite.
func (r *PyRandom) ChoicesWeighted(weights []float64, k int) ([]int, error) {
	n := len(weights)
	if n == 0 {
		return nil, errors.New("choices: no weights")
	}
	cum := make([]float64, n)
	var s float64
	for i, w := range weights {
		s += w
		cum[i] = s
	}
	total := cum[n-1]
	if total <= 0 {
		return nil, errors.New("total of weights must be greater than zero")
	}
	if math.IsInf(total, 0) || math.IsNaN(total) {
		return nil, errors.New("total of weights must be finite")
	}
	out := make([]int, k)
	hi := n - 1
	for i := range out {
		x := r.Random() * total
		out[i] = sort.Search(hi, func(j int) bool { return cum[j] > x })
	}
	return out, nil
}

// Sample returns the k distinct indices random.sample(seq, k) picks from a
// sequence of n elements, in pick order. Like CPython it draws from a pool
// when n is small next to k (n <= 21 + 4^ceil(log4(3k)) for k > 5) and
// from a set of picked indices otherwise; the two consume the generator
// differently. It fails when k > n or k < 0.
func (r *PyRandom) Sample(n, k int) ([]int, error) {
	if k < 0 || k > n {
		return nil, errors.New("sample larger than population or is negative")
	}
	out := make([]int, k)
	setsize := 21
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if n <= setsize {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := range k {
			j := int(r.randbelow(uint64(n - i)))
			out[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return out, nil
	}
	selected := make(map[int]bool, k)
	for i := range k {
		j := int(r.randbelow(uint64(n)))
		for selected[j] {
			j = int(r.randbelow(uint64(n)))
		}
		selected[j] = true
		out[i] = j
	}
	return out, nil
}
