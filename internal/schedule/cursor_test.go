package schedule

import (
	"math"
	"testing"
)

// TestCursorMatchesOffsets: the cursor's offsets are Offsets', bit for bit,
// for every arrival process.
func TestCursorMatchesOffsets(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		n    int
	}{
		{"poisson", Spec{Rate: 7.5, Burstiness: 1}, 5000},
		{"bursty", Spec{Rate: 100, Burstiness: 0.3}, 3001},
		{"regular", Spec{Rate: 3, Burstiness: math.Inf(1)}, 100},
		{"inf", Spec{Rate: math.Inf(1), Burstiness: 1}, 50},
		{"linear-ramp", Spec{Rate: 1, Burstiness: 2, RampUp: &RampUp{Strategy: Linear, StartRPS: 1, EndRPS: 50}}, 2000},
		{"exponential-ramp", Spec{Rate: 1, Burstiness: 1, RampUp: &RampUp{Strategy: Exponential, StartRPS: 2, EndRPS: 40}}, 999},
		{"one", Spec{Rate: 4, Burstiness: 1}, 1},
		{"none", Spec{Rate: 4, Burstiness: 1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := Offsets(tc.spec, tc.n, 42)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewCursor(tc.spec, tc.n, 42)
			if err != nil {
				t.Fatal(err)
			}
			if c.Len() != len(want) {
				t.Fatalf("Len %d, want %d", c.Len(), len(want))
			}
			for i, w := range want {
				if got := c.Next(); got != w {
					t.Fatalf("offset %d: %v, want %v", i, got, w)
				}
			}
		})
	}
	if _, err := NewCursor(Spec{Rate: -1, Burstiness: 1}, 3, 0); err == nil {
		t.Error("a negative rate: want an error")
	}
}
