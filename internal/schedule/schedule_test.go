package schedule

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/numpy"
)

var inf = math.Inf(1)

func TestRates(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		n    int
		want []float64
	}{
		{"constant", Spec{Rate: 4, Burstiness: 1}, 3, []float64{4, 4, 4}},
		{"none", Spec{Rate: 4, Burstiness: 1}, 0, nil},
		{"linear", Spec{Burstiness: 1, RampUp: &RampUp{Linear, 1, 9}}, 5, []float64{1, 3, 5, 7, 9}},
		{"linear single request", Spec{Burstiness: 1, RampUp: &RampUp{Linear, 2, 9}}, 1, []float64{2}},
		{"exponential", Spec{Burstiness: 1, RampUp: &RampUp{Exponential, 1, 16}}, 5, []float64{1, 2, 4, 8, 16}},
		{"exponential down", Spec{Burstiness: 1, RampUp: &RampUp{Exponential, 27, 1}}, 4, []float64{27, 9, 3, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rates(tt.spec, tt.n)
			if len(got) != len(tt.want) {
				t.Fatalf("Rates = %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-12*tt.want[i] {
					t.Errorf("rate %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestSecondsClosedForms(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		n    int
		want []float64
	}{
		{"infinite rate", Spec{Rate: inf, Burstiness: 1}, 4, []float64{0, 0, 0, 0}},
		{"infinite rate with constant gaps", Spec{Rate: inf, Burstiness: inf}, 2, []float64{0, 0}},
		// Gaps 1/r, so d_i = (i+1)/r, then rescaled to end at n/r.
		{"constant gaps", Spec{Rate: 4, Burstiness: inf}, 4, []float64{0.25, 0.5, 0.75, 1}},
		{"constant gaps single", Spec{Rate: 0.5, Burstiness: inf}, 1, []float64{2}},
		// Ramp-up with constant gaps: 1/r_i summed, not rescaled.
		{"linear ramp constant gaps", Spec{Burstiness: inf, RampUp: &RampUp{Linear, 1, 4}}, 4,
			[]float64{1, 1 + 1.0/2, 1 + 1.0/2 + 1.0/3, 1 + 1.0/2 + 1.0/3 + 1.0/4}},
		{"exponential ramp constant gaps", Spec{Burstiness: inf, RampUp: &RampUp{Exponential, 1, 4}}, 3,
			[]float64{1, 1.5, 1.75}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Seconds(tt.spec, tt.n, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Seconds = %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-12 {
					t.Errorf("offset %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestSecondsRescale checks step 3 and 4 against the gamma draws of a twin
// generator: the cumulative sum, the rescale to n/rate, and kept ratios.
func TestSecondsRescale(t *testing.T) {
	tests := []struct {
		rate, burstiness float64
		n                int
		seed             uint32
	}{
		{10, 1, 1000, 0},
		{2.5, 0.5, 257, 1},
		{100, 4, 3, 12345},
		{0.1, 1, 1, 99},
	}
	for _, tt := range tests {
		spec := Spec{Rate: tt.rate, Burstiness: tt.burstiness}
		got, err := Seconds(spec, tt.n, tt.seed)
		if err != nil {
			t.Fatal(err)
		}
		twin := numpy.NewRandomState(tt.seed)
		raw := make([]float64, tt.n)
		sum := 0.0
		for i := range raw {
			sum += twin.Gamma(tt.burstiness, 1/(tt.rate*tt.burstiness))
			raw[i] = sum
		}
		target := float64(tt.n) / tt.rate
		if last := got[tt.n-1]; math.Abs(last-target) > 2*ulp(target) {
			t.Errorf("rate %v n %d: last offset %v, want %v", tt.rate, tt.n, last, target)
		}
		factor := target / raw[tt.n-1]
		for i := range got {
			if got[i] != raw[i]*factor {
				t.Fatalf("rate %v n %d: offset %d = %v, want %v·%v", tt.rate, tt.n, i, got[i], raw[i], factor)
			}
			if i > 0 && got[i] < got[i-1] {
				t.Fatalf("offsets decrease at %d", i)
			}
		}
	}
}

func ulp(x float64) float64 { return math.Nextafter(x, inf) - x }

// TestSecondsRampUpGamma checks that a ramp-up draws one gamma per request
// with scale 1/(r_i·b) and is not rescaled.
func TestSecondsRampUpGamma(t *testing.T) {
	spec := Spec{Burstiness: 2, RampUp: &RampUp{Linear, 1, 50}}
	const n = 100
	got, err := Seconds(spec, n, 3)
	if err != nil {
		t.Fatal(err)
	}
	twin := numpy.NewRandomState(3)
	sum := 0.0
	for i, r := range Rates(spec, n) {
		sum += twin.Gamma(2, 1/(r*2))
		if got[i] != sum {
			t.Fatalf("offset %d = %v, want %v", i, got[i], sum)
		}
	}
}

func TestSecondsDeterministic(t *testing.T) {
	spec := Spec{Rate: 7, Burstiness: 0.8}
	a, _ := Seconds(spec, 500, 42)
	b, _ := Seconds(spec, 500, 42)
	c, _ := Seconds(spec, 500, 43)
	if !slices.Equal(a, b) {
		t.Error("same seed gave different schedules")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds gave the same schedule")
	}
}

func TestSecondsWithContinuesState(t *testing.T) {
	spec := Spec{Rate: 3, Burstiness: 1}
	rs := numpy.NewRandomState(5)
	rs.Float64() // something else drew from the global generator first
	got, err := SecondsWith(spec, 10, rs)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := Seconds(spec, 10, 5)
	if slices.Equal(got, fresh) {
		t.Error("SecondsWith ignored the state it was given")
	}
}

func TestOffsets(t *testing.T) {
	got, err := Offsets(Spec{Rate: 3, Burstiness: inf}, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{333333333, 666666667, time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("Offsets = %v, want %v", got, want)
	}
}

func TestSecondsErrors(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		n    int
		want string
	}{
		{"zero rate", Spec{Rate: 0, Burstiness: 1}, 3, "request rate must be positive"},
		{"negative rate", Spec{Rate: -1, Burstiness: 1}, 3, "request rate must be positive"},
		{"NaN rate", Spec{Rate: math.NaN(), Burstiness: 1}, 3, "request rate must be positive"},
		{"zero burstiness", Spec{Rate: 1, Burstiness: 0}, 3, "burstiness must be positive"},
		{"negative count", Spec{Rate: 1, Burstiness: 1}, -1, "negative request count"},
		{"unknown strategy", Spec{Burstiness: 1, RampUp: &RampUp{"step", 1, 2}}, 3, `unknown ramp-up strategy "step"`},
		{"zero start", Spec{Burstiness: 1, RampUp: &RampUp{Linear, 0, 2}}, 3, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Offsets(tt.spec, tt.n, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
