// Package run is the executor: it dispatches requests on absolute times,
// one goroutine per request, admits them through an optional concurrency
// limit, and collects one record per request. Dispatch never waits on
// responses.
package run

import (
	"context"
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"
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
	// Schedule, when not nil, gives the intended send times in order
	// instead of Offsets, so that a long run need not hold them.
	Schedule Schedule
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
	// Discard drops each record once every sink has had it, so that a run
	// holds only the requests in flight and the records the sinks have not
	// yet taken, however long it is: Result.Records is then nil. Without
	// it, Result.Records holds every record.
	Discard bool
	// Index, when not nil, gives the index a record carries for the
	// run's i-th request (its place in a whole plan the run sends a
	// stripe of: see schedule.Shard); nil records i.
	Index func(i int) int
	// StartAt, when not zero, is the run's start: RunWith waits for it
	// (it must carry a monotonic reading: time.Now().Add(d)) and measures
	// every offset from it, so that clients started apart share one time
	// zero. A StartAt already past starts at once, from StartAt.
	StartAt time.Time
}

// Schedule gives a run's intended send times, in request order.
type Schedule interface {
	// Len is the number of requests.
	Len() int
	// Next returns the next request's offset from the start.
	Next() time.Duration
}

// SliceSchedule is the Schedule of offsets held in memory.
func SliceSchedule(offsets []time.Duration) Schedule { return &sliceSchedule{offsets: offsets} }

// sliceSchedule is a Schedule over offsets held in memory.
type sliceSchedule struct {
	offsets []time.Duration
	i       int
}

func (s *sliceSchedule) Len() int { return len(s.offsets) }
func (s *sliceSchedule) Next() time.Duration {
	d := s.offsets[s.i]
	s.i++
	return d
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
	// Records holds one record per released request, in request order
	// (nil with Plan.Discard). Requests never released (the run was
	// cancelled first) are absent from it; released ones that were
	// cancelled while they waited for a concurrency slot are marked
	// NotSent.
	Records []*record.Record
	// Planned is the number of requests the plan had.
	Planned int
	// Released is the number of requests released, and Sent the number
	// of those actually sent (not marked NotSent).
	Released, Sent int
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

// NotSent is the number of planned requests that were never sent: those
// never released, and those released but cancelled before a concurrency
// slot freed.
func (r *Result) NotSent() int { return r.Planned - r.Sent }

// Load returns the resource use measured around the run.
func (r *Result) Load() Load {
	return Load{CPU: r.CPU, Wall: r.Duration, Procs: r.Procs, GC: r.GC, HostBusy: r.HostBusy, HostCores: r.HostCores, TopOther: r.TopOther}
}

// Health returns the client-health numbers of the run (see ComputeHealth).
func (r *Result) Health() Health { return ComputeHealth(r.Records, r.Load()) }

// Run executes plan with sender: RunWith whose payload is the request's
// index.
func Run(ctx context.Context, plan Plan, sender Sender) *Result {
	return RunWith(ctx, plan, func(i int) int { return i },
		func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
			sender.Send(ctx, i, rec, now)
		})
}

// RunWith executes plan, sending each request's payload with send. Request
// i is released at start+Offsets[i] (an absolute deadline, so a late
// wake-up does not delay later requests) and recorded with Intended and
// Released. take(i) gives request i's payload: the dispatcher calls it in
// order, i = 0, 1, ..., on its own goroutine, before it waits for
// request i's time, so a payload made a window ahead (see Window) costs
// the send path nothing. Without a concurrency limit a released request is
// handed to send on a goroutine of its own at once. With a limit, it
// starts on a new goroutine while fewer than MaxConcurrency are in
// flight; otherwise it joins a FIFO queue, and the goroutine of the next
// request to finish sends it. So the client holds at most MaxConcurrency
// sending goroutines however many requests wait, and the dispatcher never
// waits on a response.
//
// A finished request's goroutine hands its record to the sinks' goroutine
// through an unbounded queue (so the hand-off never blocks) and goes on;
// that goroutine calls each sink in Plan.Sinks in turn, record by record.
// Every record has reached every sink when RunWith returns; Duration does
// not include the sinks' catching up. With Plan.Discard nothing else keeps
// a record: the run's memory is its requests in flight and the sinks'
// backlog, whatever its length.
//
// With Plan.Probe, a goroutine of its own sends the probes from the
// start until the last request has finished, outside the concurrency
// limit and the sinks; RunWith waits for it to stop before taking
// Duration.
//
// Cancelling ctx stops dispatch and cancels requests in flight; their
// records say so, and RunWith still returns (and sinks) every record it
// has.
func RunWith[T any](ctx context.Context, plan Plan, take func(i int) T, send func(ctx context.Context, req T, rec *record.Record, now func() time.Duration)) *Result {
	sched := plan.Schedule
	if sched == nil {
		sched = &sliceSchedule{offsets: plan.Offsets}
	}
	n := sched.Len()
	// Without Discard every record is kept: they are made before the
	// clock starts, as one array, so that the run allocates none.
	var all []record.Record
	if !plan.Discard {
		all = make([]record.Record, n)
	}
	q := admission[T]{limit: plan.MaxConcurrency, take: take, all: all, index: plan.Index}
	var wg sync.WaitGroup
	var finished *handoff
	if len(plan.Sinks) > 0 {
		finished = newHandoff()
	}
	// The cores the client can use: GOMAXPROCS, but no more than the
	// host has (the ring pollers raise GOMAXPROCS for processors that
	// mostly wait; see package ringnet).
	procs := min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	if !plan.StartAt.IsZero() {
		// Wake a little early: the readings below take their time, and
		// the first request waits on its own timer anyway.
		waitUntil(ctx, plan.StartAt.Add(-startSlack))
	}
	gc0 := readGCStats()
	procs0 := hostProbe.procs()
	host0 := hostProbe.cpu()
	cpu0 := ReadUsage()
	start := time.Now()
	if !plan.StartAt.IsZero() && (ctx.Err() == nil || plan.StartAt.Before(start)) {
		start = plan.StartAt // (a run cancelled before it starts now)
	}
	now := func() time.Duration { return time.Since(start) }
	sunk := make(chan struct{})
	if finished != nil {
		go drain(plan.Sinks, start, finished, sunk)
	}
	var probes *prober
	if plan.Probe != nil {
		probes = startProbe(ctx, plan.Probe, now)
	}
	var notSent atomic.Int64

	// work sends j, then the queued requests while there are any.
	work := func(j job[T], queued bool) {
		defer wg.Done()
		for j.rec != nil {
			rec := j.rec
			if queued && ctx.Err() != nil {
				rec.Start = now()
				rec.Error = "request cancelled before it was sent: " + ctx.Err().Error()
				rec.NotSent = true
				notSent.Add(1)
			} else {
				send(ctx, j.req, rec, now)
			}
			// The sinks get the record before the next request is taken:
			// a source waiting for this answer (feedback) may be what that
			// request's payload waits on.
			if finished != nil {
				finished.put(rec) // never blocks
			}
			j, queued = q.next(), true
		}
	}

	timer := time.NewTimer(0)
	<-timer.C
	released := 0
dispatch:
	for i := 0; i < n; i++ {
		off := sched.Next()
		if wait := time.Until(start.Add(off)); wait > 0 {
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
		released++
		if j, ok := q.admit(i, off, now()); ok {
			wg.Add(1)
			go work(j, false)
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
	var recs []*record.Record
	if all != nil {
		recs = make([]*record.Record, released)
		for i := range recs {
			recs[i] = &all[i]
		}
	}
	res := &Result{
		Records: recs, Probes: probeRecs, Planned: n, Released: released, Sent: released - int(notSent.Load()),
		Duration: dur, Start: start, Interrupted: released < n || ctx.Err() != nil,
		CPU: ReadUsage().Sub(cpu0), GC: readGCStats().Sub(gc0), Procs: procs,
	}
	host1 := hostProbe.cpu()
	if finished != nil {
		finished.close()
		<-sunk
	}
	res.setHostLoad(host0, host1, procs0)
	return res
}

// startSlack is how long before Plan.StartAt RunWith wakes to take its
// readings.
const startSlack = 2 * time.Millisecond

// waitUntil sleeps until t or until ctx ends.
func waitUntil(ctx context.Context, t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}

// job is a released request: its record and its payload.
type job[T any] struct {
	rec *record.Record
	req T
}

// handoff is the unbounded queue from the requests' goroutines to the
// sinks' goroutine: put never blocks, and the queue holds only the
// records the sinks have not taken yet.
type handoff struct {
	mu     sync.Mutex
	queue  []*record.Record
	closed bool
	ready  chan struct{} // has a token when the queue may be non-empty or closed
}

func newHandoff() *handoff { return &handoff{ready: make(chan struct{}, 1)} }

// put appends rec and wakes the sinks' goroutine.
func (h *handoff) put(rec *record.Record) {
	h.mu.Lock()
	h.queue = append(h.queue, rec)
	h.mu.Unlock()
	select {
	case h.ready <- struct{}{}:
	default:
	}
}

// close says no record follows.
func (h *handoff) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	select {
	case h.ready <- struct{}{}:
	default:
	}
}

// take waits for records and returns them all, with buf's storage reused
// for the next batch; ok is false once the queue is closed and empty.
func (h *handoff) take(buf []*record.Record) (batch []*record.Record, ok bool) {
	for {
		h.mu.Lock()
		if len(h.queue) > 0 {
			batch, h.queue = h.queue, buf[:0]
			h.mu.Unlock()
			return batch, true
		}
		closed := h.closed
		h.mu.Unlock()
		if closed {
			return nil, false
		}
		<-h.ready
	}
}

// drain hands each finished record to the sinks in turn, after telling
// the Starters the run's start, and closes sunk once finished is closed and
// empty.
func drain(sinks []Sink, start time.Time, finished *handoff, sunk chan<- struct{}) {
	defer close(sunk)
	for _, s := range sinks {
		if st, ok := s.(Starter); ok {
			st.Start(start)
		}
	}
	var spare []*record.Record
	for {
		batch, ok := finished.take(spare)
		if !ok {
			return
		}
		for i, rec := range batch {
			for _, s := range sinks {
				s.Record(rec)
			}
			batch[i] = nil
		}
		spare = batch
	}
}

// admission is the concurrency limit: a count of running senders and a
// FIFO queue of released requests waiting for one. A waiting request is
// kept as its intended and release times only, delta-encoded (its index
// follows from its place in the queue, since requests start in index
// order): its record is made, and its payload taken, when it starts. So a
// long queue (a rate of inf under a limit) costs a few bytes a request.
type admission[T any] struct {
	limit int // 0 = unlimited
	take  func(i int) T
	// all, when not nil, holds every request's record, made before the
	// run; otherwise a record is made as its request starts.
	all []record.Record
	// index, when not nil, maps a request to the index its record
	// carries (Plan.Index).
	index   func(int) int
	mu      sync.Mutex
	running int
	waiting timeQueue
	first   int // the index of the oldest waiting request
}

// start makes request i's job: its record and its payload.
func (a *admission[T]) start(i int, intended, released time.Duration) job[T] {
	rec := &record.Record{}
	if a.all != nil {
		rec = &a.all[i]
	}
	rec.Index, rec.Intended, rec.Released = i, intended, released
	if a.index != nil {
		rec.Index = a.index(i)
	}
	return job[T]{rec, a.take(i)}
}

// admit starts request i, intended at intended and released at released,
// when a sender may take it now (ok), on a new goroutine; otherwise it
// waits in the queue.
func (a *admission[T]) admit(i int, intended, released time.Duration) (j job[T], ok bool) {
	if a.limit <= 0 {
		return a.start(i, intended, released), true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running < a.limit {
		a.running++
		return a.start(i, intended, released), true
	}
	if a.waiting.n == 0 {
		a.first = i
	}
	a.waiting.push(intended, released)
	return job[T]{}, false
}

// next hands a finishing sender the oldest waiting request, or returns a
// job without a record and releases its slot.
func (a *admission[T]) next() job[T] {
	if a.limit <= 0 {
		return job[T]{}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waiting.n > 0 {
		intended, released := a.waiting.pop()
		j := a.start(a.first, intended, released)
		a.first++
		return j
	}
	a.running--
	return job[T]{}
}

// timeQueue is a FIFO of pairs of times, each stored as its difference
// from the previous pair's, zig-zag varint encoded, in blocks of 64 KiB
// dropped as they are read: times that grow by microseconds take a few
// bytes a pair, and the queue never holds more than it has.
type timeQueue struct {
	blocks  [][]byte
	head    int // read position in blocks[0]
	n       int
	lastIn  [2]time.Duration
	lastOut [2]time.Duration
}

const timeBlock = 64 << 10

func (q *timeQueue) push(a, b time.Duration) {
	if len(q.blocks) == 0 || cap(q.blocks[len(q.blocks)-1])-len(q.blocks[len(q.blocks)-1]) < 2*binary.MaxVarintLen64 {
		q.blocks = append(q.blocks, make([]byte, 0, timeBlock))
	}
	last := &q.blocks[len(q.blocks)-1]
	*last = binary.AppendVarint(*last, int64(a-q.lastIn[0]))
	*last = binary.AppendVarint(*last, int64(b-q.lastIn[1]))
	q.lastIn = [2]time.Duration{a, b}
	q.n++
}

func (q *timeQueue) pop() (a, b time.Duration) {
	if q.head == len(q.blocks[0]) { // a full block read: the next one
		q.blocks[0] = nil
		q.blocks, q.head = q.blocks[1:], 0
	}
	blk := q.blocks[0]
	da, k := binary.Varint(blk[q.head:])
	q.head += k
	db, k := binary.Varint(blk[q.head:])
	q.head += k
	a, b = q.lastOut[0]+time.Duration(da), q.lastOut[1]+time.Duration(db)
	q.lastOut = [2]time.Duration{a, b}
	if q.n--; q.n == 0 { // keep one block for the next pushes
		last := q.blocks[len(q.blocks)-1][:0]
		clear(q.blocks)
		q.blocks, q.head = append(q.blocks[:0], last), 0
	}
	return a, b
}
