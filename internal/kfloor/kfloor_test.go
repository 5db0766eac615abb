package kfloor

import (
	"math"
	"testing"
	"time"
)

func TestSpreadAndCheapest(t *testing.T) {
	us := time.Microsecond
	tests := []struct {
		name   string
		per    []CPUCosts
		spread float64
	}{
		{"none", nil, 0},
		{"one CPU", []CPUCosts{{CPU: 0, Costs: Costs{Write: 5 * us, Recvmsg: 5 * us}}}, 0},
		{"equal", []CPUCosts{{CPU: 0, Costs: Costs{Write: 5 * us, Recvmsg: 5 * us}}, {CPU: 1, Costs: Costs{Write: 4 * us, Recvmsg: 6 * us}}}, 0},
		{"second dearer", []CPUCosts{{CPU: 0, Costs: Costs{Write: 5 * us, Recvmsg: 5 * us}}, {CPU: 1, Costs: Costs{Write: 8 * us, Recvmsg: 7 * us}}}, 0.5},
		{"first dearer", []CPUCosts{{CPU: 2, Costs: Costs{Write: 9 * us, Recvmsg: 11 * us}}, {CPU: 3, Costs: Costs{Write: 6 * us, Recvmsg: 4 * us}}, {CPU: 5, Costs: Costs{Write: 7 * us, Recvmsg: 5 * us}}}, 1},
	}
	for _, tt := range tests {
		f := Floor{PerCPU: tt.per}
		if got := f.Spread(); math.Abs(got-tt.spread) > 1e-9 {
			t.Errorf("%s: Spread() = %v, want %v", tt.name, got, tt.spread)
		}
		if len(tt.per) == 0 {
			continue
		}
		best := cheapest(tt.per)
		for _, c := range tt.per {
			if c.event() < best.event() {
				t.Errorf("%s: cheapest %+v, but CPU %d costs %v", tt.name, best, c.CPU, c.event())
			}
		}
	}
}
