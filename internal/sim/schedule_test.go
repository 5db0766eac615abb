package sim

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestScheduleClosedForm(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name               string
		ttft, itl, prefill time.Duration
		prompt, output     int
		want               []time.Duration
	}{
		{"ttft and itl", 50 * ms, 10 * ms, 0, 100, 4, []time.Duration{50 * ms, 60 * ms, 70 * ms, 80 * ms}},
		{"prefill per prompt token", 50 * ms, 10 * ms, 100 * time.Microsecond, 100, 3, []time.Duration{60 * ms, 70 * ms, 80 * ms}},
		{"zero itl bunches tokens", 5 * ms, 0, 0, 1, 3, []time.Duration{5 * ms, 5 * ms, 5 * ms}},
		{"all zero", 0, 0, 0, 7, 2, []time.Duration{0, 0}},
		{"one token", time.Second, time.Hour, ms, 1000, 1, []time.Duration{2 * time.Second}},
		{"no tokens", time.Second, ms, 0, 10, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{TTFT: tt.ttft, ITL: tt.itl, PrefillPerToken: tt.prefill, Seed: 42}
			got := Schedule(cfg, tt.prompt, tt.output, 7)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Schedule = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScheduleJitter(t *testing.T) {
	cfg := Config{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond, Jitter: 3 * time.Millisecond, Seed: 1}
	tests := []struct {
		name string
		cfg  Config
		key  uint64
	}{
		{"jitter below itl", cfg, 1},
		{"jitter above itl clamps often", Config{TTFT: time.Millisecond, ITL: time.Millisecond, Jitter: 5 * time.Millisecond, Seed: 9}, 2},
		{"zero itl", Config{TTFT: time.Millisecond, Jitter: time.Millisecond, Seed: 3}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Schedule(tt.cfg, 10, 2000, tt.key)
			for k, d := range got {
				if d < 0 {
					t.Fatalf("d_%d = %v is negative", k, d)
				}
				if k > 0 && d < got[k-1] {
					t.Fatalf("d_%d = %v is before d_%d = %v", k, d, k-1, got[k-1])
				}
			}
			if again := Schedule(tt.cfg, 10, 2000, tt.key); !slices.Equal(got, again) {
				t.Error("Schedule is not deterministic for the same seed and key")
			}
			other := tt.cfg
			other.Seed++
			if slices.Equal(got, Schedule(other, 10, 2000, tt.key)) {
				t.Error("a different seed gave the same jittered schedule")
			}
			if slices.Equal(got, Schedule(tt.cfg, 10, 2000, tt.key+1)) {
				t.Error("a different request key gave the same jittered schedule")
			}
		})
	}
}

// With Jitter ≪ ITL the clamp never binds, so d_k − base_k is a sample of
// N(0, Jitter²): check the sample mean and standard deviation.
func TestScheduleJitterDistribution(t *testing.T) {
	const n = 20000
	jitter := time.Millisecond
	cfg := Config{TTFT: time.Second, ITL: time.Second, Jitter: jitter, Seed: 5}
	got := Schedule(cfg, 0, n, 11)
	var sum, sumSq float64
	for k, d := range got {
		x := float64(d-cfg.TTFT-time.Duration(k)*cfg.ITL) / float64(jitter)
		sum += x
		sumSq += x * x
	}
	mean := sum / n
	std := math.Sqrt(sumSq/n - mean*mean)
	if math.Abs(mean) > 4/math.Sqrt(n) {
		t.Errorf("jitter mean = %.4f·Jitter, want 0 ± %.4f", mean, 4/math.Sqrt(n))
	}
	if math.Abs(std-1) > 0.03 {
		t.Errorf("jitter standard deviation = %.4f·Jitter, want 1 ± 0.03", std)
	}
}

func TestNaturalLength(t *testing.T) {
	tests := []struct {
		name           string
		minTok, maxTok int
	}{
		{"wide range", 0, 100},
		{"min tokens raise the floor", 40, 100},
		{"min equals max", 7, 7},
		{"single token", 0, 1},
		{"min zero is at least one", 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stops, lengths int
			for key := range uint64(400) {
				n, stop := NaturalLength(3, key, tt.minTok, tt.maxTok)
				if n < max(1, tt.minTok) || n > tt.maxTok {
					t.Fatalf("key %d: n = %d outside [%d, %d]", key, n, max(1, tt.minTok), tt.maxTok)
				}
				if !stop && n != tt.maxTok {
					t.Fatalf("key %d: a length finish has n = %d, want %d", key, n, tt.maxTok)
				}
				if n2, stop2 := NaturalLength(3, key, tt.minTok, tt.maxTok); n2 != n || stop2 != stop {
					t.Fatalf("key %d: not deterministic", key)
				}
				if stop {
					stops++
				} else {
					lengths++
				}
			}
			// Half of the EOS positions fall past the limit.
			if stops < 140 || lengths < 140 {
				t.Errorf("%d stops and %d length finishes out of 400, want about 200 each", stops, lengths)
			}
		})
	}
}
