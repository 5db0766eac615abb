package run

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// fixedSender takes d per request and marks it successful.
func fixedSender(d time.Duration) Sender {
	return SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
		rec.Start = now()
		select {
		case <-time.After(d):
			rec.Chunks = []time.Duration{now()}
			rec.End = now()
			rec.Success = true
		case <-ctx.Done():
			rec.Error = ctx.Err().Error()
		}
	})
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func TestRunDispatchesOnAbsoluteTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		offsets := []time.Duration{ms(10), ms(10), ms(25), ms(100)}
		res := Run(context.Background(), Plan{Offsets: offsets}, fixedSender(ms(500)))
		if len(res.Records) != len(offsets) {
			t.Fatalf("got %d records, want %d", len(res.Records), len(offsets))
		}
		for i, r := range res.Records {
			if r.Released != offsets[i] || r.SendLag() != 0 {
				t.Errorf("request %d released at %v, want %v (dispatch must not wait on responses)", i, r.Released, offsets[i])
			}
			if r.Start != r.Released {
				t.Errorf("request %d queued %v without a concurrency limit", i, r.ClientQueueTime())
			}
		}
		// The last request starts at 100ms and takes 500ms.
		if res.Duration != ms(600) {
			t.Errorf("duration %v, want 600ms", res.Duration)
		}
	})
}

func TestRunMaxConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Five requests at t=0, two slots, 100ms each: starts at 0,0,100,100,200.
		offsets := make([]time.Duration, 5)
		var mu sync.Mutex
		inflight, peak := 0, 0
		sender := SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
			mu.Lock()
			inflight++
			peak = max(peak, inflight)
			mu.Unlock()
			fixedSender(ms(100)).Send(ctx, i, rec, now)
			mu.Lock()
			inflight--
			mu.Unlock()
		})
		res := Run(context.Background(), Plan{Offsets: offsets, MaxConcurrency: 2}, sender)
		want := []time.Duration{0, 0, ms(100), ms(100), ms(200)}
		got := make(map[time.Duration]int)
		for _, r := range res.Records {
			got[r.Start]++
			if r.ClientQueueTime() != r.Start.Seconds() {
				t.Errorf("queue time %v for start %v", r.ClientQueueTime(), r.Start)
			}
		}
		for _, w := range want {
			got[w]--
		}
		for k, v := range got {
			if v != 0 {
				t.Errorf("start time %v seen %+d times more than expected", k, v)
			}
		}
		if peak != 2 {
			t.Errorf("peak in-flight %d, want 2", peak)
		}
		if res.Duration != ms(300) {
			t.Errorf("duration %v, want 300ms", res.Duration)
		}
	})
}

func TestRunCancelKeepsRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		offsets := []time.Duration{0, ms(10), ms(1000), ms(2000)}
		time.AfterFunc(ms(50), cancel)
		res := Run(ctx, Plan{Offsets: offsets}, fixedSender(ms(500)))
		if !res.Interrupted {
			t.Error("run not marked interrupted")
		}
		if len(res.Records) != 2 {
			t.Fatalf("got %d records, want the 2 released before the cancel", len(res.Records))
		}
		// Sent and failed (in flight at the cancel) are not "not sent"; the
		// 2 never released are.
		if res.Sent != 2 || res.NotSent() != 2 {
			t.Errorf("sent %d, not sent %d; want 2, 2", res.Sent, res.NotSent())
		}
		for _, r := range res.Records {
			if r.Success || r.Error == "" {
				t.Errorf("request %d: success=%v error=%q, want a cancelled failure", r.Index, r.Success, r.Error)
			}
		}
		if res.Duration != ms(50) {
			t.Errorf("duration %v, want 50ms", res.Duration)
		}
	})
}

func TestRunLateDispatchDoesNotAccumulate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A sender that burns no time; offsets every 10ms. Absolute deadlines
		// mean request 100 is released at exactly 1s.
		offsets := make([]time.Duration, 101)
		for i := range offsets {
			offsets[i] = time.Duration(i) * ms(10)
		}
		res := Run(context.Background(), Plan{Offsets: offsets}, fixedSender(0))
		if got := res.Records[100].Released; got != time.Second {
			t.Errorf("request 100 released at %v, want 1s", got)
		}
	})
}

// A queued request never waits on a sink: here the sink, given the first
// record, waits until the second request is being sent.
func TestQueuedRequestDoesNotWaitOnSink(t *testing.T) {
	second := make(chan struct{})
	sender := SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
		rec.Start = now()
		if i == 1 {
			close(second)
		}
		rec.Success = true
	})
	var waited bool
	res := Run(context.Background(), Plan{
		Offsets:        []time.Duration{0, 0},
		MaxConcurrency: 1,
		Sinks: []Sink{SinkFunc(func(rec *record.Record) {
			if rec.Index != 0 {
				return
			}
			select {
			case <-second:
				waited = true
			case <-time.After(10 * time.Second):
			}
		})},
	}, sender)
	if !waited {
		t.Error("the queued request was not sent while the sink held the first record")
	}
	if len(res.Records) != 2 || !res.Records[1].Success {
		t.Errorf("records %+v", res.Records)
	}
}

// chainSink logs what it receives, tagged with its name.
type chainSink struct {
	name  string
	log   *[]string
	start time.Time
}

func (c *chainSink) Start(start time.Time) {
	c.start = start
	*c.log = append(*c.log, c.name+" start")
}

func (c *chainSink) Record(rec *record.Record) {
	if !rec.Success && rec.Error == "" {
		*c.log = append(*c.log, c.name+" incomplete record")
	}
	*c.log = append(*c.log, fmt.Sprintf("%s %d", c.name, rec.Index))
}

// Every record reaches every sink once, sink by sink along the chain,
// after the Starters heard the run's start, and before Run returns. The
// sinks share an unguarded log: the race detector checks that they are
// called one at a time.
func TestSinkChain(t *testing.T) {
	tests := []struct {
		name    string
		offsets []time.Duration
		conc    int
		cancel  time.Duration // 0 = never
		want    int           // records sunk
	}{
		{"unlimited", []time.Duration{0, 0, ms(1), ms(2), ms(2), ms(30)}, 0, 0, 6},
		{"limited", make([]time.Duration, 20), 3, 0, 20},
		{"cancelled", []time.Duration{0, 0, 0, ms(1000)}, 1, ms(15), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tt.cancel > 0 {
					time.AfterFunc(tt.cancel, cancel)
				}
				var log []string
				a := &chainSink{name: "a", log: &log}
				b := &chainSink{name: "b", log: &log}
				var plain []int
				res := Run(ctx, Plan{Offsets: tt.offsets, MaxConcurrency: tt.conc, Sinks: []Sink{
					a, SinkFunc(func(rec *record.Record) { plain = append(plain, rec.Index) }), b,
				}}, fixedSender(ms(10)))
				if len(res.Records) != tt.want {
					t.Fatalf("%d records, want %d", len(res.Records), tt.want)
				}
				if len(log) != 2+2*tt.want || log[0] != "a start" || log[1] != "b start" {
					t.Fatalf("log %q", log)
				}
				if !a.start.Equal(res.Start) || !b.start.Equal(res.Start) {
					t.Errorf("Start got %v and %v, want the run's start %v", a.start, b.start, res.Start)
				}
				seen := map[int]bool{}
				for k, idx := range plain {
					if seen[idx] {
						t.Errorf("record %d sunk twice", idx)
					}
					seen[idx] = true
					if wa, wb := fmt.Sprintf("a %d", idx), fmt.Sprintf("b %d", idx); log[2+2*k] != wa || log[3+2*k] != wb {
						t.Errorf("entry %d: %q, %q; want %q, %q", k, log[2+2*k], log[3+2*k], wa, wb)
					}
				}
				if len(seen) != tt.want {
					t.Errorf("%d distinct records sunk, want %d", len(seen), tt.want)
				}
			})
		})
	}
}

// Without sinks the run needs no sinks' goroutine and still returns every
// record.
func TestRunWithoutSinks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res := Run(context.Background(), Plan{Offsets: []time.Duration{0, ms(5)}}, fixedSender(ms(1)))
		if len(res.Records) != 2 {
			t.Fatalf("%d records", len(res.Records))
		}
	})
}

// TestRunStartAt checks a run timed to start (Plan.StartAt): it waits for
// the instant, measures every offset from it, and its records carry the
// plan indexes Plan.Index gives (a shard's stripe).
func TestRunStartAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		at := time.Now().Add(1500 * time.Millisecond)
		offsets := []time.Duration{0, ms(10), ms(40)}
		var started time.Time
		starter := &startSink{start: &started}
		begin := time.Now()
		res := Run(context.Background(), Plan{Offsets: offsets, StartAt: at, Index: func(i int) int { return 1 + 3*i }, Sinks: []Sink{starter}},
			SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
				rec.Start = now()
				if got := time.Since(begin); got < 1500*time.Millisecond+offsets[i] {
					t.Errorf("request %d sent %v after the call, before its time", i, got)
				}
			}))
		if !res.Start.Equal(at) || !started.Equal(at) {
			t.Errorf("run start %v, sinks told %v; want %v", res.Start, started, at)
		}
		for i, r := range res.Records {
			if r.Index != 1+3*i || r.Released != offsets[i] || r.Start != offsets[i] {
				t.Errorf("request %d: index %d, released %v, started %v; want %d, %v", i, r.Index, r.Released, r.Start, 1+3*i, offsets[i])
			}
		}
	})
}

// startSink records the start the run tells its Starters.
type startSink struct{ start *time.Time }

func (s *startSink) Start(t time.Time)     { *s.start = t }
func (s *startSink) Record(*record.Record) {}

// TestRunStartAtCancelled checks that a run cancelled while it waits for
// its start releases nothing and reports no negative duration.
func TestRunStartAtCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		res := Run(ctx, Plan{Offsets: []time.Duration{0, ms(10)}, StartAt: time.Now().Add(time.Hour)}, fixedSender(ms(1)))
		if res.Released != 0 || !res.Interrupted || res.Duration < 0 || res.Start.After(time.Now()) {
			t.Errorf("released %d, interrupted %v, duration %v, start %v", res.Released, res.Interrupted, res.Duration, res.Start)
		}
	})
}
