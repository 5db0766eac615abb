package run

import (
	"context"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// Probe is a side channel of requests sent one at a time next to the run
// (vLLM's --probe-request-rate): send a probe, wait for its response,
// pause Interval, send the next, until the run's last request has
// finished. Probes never take a concurrency slot (the Sender may still
// share the client's connection pool with the run's requests, as vLLM's
// do), their records go to Result.Probes only, never to the sinks, and the
// dispatch of the run's requests never waits on them.
type Probe struct {
	// Interval is the pause after each probe's response (vLLM sleeps
	// 1/rate), so probes go out at most 1/Interval per second.
	Interval time.Duration
	// Sender sends probe i (0, 1, ...) and fills its record, as a run's
	// Sender does.
	Sender Sender
}

// prober runs a Probe's loop on a goroutine of its own.
type prober struct {
	recs []*record.Record // written by the loop only, read after done
	stop chan struct{}
	done chan struct{}
}

// startProbe starts p's loop on the run clock now.
func startProbe(ctx context.Context, p *Probe, now func() time.Duration) *prober {
	pr := &prober{stop: make(chan struct{}), done: make(chan struct{})}
	go pr.loop(ctx, p, now)
	return pr
}

// loop sends probes until stopped. As in vLLM, the stop signal is looked
// at only between probes, after each pause: the first probe always goes
// out (vLLM's stop cannot be set before its probe task first runs, while
// here the run may be over before this goroutine is first scheduled), a
// probe in flight is waited for, and so is the pause after it (vLLM's
// sleep is not cut short), so stopping takes up to one probe and one
// Interval. Cancelling ctx ends the loop at once; a probe it cancels is
// dropped rather than counted as failed.
func (pr *prober) loop(ctx context.Context, p *Probe, now func() time.Duration) {
	defer close(pr.done)
	var timer *time.Timer
	for i := 0; ctx.Err() == nil; i++ {
		t := now()
		rec := &record.Record{Index: i, Intended: t, Released: t}
		p.Sender.Send(ctx, i, rec, now)
		if ctx.Err() != nil && !rec.Success {
			return
		}
		pr.recs = append(pr.recs, rec)
		if timer == nil {
			timer = time.NewTimer(p.Interval)
		} else {
			timer.Reset(p.Interval)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return
		}
		select {
		case <-pr.stop:
			return
		default:
		}
	}
}

// finish stops the loop, waits for it to end and returns its records in
// send order.
func (pr *prober) finish() []*record.Record {
	close(pr.stop)
	<-pr.done
	return pr.recs
}

// ProbeInterval is vLLM's pause between probes at rate probes per
// second: 1/rate, capped at the longest time.Duration for a vanishing
// rate. rate must be positive.
func ProbeInterval(rate float64) time.Duration {
	s := 1 / rate
	if s*float64(time.Second) >= float64(1<<63-1) {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(s * float64(time.Second))
}
