package numpy

import "math"

// MT19937 parameters (Matsumoto and Nishimura, 1998).
const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// MT19937 is the 32-bit Mersenne Twister behind both CPython's random
// module and NumPy's legacy RandomState. It is not safe for concurrent use.
type MT19937 struct {
	mt  [mtN]uint32
	pos int
}

// NewMT19937 returns the twister seeded by init_genrand, as
// np.random.seed(seed) seeds it for an integer seed:
//
//	mt[0] = seed
//	mt[i] = 1812433253 · (mt[i-1] ⊕ (mt[i-1] >> 30)) + i   (mod 2³²)
func NewMT19937(seed uint32) *MT19937 {
	m := &MT19937{}
	m.initGenrand(seed)
	return m
}

func (m *MT19937) initGenrand(seed uint32) {
	m.mt[0] = seed
	for i := 1; i < mtN; i++ {
		prev := m.mt[i-1]
		m.mt[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	m.pos = mtN
}

// NewMT19937Key returns the twister seeded by init_by_array(key), as
// CPython's random.seed(n) seeds it for an integer n: key holds the 32-bit
// words of |n|, least significant first ([0] for n = 0). See
// PythonSeedKey.
func NewMT19937Key(key []uint32) *MT19937 {
	m := &MT19937{}
	m.initGenrand(19650218)
	mt := &m.mt
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		prev := mt[i-1]
		mt[i] = (mt[i] ^ (prev^prev>>30)*1664525) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			mt[0] = mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		prev := mt[i-1]
		mt[i] = (mt[i] ^ (prev^prev>>30)*1566083941) - uint32(i)
		i++
		if i >= mtN {
			mt[0] = mt[mtN-1]
			i = 1
		}
	}
	mt[0] = 0x80000000
	return m
}

// PythonSeedKey returns the init_by_array key CPython's random.seed(n)
// uses for a non-negative integer n: its 32-bit words, least significant
// first, and one zero word for n = 0.
func PythonSeedKey(n uint64) []uint32 {
	return seedWords(n)
}

// generate refills the state with the next 624 words (the twist).
func (m *MT19937) generate() {
	mt := &m.mt
	var i int
	for i = 0; i < mtN-mtM; i++ {
		y := mt[i]&mtUpperMask | mt[i+1]&mtLowerMask
		mt[i] = mt[i+mtM] ^ y>>1 ^ -(y&1)&mtMatrixA
	}
	for ; i < mtN-1; i++ {
		y := mt[i]&mtUpperMask | mt[i+1]&mtLowerMask
		mt[i] = mt[i+mtM-mtN] ^ y>>1 ^ -(y&1)&mtMatrixA
	}
	y := mt[mtN-1]&mtUpperMask | mt[0]&mtLowerMask
	mt[mtN-1] = mt[mtM-1] ^ y>>1 ^ -(y&1)&mtMatrixA
	m.pos = 0
}

// Uint32 returns the next tempered 32-bit output of the twister
// (genrand_uint32; CPython's random.getrandbits(32)).
func (m *MT19937) Uint32() uint32 {
	if m.pos == mtN {
		m.generate()
	}
	y := m.mt[m.pos]
	m.pos++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// Float64 returns a double in [0, 1) as CPython's random.random() and
// NumPy's np.random.random_sample do (genrand_res53), from two 32-bit
// outputs a and b:
//
//	((a >> 5) · 2²⁶ + (b >> 6)) / 2⁵³
func (m *MT19937) Float64() float64 {
	a := m.Uint32() >> 5
	b := m.Uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) / 9007199254740992.0
}

// RandomState reproduces NumPy's legacy global generator, the one behind
// np.random.seed and np.random.gamma: MT19937 with the legacy double,
// Gaussian and gamma samplers layered on it. The same seed gives the same
// stream as NumPy, bit for bit, for the raw integers and the doubles; the
// samplers that use log, pow or sqrt use Go's math package, which may
// differ from the C library NumPy links in the last bit of a result (never
// in the sequence of draws, except with a probability that is negligible).
//
// A RandomState is not safe for concurrent use.
type RandomState struct {
	MT19937
	hasGauss bool
	gauss    float64
}

// NewRandomState returns the state np.random.seed(seed) leaves: MT19937
// seeded by init_genrand (see NewMT19937), with no cached Gaussian.
func NewRandomState(seed uint32) *RandomState {
	s := &RandomState{}
	s.initGenrand(seed)
	return s
}

// StandardNormal returns np.random.standard_normal(): the legacy polar
// (Marsaglia) method. It draws x1 = 2U−1 and x2 = 2U−1 until
// 0 < r² = x1² + x2² < 1, sets f = √(−2·ln r² / r²), returns f·x2 and keeps
// f·x1 for the next call.
func (s *RandomState) StandardNormal() float64 {
	if s.hasGauss {
		s.hasGauss = false
		g := s.gauss
		s.gauss = 0
		return g
	}
	var x1, x2, r2 float64
	for {
		x1 = 2*s.Float64() - 1
		x2 = 2*s.Float64() - 1
		r2 = x1*x1 + x2*x2
		if r2 < 1 && r2 != 0 {
			break
		}
	}
	f := math.Sqrt(-2 * math.Log(r2) / r2)
	s.gauss = f * x1
	s.hasGauss = true
	return f * x2
}

// StandardExponential returns np.random.standard_exponential(): −ln(1−U).
func (s *RandomState) StandardExponential() float64 {
	return -math.Log(1 - s.Float64())
}

// StandardGamma returns np.random.standard_gamma(shape) with NumPy's legacy
// algorithm (shape ≥ 0):
//
//   - shape = 1: StandardExponential.
//   - shape = 0: 0.
//   - shape < 1 (Johnk/Ahrens–Dieter style rejection): repeat U uniform,
//     V exponential; if U ≤ 1−shape, X = U^(1/shape) and accept if X ≤ V;
//     else Y = −ln((1−U)/shape), X = (1−shape+shape·Y)^(1/shape) and accept
//     if X ≤ V+Y.
//   - shape > 1 (Marsaglia–Tsang): b = shape − 1/3, c = 1/√(9b); repeat
//     X normal until V = 1+cX > 0, V = V³, U uniform; accept b·V if
//     U < 1 − 0.0331·X⁴ or ln U < X²/2 + b(1 − V + ln V).
func (s *RandomState) StandardGamma(shape float64) float64 {
	switch {
	case shape == 1:
		return s.StandardExponential()
	case shape == 0:
		return 0
	case shape < 1:
		for {
			u := s.Float64()
			v := s.StandardExponential()
			if u <= 1-shape {
				x := math.Pow(u, 1/shape)
				if x <= v {
					return x
				}
			} else {
				y := -math.Log((1 - u) / shape)
				x := math.Pow(1-shape+shape*y, 1/shape)
				if x <= v+y {
					return x
				}
			}
		}
	default:
		b := shape - 1.0/3.0
		c := 1 / math.Sqrt(9*b)
		for {
			var x, v float64
			for {
				x = s.StandardNormal()
				v = 1 + c*x
				if v > 0 {
					break
				}
			}
			v = v * v * v
			u := s.Float64()
			if u < 1-0.0331*(x*x)*(x*x) {
				return b * v
			}
			if math.Log(u) < 0.5*x*x+b*(1-v+math.Log(v)) {
				return b * v
			}
		}
	}
}

// Gamma returns np.random.gamma(shape, scale) = scale · StandardGamma(shape):
// mean shape·scale, variance shape·scale².
func (s *RandomState) Gamma(shape, scale float64) float64 {
	return scale * s.StandardGamma(shape)
}
