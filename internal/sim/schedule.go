package sim

import (
	"math"
	"time"
)

// Salts separate the pseudo-random streams derived from one (seed, key) pair.
const (
	saltJitter  = 0x6a09e667f3bcc908
	saltLength  = 0xbb67ae8584caa73b
	saltToken   = 0x3c6ef372fe94f82b
	saltRequest = 0xa54ff53a5f1d36f1
	saltEmbed   = 0x510e527fade682d1
	saltMedia   = 0x9b05688c2b3e6c1f
	saltFault   = 0x1f83d9abfb41bd6b
)

// mix64 is the SplitMix64 finalizer: a bijective 64-bit mixing function.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hash3 derives the i-th pseudo-random word of the stream (seed, salt, key).
func hash3(seed int64, salt, key uint64, i uint64) uint64 {
	return mix64(mix64(mix64(uint64(seed)^salt)^key) + i*0x9e3779b97f4a7c15)
}

// unit maps a random word to a float64 in (0, 1].
func unit(x uint64) float64 {
	return float64(x>>11+1) * (1.0 / (1 << 53))
}

// jitterZ is the standard normal deviate z_k of token k (Box–Muller on two
// words of the jitter stream).
func jitterZ(seed int64, key uint64, k int) float64 {
	u1 := unit(hash3(seed, saltJitter, key, 2*uint64(k)))
	u2 := unit(hash3(seed, saltJitter, key, 2*uint64(k)+1))
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// Schedule returns the due offsets, from request arrival, of the outputTokens
// tokens of one request with promptTokens prompt tokens:
//
//	base_k = TTFT + PrefillPerToken·promptTokens + k·ITL
//	d_k    = max(d_{k−1}, base_k + round(Jitter·z_k)),   d_{−1} = 0
//
// for k = 0..outputTokens−1, where z_k is a standard normal deviate that is a
// pure function of (cfg.Seed, reqKey, k) (SplitMix64 words through
// Box–Muller). Without jitter d_k = base_k exactly; with jitter the offsets
// are non-decreasing, never negative, and identical for identical inputs. The
// clamp is what keeps jitter from making a token earlier than its
// predecessor; when Jitter ≪ ITL it is almost never active and d_k − base_k
// is normal with mean 0 and standard deviation Jitter.
//
// The server uses reqKey = FNV-1a over the prompt's token ids, mixed with the
// choice index for batched prompts, so a prompt always gets the same timing.
func Schedule(cfg Config, promptTokens, outputTokens int, reqKey uint64) []time.Duration {
	if outputTokens <= 0 {
		return nil
	}
	out := make([]time.Duration, outputTokens)
	sc := newScheduler(cfg, promptTokens, reqKey)
	for k := range out {
		out[k] = sc.next()
	}
	return out
}

// scheduler yields the offsets of [Schedule] one at a time, without
// allocating; the streaming handler uses it directly.
type scheduler struct {
	base   time.Duration // TTFT + PrefillPerToken·promptTokens
	itl    time.Duration
	jitter float64
	seed   int64
	key    uint64
	k      int
	prev   time.Duration
}

// newScheduler starts the schedule of one request.
func newScheduler(cfg Config, promptTokens int, key uint64) scheduler {
	return scheduler{
		base:   cfg.TTFT + time.Duration(promptTokens)*cfg.PrefillPerToken,
		itl:    cfg.ITL,
		jitter: float64(cfg.Jitter),
		seed:   cfg.Seed,
		key:    key,
	}
}

// next returns d_k for the next k.
func (s *scheduler) next() time.Duration {
	d := s.base + time.Duration(s.k)*s.itl
	if s.jitter > 0 {
		d += time.Duration(math.Round(s.jitter * jitterZ(s.seed, s.key, s.k)))
	}
	d = max(d, s.prev)
	s.prev = d
	s.k++
	return d
}

// NaturalLength returns the length of a request that does not set ignore_eos,
// and whether it ends at a natural EOS ("stop") rather than at the limit
// ("length"). With lo = max(1, minTokens), span = maxTokens − lo + 1 and h a
// pseudo-random word of (seed, reqKey), the natural EOS position is
//
//	E = lo + (h mod 2·span)
//
// If E ≤ maxTokens the request stops at EOS after E tokens (the last one is
// the EOS token, which has no text); otherwise it runs to maxTokens and ends
// with "length". So half of all prompts stop early, uniformly over
// [lo, maxTokens], and the length is never below minTokens nor above
// maxTokens. It requires 1 ≤ maxTokens and minTokens ≤ maxTokens.
func NaturalLength(seed int64, reqKey uint64, minTokens, maxTokens int) (n int, stop bool) {
	lo := max(1, minTokens)
	span := uint64(maxTokens - lo + 1)
	e := lo + int(hash3(seed, saltLength, reqKey, 0)%(2*span))
	if e <= maxTokens {
		return e, true
	}
	return maxTokens, false
}
