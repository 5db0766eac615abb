package run

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vbench/vbench/internal/record"
)

func lagRecords(lagsMs ...float64) []*record.Record {
	recs := make([]*record.Record, len(lagsMs))
	for i, l := range lagsMs {
		recs[i] = &record.Record{Index: i, Intended: ms(float64(10 * i)), Released: ms(float64(10*i) + l)}
	}
	return recs
}

func TestComputeHealth(t *testing.T) {
	llama := &ProcShare{PID: 412, Name: "llama-server", Share: 0.8}
	tests := []struct {
		name          string
		recs          []*record.Record
		cpu           Usage
		wall          time.Duration
		procs         int
		hostBusy      float64
		hostCores     int
		top           *ProcShare
		wantP50       time.Duration
		wantP99       time.Duration
		wantMax       time.Duration
		wantFrac      float64
		wantReasons   []string
		wantBoundFlag bool
		wantNote      string
		wantOthers    bool
	}{
		{"no records", nil, Usage{}, 0, 2, -1, 0, nil, 0, 0, 0, 0, nil, false, "", false},
		{"healthy", lagRecords(0, 0.1, 0.2, 0.3, 1), Usage{User: 300 * time.Millisecond, System: 100 * time.Millisecond}, 2 * time.Second, 2, 0.5, 2, nil,
			// sorted 0,0.1,0.2,0.3,1: p50 = 0.2; p99 rank 3.96 → 0.3+0.96·0.7 = 0.972
			ms(0.2), ms(0.972), ms(1), 0.1, nil, false, "", false},
		{"lagging dispatcher", lagRecords(0, 20, 30), Usage{User: time.Second}, 10 * time.Second, 1, -1, 0, nil,
			// p99 rank 1.98 → 20+0.98·10 = 29.8
			ms(20), ms(29.8), ms(30), 0.1, []string{"send lag p99 29.80 ms > 10.00 ms"}, true, "", false},
		// The client used 95% of the host: it is the one to blame, and the
		// host note says the others used 2%.
		{"CPU saturated", lagRecords(0), Usage{User: 1500 * time.Millisecond, System: 400 * time.Millisecond}, time.Second, 2, 0.97, 2, nil,
			0, 0, 0, 0.95, []string{"CPU 95% of 2 cores > 90%"}, true, "host CPU 97% busy, 2% by other processes", false},
		// vbench used 1% of an 8-core host that something else kept 99% busy
		// (a llama.cpp server on the same host): not the client's fault.
		{"host saturated by others", lagRecords(0), Usage{User: 80 * time.Millisecond}, time.Second, 8, 0.99, 8, llama,
			0, 0, 0, 0.01, nil, false, "host CPU 99% busy, 98% by other processes (top: llama-server, pid 412, 80%)", true},
		// Without the host's core count the split is unknown: the host is
		// named, the client is not blamed.
		{"host saturated, split unknown", lagRecords(0), Usage{User: 100 * time.Millisecond}, time.Second, 2, 0.95, 0, nil,
			0, 0, 0, 0.05, nil, false, "host CPU 95% busy", true},
		// Both: the client lagged on a host others kept busy.
		{"lagging on a busy host", lagRecords(0, 20, 30), Usage{User: time.Second}, 10 * time.Second, 4, 0.96, 4, llama,
			ms(20), ms(29.8), ms(30), 0.025, []string{"send lag p99 29.80 ms > 10.00 ms"}, true, "host CPU 96% busy, 94% by other processes (top: llama-server, pid 412, 80%)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := ComputeHealth(tt.recs, Load{CPU: tt.cpu, Wall: tt.wall, Procs: tt.procs, GC: GCStats{Cycles: 3}, HostBusy: tt.hostBusy, HostCores: tt.hostCores, TopOther: tt.top})
			near := func(a, b time.Duration) bool { return a-b < time.Microsecond && b-a < time.Microsecond }
			if !near(h.SendLagP50, tt.wantP50) || !near(h.SendLagP99, tt.wantP99) || h.SendLagMax != tt.wantMax {
				t.Errorf("send lag p50 %v p99 %v max %v, want %v %v %v", h.SendLagP50, h.SendLagP99, h.SendLagMax, tt.wantP50, tt.wantP99, tt.wantMax)
			}
			if d := h.CPUFraction - tt.wantFrac; d > 1e-9 || d < -1e-9 {
				t.Errorf("CPU fraction %v, want %v", h.CPUFraction, tt.wantFrac)
			}
			if h.ClientBound != tt.wantBoundFlag || strings.Join(h.Reasons, ";") != strings.Join(tt.wantReasons, ";") {
				t.Errorf("client bound %v %q, want %v %q", h.ClientBound, h.Reasons, tt.wantBoundFlag, tt.wantReasons)
			}
			if h.HostNote != tt.wantNote || h.OthersBusy != tt.wantOthers {
				t.Errorf("host note %q, others busy %v; want %q, %v", h.HostNote, h.OthersBusy, tt.wantNote, tt.wantOthers)
			}
			if h.Requests != len(tt.recs) || h.GC.Cycles != 3 || h.Procs != tt.procs || h.HostBusy != tt.hostBusy {
				t.Errorf("requests %d, gc %+v, procs %d", h.Requests, h.GC, h.Procs)
			}
		})
	}
}

func TestRunQueueKeepsGoroutinesBoundedAndFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n, limit = 200, 3
		// Counted inside the sender, not with runtime.NumGoroutine (which
		// sees every goroutine of the test binary): the senders in flight at
		// once, and the distinct goroutines that ran a sender.
		var live, peak atomic.Int32
		var mu sync.Mutex
		senders := map[uint64]int{}
		sender := SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
			cur := live.Add(1)
			for p := peak.Load(); cur > p && !peak.CompareAndSwap(p, cur); p = peak.Load() {
			}
			mu.Lock()
			senders[goroutineID(t)]++
			mu.Unlock()
			fixedSender(ms(10)).Send(ctx, i, rec, now)
			live.Add(-1)
		})
		res := Run(context.Background(), Plan{Offsets: make([]time.Duration, n), MaxConcurrency: limit}, sender)
		if len(res.Records) != n {
			t.Fatalf("%d records", len(res.Records))
		}
		if p := peak.Load(); p > limit {
			t.Errorf("%d senders in flight at once, want at most %d", p, limit)
		}
		// The queued requests are sent by the goroutines that finish, not
		// on new ones: only the limit's worth of goroutines ever send.
		if len(senders) > limit {
			t.Errorf("%d distinct sender goroutines for %d queued requests, want at most %d: %v", len(senders), n, limit, senders)
		}
		// FIFO: request i starts in wave i/limit.
		for i, r := range res.Records {
			if want := ms(float64(10 * (i / limit))); r.Start != want {
				t.Fatalf("request %d started at %v, want %v: the queue must be FIFO", i, r.Start, want)
			}
		}
		if want := ms(10 * n / limit); res.Duration < want || res.Duration > want+ms(10) {
			t.Errorf("duration %v, want about %v", res.Duration, want)
		}
		if res.Procs < 1 || res.HostBusy > 1 {
			t.Errorf("procs %d, host busy %v", res.Procs, res.HostBusy)
		}
	})
}

// goroutineID is the calling goroutine's id, from the header line of its
// stack trace ("goroutine 42 [running]:"). It may run off the test's
// goroutine, so it reports with Errorf, not Fatalf.
func goroutineID(t *testing.T) uint64 {
	var buf [64]byte
	f := strings.Fields(string(buf[:runtime.Stack(buf[:], false)]))
	if len(f) < 2 || f[0] != "goroutine" {
		t.Errorf("unexpected stack header %q", buf)
		return 0
	}
	id, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		t.Errorf("goroutine id in %q: %v", buf, err)
	}
	return id
}

func TestRunCancelDrainsQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(ms(50), cancel)
		res := Run(ctx, Plan{Offsets: make([]time.Duration, 10), MaxConcurrency: 2}, fixedSender(ms(100)))
		if len(res.Records) != 10 || !res.Interrupted {
			t.Fatalf("%d records, interrupted %v", len(res.Records), res.Interrupted)
		}
		queued := 0
		for _, r := range res.Records {
			if r.Success {
				t.Errorf("request %d succeeded after the cancel", r.Index)
			}
			if strings.HasPrefix(r.Error, "request cancelled before it was sent") != r.NotSent {
				t.Errorf("request %d: NotSent %v with error %q", r.Index, r.NotSent, r.Error)
			}
			if strings.HasPrefix(r.Error, "request cancelled before it was sent") {
				queued++
				if r.Start != ms(50) {
					t.Errorf("queued request %d start %v, want the cancel time", r.Index, r.Start)
				}
			}
		}
		if queued != 8 {
			t.Errorf("%d requests cancelled in the queue, want 8", queued)
		}
		if res.Planned != 10 || res.Sent != 2 || res.NotSent() != 8 {
			t.Errorf("planned %d, sent %d, not sent %d; want 10, 2, 8", res.Planned, res.Sent, res.NotSent())
		}
	})
}

func TestHostCPUBusyFraction(t *testing.T) {
	tests := []struct {
		before, after HostCPU
		want          float64
	}{
		{HostCPU{Busy: 100, Total: 400}, HostCPU{Busy: 250, Total: 600}, 0.75},
		{HostCPU{}, HostCPU{Busy: 1, Total: 2}, -1},                  // unknown start
		{HostCPU{Busy: 1, Total: 2}, HostCPU{Busy: 1, Total: 2}, -1}, // no time passed
		// Too short: 300 ticks over 8 cores is under 50 per core.
		{HostCPU{Busy: 100, Total: 1000, Cores: 8}, HostCPU{Busy: 250, Total: 1300, Cores: 8}, -1},
		{HostCPU{Busy: 100, Total: 1000, Cores: 8}, HostCPU{Busy: 400, Total: 1400, Cores: 8}, 0.75},
	}
	for _, tt := range tests {
		if got := tt.after.BusyFraction(tt.before); got != tt.want {
			t.Errorf("%+v → %+v: %v, want %v", tt.before, tt.after, got, tt.want)
		}
	}
}

// Read lag is the client's own signal: it blames the client whoever kept
// the host busy; requests without receive timestamps (ReadLag 0) are left
// out of it.
func TestComputeHealthReadLag(t *testing.T) {
	recs := lagRecords(0, 0, 0, 0)
	for i, l := range []float64{0, 0.2, 30, 40} {
		recs[i].ReadLag = ms(l)
	}
	h := ComputeHealth(recs, Load{CPU: Usage{User: 10 * time.Millisecond}, Wall: time.Second, Procs: 2, HostBusy: 0.2, HostCores: 2})
	// known: 0.2, 30, 40 → p50 30; p99 rank 1.98 → 30+0.98·10 = 39.8
	near := func(a, b time.Duration) bool { return a-b < time.Microsecond && b-a < time.Microsecond }
	if h.ReadLagRequests != 3 || !near(h.ReadLagP50, ms(30)) || !near(h.ReadLagP99, ms(39.8)) || h.ReadLagMax != ms(40) {
		t.Errorf("read lag over %d: p50 %v p99 %v max %v", h.ReadLagRequests, h.ReadLagP50, h.ReadLagP99, h.ReadLagMax)
	}
	// Three reads are too few for a verdict: reported, not blamed.
	if h.ClientBound {
		t.Errorf("client bound on %d reads: %q", h.ReadLagRequests, h.Reasons)
	}
	// Enough reads with the same lags: the client is blamed.
	many := lagRecords(make([]float64, 4*MinReadLagRequests)...)
	for i := range many {
		many[i].ReadLag = recs[i%4].ReadLag
	}
	h = ComputeHealth(many, Load{CPU: Usage{User: 10 * time.Millisecond}, Wall: time.Second, Procs: 2, HostBusy: 0.2, HostCores: 2})
	if !h.ClientBound || len(h.Reasons) != 1 || !strings.HasPrefix(h.Reasons[0], "read lag p99 40.00 ms > 10.00 ms") {
		t.Errorf("client bound %v %q over %d reads", h.ClientBound, h.Reasons, h.ReadLagRequests)
	}
	if h := ComputeHealth(lagRecords(0, 1), Load{Wall: time.Second, Procs: 2, HostBusy: -1}); h.ReadLagRequests != 0 || h.ReadLagP99 != 0 || h.ClientBound {
		t.Errorf("no read lag known: %+v", h)
	}
}
