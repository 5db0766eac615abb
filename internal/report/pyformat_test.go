package report

import (
	"math"
	"testing"
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

func TestPercentileWord(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{99, "99"},
		{50, "50"},
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{100, "100"},
		{99.9, "99.9"},
		{99.99, "99.99"},
		{0.5, "0.5"},
		{1e-05, "1e-05"},
	}
	for _, tt := range tests {
		if got := percentileWord(tt.in); got != tt.want {
			t.Errorf("percentileWord(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
