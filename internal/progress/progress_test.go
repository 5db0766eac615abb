package progress

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// fakeClock is a clock the test moves; safe to read from the heartbeat
// goroutine.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func TestTqdmInterval(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "00:00"}, {-time.Second, "00:00"}, {1999 * time.Millisecond, "00:01"},
		{75 * time.Second, "01:15"}, {59*time.Minute + 59*time.Second, "59:59"},
		{time.Hour + 2*time.Minute + 3*time.Second, "1:02:03"}, {100 * time.Hour, "100:00:00"},
	} {
		if got := tqdmInterval(tt.d); got != tt.want {
			t.Errorf("tqdmInterval(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// On a terminal the bar has tqdm's elements: percentage, bar, count,
// mm:ss elapsed<remaining and the rate in it/s.
func TestProgressBar(t *testing.T) {
	tests := []struct {
		done    int
		elapsed time.Duration
		want    string
	}{
		{0, 0, "  0%|                              | 0/20 [00:00<?, ?it/s]"},
		{9, 2 * time.Second, " 45%|█████████████▌                | 9/20 [00:02<00:02,  4.50it/s]"},
		{1, 10 * time.Second, "  5%|█▌                            | 1/20 [00:10<03:10,  0.10it/s]"},
		{20, 4 * time.Second, "100%|██████████████████████████████| 20/20 [00:04<00:00,  5.00it/s]"},
	}
	for _, tt := range tests {
		var clk fakeClock
		p := startProgress(&bytes.Buffer{}, 20, false, true, clk.now, nil, nil)
		p.ndone.Store(int64(tt.done))
		clk.advance(tt.elapsed)
		if got := p.bar(clk.now()); got != tt.want {
			t.Errorf("%d done after %v:\n got %q\nwant %q", tt.done, tt.elapsed, got, tt.want)
		}
	}
}

// On a terminal done redraws the bar in place at most ten times a second,
// and always at the last request; finish ends the line.
func TestProgressTerminalRedraws(t *testing.T) {
	var clk fakeClock
	clk.advance(time.Hour) // the first draw is due at once
	var out bytes.Buffer
	p := startProgress(&out, 3, false, true, clk.now, nil, nil)
	ok := &record.Record{Success: true}
	p.Done(ok)
	clk.advance(10 * time.Millisecond)
	p.Done(ok) // too soon: not drawn
	p.Done(ok) // the last: drawn
	p.Finish()
	if got := strings.Count(out.String(), "\r"); got != 3 {
		t.Errorf("%d draws, want 3 (first, last, finish):\n%q", got, out.String())
	}
	if !strings.HasSuffix(out.String(), "| 3/3 [00:00<00:00, 300.00it/s]\n") {
		t.Errorf("output %q", out.String())
	}
}

// Off a terminal a heartbeat line is printed on each tick, with the
// requests done, the failures, the elapsed time and the rate, and a last
// one at the end; nothing is drawn per request.
func TestProgressHeartbeat(t *testing.T) {
	var clk fakeClock
	var out bytes.Buffer
	tick := make(chan time.Time) // unbuffered: a send returns once received
	stopped := false
	p := startProgress(&out, 5, false, false, clk.now, tick, func() { stopped = true })
	ok, bad := &record.Record{Success: true}, &record.Record{Error: "boom"}
	p.Done(ok)
	p.Done(bad)
	p.Done(ok)
	if out.Len() != 0 {
		t.Fatalf("drawn per request off a terminal: %q", out.String())
	}
	clk.advance(10 * time.Second)
	tick <- clk.now()
	clk.advance(10 * time.Second)
	tick <- clk.now() // received once the first line is written
	clk.advance(10 * time.Second)
	p.Finish()
	want := "progress: 3/5 requests done (60%), 1 failed, 00:10 elapsed, 0.30 req/s\n" +
		"progress: 3/5 requests done (60%), 1 failed, 00:20 elapsed, 0.15 req/s\n" +
		"progress: 3/5 requests done (60%), 1 failed, 00:30 elapsed, 0.10 req/s\n"
	if out.String() != want {
		t.Errorf("heartbeat:\n%s\nwant:\n%s", out.String(), want)
	}
	if !stopped {
		t.Error("ticker not stopped")
	}
}

// A run shorter than the interval prints nothing; disabled prints nothing
// at all.
func TestProgressQuiet(t *testing.T) {
	for _, tt := range []struct {
		name          string
		disabled, tty bool
	}{{"short run off a terminal", false, false}, {"disabled off a terminal", true, false}, {"disabled on a terminal", true, true}} {
		var clk fakeClock
		var out bytes.Buffer
		tick := make(chan time.Time)
		p := startProgress(&out, 2, tt.disabled, tt.tty, clk.now, tick, func() {})
		p.Done(&record.Record{Success: true})
		p.Finish()
		if out.Len() != 0 {
			t.Errorf("%s: %q", tt.name, out.String())
		}
	}
}

// TestActivityStall checks what the progress display says of the requests
// in flight, from the run's clock and the last message's time.
func TestActivityStall(t *testing.T) {
	tests := []struct {
		name              string
		inflight          int64
		last, now         time.Duration
		clock             bool
		want              string
		stalledForASecond bool
	}{
		{"nothing in flight", 0, 0, 5 * time.Second, true, "", false},
		{"no clock yet", 2, 0, 0, false, "", false},
		{"no message yet", 4, 0, 3 * time.Second, true, "4 in flight, no response message yet", true},
		{"a message just now", 8, 2990 * time.Millisecond, 3 * time.Second, true, "8 in flight, last response message 0s ago", false},
		{"stalled", 2, 1 * time.Second, 13270 * time.Millisecond, true, "2 in flight, last response message 12.2s ago", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Activity
			a.inflight.Store(tt.inflight)
			a.lastByte.Store(int64(tt.last))
			if tt.clock {
				now := func() time.Duration { return tt.now }
				a.clock.Store(&now)
			}
			if got := a.stall(); got != tt.want {
				t.Errorf("stall() = %q, want %q", got, tt.want)
			}
			if got := a.stalled(time.Second); got != tt.stalledForASecond {
				t.Errorf("stalled(1s) = %v, want %v", got, tt.stalledForASecond)
			}
		})
	}
	var none *Activity
	if none.stall() != "" || none.stalled(0) {
		t.Error("a run without Activity says something")
	}
}

// On a terminal a stalled run is redrawn each tick once nothing was drawn
// for a second, and the bar then says what is in flight.
func TestProgressTerminalStall(t *testing.T) {
	var clk fakeClock
	clk.advance(time.Hour)
	var out bytes.Buffer
	tick := make(chan time.Time)
	p := startProgress(&out, 4, false, true, clk.now, tick, func() {})
	var act Activity
	runClock := func() time.Duration { return 3 * time.Second }
	act.clock.Store(&runClock)
	act.inflight.Store(4)
	act.lastByte.Store(int64(time.Second))
	p.act = &act
	p.Done(&record.Record{Success: true}) // drawn at once
	clk.advance(500 * time.Millisecond)
	tick <- clk.now() // drawn half a second ago: not again
	clk.advance(time.Second)
	tick <- clk.now() // redrawn, with the stall
	clk.advance(time.Second)
	p.Finish()
	if got := strings.Count(out.String(), "\r"); got != 3 {
		t.Errorf("%d draws, want 3 (the request, the stall, finish):\n%q", got, out.String())
	}
	if !strings.Contains(out.String(), "| 1/4 [00:01<00:04,  0.67it/s] 4 in flight, last response message 2s ago\r") {
		t.Errorf("output %q", out.String())
	}
}
