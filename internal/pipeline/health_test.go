package pipeline

import (
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/run"
)

func TestHealthLines(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	recs := func(lags ...float64) []*record.Record {
		out := make([]*record.Record, len(lags))
		for i, l := range lags {
			out[i] = &record.Record{Index: i, Released: ms(l)}
		}
		return out
	}
	tests := []struct {
		name string
		h    run.Health
		want string
	}{
		{"no requests", run.ComputeHealth(nil, run.Load{Wall: time.Second, Procs: 2, HostBusy: -1}), ""},
		{"healthy", run.ComputeHealth(recs(0.02, 0.02, 0.3, 1.2), run.Load{CPU: run.Usage{User: 300 * time.Millisecond, System: 110 * time.Millisecond}, Wall: 2050 * time.Millisecond, Procs: 2, HostBusy: 0.35}),
			"Client health: send lag p50 0.16 ms, p99 1.17 ms, max 1.20 ms; CPU 0.41 s (10% of 2 cores); host CPU 35% busy\n"},
		{"client-bound", run.ComputeHealth(recs(0, 40), run.Load{CPU: run.Usage{User: 1900 * time.Millisecond}, Wall: time.Second, Procs: 2, HostBusy: -1}),
			"Client health: send lag p50 20.00 ms, p99 39.60 ms, max 40.00 ms; CPU 1.90 s (95% of 2 cores)\n" +
				"WARNING: the client was likely the bottleneck (send lag p99 39.60 ms > 10.00 ms; CPU 95% of 2 cores > 90%): these numbers may describe vbench, not the server; do not publish them as the server's.\n"},
		// A llama.cpp server kept the host busy while vbench used 1% of it:
		// a note naming the other process, no bottleneck warning.
		{"others busy", run.ComputeHealth(recs(0.02, 0.05), run.Load{CPU: run.Usage{User: 80 * time.Millisecond}, Wall: time.Second, Procs: 2, HostBusy: 0.99, HostCores: 8,
			TopOther: &run.ProcShare{PID: 412, Name: "llama-server", Share: 0.8}}),
			"Client health: send lag p50 0.04 ms, p99 0.05 ms, max 0.05 ms; CPU 0.08 s (4% of 2 cores); host CPU 99% busy\n" +
				"NOTE: other processes kept the host busy (host CPU 99% busy, 98% by other processes (top: llama-server, pid 412, 80%)); vbench itself kept up (send lag, read lag and CPU within bounds), so the client is not blamed. If the server runs on this host, these numbers include that contention.\n"},
		// Receive timestamps give the read lag.
		{"read lag", run.ComputeHealth([]*record.Record{{Released: ms(0.01), ReadLag: ms(0.05)}, {Index: 1, Released: ms(0.01), ReadLag: ms(0.25)}},
			run.Load{CPU: run.Usage{User: 40 * time.Millisecond}, Wall: time.Second, Procs: 2, HostBusy: -1}),
			"Client health: send lag p50 0.01 ms, p99 0.01 ms, max 0.01 ms; read lag p99 0.25 ms, max 0.25 ms; CPU 0.04 s (2% of 2 cores)\n"},
		// With the in-process simulator the CPU is not the client's alone: no
		// CPU criterion.
		{"simulator", run.ComputeHealth(recs(0, 1), run.Load{CPU: run.Usage{User: 1900 * time.Millisecond}, Wall: time.Second, Procs: 2, HostBusy: -1, WithSimulator: true}),
			"Client health: send lag p50 0.50 ms, p99 0.99 ms, max 1.00 ms; CPU 1.90 s (95% of 2 cores) (includes the built-in simulator)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := healthLines(tt.h); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			ch := newClientHealth(tt.h)
			if (ch == nil) != (tt.h.Requests == 0) {
				t.Fatalf("client_health %+v for %d requests", ch, tt.h.Requests)
			}
			if ch != nil && (ch.ClientBound != tt.h.ClientBound || ch.Cores != 2 || ch.SendLagMs.Max != tt.h.SendLagMax.Seconds()*1000 ||
				ch.HostNote != tt.h.HostNote || ch.OthersBusy != tt.h.OthersBusy || (ch.TopOther == nil) != (tt.h.TopOther == nil)) {
				t.Errorf("client_health %+v", ch)
			}
		})
	}
}
