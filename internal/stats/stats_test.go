package stats

import (
	"math"
	"testing"
)

func near(a, b, rel float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

func TestDescribe(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		x    []float64
		want Summary
	}{
		// Σx = 40, x̄ = 5, Σ(x−x̄)² = 9+1+1+1+0+0+4+16 = 32, s = √(32/7),
		// half width = t(0.975, 7) · √(32/7)/√8 = 2.3646242515927853 · √(4/7).
		{"textbook sample", []float64{2, 4, 4, 4, 5, 5, 7, 9}, Summary{N: 8, Mean: 5, Std: math.Sqrt(32.0 / 7), Min: 2, Max: 9,
			CV: math.Sqrt(32.0/7) / 5, CILow: 5 - 2.3646242515927853*math.Sqrt(4.0/7), CIHigh: 5 + 2.3646242515927853*math.Sqrt(4.0/7)}},
		// Two values 10, 14: x̄ = 12, s = √8, half = 12.706204736174705 · √8/√2 = 2 · 12.7062...
		{"two runs", []float64{10, 14}, Summary{N: 2, Mean: 12, Std: math.Sqrt(8), Min: 10, Max: 14,
			CV: math.Sqrt(8) / 12, CILow: 12 - 2*12.706204736174705, CIHigh: 12 + 2*12.706204736174705}},
		{"constant", []float64{3, 3, 3}, Summary{N: 3, Mean: 3, Std: 0, Min: 3, Max: 3, CV: 0, CILow: 3, CIHigh: 3}},
		{"negative mean", []float64{-1, -3}, Summary{N: 2, Mean: -2, Std: math.Sqrt2, Min: -3, Max: -1,
			CV: math.Sqrt2 / 2, CILow: -2 - 12.706204736174705, CIHigh: -2 + 12.706204736174705}},
		{"one run", []float64{7}, Summary{N: 1, Mean: 7, Std: nan, Min: 7, Max: 7, CV: nan, CILow: nan, CIHigh: nan}},
		{"zero mean", []float64{-1, 1}, Summary{N: 2, Mean: 0, Std: math.Sqrt2, Min: -1, Max: 1, CV: nan,
			CILow: -12.706204736174705, CIHigh: 12.706204736174705}},
		{"empty", nil, Summary{N: 0, Mean: nan, Std: nan, Min: nan, Max: nan, CV: nan, CILow: nan, CIHigh: nan}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Describe(tt.x, 0.95)
			tt.want.Level = 0.95
			check := func(field string, g, w float64) {
				if math.IsNaN(w) != math.IsNaN(g) || (!math.IsNaN(w) && !near(g, w, 1e-12)) {
					t.Errorf("%s = %v, want %v", field, g, w)
				}
			}
			if got.N != tt.want.N || got.Level != 0.95 {
				t.Errorf("N = %d, level %v", got.N, got.Level)
			}
			check("mean", got.Mean, tt.want.Mean)
			check("std", got.Std, tt.want.Std)
			check("min", got.Min, tt.want.Min)
			check("max", got.Max, tt.want.Max)
			check("cv", got.CV, tt.want.CV)
			check("ci low", got.CILow, tt.want.CILow)
			check("ci high", got.CIHigh, tt.want.CIHigh)
		})
	}
}

// Reference quantiles t_{p,ν}: the two-sided 95 % column of every
// textbook table, to the digits of a 30-digit evaluation of the
// incomplete-beta form of the distribution.
func TestTQuantile(t *testing.T) {
	tests := []struct {
		p, df, want float64
	}{
		{0.975, 1, 12.706204736174704646},
		{0.975, 2, 4.3026527297494638523},
		{0.975, 3, 3.1824463052837095927},
		{0.975, 4, 2.7764451051977943578},
		{0.975, 5, 2.5705818356363155147},
		{0.975, 6, 2.4469118511449699711},
		{0.975, 7, 2.3646242515927853417},
		{0.975, 8, 2.3060041352041666833},
		{0.975, 9, 2.2621571627982055426},
		{0.975, 10, 2.2281388519862747484},
		{0.975, 20, 2.0859634472658648427},
		{0.975, 29, 2.0452296421327042982},
		{0.975, 30, 2.0422724563012383100},
		{0.975, 100, 1.9839715185235522866},
		{0.975, 1000, 1.962339080826408485},
		{0.975, math.Inf(1), 1.9599639845400542355},
		{0.975, 1323.0 / 409, 3.0557127104258981769}, // a Welch–Satterthwaite df
		{0.975, 0.5, 164.55767348048853312},
		{0.995, 7, 3.4994832973504939201},
		{0.9, 3, 1.6377443536962101055},
		{0.999, 50, 3.2614090557983182072},
		{0.025, 9, -2.2621571627982055426},
		{0.5, 3, 0},
	}
	for _, tt := range tests {
		got := TQuantile(tt.p, tt.df)
		if !near(got, tt.want, 2e-13) {
			t.Errorf("TQuantile(%v, %v) = %.17g, want %.17g", tt.p, tt.df, got, tt.want)
		}
		// Three-decimal textbook values agree too.
		if math.Abs(got-tt.want) > 5e-4 {
			t.Errorf("TQuantile(%v, %v) = %.4f", tt.p, tt.df, got)
		}
	}
	for _, bad := range [][2]float64{{0, 3}, {1, 3}, {0.5, 0}, {math.NaN(), 2}, {0.9, -1}} {
		if got := TQuantile(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("TQuantile(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
}

// The closed form for four degrees of freedom (Hill 1970):
// t = sign(p−½) · 2 √( cos(⅓ arccos(√α)) / √α − 1 ), α = 4p(1−p).
func TestTQuantileClosedFormDF4(t *testing.T) {
	for _, p := range []float64{0.6, 0.75, 0.9, 0.95, 0.975, 0.99, 0.999, 0.9999} {
		a := 4 * p * (1 - p)
		want := 2 * math.Sqrt(math.Cos(math.Acos(math.Sqrt(a))/3)/math.Sqrt(a)-1)
		if got := TQuantile(p, 4); !near(got, want, 1e-12) {
			t.Errorf("TQuantile(%v, 4) = %.17g, closed form %.17g", p, got, want)
		}
	}
}

func TestTCDF(t *testing.T) {
	tests := []struct {
		t, df, want float64
	}{
		{0, 7, 0.5},
		{1, 1, 0.75},                            // Cauchy: ½ + arctan(1)/π
		{-1, 1, 0.25},                           // symmetry
		{2, 2, 0.5 + 1/math.Sqrt(6)},            // ν = 2: ½ + t / (2√(2 + t²))
		{2.5, 5, 0.97275495032881187944},        // reference evaluation
		{1.959963984540054, math.Inf(1), 0.975}, // normal limit
		{math.Inf(1), 3, 1},
	}
	for _, tt := range tests {
		if got := TCDF(tt.t, tt.df); !near(got, tt.want, 1e-13) {
			t.Errorf("TCDF(%v, %v) = %.17g, want %.17g", tt.t, tt.df, got, tt.want)
		}
	}
	// The quantile inverts the distribution function.
	for _, df := range []float64{0.7, 1.5, 3, 12.25, 300} {
		for _, p := range []float64{0.001, 0.2, 0.6, 0.95, 0.9995} {
			if got := TCDF(TQuantile(p, df), df); !near(got, p, 1e-12) {
				t.Errorf("TCDF(TQuantile(%v, %v)) = %.17g", p, df, got)
			}
		}
	}
}

func TestTPDFIntegratesToCDF(t *testing.T) {
	// Simpson's rule over the density from 0 to t must give TCDF(t) − ½: an
	// independent check of the incomplete-beta evaluation.
	for _, df := range []float64{1, 3, 8.5, 40} {
		for _, x := range []float64{0.5, 2, 4} {
			const n = 2000
			h := x / n
			sum := TPDF(0, df) + TPDF(x, df)
			for i := 1; i < n; i++ {
				w := 2.0
				if i%2 == 1 {
					w = 4
				}
				sum += w * TPDF(float64(i)*h, df)
			}
			if got, want := sum*h/3, TCDF(x, df)-0.5; !near(got, want, 1e-10) {
				t.Errorf("∫₀^%v f(t; %v) = %.15g, TCDF − ½ = %.15g", x, df, got, want)
			}
		}
	}
}

func TestPairedDiff(t *testing.T) {
	// d = (2, 3, 2): d̄ = 7/3, s_d = √(1/3), s_d/√3 = 1/3, t(0.975, 2) = 4.30265...
	iv, err := PairedDiff([]float64{10, 12, 11}, []float64{12, 15, 13}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	const tq = 4.3026527297494638523
	if !near(iv.Estimate, 7.0/3, 1e-15) || !near(iv.Low, 7.0/3-tq/3, 1e-13) || !near(iv.High, 7.0/3+tq/3, 1e-13) || iv.DF != 2 {
		t.Errorf("paired interval %+v, want 7/3 ± %v", iv, tq/3)
	}
	if !iv.Excludes(0) {
		t.Error("interval [0.90, 3.77] should exclude 0")
	}
	for _, bad := range [][2][]float64{{{1}, {2}}, {{1, 2}, {1, 2, 3}}} {
		if _, err := PairedDiff(bad[0], bad[1], 0.95); err == nil {
			t.Errorf("PairedDiff(%v, %v): no error", bad[0], bad[1])
		}
	}
}

func TestWelchDiff(t *testing.T) {
	// base 1,2,3,4: mean 2.5, s² = 5/3; cand 2,4,6: mean 4, s² = 4.
	// se² = (5/3)/4 + 4/3 = 7/4; ν = (7/4)² / ((5/12)²/3 + (4/3)²/2) = 1323/409.
	iv, err := WelchDiff([]float64{1, 2, 3, 4}, []float64{2, 4, 6}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	half := 3.0557127104258981769 * math.Sqrt(1.75)
	if !near(iv.DF, 1323.0/409, 1e-14) || iv.Estimate != 1.5 || !near(iv.Low, 1.5-half, 1e-12) || !near(iv.High, 1.5+half, 1e-12) {
		t.Errorf("welch interval %+v, want 1.5 ± %v with df %v", iv, half, 1323.0/409)
	}
	if iv.Excludes(0) {
		t.Error("interval should include 0")
	}
	iv, err = WelchDiff([]float64{2, 2}, []float64{3, 3}, 0.95)
	if err != nil || iv.Low != 1 || iv.High != 1 {
		t.Errorf("zero-variance welch %+v, %v", iv, err)
	}
}

func TestIntervalScale(t *testing.T) {
	iv := Interval{Estimate: 1, Low: -1, High: 3}.Scale(-0.5)
	if iv.Estimate != -0.5 || iv.Low != -1.5 || iv.High != 0.5 {
		t.Errorf("scaled %+v", iv)
	}
}
