package py

import (
	"math"
	"testing"
)

func TestRepr(t *testing.T) {
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
		if got := Repr(tt.in); got != tt.want {
			t.Errorf("Repr(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSONFloat(t *testing.T) {
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
		if got := string(appendJSONFloat(nil, tt.in)); got != tt.want {
			t.Errorf("appendJSONFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFixed(t *testing.T) {
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
		if got := Fixed(tt.in, 2); got != tt.want {
			t.Errorf("Fixed(%v, 2) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
