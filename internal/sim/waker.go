package sim

import (
	"runtime"
	"sync"
	"time"
)

// The waker wakes streams at their due times more precisely than the Go
// timer of an idle process, whose poller sleeps in whole milliseconds and so
// fires up to 1ms late. One goroutine serves every stream of the process:
//
//   - while the earliest due time is more than wakerWindow away it sleeps on
//     a Go timer until wakerWindow before it;
//   - closer than that it naps with a precise OS sleep (nanosleep with 1ns
//     timer slack on Linux), at most wakerMaxNap at a time, so that a stream
//     registering an earlier time meanwhile is late by at most wakerMaxNap;
//   - while it serves at most wakerSpinMaxWaiters streams it stops napping
//     wakerSpin before the due time and yields the processor in a loop
//     (runtime.Gosched) for the rest, which absorbs the OS sleep's wake-up
//     delay; the CPU this burns is bounded by about
//     wakerSpinMaxWaiters × (tokens per second per stream) × wakerSpin;
//   - then it signals every stream that is due, and yields so that they run
//     at once on its processor.
//
// A stream is never woken before its due time. A stream that goes away
// leaves its entry behind until that entry is due. When wakerMaxWaiters
// streams already wait, further streams sleep on their own Go timers: a
// process that busy runs its schedulers often enough to fire Go timers
// promptly, and the single waker goroutine would become a bottleneck. Measured on a 2-vCPU VM (BenchmarkConcurrentStreams,
// ITL 10ms), the median lateness with the waker is 10–80µs where plain Go
// timers give 300–600µs.
const (
	wakerWindow = 1500 * time.Microsecond
	wakerMaxNap = 200 * time.Microsecond
	wakerSpin   = 50 * time.Microsecond

	wakerSpinMaxWaiters = 16
	wakerMaxWaiters     = 128
)

// waiter is one stream waiting for its next due time.
type waiter struct {
	due time.Duration // on wakerClock
	idx int           // index in the waker's heap
	ch  chan struct{} // receives one signal per add
}

func newWaiter() *waiter { return &waiter{ch: make(chan struct{}, 1)} }

// wakerEpoch is the origin of the waker's clock.
var wakerEpoch = time.Now()

// wakerClock returns the monotonic time on the waker's clock.
func wakerClock() time.Duration { return time.Since(wakerEpoch) }

// waker is a min-heap of waiters by due time, served by one goroutine.
type waker struct {
	mu    sync.Mutex
	heap  dueHeap[*waiter]
	kick  chan struct{} // a new earliest waiter arrived
	start sync.Once
}

// theWaker serves every Server of the process; it starts on first use and
// idles (blocked on a channel, using no CPU) when nothing waits.
var theWaker = &waker{kick: make(chan struct{}, 1)}

// busy reports whether the waker already serves wakerMaxWaiters streams.
func (wk *waker) busy() bool {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	return wk.heap.len() >= wakerMaxWaiters
}

// add registers w to be signalled on w.ch at the absolute time due.
func (wk *waker) add(w *waiter, due time.Time) {
	wk.start.Do(func() { go wk.run() })
	w.due = due.Sub(wakerEpoch)
	wk.mu.Lock()
	wk.heap.push(w)
	first := wk.heap.first() == w
	wk.mu.Unlock()
	if first {
		select {
		case wk.kick <- struct{}{}:
		default:
		}
	}
}

func (wk *waker) run() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var ready []*waiter
	for {
		now := wakerClock()
		next := time.Duration(-1)
		wk.mu.Lock()
		for wk.heap.len() > 0 && wk.heap.firstDue() <= now {
			ready = append(ready, wk.heap.remove(0))
		}
		if wk.heap.len() > 0 {
			next = wk.heap.firstDue()
		}
		spin := time.Duration(0)
		if wk.heap.len() <= wakerSpinMaxWaiters {
			spin = wakerSpin
		}
		wk.mu.Unlock()
		if len(ready) > 0 {
			for i, w := range ready {
				select {
				case w.ch <- struct{}{}:
				default:
				}
				ready[i] = nil
			}
			ready = ready[:0]
			runtime.Gosched()
			continue
		}
		switch d := next - now; {
		case next < 0:
			<-wk.kick
		case d > wakerWindow:
			timer.Reset(d - wakerWindow)
			select {
			case <-timer.C:
			case <-wk.kick:
				timer.Stop()
			}
		case d > spin:
			nap(min(d-spin, wakerMaxNap))
		default:
			runtime.Gosched()
		}
	}
}

func (w *waiter) dueTime() time.Duration { return w.due }
func (w *waiter) heapIndex() *int        { return &w.idx }
