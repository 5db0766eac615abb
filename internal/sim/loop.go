package sim

import (
	"runtime"
	"sync"
	"time"
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
	first := lp.heap.s[0] == g
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
		for lp.heap.len() > 0 && lp.heap.s[0].loop.due <= now {
			g := lp.heap.remove(0)
			g.loop.busy = true
			ready = append(ready, g)
		}
		if lp.heap.len() > 0 {
			next = lp.heap.s[0].loop.due
		}
		waiting := lp.heap.len() + len(ready)
		lp.mu.Unlock()

		if len(ready) > 0 {
			for _, g := range ready {
				g.loop.ok = g.writeDue()
			}
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
