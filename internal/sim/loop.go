package sim

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vbench/vbench/internal/uring"
)

// A streamLoop writes the token events of many streams, each at its due
// time, from one goroutine. Waking one goroutine per stream for every event
// (a timer, a channel send, a goroutine switch) costs about as much CPU as
// the write itself; a loop pops the streams that are due from a heap and
// writes them in turn, so a busy simulator spends its CPU on writes. The
// stream's handler goroutine waits, parked, until its stream ends or its
// client goes away.
//
// The process runs one loop per processor (GOMAXPROCS, at most maxLoops).
// While it serves at most wakerMaxWaiters streams, loop 0 sleeps precisely,
// like the waker (see wakerWindow): a Go timer until wakerWindow before the
// next due time, then short OS naps, then (while it serves at most
// wakerSpinMaxWaiters streams) yields in a loop. Otherwise, and always for
// the other loops, it sleeps on Go timers only: the process is then busy
// enough to fire them promptly, and an OS nap holds a processor (and makes
// the runtime hand it off) for nothing. The other loops take streams only
// once loop 0 serves loopShare of them.
//
// A loop never blocks on a write: it writes a stream's events with a
// non-blocking write on the connection the stream took over from net/http
// (see raw.go). When a client reads so slowly that the socket buffers fill,
// the rest of the bytes and of the stream go back to the stream's own
// goroutine (the stream is "stalled"), which finishes it with blocking
// writes, as net/http would.
type streamLoop struct {
	id   int
	mu   sync.Mutex
	heap dueHeap[*generation] // by loop.due
	kick chan struct{}        // a new earliest stream arrived

	ring     *uring.Ring   // sends the due events of many streams at once; nil: write(2) each
	ringDone bool          // the ring was set up, or could not be
	staged   []*generation // the streams whose sends are queued in ring, by user data
}

const (
	maxLoops  = 8
	loopShare = 128
)

// loopState is a generation's bookkeeping in its stream loop; the loop's
// mutex guards idx, busy and cancelled.
type loopState struct {
	due       time.Duration // next event, on wakerClock
	idx       int           // index in the heap, -1 when not in it
	busy      bool          // the loop is writing the stream now
	cancelled bool          // the handler gave up while the loop wrote
	ok        bool          // every write succeeded (set before done)
	done      chan struct{} // receives one signal when the loop lets go
	out       []byte        // the bytes of the send queued in the loop's ring
	events    int           // how many events they hold
}

var (
	loopsOnce sync.Once
	loops     []*streamLoop
)

// pickLoop returns the loop a new stream joins: loop 0 while it serves
// fewer than loopShare streams, else the loop with the fewest streams.
func pickLoop() *streamLoop {
	loopsOnce.Do(func() {
		n := max(1, min(runtime.GOMAXPROCS(0), maxLoops))
		loops = make([]*streamLoop, n)
		for i := range loops {
			loops[i] = &streamLoop{id: i, kick: make(chan struct{}, 1)}
			go loops[i].run()
		}
	})
	best, bestLen := loops[0], loops[0].len()
	if bestLen < loopShare {
		return best
	}
	for _, lp := range loops[1:] {
		if n := lp.len(); n < bestLen {
			best, bestLen = lp, n
		}
	}
	return best
}

// len returns how many streams wait in the loop.
func (lp *streamLoop) len() int {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	return lp.heap.len()
}

// serve has the loop write the events of g, which has at least one event
// left, and waits until it has written them all, or g stalled (see
// streamLoop), or g's client went away. It returns false if the stream did
// not complete; a stalled stream is not complete.
func (lp *streamLoop) serve(g *generation) bool {
	st := &g.loop
	st.done = make(chan struct{}, 1)
	st.due = g.nextDue().Sub(wakerEpoch)
	lp.mu.Lock()
	lp.heap.push(g)
	first := lp.heap.first() == g
	lp.mu.Unlock()
	if first {
		select {
		case lp.kick <- struct{}{}:
		default:
		}
	}
	select {
	case <-st.done:
		return st.ok && g.remaining == 0 && !g.stalled
	case <-g.ctx.Done():
	}
	lp.mu.Lock()
	switch {
	case st.idx >= 0:
		lp.heap.remove(st.idx)
		lp.mu.Unlock()
		return false
	case st.busy:
		st.cancelled = true
	}
	lp.mu.Unlock()
	<-st.done // the last write may still have completed the stream
	return st.ok && g.remaining == 0 && !g.stalled
}

// run is the loop's goroutine.
func (lp *streamLoop) run() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var ready []*generation
	for {
		now := wakerClock()
		next := time.Duration(-1)
		lp.mu.Lock()
		for lp.heap.len() > 0 && lp.heap.firstDue() <= now {
			g := lp.heap.remove(0)
			g.loop.busy = true
			ready = append(ready, g)
		}
		if lp.heap.len() > 0 {
			next = lp.heap.firstDue()
		}
		waiting := lp.heap.len() + len(ready)
		lp.mu.Unlock()

		if len(ready) > 0 {
			lp.writeAll(ready)
			lp.mu.Lock()
			for i, g := range ready {
				st := &g.loop
				st.busy = false
				if st.cancelled || !st.ok || g.remaining == 0 || g.stalled {
					st.done <- struct{}{}
				} else {
					st.due = g.nextDue().Sub(wakerEpoch)
					lp.heap.push(g)
				}
				ready[i] = nil
			}
			ready = ready[:0]
			lp.mu.Unlock()
			// A busy loop never parks: let the connections' goroutines
			// (new requests) run between batches.
			runtime.Gosched()
			continue
		}
		lp.sleep(now, next, waiting, timer)
	}
}

// sleep waits until about next (on wakerClock; -1 when no stream waits) or
// until a new earliest stream arrives.
func (lp *streamLoop) sleep(now, next time.Duration, waiting int, timer *time.Timer) {
	d := next - now
	precise := lp.id == 0 && waiting <= wakerMaxWaiters
	spin := time.Duration(0)
	if waiting <= wakerSpinMaxWaiters {
		spin = wakerSpin
	}
	switch {
	case next < 0:
		<-lp.kick
	case d > wakerWindow || !precise:
		if precise {
			d -= wakerWindow
		}
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-lp.kick:
			timer.Stop()
		}
	case d > spin:
		nap(min(d-spin, wakerMaxNap))
	default:
		runtime.Gosched()
	}
}

func (g *generation) dueTime() time.Duration { return g.loop.due }
func (g *generation) heapIndex() *int        { return &g.loop.idx }

// useRing says whether the stream loops send through io_uring (Linux,
// unless VBENCH_IO_URING=0; see package uring); tests turn it off to
// compare.
var useRing = func() *atomic.Bool {
	var b atomic.Bool
	b.Store(os.Getenv("VBENCH_IO_URING") != "0")
	return &b
}()

// ringSends counts the sends submitted through the loops' rings (tests
// check that the rings are used).
var ringSends atomic.Uint64

// ringEntries bounds the sends of one submission. Each stream's events are
// recorded as written when its submission returns, so a small batch keeps
// the lateness the simulator reports close to the truth (16 sends take
// about 25 µs), and costs one io_uring_enter(2) per 16 sends.
const ringEntries = 16

// uring returns the loop's ring, setting it up on first use; nil when
// io_uring is off or unavailable.
func (lp *streamLoop) uring() *uring.Ring {
	if !lp.ringDone {
		lp.ringDone = true
		if useRing.Load() {
			lp.ring, _ = uring.New(ringEntries)
		}
	}
	return lp.ring
}

// writeAll writes the due events of the ready streams and sets each one's
// loop.ok. Streams with a descriptor of their own (sendFD) are sent
// through the loop's ring, all in one submission; the others, and all of
// them without a ring, are written with one write(2) each.
func (lp *streamLoop) writeAll(ready []*generation) {
	r := lp.uring()
	for _, g := range ready {
		if r == nil || g.sendFD < 0 {
			g.loop.ok = g.writeDue()
			continue
		}
		b, n, ok := g.renderDue()
		if !ok {
			g.loop.ok = false
			continue
		}
		if r.Free() == 0 {
			lp.sendStaged()
			if r = lp.ring; r == nil { // the kernel refused the ring: write(2) from now on
				g.loop.ok = g.writeRendered(b, n)
				continue
			}
		}
		g.loop.out, g.loop.events = g.frame(b), n
		if r.PrepSend(g.sendFD, g.loop.out, sendFlags, uint64(len(lp.staged))) != nil {
			g.loop.ok = g.sent(0, syscall.ENOBUFS) // cannot happen: there was room
			continue
		}
		lp.staged = append(lp.staged, g)
	}
	if len(lp.staged) > 0 && lp.ring != nil {
		lp.sendStaged()
	}
}

// sendStaged submits the sends queued in the ring (for lp.staged, in
// order) and settles each one as it completes. Should the kernel refuse the
// submission, the sends it did not take are written with write(2) instead,
// and the loop stops using its ring.
func (lp *streamLoop) sendStaged() {
	r := lp.ring
	took, err := r.Submit()
	if err != nil {
		r.Discard()
	}
	ringSends.Add(uint64(took))
	settle := func(c uring.Completion) {
		g := lp.staged[c.UserData]
		if c.Res < 0 {
			g.loop.ok = g.sent(0, syscall.Errno(-c.Res))
		} else {
			g.loop.ok = g.sent(int(c.Res), nil)
		}
	}
	done := r.Reap(settle)
	for done < took {
		// A send the kernel did not complete at once (it never waits for
		// the socket, but may finish on a worker thread): wait for it.
		if _, werr := r.SubmitAndWait(1); werr != nil && werr != syscall.EAGAIN {
			// Nothing to wait on: cannot happen while sends are in
			// flight. Fail their streams; the ring, which may still
			// read their bytes, is abandoned, not closed.
			for _, g := range lp.staged[:took] {
				if g.loop.out != nil {
					g.loop.out, g.loop.ok = nil, false
				}
			}
			lp.ring, err = nil, werr
			break
		}
		done += r.Reap(settle)
	}
	for _, g := range lp.staged[took:] { // never submitted
		g.loop.ok = g.tryWrite(g.loop.out) == nil
		if g.loop.ok {
			g.wrote(g.loop.events)
		}
		g.loop.out = nil
	}
	clear(lp.staged)
	lp.staged = lp.staged[:0]
	if err != nil && lp.ring != nil {
		_ = lp.ring.Close()
		lp.ring = nil
	}
}
