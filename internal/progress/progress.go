// Package progress is a run's progress display on stderr: vLLM's tqdm bar
// on a terminal, a heartbeat line elsewhere, and what the requests in
// flight are doing, so that a stalled server shows.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/vbench/vbench/internal/record"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool { return isTerminal(w) }

// isTerminal reports whether w is a terminal (x/term's check, which
// unlike a character-device test is false for /dev/null).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressIntervalEnv names the environment variable that sets the
// heartbeat interval off a terminal (a Go duration such as "30s"); tests
// set it short.
const progressIntervalEnv = "VBENCH_PROGRESS_INTERVAL"

// defaultHeartbeat is how often a run off a terminal reports its progress.
const defaultHeartbeat = 10 * time.Second

// Display reports a run's progress on w (stderr) unless disabled
// (output.disable_tqdm). On a terminal it draws vLLM's tqdm bar in place,
// at most ten times a second:
//
//	45%|█████████████▌                | 9/20 [00:02<00:02,  4.50it/s]
//
// Off a terminal (CI, nohup, a pipe), where a bar redrawn with \r would be
// noise, it prints a heartbeat line every interval instead, from a
// goroutine of its own so that a stalled run is still reported:
//
//	progress: 9/20 requests done (45%), 1 failed, 00:02 elapsed, 4.50 req/s, 8 in flight, last response message 0.1s ago
//
// and a last one when the run ends, if it printed any. Done is all a
// finished request costs (a sink, on the dispatcher's sink goroutine, off
// the requests' path): two atomic adds, and on a terminal a clock read.
type Display struct {
	w     io.Writer
	total int
	ndone atomic.Int64
	nfail atomic.Int64
	start time.Time
	now   func() time.Time
	tty   bool
	on    bool

	last time.Time // the terminal bar's last draw; guarded by mu

	mu    sync.Mutex // serialises the heartbeat's writes with finish
	beats int        // heartbeat lines printed
	stop  chan struct{}
	ended chan struct{}

	// act, when set, tells the requests in flight and when the last
	// response byte arrived, so that a stalled server shows.
	act *Activity
}

// Activity is what a run's requests are doing, for the display:
// the requests being sent or answered, and the run-clock time of the last
// response message. The sender and the backend keep it with atomics.
type Activity struct {
	inflight atomic.Int64
	lastByte atomic.Int64                         // run-clock ns; 0: none yet
	clock    atomic.Pointer[func() time.Duration] // the run's clock, once known
}

// InFlight returns how many requests are being sent or answered now.
func (a *Activity) InFlight() int64 { return a.inflight.Load() }

// Send wraps one request's send: counted in flight while it runs. now is
// the run's clock, the one the backend stamps messages with (LastByte).
func (a *Activity) Send(now func() time.Duration, send func()) {
	if a.clock.Load() == nil {
		a.setClock(now)
	}
	a.inflight.Add(1)
	defer a.inflight.Add(-1)
	send()
}

// setClock keeps the run's clock, the first time: apart from send, so that
// only this first call moves a clock to the heap.
//
//go:noinline
func (a *Activity) setClock(now func() time.Duration) {
	a.clock.CompareAndSwap(nil, &now)
}

// stall describes the requests in flight: "4 in flight, last response
// message 12s ago" (or "no response message yet"); "" when none is.
func (a *Activity) stall() string {
	if a == nil {
		return ""
	}
	n := a.inflight.Load()
	clock := a.clock.Load()
	if n <= 0 || clock == nil {
		return ""
	}
	last := a.lastByte.Load()
	if last == 0 {
		return fmt.Sprintf("%d in flight, no response message yet", n)
	}
	ago := max((*clock)()-time.Duration(last), 0)
	return fmt.Sprintf("%d in flight, last response message %s ago", n, ago.Truncate(time.Second/10))
}

// LastByte is where the backend stores the run-clock time of each
// response message (backend.Config.LastByte).
func (a *Activity) LastByte() *atomic.Int64 { return &a.lastByte }

// stalled reports whether the requests in flight have had no byte for at
// least d (none in flight: false).
func (a *Activity) stalled(d time.Duration) bool {
	if a == nil || a.inflight.Load() <= 0 {
		return false
	}
	clock := a.clock.Load()
	if clock == nil {
		return false
	}
	return (*clock)()-time.Duration(a.lastByte.Load()) >= d
}

// New starts the display of a run of total requests on w (off when
// disabled); act, when set, is what the requests in flight are doing.
func New(w io.Writer, total int, disabled bool, act *Activity) *Display {
	interval := defaultHeartbeat
	if v := os.Getenv(progressIntervalEnv); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			interval = d
		}
	}
	var tick <-chan time.Time
	stopTick := func() {}
	tty := isTerminal(w)
	if tty {
		interval = time.Second // a stalled bar is redrawn each second
	}
	if !disabled {
		t := time.NewTicker(interval)
		tick, stopTick = t.C, t.Stop
	}
	p := startProgress(w, total, disabled, tty, time.Now, tick, stopTick)
	p.act = act
	return p
}

// startProgress is newProgress with the terminal test, the clock and the
// heartbeat ticker given: off a terminal a heartbeat line is printed on
// each tick, as of the tick's time, until finish, which calls stopTick.
func startProgress(w io.Writer, total int, disabled, tty bool, now func() time.Time, tick <-chan time.Time, stopTick func()) *Display {
	p := &Display{w: w, total: total, start: now(), now: now, tty: tty, on: !disabled}
	if p.on && tick != nil {
		p.stop, p.ended = make(chan struct{}), make(chan struct{})
		go func() {
			defer close(p.ended)
			defer stopTick()
			for {
				select {
				case t := <-tick:
					if tty {
						p.redraw(t)
						continue
					}
					p.mu.Lock()
					p.beats++
					fmt.Fprintln(p.w, p.heartbeat(t))
					p.mu.Unlock()
				case <-p.stop:
					return
				}
			}
		}()
	}
	return p
}

// done counts one finished request (the run's sink goroutine calls it);
// a request never sent is not counted.
func (p *Display) Done(rec *record.Record) {
	if rec.NotSent {
		return // an interrupted run's queued request: neither done nor failed
	}
	n := p.ndone.Add(1)
	if !rec.Success {
		p.nfail.Add(1)
	}
	if !p.on || !p.tty {
		return
	}
	now := p.now()
	p.mu.Lock()
	if now.Sub(p.last) >= 100*time.Millisecond || int(n) == p.total {
		p.last = now
		fmt.Fprint(p.w, "\r"+p.bar(now))
	}
	p.mu.Unlock()
}

// redraw draws the terminal bar again when no request has finished for a
// second, so that a stalled run shows it (the tick goroutine calls it).
func (p *Display) redraw(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Sub(p.last) >= time.Second {
		p.last = now
		fmt.Fprint(p.w, "\r"+p.bar(now))
	}
}

// bar is tqdm's default bar line ("{l_bar}{bar}| {n_fmt}/{total_fmt}
// [{elapsed}<{remaining}, {rate_fmt}]") at now, 30 cells wide with
// eighth-cell steps.
func (p *Display) bar(now time.Time) string {
	n, total := int(p.ndone.Load()), p.total
	elapsed := now.Sub(p.start)
	frac := 0.0
	if total > 0 {
		frac = min(float64(n)/float64(total), 1)
	}
	const width = 30
	eighths := int(frac * width * 8)
	full, part := eighths/8, eighths%8
	var b strings.Builder
	fmt.Fprintf(&b, "%3.0f%%|", 100*frac)
	b.WriteString(strings.Repeat("█", full))
	if full < width {
		if part > 0 {
			b.WriteRune([]rune(" ▏▎▍▌▋▊▉")[part])
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(strings.Repeat(" ", width-full-1))
	}
	rate, remaining := "?", "?"
	if s := elapsed.Seconds(); n > 0 && s > 0 {
		r := float64(n) / s
		rate = fmt.Sprintf("%5.2f", r)
		remaining = tqdmInterval(time.Duration(float64(total-n) / r * float64(time.Second)))
	}
	fmt.Fprintf(&b, "| %d/%d [%s<%s, %sit/s]", n, total, tqdmInterval(elapsed), remaining, rate)
	if p.act.stalled(stallShown) {
		b.WriteString(" " + p.act.stall())
	}
	return b.String()
}

// stallShown is how long the requests in flight must have had no byte for
// the terminal bar to say so.
const stallShown = time.Second

// heartbeat is the progress line printed off a terminal at now.
func (p *Display) heartbeat(now time.Time) string {
	n, failed := p.ndone.Load(), p.nfail.Load()
	elapsed := now.Sub(p.start)
	pct := 0.0
	if p.total > 0 {
		pct = 100 * float64(n) / float64(p.total)
	}
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(n) / s
	}
	line := fmt.Sprintf("progress: %d/%d requests done (%.0f%%), %d failed, %s elapsed, %.2f req/s",
		n, p.total, pct, failed, tqdmInterval(elapsed), rate)
	if st := p.act.stall(); st != "" {
		line += ", " + st
	}
	return line
}

// tqdmInterval is tqdm's format_interval: "mm:ss", or "h:mm:ss" from an
// hour on, truncated to the second.
func tqdmInterval(d time.Duration) string {
	s := int64(max(d, 0) / time.Second)
	h, m := s/3600, s/60%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s%60)
	}
	return fmt.Sprintf("%02d:%02d", m, s%60)
}

// finish ends the bar's line on a terminal; off one it stops the heartbeat
// and, if it printed any, prints the final count.
func (p *Display) Finish() {
	if !p.on {
		return
	}
	if p.stop != nil {
		close(p.stop)
		<-p.ended
	}
	if p.tty {
		fmt.Fprintln(p.w, "\r"+p.bar(p.now()))
		return
	}
	if p.stop == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.beats > 0 {
		fmt.Fprintln(p.w, p.heartbeat(p.now()))
	}
}
