// Package run is the executor: it dispatches requests on absolute times,
// one goroutine per request, admits them through an optional concurrency
// limit, and collects one record per request. Dispatch never waits on
// responses.
package run

import (
	"context"
	"sync"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// Sender sends request i and fills rec. It must set rec.Start just before
// the request is written and never block the caller longer than the
// request takes. now is the run clock.
type Sender interface {
	Send(ctx context.Context, i int, rec *record.Record, now func() time.Duration)
}

// SenderFunc adapts a function to Sender.
type SenderFunc func(ctx context.Context, i int, rec *record.Record, now func() time.Duration)

// Send calls f.
func (f SenderFunc) Send(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
	f(ctx, i, rec, now)
}

// Plan is one run: request i is released at Offsets[i] after the start.
type Plan struct {
	// Offsets are the intended send times, non-decreasing, one per request.
	Offsets []time.Duration
	// MaxConcurrency limits in-flight requests (0 = unlimited). Requests
	// released while the limit is full wait; that wait is their client
	// queue time.
	MaxConcurrency int
	// OnDone, if set, is called after each request completes (progress).
	OnDone func(rec *record.Record)
}

// Result is what a run produced.
type Result struct {
	// Records holds one record per request, in request order. Requests never
	// released (the run was cancelled first) are absent from it.
	Records []*record.Record
	// Duration is from the run start until the last request finished.
	Duration time.Duration
	// Start is the wall-clock time the run started.
	Start time.Time
	// Interrupted reports that ctx was cancelled before every request ran.
	Interrupted bool
}

// Run executes plan with sender. Request i is released at start+Offsets[i]
// (an absolute deadline, so a late wake-up does not delay later requests),
// recorded with Intended and Released, then admitted through the
// concurrency limit and handed to the sender on its own goroutine.
// Cancelling ctx stops dispatch and cancels requests in flight; their
// records say so, and Run still returns every record it has.
func Run(ctx context.Context, plan Plan, sender Sender) *Result {
	n := len(plan.Offsets)
	recs := make([]*record.Record, n)
	for i := range recs {
		recs[i] = &record.Record{Index: i, Intended: plan.Offsets[i]}
	}
	var sem chan struct{}
	if plan.MaxConcurrency > 0 {
		sem = make(chan struct{}, plan.MaxConcurrency)
	}
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }

	var wg sync.WaitGroup
	var doneMu sync.Mutex
	timer := time.NewTimer(0)
	<-timer.C
	released := 0
dispatch:
	for i := 0; i < n; i++ {
		if wait := time.Until(start.Add(plan.Offsets[i])); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				break dispatch
			}
		} else if ctx.Err() != nil {
			break
		}
		rec := recs[i]
		rec.Released = now()
		released++
		wg.Add(1)
		go func() {
			defer wg.Done()
			if sem != nil {
				select {
				case sem <- struct{}{}:
					defer func() { <-sem }()
				case <-ctx.Done():
					rec.Start = now()
					rec.Error = "request cancelled before it was sent: " + ctx.Err().Error()
					return
				}
			}
			sender.Send(ctx, rec.Index, rec, now)
			if plan.OnDone != nil {
				doneMu.Lock()
				plan.OnDone(rec)
				doneMu.Unlock()
			}
		}()
	}
	wg.Wait()
	res := &Result{Records: recs[:released], Duration: now(), Start: start, Interrupted: released < n || ctx.Err() != nil}
	return res
}
