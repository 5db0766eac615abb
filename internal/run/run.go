// Package run is the executor: it dispatches requests on absolute times,
// one goroutine per request, admits them through an optional concurrency
// limit, and collects one record per request. Dispatch never waits on
// responses.
package run

import (
	"context"
	"runtime"
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
	// Sinks receive each request's record as it completes, in order along
	// the chain (see Sink).
	Sinks []Sink
	// Probe, when not nil, sends probe requests next to the run (see
	// Probe); Duration includes stopping them, as vLLM's does.
	Probe *Probe
}

// Sink receives each finished request's record as the run goes: the JSONL
// file, the metrics accumulator, the progress bar. Record is called for
// one record at a time, in completion order, from a goroutine of the
// run's own that no request waits on: a slow sink delays the sinks after
// it, never a request. The record is complete when it arrives and must not
// be modified (Run also returns it).
type Sink interface {
	Record(rec *record.Record)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(rec *record.Record)

// Record calls f.
func (f SinkFunc) Record(rec *record.Record) { f(rec) }

// Starter is implemented by sinks that want the run's wall-clock start
// (e.g. for a file header) before their first record. Start is called on
// the sinks' goroutine, so it never delays the first request.
type Starter interface {
	Start(start time.Time)
}

// Result is what a run produced.
type Result struct {
	// Records holds one record per released request, in request order.
	// Requests never released (the run was cancelled first) are absent from
	// it; released ones that were cancelled while they waited for a
	// concurrency slot are marked NotSent.
	Records []*record.Record
	// Planned is the number of requests the plan had.
	Planned int
	// Probes are the probe requests' records, in send order (Plan.Probe;
	// nil without). They are in neither Records nor the sinks.
	Probes []*record.Record
	// Duration is from the run start until the last request finished and
	// the probes stopped.
	Duration time.Duration
	// Start is the wall-clock time the run started.
	Start time.Time
	// Interrupted reports that ctx was cancelled before every request ran.
	Interrupted bool
	// CPU is the CPU time the whole process used during the run (user and
	// system), and GC its garbage collections.
	CPU Usage
	// GC counts the garbage collections during the run.
	GC GCStats
	// Procs is GOMAXPROCS during the run: the cores the client could use.
	Procs int
	// HostBusy is the share of the whole host's CPU time that was busy
	// during the run (any process), or -1 when unknown.
	HostBusy float64
	// HostCores is the number of CPUs of the host (0 when unknown).
	HostCores int
	// TopOther is the other process that used the most of the host's CPU
	// during the run (Linux), or nil.
	TopOther *ProcShare
}

// Sent is the number of requests actually sent: the records not marked
// NotSent.
func (r *Result) Sent() int {
	n := 0
	for _, rec := range r.Records {
		if !rec.NotSent {
			n++
		}
	}
	return n
}

// NotSent is the number of planned requests that were never sent: those
// never released, and those released but cancelled before a concurrency
// slot freed.
func (r *Result) NotSent() int { return r.Planned - r.Sent() }

// Load returns the resource use measured around the run.
func (r *Result) Load() Load {
	return Load{CPU: r.CPU, Wall: r.Duration, Procs: r.Procs, GC: r.GC, HostBusy: r.HostBusy, HostCores: r.HostCores, TopOther: r.TopOther}
}

// Health returns the client-health numbers of the run (see ComputeHealth).
func (r *Result) Health() Health { return ComputeHealth(r.Records, r.Load()) }

// Run executes plan with sender. Request i is released at start+Offsets[i]
// (an absolute deadline, so a late wake-up does not delay later requests)
// and recorded with Intended and Released. Without a concurrency limit it
// is handed to the sender on a goroutine of its own at once. With a limit,
// a released request starts on a new goroutine while fewer than
// MaxConcurrency are in flight; otherwise it joins a FIFO queue, and the
// goroutine of the next request to finish sends it. So the client holds at
// most MaxConcurrency sending goroutines however many requests wait, and
// the dispatcher never waits on a response.
//
// A finished request's goroutine hands its record to the sinks' goroutine
// through a channel with room for every request (so the hand-off never
// blocks) and goes on; that goroutine calls each sink in Plan.Sinks in
// turn, record by record. Every record has reached every sink when Run
// returns; Duration does not include the sinks' catching up.
//
// With Plan.Probe, a goroutine of its own sends the probes from the
// start until the last request has finished, outside the concurrency
// limit and the sinks; Run waits for it to stop before taking Duration.
//
// Cancelling ctx stops dispatch and cancels requests in flight; their
// records say so, and Run still returns (and sinks) every record it has.
func Run(ctx context.Context, plan Plan, sender Sender) *Result {
	n := len(plan.Offsets)
	recs := make([]*record.Record, n)
	for i := range recs {
		recs[i] = &record.Record{Index: i, Intended: plan.Offsets[i]}
	}
	q := admission{limit: plan.MaxConcurrency}
	var wg sync.WaitGroup
	var finished chan *record.Record
	if len(plan.Sinks) > 0 {
		finished = make(chan *record.Record, n)
	}
	procs := runtime.GOMAXPROCS(0)
	gc0 := readGCStats()
	procs0 := hostProbe.procs()
	host0 := hostProbe.cpu()
	cpu0 := ReadUsage()
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	sunk := make(chan struct{})
	if finished != nil {
		go drain(plan.Sinks, start, finished, sunk)
	}
	var probes *prober
	if plan.Probe != nil {
		probes = startProbe(ctx, plan.Probe, now)
	}

	// work sends rec, then the queued requests while there are any.
	work := func(rec *record.Record, queued bool) {
		defer wg.Done()
		for rec != nil {
			if queued && ctx.Err() != nil {
				rec.Start = now()
				rec.Error = "request cancelled before it was sent: " + ctx.Err().Error()
				rec.NotSent = true
			} else {
				sender.Send(ctx, rec.Index, rec, now)
			}
			next := q.next()
			if finished != nil {
				finished <- rec // never blocks: there is room for every record
			}
			rec, queued = next, true
		}
	}

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
		if q.admit(rec) {
			wg.Add(1)
			go work(rec, false)
		}
	}
	wg.Wait()
	var probeRecs []*record.Record
	if probes != nil {
		probeRecs = probes.finish()
	}
	dur := now()
	// The run's resource use ends with its last response: read it before
	// the sinks catch up, so a backlog of records to write does not count
	// as the run's CPU over the run's wall time.
	res := &Result{
		Records: recs[:released], Probes: probeRecs, Planned: n, Duration: dur, Start: start, Interrupted: released < n || ctx.Err() != nil,
		CPU: ReadUsage().Sub(cpu0), GC: readGCStats().Sub(gc0), Procs: procs,
	}
	host1 := hostProbe.cpu()
	if finished != nil {
		close(finished)
		<-sunk
	}
	res.setHostLoad(host0, host1, procs0)
	return res
}

// drain hands each finished record to the sinks in turn, after telling
// the Starters the run's start, and closes sunk once finished is closed and
// empty.
func drain(sinks []Sink, start time.Time, finished <-chan *record.Record, sunk chan<- struct{}) {
	defer close(sunk)
	for _, s := range sinks {
		if st, ok := s.(Starter); ok {
			st.Start(start)
		}
	}
	for rec := range finished {
		for _, s := range sinks {
			s.Record(rec)
		}
	}
}

// admission is the concurrency limit: a count of running senders and a
// FIFO queue of released requests waiting for one.
type admission struct {
	limit   int // 0 = unlimited
	mu      sync.Mutex
	running int
	queue   []*record.Record
	head    int
}

// admit reports whether rec may start now on a new sender goroutine;
// otherwise rec is queued.
func (a *admission) admit(rec *record.Record) bool {
	if a.limit <= 0 {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running < a.limit {
		a.running++
		return true
	}
	a.queue = append(a.queue, rec)
	return false
}

// next hands a finishing sender the oldest queued request, or returns nil
// and releases its slot.
func (a *admission) next() *record.Record {
	if a.limit <= 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.head < len(a.queue) {
		rec := a.queue[a.head]
		a.queue[a.head] = nil
		a.head++
		if a.head == len(a.queue) {
			a.queue, a.head = a.queue[:0], 0
		}
		return rec
	}
	a.running--
	return nil
}
