package pipeline

import (
	"context"
	"fmt"
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
	if !sat && maxFailed < 0 {
		return nil
	}
	w := 10
	if es != nil && es.WindowS > 0 {
		w = max(2, int(es.WindowS+0.5))
	}
	return &earlyStopper{sat: sat, window: w, maxFailed: maxFailed, inflight: inflight, stop: stop, quit: make(chan struct{}), firstDone: -1}
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
