package kfloor

import (
	"testing"
	"time"
)

// Measure reads back every event it wrote, counts them, charges each
// operation some CPU time, and measures each CPU the process may use,
// giving the cheapest one's costs as the floor.
func TestMeasure(t *testing.T) {
	f, err := Measure(4, 3, 100)
	if err != nil {
		t.Fatal(err)
	}
	if f.Events != 12 {
		t.Errorf("Events = %d, want 12", f.Events)
	}
	positive := func(where string, c Costs) {
		for name, d := range map[string]time.Duration{"Syscall": c.Syscall, "Write": c.Write, "Recvmsg": c.Recvmsg} {
			if d <= 0 {
				t.Errorf("%s: %s = %v, want > 0", where, name, d)
			}
		}
	}
	positive("floor", f.Costs)
	cpus, err := allowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(cpus) < 2 || len(cpus) > MaxCPUs {
		if f.PerCPU != nil {
			t.Errorf("%d CPUs: per-CPU figures %v", len(cpus), f.PerCPU)
		}
		return
	}
	if len(f.PerCPU) != len(cpus) {
		t.Fatalf("per-CPU figures %v for CPUs %v", f.PerCPU, cpus)
	}
	found := false
	for i, c := range f.PerCPU {
		if c.CPU != cpus[i] {
			t.Errorf("PerCPU[%d] is CPU %d, want %d", i, c.CPU, cpus[i])
		}
		positive("CPU", c.Costs)
		if c.event() < f.event() {
			t.Errorf("CPU %d is cheaper (%v) than the floor (%v)", c.CPU, c.event(), f.event())
		}
		found = found || c.Costs == f.Costs
	}
	if !found {
		t.Errorf("the floor %+v is no CPU's", f.Costs)
	}
}

func TestMeasureArgs(t *testing.T) {
	for _, a := range [][3]int{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}} {
		if _, err := Measure(a[0], a[1], a[2]); err == nil {
			t.Errorf("Measure%v: no error", a)
		}
	}
}

// BenchmarkKernelFloor measures the floor over 1000 connections: the
// cheapest CPU's CPU time per null system call, per write(2) of an event
// and per recvmsg(2) of it (cpu-µs/op), and how much dearer an event is
// on the dearest CPU (spread-%). An op is one event written and read on
// each CPU.
func BenchmarkKernelFloor(b *testing.B) {
	const conns = 1000
	f, err := Measure(conns, max(1, b.N/conns), 100_000)
	if err != nil {
		b.Fatal(err)
	}
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	b.ReportMetric(us(f.Syscall), "syscall-cpu-µs")
	b.ReportMetric(us(f.Write), "write-cpu-µs/op")
	b.ReportMetric(us(f.Recvmsg), "recvmsg-cpu-µs/op")
	b.ReportMetric(100*f.Spread(), "spread-%")
	b.ReportMetric(0, "ns/op")
}
