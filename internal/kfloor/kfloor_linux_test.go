package kfloor

import (
	"testing"
	"time"
)

// Measure reads back every event it wrote, counts them, and charges each
// operation some CPU time.
func TestMeasure(t *testing.T) {
	f, err := Measure(4, 3, 100)
	if err != nil {
		t.Fatal(err)
	}
	if f.Events != 12 {
		t.Errorf("Events = %d, want 12", f.Events)
	}
	for name, d := range map[string]time.Duration{"Syscall": f.Syscall, "Write": f.Write, "Recvmsg": f.Recvmsg} {
		if d <= 0 {
			t.Errorf("%s = %v, want > 0", name, d)
		}
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
// thread's CPU per null system call, per write(2) of an event and per
// recvmsg(2) of it (cpu-µs/op). An op is one event written and read.
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
	b.ReportMetric(0, "ns/op")
}
