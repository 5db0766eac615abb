package numpy

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
)

// SeedSequence constants (NumPy's numpy.random.SeedSequence, after
// O'Neill's seed_seq alternative).
const (
	ssPoolSize = 4
	ssInitA    = 0x43b0d7e5
	ssMultA    = 0x931e8875
	ssInitB    = 0x8b51f9dd
	ssMultB    = 0x58f38ded
	ssMixMultL = 0xca01f9dd
	ssMixMultR = 0x4973f715
	ssXShift   = 16
)

// seedPool returns the entropy pool of SeedSequence(entropy): the words are
// hashed into a pool of four,
//
//	hashmix(v):  v ⊕= h; h ·= MULT_A; v ·= h; v ⊕= v >> 16   (h starts at INIT_A)
//	mix(x, y):   r = MIX_MULT_L·x − MIX_MULT_R·y; r ⊕ (r >> 16)
//
// pool[i] = hashmix(entropy[i] or 0); then for every ordered pair src ≠ dst,
// pool[dst] = mix(pool[dst], hashmix(pool[src])); then every further entropy
// word is mixed into every pool word the same way. All arithmetic is mod 2³².
func seedPool(entropy []uint32) [ssPoolSize]uint32 {
	h := uint32(ssInitA)
	hashmix := func(v uint32) uint32 {
		v ^= h
		h *= ssMultA
		v *= h
		return v ^ v>>ssXShift
	}
	mix := func(x, y uint32) uint32 {
		r := ssMixMultL*x - ssMixMultR*y
		return r ^ r>>ssXShift
	}
	var pool [ssPoolSize]uint32
	for i := range pool {
		var v uint32
		if i < len(entropy) {
			v = entropy[i]
		}
		pool[i] = hashmix(v)
	}
	for src := range pool {
		for dst := range pool {
			if src != dst {
				pool[dst] = mix(pool[dst], hashmix(pool[src]))
			}
		}
	}
	for src := ssPoolSize; src < len(entropy); src++ {
		for dst := range pool {
			pool[dst] = mix(pool[dst], hashmix(entropy[src]))
		}
	}
	return pool
}

// generateState64 returns SeedSequence.generate_state(n, np.uint64): 2n
// 32-bit words w[i] = hash(pool[i mod 4]) with h starting at INIT_B,
//
//	w ⊕= h; h ·= MULT_B; w ·= h; w ⊕= w >> 16,
//
// paired little-endian into 64-bit words w[2k] | w[2k+1] << 32.
func generateState64(pool [ssPoolSize]uint32, n int) []uint64 {
	h := uint32(ssInitB)
	out := make([]uint64, n)
	for i := 0; i < 2*n; i++ {
		w := pool[i%ssPoolSize]
		w ^= h
		h *= ssMultB
		w *= h
		w ^= w >> ssXShift
		out[i/2] |= uint64(w) << (32 * (i % 2))
	}
	return out
}

// seedWords splits a non-negative seed into 32-bit words, least significant
// first, as SeedSequence does with a Python int (0 gives one zero word).
func seedWords(seed uint64) []uint32 {
	words := []uint32{uint32(seed)}
	for seed >>= 32; seed > 0; seed >>= 32 {
		words = append(words, uint32(seed))
	}
	return words
}

// PCG64 multiplier: 2549297995355413924·2⁶⁴ + 4865540595714422341.
const (
	pcgMultHi = 2549297995355413924
	pcgMultLo = 4865540595714422341
)

// PCG64 is NumPy's PCG64 bit generator (PCG XSL RR 128/64) with its 32-bit
// output buffer. It is not safe for concurrent use.
type PCG64 struct {
	stateHi, stateLo uint64
	incHi, incLo     uint64
	hasUint32        bool
	uinteger         uint32
}

// NewPCG64 returns PCG64(seed) as NumPy seeds it: SeedSequence(seed) gives
// four 64-bit words s0..s3, and the generator is set with
// initstate = s0·2⁶⁴ + s1 and initseq = s2·2⁶⁴ + s3:
//
//	inc = 2·initseq + 1;  state = 0;  step;  state += initstate;  step
//
// where step is state = state·MULT + inc (mod 2¹²⁸).
func NewPCG64(seed uint64) *PCG64 {
	s := generateState64(seedPool(seedWords(seed)), 4)
	return seededPCG64(s[0], s[1], s[2], s[3])
}

// seededPCG64 is PCG's srandom with initstate = stateHi·2⁶⁴ + stateLo and
// initseq = seqHi·2⁶⁴ + seqLo.
func seededPCG64(stateHi, stateLo, seqHi, seqLo uint64) *PCG64 {
	p := &PCG64{}
	p.incHi = seqHi<<1 | seqLo>>63
	p.incLo = seqLo<<1 | 1
	p.step()
	var carry uint64
	p.stateLo, carry = bits.Add64(p.stateLo, stateLo, 0)
	p.stateHi, _ = bits.Add64(p.stateHi, stateHi, carry)
	p.step()
	return p
}

// step advances the LCG: state = state·MULT + inc (mod 2¹²⁸).
func (p *PCG64) step() {
	hi, lo := bits.Mul64(p.stateLo, pcgMultLo)
	hi += p.stateHi*pcgMultLo + p.stateLo*pcgMultHi
	var carry uint64
	p.stateLo, carry = bits.Add64(lo, p.incLo, 0)
	p.stateHi, _ = bits.Add64(hi, p.incHi, carry)
}

// Uint64 advances the generator and returns the XSL RR output of the new
// state: rotr64(hi ⊕ lo, hi >> 58).
func (p *PCG64) Uint64() uint64 {
	p.step()
	return bits.RotateLeft64(p.stateHi^p.stateLo, -int(p.stateHi>>58))
}

// Uint32 returns 32 random bits as NumPy's next_uint32 does: a 64-bit draw
// yields its low half now and keeps its high half for the next Uint32 call.
// The buffer is independent of Uint64 calls in between.
func (p *PCG64) Uint32() uint32 {
	if p.hasUint32 {
		p.hasUint32 = false
		return p.uinteger
	}
	v := p.Uint64()
	p.hasUint32 = true
	p.uinteger = uint32(v >> 32)
	return uint32(v)
}

// Generator mirrors the part of numpy.random.Generator that vLLM's datasets
// use. It is not safe for concurrent use.
type Generator struct {
	bits *PCG64
}

// NewGenerator returns np.random.default_rng(seed): a Generator over
// PCG64(SeedSequence(seed)). NumPy rejects negative seeds, and so does this.
func NewGenerator(seed int64) (*Generator, error) {
	if seed < 0 {
		return nil, fmt.Errorf("seed %d is negative: NumPy seeds must be non-negative", seed)
	}
	return &Generator{bits: NewPCG64(uint64(seed))}, nil
}

// errLowHigh is NumPy's "low >= high" ValueError.
var errLowHigh = errors.New("low >= high")

// Integers returns Generator.integers(low, high, size) with the default
// int64 dtype: size draws uniform on [low, high). Like NumPy:
//
//   - size 0 returns an empty slice and draws nothing;
//   - low ≥ high is an error;
//   - with rng = high−1−low, rng 0 draws nothing (every value is low);
//     rng < 2³²−1 uses Lemire's method on 32-bit draws (Uint32, so two
//     values per 64-bit output), rejecting a draw x while the low half of
//     x·(rng+1) is below (2³²−1−rng) mod (rng+1), and returning the high
//     half; rng = 2³²−1 returns raw 32-bit draws; a larger rng uses
//     Lemire's method on 64-bit draws (NumPy's raw 64-bit case, rng =
//     2⁶⁴−1, needs high = 2⁶³ and cannot arise with int64 bounds).
func (g *Generator) Integers(low, high int64, size int) ([]int64, error) {
	if size < 0 {
		return nil, fmt.Errorf("negative size %d", size)
	}
	if size == 0 {
		return []int64{}, nil
	}
	out := make([]int64, 0, size)
	err := g.IntegersFunc(low, high, size, func(v int64) { out = append(out, v) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// IntegersFunc draws what Integers(low, high, size) draws, handing each
// value to f in order instead of returning them: the generator ends in the
// same state, and f(nothing) skips the draws without holding them.
func (g *Generator) IntegersFunc(low, high int64, size int, f func(int64)) error {
	if size < 0 {
		return fmt.Errorf("negative size %d", size)
	}
	if size == 0 {
		return nil
	}
	if high == math.MinInt64 || low > high-1 {
		return errLowHigh
	}
	rng := uint64(high - 1 - low)
	off := uint64(low)
	switch {
	case rng == 0:
		for range size {
			f(low)
		}
	case rng < math.MaxUint32:
		for range size {
			f(int64(off + uint64(g.lemire32(uint32(rng)))))
		}
	case rng == math.MaxUint32:
		for range size {
			f(int64(off + uint64(g.bits.Uint32())))
		}
	default:
		for range size {
			f(int64(off + g.lemire64(rng)))
		}
	}
	return nil
}

// Clone returns a generator in g's state that draws independently of it.
func (g *Generator) Clone() *Generator {
	b := *g.bits
	return &Generator{bits: &b}
}

// lemire32 returns a value uniform on [0, rng] (rng < 2³²−1).
func (g *Generator) lemire32(rng uint32) uint32 {
	excl := rng + 1
	m := uint64(g.bits.Uint32()) * uint64(excl)
	left := uint32(m)
	if left < excl {
		threshold := (math.MaxUint32 - rng) % excl
		for left < threshold {
			m = uint64(g.bits.Uint32()) * uint64(excl)
			left = uint32(m)
		}
	}
	return uint32(m >> 32)
}

// lemire64 returns a value uniform on [0, rng] (rng < 2⁶⁴−1).
func (g *Generator) lemire64(rng uint64) uint64 {
	excl := rng + 1
	hi, left := bits.Mul64(g.bits.Uint64(), excl)
	if left < excl {
		threshold := (math.MaxUint64 - rng) % excl
		for left < threshold {
			hi, left = bits.Mul64(g.bits.Uint64(), excl)
		}
	}
	return hi
}

// interval returns a value uniform on [0, max] as NumPy's random_interval
// does: draws masked to the smallest all-ones mask covering max, rejected
// while above max; 32-bit draws (Uint32) while max fits in 32 bits, 64-bit
// ones otherwise. max 0 draws nothing.
func (g *Generator) interval(max uint64) uint64 {
	if max == 0 {
		return 0
	}
	m := mask(max)
	if max <= math.MaxUint32 {
		for {
			if v := uint64(g.bits.Uint32()) & m; v <= max {
				return v
			}
		}
	}
	for {
		if v := g.bits.Uint64() & m; v <= max {
			return v
		}
	}
}

// Shuffle is Generator.shuffle of a sequence of n elements (a list or a
// one-dimensional array): Fisher-Yates from the end, swapping element i
// with element interval(i) for i = n-1 down to 1.
func (g *Generator) Shuffle(n int, swap func(i, j int)) { fisherYates(n, g.interval, swap) }

// Permutation is Generator.permutation(n): arange(n), shuffled.
func (g *Generator) Permutation(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	g.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// Random returns Generator.random(): a double uniform on [0, 1), the top
// 53 bits of a 64-bit draw times 2⁻⁵³ (NumPy's next_double).
func (g *Generator) Random() float64 {
	return float64(g.bits.Uint64()>>11) * (1.0 / 9007199254740992.0)
}

// Bytes fills b as Generator.integers(0, 256, size=len(b), dtype=np.uint8)
// does: NumPy's buffered_uint8, four bytes from each 32-bit draw (Uint32),
// least significant first; a new call starts on a new 32-bit draw.
func (g *Generator) Bytes(b []byte) {
	var buf uint32
	for i := range b {
		if i%4 == 0 {
			buf = g.bits.Uint32()
		} else {
			buf >>= 8
		}
		b[i] = byte(buf)
	}
}

// ChoiceP returns the index Generator.choice(n, p=p) draws from a
// population of len(p) with replacement: p must be non-negative and sum to
// 1 within √ε (a Kahan sum, as NumPy checks); the cumulative sums,
// divided by the last, are searched (side right) for one Random draw.
func (g *Generator) ChoiceP(p []float64) (int, error) {
	if len(p) == 0 {
		return 0, errors.New("a cannot be empty unless no samples are taken")
	}
	var sum, c float64 // Kahan summation, NumPy's kahan_sum
	for _, v := range p {
		if v < 0 {
			return 0, errors.New("probabilities are not non-negative")
		}
		y := v - c
		t := sum + y
		c = (t - sum) - y
		sum = t
	}
	if math.IsNaN(sum) {
		return 0, errors.New("probabilities contain NaN")
	}
	if math.Abs(sum-1) > math.Sqrt(0x1p-52) {
		return 0, errors.New("probabilities do not sum to 1")
	}
	cdf := make([]float64, len(p))
	acc := 0.0
	for i, v := range p {
		acc += v
		cdf[i] = acc
	}
	last := cdf[len(cdf)-1]
	for i := range cdf {
		cdf[i] /= last
	}
	u := g.Random()
	return sort.Search(len(cdf), func(i int) bool { return cdf[i] > u }), nil
}
