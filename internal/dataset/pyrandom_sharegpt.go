package dataset

import (
	"math/bits"

	"github.com/vbench/vbench/internal/numpy"
)

// pyRandom is the part of CPython's random.Random that the sharegpt kind
// and vLLM's oversampling use: seeding from an integer, getrandbits,
// _randbelow, shuffle and choice, bit for bit (CPython 3.11+, whose
// shuffle takes no random argument). It is private to this package until
// it is folded into the shared implementation.
type pyRandom struct{ mt *numpy.MT19937 }

// newPyRandom returns random.Random(seed); a negative seed seeds as its
// absolute value, as CPython's random.seed does for an int.
func newPyRandom(seed int64) *pyRandom {
	u := uint64(seed)
	if seed < 0 {
		u = uint64(-seed)
	}
	return &pyRandom{mt: numpy.NewMT19937Key(numpy.PythonSeedKey(u))}
}

// getrandbits returns random.getrandbits(k) for 0 < k <= 64: 32-bit words
// least significant first, the last one shifted down to the bits that
// remain.
func (r *pyRandom) getrandbits(k int) uint64 {
	if k <= 32 {
		return uint64(r.mt.Uint32() >> (32 - k))
	}
	lo := uint64(r.mt.Uint32())
	hi := uint64(r.mt.Uint32() >> (64 - k))
	return hi<<32 | lo
}

// randbelow returns random._randbelow(n) for n > 0: getrandbits of n's
// bit length, redrawn until below n.
func (r *pyRandom) randbelow(n int) int {
	k := bits.Len64(uint64(n))
	for {
		if v := r.getrandbits(k); v < uint64(n) {
			return int(v)
		}
	}
}

// shuffle permutes n elements as random.shuffle does, calling swap(i, j)
// for i from n-1 down to 1 with j = _randbelow(i+1).
func (r *pyRandom) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.randbelow(i+1))
	}
}

// choice returns the index random.choice picks from a sequence of n > 0
// elements.
func (r *pyRandom) choice(n int) int { return r.randbelow(n) }
