package report

import (
	"math"
	"strconv"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
)

func TestPyFloatRepr(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1.0, "1.0"},
		{865.0, "865.0"},
		{-2.5, "-2.5"},
		{1e-05, "1e-05"},
		{1.5e-05, "1.5e-05"},
		{0.0001, "0.0001"},
		{0.00012345, "0.00012345"},
		{1e16, "1e+16"},
		{1.5e+16, "1.5e+16"},
		{1e15, "1000000000000000.0"},
		{9999999999999998.0, "9999999999999998.0"},
		{123456789012345.6, "123456789012345.6"},
		{29.42614664850979, "29.42614664850979"},
		{0.1, "0.1"},
		{1.0 / 3, "0.3333333333333333"},
		{1e100, "1e+100"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{math.NaN(), "nan"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
	}
	for _, tt := range tests {
		if got := PyFloatRepr(tt.in); got != tt.want {
			t.Errorf("PyFloatRepr(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPyJSONFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{2, "2.0"},
	}
	for _, tt := range tests {
		if got := pyJSONFloat(tt.in); got != tt.want {
			t.Errorf("pyJSONFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPyFixed2(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{1.699169129999973, "1.70"},
		{1006.9986525001013, "1007.00"},
		{0.125, "0.12"}, // exact tie rounds to even
		{0.375, "0.38"},
		{2.675, "2.67"}, // 2.675 is 2.67499999... in binary
		{50, "50.00"},
		{-0.001, "-0.00"},
		{math.Inf(1), "inf"},
		{math.NaN(), "nan"},
	}
	for _, tt := range tests {
		if got := pyFixed2(tt.in); got != tt.want {
			t.Errorf("pyFixed2(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

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
