package sim

import (
	"testing"
	"time"
)

func TestLatencyBuckets(t *testing.T) {
	tests := []struct {
		v     uint64
		index int
		upper uint64
	}{
		{0, 0, 0},
		{63, 63, 63},      // exact below 64ns
		{64, 64, 65},      // 32 buckets of width 2 in [64, 128)
		{127, 95, 127},    //
		{128, 96, 131},    // width 4 in [128, 256)
		{1000, 190, 1007}, // 1000 = 62·16 + 8: [992, 1007]
		{1 << 62, 1856, 1<<62 + 1<<57 - 1},
		{1<<63 - 1, latencyBuckets - 1, 1<<63 - 1},
	}
	for _, tt := range tests {
		i := latencyIndex(tt.v)
		if i != tt.index {
			t.Errorf("latencyIndex(%d) = %d, want %d", tt.v, i, tt.index)
		}
		if u := latencyUpper(i); u != tt.upper {
			t.Errorf("latencyUpper(%d) = %d, want %d", i, u, tt.upper)
		}
		if tt.v > latencyUpper(i) || (i > 0 && tt.v <= latencyUpper(i-1)) {
			t.Errorf("%d is not in bucket %d", tt.v, i)
		}
	}
}

func TestLatencyQuantiles(t *testing.T) {
	var h latencyHist
	for v := 1; v <= 100; v++ { // 1ns..100ns
		h.record(time.Duration(v))
	}
	h.record(-5) // counts as 0
	tests := []struct {
		q    float64
		want time.Duration
	}{
		{0, 0},     // rank 1: the clamped negative sample
		{0.5, 50},  // rank ⌈50.5⌉ = 51 → 50, exact below 64
		{0.99, 99}, // rank 100 → 99, in bucket [98, 99]
		{1, 100},   // the maximum, exactly
	}
	for _, tt := range tests {
		if got := h.quantile(tt.q); got != tt.want {
			t.Errorf("quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if n := h.count.Load(); n != 101 {
		t.Errorf("count = %d, want 101", n)
	}
	if s := h.sumNS.Load(); s != 5050 {
		t.Errorf("sum = %d, want 5050", s)
	}
	var empty latencyHist
	if got := empty.quantile(0.5); got != 0 {
		t.Errorf("empty quantile = %v, want 0", got)
	}
}

func TestHistogramObserve(t *testing.T) {
	h := newHistogram([]float64{0.01, 0.1, 1})
	for _, d := range []time.Duration{0, 10 * time.Millisecond, 11 * time.Millisecond, time.Second, 2 * time.Second} {
		h.observe(d)
	}
	want := []uint64{2, 1, 1, 1} // ≤10ms (inclusive), ≤100ms, ≤1s, +Inf
	for i, w := range want {
		if got := h.counts[i].Load(); got != w {
			t.Errorf("bucket %d (le %s) = %d, want %d", i, append(h.le, "+Inf")[i], got, w)
		}
	}
	if got := time.Duration(h.sumNS.Load()); got != 3021*time.Millisecond {
		t.Errorf("sum = %v, want 3.021s", got)
	}
	if got, want := h.le, []string{"0.01", "0.1", "1.0"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("le labels = %q, want %q", got, want)
	}
}
