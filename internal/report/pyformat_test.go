package report

import (
	"math"
	"strconv"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
)

func TestAlignment(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"ljust pads", ljust("ab", 5), "ab   "},
		{"ljust keeps wide", ljust("abcdef", 3), "abcdef"},
		{"ljust counts runes", ljust("é", 3), "é  "},
		{"center even", center(" Serving Benchmark Result ", '=', 50), "============ Serving Benchmark Result ============"},
		{"center odd fill goes right", center("Time to First Token", '-', 50), "---------------Time to First Token----------------"},
		{"center long", center("Time per Output Token (excl. 1st token)", '-', 50), "-----Time per Output Token (excl. 1st token)------"},
		{"center too wide", center("abc", '-', 2), "abc"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestPercentileWord checks the table's percentile word against Python's
// repr (PyFloatRepr) for non-integral percentiles across (0, 100] and at
// the exponent thresholds, and int(p) for integral ones.
func TestPercentileWord(t *testing.T) {
	ps := []float64{math.Copysign(0, -1), 1e-05, 1.5e-07, 0.0001, 0.00012, 99.99, 99.999, 1e16 + 2, 1.5e16, 1e-300}
	for i := 1; i <= 100000; i += 7 {
		ps = append(ps, float64(i)/1000)
	}
	for _, p := range ps {
		want := PyFloatRepr(p)
		if p == math.Trunc(p) {
			want = strconv.FormatFloat(math.Abs(p), 'f', 0, 64)
		}
		if got := metrics.PercentileWord(p); got != want {
			t.Errorf("PercentileWord(%v) = %q, want %q", p, got, want)
		}
	}
}
