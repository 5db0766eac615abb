package pipeline

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/scenario"
)

// EarlyStop is the cause a run ends with when load.early_stop (or a
// capacity search's failure-rate SLO) settled its outcome before all its
// requests were sent.
type EarlyStop struct {
	// Reason says what settled it.
	Reason string
	// AfterS is when, in seconds from the run's start.
	AfterS float64
}

// Error says when and why the run stopped.
func (e *EarlyStop) Error() string {
	return fmt.Sprintf("stopped early after %.1f s: %s", e.AfterS, e.Reason)
}

// earlyStopper watches a run for a settled outcome and stops it: it is a
// run.Sink (counting completions and failures) with a ticker that samples
// the requests in flight once a second.
type earlyStopper struct {
	sat       bool          // watch for over-saturation
	window    int           // seconds the growth must last
	maxFailed int64         // stop once more than this failed (-1: never)
	inflight  func() int64  // requests in flight now
	stop      func(error)   // ends the run with its cause
	start     time.Time     // the run's start
	done      atomic.Int64  // requests finished
	failed    atomic.Int64  // requests that failed
	stopped   atomic.Bool   // stop was called
	history   []int64       // in flight at each tick
	finished  []int64       // finished at each tick
	firstDone int           // the first tick with a request finished (-1: none yet)
	quit      chan struct{} // closes the ticker
	slos      []sloWatch    // load.early_stop.slos that can be settled
	n         int           // the run's requests
	mu        sync.Mutex    // guards slos' counts (sinks may run concurrently)
}

// sloWatch watches one upper bound on a latency statistic.
type sloWatch struct {
	name    string  // the SLO's result key, e.g. "p99_ttft_ms"
	e2el    bool    // the metric: E2EL, else TTFT
	mean    bool    // the statistic: the mean, else the percentile pct
	pct     float64 // the percentile (50 for the median)
	bound   float64 // the bound, ms
	over    int     // requests above the bound so far
	sum     float64 // the values' sum so far, ms
	settled int     // with a percentile: how many over the bound settle it
}

// watches turns early_stop.slos into watches for n requests: the upper
// bounds on mean_, median_ and pNN_ of ttft and e2el.
func watches(slos []scenario.SLO, n int) []sloWatch {
	var out []sloWatch
	for _, s := range slos {
		if s.Max == nil {
			continue
		}
		w := sloWatch{name: s.Metric, bound: *s.Max}
		stat, metric, ok := strings.Cut(strings.TrimSuffix(s.Metric, "_ms"), "_")
		switch {
		case !ok || !strings.HasSuffix(s.Metric, "_ms"):
			continue
		case metric == "e2el":
			w.e2el = true
		case metric != "ttft":
			continue
		}
		switch {
		case stat == "mean":
			w.mean = true
		case stat == "median":
			w.pct = 50
		case strings.HasPrefix(stat, "p"):
			p, err := strconv.ParseFloat(stat[1:], 64)
			if err != nil || p < 0 || p > 100 {
				continue
			}
			w.pct = p
		default:
			continue
		}
		// numpy's linear percentile of m values is above the bound once the
		// value at index floor((m-1)·pct/100) is, i.e. once m - that index
		// values are; that count only grows with m, so m = n bounds it.
		w.settled = n - int(math.Floor(float64(n-1)*w.pct/100))
		out = append(out, w)
	}
	return out
}

// settle counts one finished request in the watches and returns why an
// SLO is missed for good, or "".
func (e *earlyStopper) settle(rec *record.Record) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.slos {
		w := &e.slos[i]
		v := rec.TTFT() * 1e3
		if w.e2el {
			v = rec.Latency() * 1e3
		}
		if w.mean {
			w.sum += v
			if w.sum > w.bound*float64(e.n) {
				return fmt.Sprintf("%s misses its SLO (<= %s) for good: the requests so far sum to %.0f ms, more than the bound times all %d requests", w.name, strconv.FormatFloat(w.bound, 'g', -1, 64), w.sum, e.n)
			}
			continue
		}
		if v > w.bound {
			w.over++
			if w.over >= w.settled {
				return fmt.Sprintf("%s misses its SLO (<= %s) for good: %d of the %d requests took longer", w.name, strconv.FormatFloat(w.bound, 'g', -1, 64), w.over, e.n)
			}
		}
	}
	return ""
}

// newEarlyStopper returns the run's early stopper, or nil when nothing
// asks for one.
func newEarlyStopper(sc *scenario.Scenario, n int, inflight func() int64, stop func(error)) *earlyStopper {
	es := sc.Load.EarlyStop
	sat := es != nil && es.Oversaturation
	maxFailed := int64(-1)
	if es != nil && es.MaxFailureRate != nil {
		r := es.MaxFailureRate
		maxFailed = int64(*r * float64(n)) // more failures than this miss the SLO
	}
	var slos []sloWatch
	if es != nil {
		slos = watches(es.SLOs, n)
	}
	if !sat && maxFailed < 0 && len(slos) == 0 {
		return nil
	}
	w := 10
	if es != nil && es.WindowS > 0 {
		w = max(2, int(es.WindowS+0.5))
	}
	return &earlyStopper{sat: sat, window: w, maxFailed: maxFailed, inflight: inflight, stop: stop, quit: make(chan struct{}), firstDone: -1,
		slos: slos, n: n}
}

// Record counts a finished request (run.Sink).
func (e *earlyStopper) Record(rec *record.Record) {
	if rec.NotSent {
		return
	}
	e.done.Add(1)
	if rec.Error != "" {
		if f := e.failed.Add(1); e.maxFailed >= 0 && f > e.maxFailed {
			e.fire(fmt.Sprintf("%d requests failed, more than the failure-rate SLO allows of the whole run", f))
		}
		return
	}
	if len(e.slos) > 0 {
		if why := e.settle(rec); why != "" {
			e.fire(why)
		}
	}
}

// run samples the run once a second until ctx ends or close is called.
func (e *earlyStopper) run(ctx context.Context) {
	e.start = time.Now()
	if !e.sat {
		return
	}
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-e.quit:
				return
			case <-t.C:
				if why := e.tick(e.inflight(), e.done.Load()); why != "" {
					e.fire(why)
					return
				}
			}
		}
	}()
}

// tick records one second's sample and returns why the run is
// over-saturated, or "": the requests in flight rose in every one of the
// last window seconds, by half or more of where they started (and by at
// least 4), so fewer finished than were sent, and that while requests
// were finishing: the window starts no earlier than the first second a
// request finished (until then, the in-flight count of a healthy server
// rises too, toward its request rate times its latency).
func (e *earlyStopper) tick(inflight, done int64) string {
	e.history = append(e.history, inflight)
	e.finished = append(e.finished, done)
	n := len(e.history)
	if done > 0 && e.firstDone < 0 {
		e.firstDone = n - 1
	}
	if e.firstDone < 0 || n-1-e.firstDone < e.window {
		return ""
	}
	first := e.history[n-1-e.window]
	for i := n - e.window; i < n; i++ {
		if e.history[i] <= e.history[i-1] {
			return ""
		}
	}
	rise := inflight - first
	if rise < 4 || 2*rise < first {
		return ""
	}
	finished := done - e.finished[n-1-e.window]
	sent := finished + rise
	return fmt.Sprintf("over-saturated: the requests in flight rose from %d to %d over the last %d s, with %.1f req/s finished against %.1f req/s sent",
		first, inflight, e.window, float64(finished)/float64(e.window), float64(sent)/float64(e.window))
}

// fire stops the run once.
func (e *earlyStopper) fire(reason string) {
	if e.stopped.CompareAndSwap(false, true) {
		e.stop(&EarlyStop{Reason: reason, AfterS: time.Since(e.start).Seconds()})
	}
}

// close stops the ticker.
func (e *earlyStopper) close() {
	if e != nil {
		close(e.quit)
	}
}
