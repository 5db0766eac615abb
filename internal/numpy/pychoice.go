package numpy

import "math/bits"

// This file holds the two draws of CPython's random module that vLLM's
// --lora-assignment random needs (random.choice over the LoRA names after
// random.seed(seed)): getrandbits and the _randbelow that choice uses. It
// is kept apart from a fuller port of the random module.

// PyGetrandbits returns CPython's random.getrandbits(k) for 1 <= k <= 64,
// drawn from m: the first 32-bit output is the least significant word,
// and the last word drawn keeps only its top bits (k mod 32 of them, or
// all 32), as CPython's _random.Random.getrandbits fills its words.
func PyGetrandbits(m *MT19937, k int) uint64 {
	if k <= 0 || k > 64 {
		panic("numpy: PyGetrandbits: k must be in 1..64")
	}
	if k <= 32 {
		return uint64(m.Uint32() >> (32 - k))
	}
	lo := uint64(m.Uint32())
	return lo | uint64(m.Uint32()>>(64-k))<<32
}

// PyRandbelow returns CPython's random.Random._randbelow(n) for n >= 1
// (the getrandbits method, which random.choice(seq) uses as
// seq[_randbelow(len(seq))]): with k the bit length of n, it draws
// getrandbits(k) until the value is below n.
func PyRandbelow(m *MT19937, n uint64) uint64 {
	if n == 0 {
		panic("numpy: PyRandbelow: n must be at least 1")
	}
	k := bits.Len64(n)
	r := PyGetrandbits(m, k)
	for r >= n {
		r = PyGetrandbits(m, k)
	}
	return r
}
