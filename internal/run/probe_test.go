package run

import (
	"context"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// countingSink counts the records it is handed.
type countingSink struct {
	mu sync.Mutex
	n  int
}

func (s *countingSink) Record(*record.Record) {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
}

func TestRunProbes(t *testing.T) {
	tests := []struct {
		name     string
		offsets  []time.Duration
		maxConc  int
		main     time.Duration // each main request's duration
		probe    time.Duration // each probe's duration
		interval time.Duration
		starts   []time.Duration // the probes' start times
		duration time.Duration
	}{
		// Two 1 s requests one at a time end at 2 s. Probes take 30 ms and
		// pause 100 ms: sent every 130 ms, the one sent at 1950 ms pauses
		// until 2080 ms, when the loop sees the stop.
		{name: "pauses after each response", offsets: []time.Duration{0, 0}, maxConc: 1, main: ms(1000),
			probe: ms(30), interval: ms(100), duration: ms(2080),
			starts: []time.Duration{0, ms(130), ms(260), ms(390), ms(520), ms(650), ms(780), ms(910), ms(1040),
				ms(1170), ms(1300), ms(1430), ms(1560), ms(1690), ms(1820), ms(1950)}},
		// The probe in flight when the run ends (sent at 900 ms, answered at
		// 1300 ms) is waited for and counted, and so is its pause.
		{name: "waits for the probe in flight", offsets: []time.Duration{0}, main: ms(1000),
			probe: ms(400), interval: ms(50), duration: ms(1350),
			starts: []time.Duration{0, ms(450), ms(900)}},
		// A run over before the probe loop first looks at the stop still
		// sends the first probe, as vLLM's loop does (its stop cannot be
		// set before the probe task first runs).
		{name: "the first probe always goes out", offsets: []time.Duration{0}, main: 0,
			probe: ms(30), interval: ms(100), duration: ms(130), starts: []time.Duration{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var sink countingSink
				var indexes []int
				probe := SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
					indexes = append(indexes, i)
					fixedSender(tt.probe).Send(ctx, i, rec, now)
				})
				plan := Plan{Offsets: tt.offsets, MaxConcurrency: tt.maxConc, Sinks: []Sink{&sink},
					Probe: &Probe{Interval: tt.interval, Sender: probe}}
				res := Run(context.Background(), plan, fixedSender(tt.main))
				if len(res.Records) != len(tt.offsets) || sink.n != len(tt.offsets) {
					t.Errorf("%d records, %d sunk; want %d each: probes stay out of both", len(res.Records), sink.n, len(tt.offsets))
				}
				if len(res.Probes) != len(tt.starts) {
					t.Fatalf("%d probes, want %d", len(res.Probes), len(tt.starts))
				}
				for i, p := range res.Probes {
					if p.Index != i || indexes[i] != i {
						t.Errorf("probe %d has index %d, sent as %d", i, p.Index, indexes[i])
					}
					if p.Start != tt.starts[i] || p.Latency() != tt.probe.Seconds() || !p.Success {
						t.Errorf("probe %d: start %v, latency %v, success %v; want start %v, latency %v",
							i, p.Start, p.Latency(), p.Success, tt.starts[i], tt.probe.Seconds())
					}
				}
				if res.Duration != tt.duration {
					t.Errorf("duration %v, want %v (it includes stopping the probes)", res.Duration, tt.duration)
				}
			})
		})
	}
}

// A probe never takes a concurrency slot: with the one slot held, probes
// still go out, and the queued request starts the moment the slot frees.
func TestRunProbesBypassLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := Plan{Offsets: []time.Duration{0, 0}, MaxConcurrency: 1,
			Probe: &Probe{Interval: ms(10), Sender: fixedSender(ms(5))}}
		res := Run(context.Background(), plan, fixedSender(ms(100)))
		if got := res.Records[1].Start; got != ms(100) {
			t.Errorf("queued request started at %v, want 100ms", got)
		}
		sentDuringFirst := 0
		for _, p := range res.Probes {
			if p.Start < ms(100) {
				sentDuringFirst++
			}
		}
		if sentDuringFirst != 7 { // at 0, 15, ..., 90 ms
			t.Errorf("%d probes sent while the slot was held, want 7", sentDuringFirst)
		}
	})
}

// Cancelling the run ends the probes at once; the probe it cancelled is
// dropped, not counted as failed.
func TestRunProbesCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(ms(250), cancel)
		plan := Plan{Offsets: []time.Duration{0}, Probe: &Probe{Interval: ms(20), Sender: fixedSender(ms(100))}}
		res := Run(ctx, plan, fixedSender(ms(1000)))
		// Probes at 0 and 120 ms finished; the one sent at 240 ms was cancelled.
		if len(res.Probes) != 2 {
			t.Fatalf("%d probes, want 2", len(res.Probes))
		}
		for _, p := range res.Probes {
			if !p.Success {
				t.Errorf("probe %d failed: %s", p.Index, p.Error)
			}
		}
		if res.Duration != ms(250) {
			t.Errorf("duration %v, want 250ms", res.Duration)
		}
	})
}

func TestProbeInterval(t *testing.T) {
	for _, tt := range []struct {
		rate float64
		want time.Duration
	}{
		{20, ms(50)},
		{0.5, 2 * time.Second},
		{3, 333333333},
		{1e300, 0},
		{math.Inf(1), 0}, // vLLM's inf: back to back
		{1e-300, math.MaxInt64},
	} {
		if got := ProbeInterval(tt.rate); got != tt.want {
			t.Errorf("ProbeInterval(%g) = %v, want %v", tt.rate, got, tt.want)
		}
	}
}
