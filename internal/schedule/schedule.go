// Package schedule computes request arrival times the way vLLM's
// `vllm bench serve` does, so that the same seed gives the same schedule.
//
// Rates, Seconds and Offsets are pure functions of their arguments: no
// clock, no I/O. The caller sleeps until start+offset for each request.
// The gamma gaps are drawn from numpy.RandomState, NumPy's legacy global
// generator.
package schedule

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/vbench/vbench/internal/numpy"
)

// Ramp-up strategies.
const (
	Linear      = "linear"
	Exponential = "exponential"
)

// RampUp ramps the request rate by request index from StartRPS to EndRPS.
// Its fields match scenario.RampUp, so a *scenario.RampUp converts with
// (*schedule.RampUp)(r).
type RampUp struct {
	// Strategy is Linear or Exponential.
	Strategy string
	// StartRPS is the rate of the first request, EndRPS that of the last.
	StartRPS float64
	EndRPS   float64
}

// Spec describes an arrival process.
type Spec struct {
	// Rate is the request rate in requests per second; +Inf sends every
	// request at once. Ignored when RampUp is set.
	Rate float64
	// Burstiness is the gamma shape of the gaps: 1 is a Poisson process,
	// below 1 burstier, above 1 more regular, +Inf constant gaps.
	Burstiness float64
	// RampUp, when non-nil, gives each request its own rate.
	RampUp *RampUp
}

// Rates returns the rate each of the n requests is sent at. Without a
// ramp-up every rate is spec.Rate. With one, request i has
//
//	progress = i / max(n−1, 1)
//	linear:      r_i = start + (end − start) · progress
//	exponential: r_i = start · (end / start)^progress
//
// Rates does not validate; Offsets does.
func Rates(spec Spec, n int) []float64 {
	if n <= 0 {
		return nil
	}
	rates := make([]float64, n)
	for i := range rates {
		rates[i] = rate(spec, i, n)
	}
	return rates
}

func rate(spec Spec, i, n int) float64 {
	ru := spec.RampUp
	if ru == nil {
		return spec.Rate
	}
	progress := float64(i) / float64(max(n-1, 1))
	switch ru.Strategy {
	case Linear:
		increase := (ru.EndRPS - ru.StartRPS) * progress
		return ru.StartRPS + increase
	case Exponential:
		ratio := ru.EndRPS / ru.StartRPS
		return ru.StartRPS * math.Pow(ratio, progress)
	}
	return math.NaN()
}

// Seconds returns the arrival offset of each of the n requests in seconds
// from the start of the run, as vLLM's get_request computes it:
//
//  1. rate r_i from Rates.
//  2. gap g_i = 0 if r_i = +Inf; 1/r_i if Burstiness = +Inf; otherwise a
//     draw of Gamma(shape = Burstiness, scale = 1/(r_i·Burstiness)), whose
//     mean is 1/r_i, from NumPy's legacy generator seeded with seed (that
//     is, np.random.seed(seed) then one np.random.gamma call per request
//     whose gap is random).
//  3. d_i = g_0 + … + g_i: the first request also waits its gap.
//  4. Without a ramp-up, if d_{n−1} ≠ 0, every d_i is multiplied by
//     (n / Rate) / d_{n−1}, so the last request is due at n/Rate (up to
//     the rounding of that product, as in vLLM) and the ratios between
//     offsets are kept. With a ramp-up there is no rescaling.
//
// It fails when n < 0, a rate is not positive, Burstiness is not positive,
// or the ramp-up strategy is unknown. n = 0 gives no offsets.
func Seconds(spec Spec, n int, seed uint32) ([]float64, error) {
	return SecondsWith(spec, n, numpy.NewRandomState(seed))
}

// SecondsWith is Seconds drawing from rs instead of a freshly seeded
// generator, for runs where something else used NumPy's global generator
// after np.random.seed and before the schedule (as some of vLLM's dataset
// classes do). rs advances by the draws made.
func SecondsWith(spec Spec, n int, rs *numpy.RandomState) ([]float64, error) {
	if n < 0 {
		return nil, fmt.Errorf("schedule: negative request count %d", n)
	}
	if n == 0 {
		return nil, nil
	}
	if err := validate(spec); err != nil {
		return nil, err
	}
	d := make([]float64, n)
	for i := range d {
		g, err := gap(spec, i, n, rs)
		if err != nil {
			return nil, err
		}
		d[i] = g
	}
	for i := 1; i < n; i++ {
		d[i] += d[i-1]
	}
	if spec.RampUp == nil && d[n-1] != 0 {
		target := float64(n) / spec.Rate
		factor := target / d[n-1]
		for i := range d {
			d[i] *= factor
		}
	}
	return d, nil
}

// gap is request i's gap g_i (step 2 of Seconds), drawn from rs.
func gap(spec Spec, i, n int, rs *numpy.RandomState) (float64, error) {
	r := rate(spec, i, n)
	if !(r > 0) {
		return 0, fmt.Errorf("schedule: request %d has non-positive rate %v", i, r)
	}
	switch {
	case math.IsInf(r, 1):
		return 0, nil
	case math.IsInf(spec.Burstiness, 1):
		return 1 / r, nil
	default:
		theta := 1 / (r * spec.Burstiness)
		return rs.Gamma(spec.Burstiness, theta), nil
	}
}

// RateAt is request i's rate among n (see Rates).
func RateAt(spec Spec, i, n int) float64 { return rate(spec, i, n) }

// Cursor gives the offsets of Offsets one at a time, in order, without
// holding them: it draws the gaps twice from generators seeded alike, once
// for d_{n−1} (the rescaling needs it) and once as it goes, with the same
// additions and multiplications, so each offset is Offsets' to the bit.
type Cursor struct {
	spec    Spec
	n, i    int
	seed    uint32
	rs      *numpy.RandomState
	sum     float64
	factor  float64
	rescale bool
}

// NewCursor checks spec as Offsets does and makes the first pass.
func NewCursor(spec Spec, n int, seed uint32) (*Cursor, error) {
	if n < 0 {
		return nil, fmt.Errorf("schedule: negative request count %d", n)
	}
	c := &Cursor{spec: spec, n: n, seed: seed}
	if n == 0 {
		return c, nil
	}
	if err := validate(spec); err != nil {
		return nil, err
	}
	rs := numpy.NewRandomState(seed)
	total := 0.0
	for i := range n {
		g, err := gap(spec, i, n, rs)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			total = g
		} else {
			total = g + total
		}
	}
	if spec.RampUp == nil && total != 0 {
		c.rescale, c.factor = true, (float64(n)/spec.Rate)/total
	}
	c.rs = numpy.NewRandomState(seed)
	return c, nil
}

// Len is the number of offsets.
func (c *Cursor) Len() int { return c.n }

// Next returns the next offset; past the last it returns the last again.
func (c *Cursor) Next() time.Duration {
	if c.i < c.n {
		g, _ := gap(c.spec, c.i, c.n, c.rs) // checked by NewCursor
		if c.i == 0 {
			c.sum = g
		} else {
			c.sum = g + c.sum
		}
		c.i++
	}
	v := c.sum
	if c.rescale {
		v *= c.factor
	}
	return time.Duration(math.Round(v * 1e9))
}

// Offsets is Seconds converted to durations, each rounded to the nearest
// nanosecond.
func Offsets(spec Spec, n int, seed uint32) ([]time.Duration, error) {
	secs, err := Seconds(spec, n, seed)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, len(secs))
	for i, s := range secs {
		out[i] = time.Duration(math.Round(s * 1e9))
	}
	return out, nil
}

func validate(spec Spec) error {
	if !(spec.Burstiness > 0) {
		return fmt.Errorf("schedule: burstiness must be positive, got %v", spec.Burstiness)
	}
	ru := spec.RampUp
	if ru == nil {
		if !(spec.Rate > 0) {
			return fmt.Errorf("schedule: request rate must be positive, got %v", spec.Rate)
		}
		return nil
	}
	switch ru.Strategy {
	case Linear, Exponential:
	default:
		return fmt.Errorf("schedule: unknown ramp-up strategy %q: want %q or %q", ru.Strategy, Linear, Exponential)
	}
	if !(ru.StartRPS > 0) || !(ru.EndRPS > 0) {
		return errors.New("schedule: ramp-up start and end rates must be positive")
	}
	return nil
}
