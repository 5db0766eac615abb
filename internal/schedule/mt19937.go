package schedule

import "math"

// MT19937 parameters (Matsumoto and Nishimura, 1998).
const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// RandomState reproduces NumPy's legacy global generator, the one behind
// np.random.seed and np.random.gamma: a 32-bit Mersenne Twister with the
// legacy double, Gaussian and gamma samplers layered on it. The same seed
// gives the same stream as NumPy, bit for bit, for the raw integers and the
// doubles; the samplers that use log, pow or sqrt use Go's math package,
// which may differ from the C library NumPy links in the last bit of a
// result (never in the sequence of draws, except with a probability that
// is negligible).
//
// A RandomState is not safe for concurrent use.
type RandomState struct {
	mt       [mtN]uint32
	pos      int
	hasGauss bool
	gauss    float64
}

// NewRandomState returns the state np.random.seed(seed) leaves: MT19937's
// init_genrand,
//
//	mt[0] = seed
//	mt[i] = 1812433253 · (mt[i-1] ⊕ (mt[i-1] >> 30)) + i   (mod 2³²)
//
// with no cached Gaussian.
func NewRandomState(seed uint32) *RandomState {
	s := &RandomState{}
	s.mt[0] = seed
	for i := 1; i < mtN; i++ {
		prev := s.mt[i-1]
		s.mt[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	s.pos = mtN
	return s
}

// generate refills the state with the next 624 words (the twist).
func (s *RandomState) generate() {
	mt := &s.mt
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
	s.pos = 0
}

// Uint32 returns the next tempered 32-bit output of the twister.
func (s *RandomState) Uint32() uint32 {
	if s.pos == mtN {
		s.generate()
	}
	y := s.mt[s.pos]
	s.pos++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// Float64 returns a double in [0, 1) as np.random.random_sample does,
// from two 32-bit outputs a and b:
//
//	((a >> 5) · 2²⁶ + (b >> 6)) / 2⁵³
func (s *RandomState) Float64() float64 {
	a := s.Uint32() >> 5
	b := s.Uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) / 9007199254740992.0
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
