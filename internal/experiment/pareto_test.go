package experiment

import (
	"math"
	"testing"

	"github.com/vbench/vbench/internal/report"
)

// The frontier holds the points no other point beats on both axes.
func TestMarkFrontier(t *testing.T) {
	ps := []report.ParetoPoint{
		{Label: "c=1", PerUser: 100, PerGPU: 50},   // fastest per user
		{Label: "c=4", PerUser: 80, PerGPU: 160},   // on the frontier
		{Label: "c=8", PerUser: 60, PerGPU: 150},   // beaten by c=4 on both
		{Label: "c=16", PerUser: 40, PerGPU: 300},  // most per GPU
		{Label: "c=32", PerUser: 20, PerGPU: 300},  // ties c=16 per GPU: kept, as vLLM keeps ties
		{Label: "c=64", PerUser: 10, PerGPU: 280},  // beaten by c=16
		{Label: "dup", PerUser: 100, PerGPU: 40.0}, // beaten by c=1
	}
	markFrontier(ps)
	want := map[string]bool{"c=1": true, "c=4": true, "c=8": false, "c=16": true, "c=32": true, "c=64": false, "dup": false}
	for _, p := range ps {
		if p.Frontier != want[p.Label] {
			t.Errorf("%s: frontier %v, want %v", p.Label, p.Frontier, want[p.Label])
		}
	}
}

// A row's point is its runs' mean throughput per user (max_concurrency,
// else the peak of concurrent requests) and per GPU; rows without a GPU
// count have none.
func TestParetoPoint(t *testing.T) {
	run := func(tput, conc, peak, gpus float64) member {
		v := map[string]float64{"output_throughput": tput, "max_concurrent_requests": peak}
		if conc > 0 {
			v["max_concurrency"] = conc
		}
		return member{res: &Result{Values: v, GPUs: gpus}}
	}
	p, ok := paretoPoint([]member{run(800, 8, 8, 2), run(1200, 8, 8, 2)})
	if !ok || p.PerUser != 125 || p.PerGPU != 500 {
		t.Errorf("two runs: %+v, %v", p, ok)
	}
	p, ok = paretoPoint([]member{run(900, 0, 3, 4)})
	if !ok || p.PerUser != 300 || p.PerGPU != 225 {
		t.Errorf("without max_concurrency: %+v, %v", p, ok)
	}
	if _, ok := paretoPoint([]member{run(900, 8, 8, 0)}); ok {
		t.Error("a point without a GPU count")
	}
	if p, ok := paretoPoint([]member{run(900, 8, 8, 0), run(600, 6, 6, 3)}); !ok || math.Abs(p.PerUser-100) > 1e-9 || p.PerGPU != 200 {
		t.Errorf("only the runs with a GPU count: %+v, %v", p, ok)
	}
}
