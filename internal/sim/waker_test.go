package sim

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestWakerHeapOrder(t *testing.T) {
	wk := &waker{}
	rng := rand.New(rand.NewPCG(1, 2))
	var want []time.Duration
	for range 500 {
		d := time.Duration(rng.IntN(1000))
		want = append(want, d)
		wk.heap.push(&waiter{due: d})
	}
	slices.Sort(want)
	var got []time.Duration
	for wk.heap.len() > 0 {
		got = append(got, wk.heap.remove(0).due)
	}
	if !slices.Equal(got, want) {
		t.Errorf("heap pops out of order: %v…", got[:10])
	}
}

// The waker never signals a waiter before its due time, whatever the order
// of registration.
func TestWakerNeverEarly(t *testing.T) {
	const n = 60
	base := time.Now()
	var wg sync.WaitGroup
	early := make(chan time.Duration, n)
	for i := range n {
		due := base.Add(time.Duration(1+(i*37)%n) * 100 * time.Microsecond)
		wg.Go(func() {
			w := newWaiter()
			theWaker.add(w, due)
			<-w.ch
			if now := time.Now(); now.Before(due) {
				early <- due.Sub(now)
			}
		})
	}
	wg.Wait()
	close(early)
	for d := range early {
		t.Errorf("a waiter was woken %v early", d)
	}
}

// A waiter earlier than the one the waker sleeps for is still served first.
func TestWakerEarlierArrival(t *testing.T) {
	late, soon := newWaiter(), newWaiter()
	theWaker.add(late, time.Now().Add(3*time.Second))
	theWaker.add(soon, time.Now().Add(time.Millisecond))
	select {
	case <-soon.ch:
	case <-late.ch:
		t.Fatal("the later waiter was woken first")
	}
}

// The per-event rendering and bookkeeping allocate nothing.
func TestHotPathAllocations(t *testing.T) {
	s := mustNew(t, testConfig())
	for _, chat := range []bool{false, true} {
		g := &generation{s: s, chat: chat, head: []byte(`{"id":"x","choices":[`),
			choices: []choice{{n: 10, reason: finishStop, key: 1}}}
		buf := make([]byte, 0, 4096)
		m := s.metrics
		allocs := testing.AllocsPerRun(200, func() {
			buf = g.appendToken(buf[:0], &g.choices[0], 3)
			buf = g.appendToken(buf, &g.choices[0], 9)
			buf = g.appendUsage(buf)
			m.lateness.record(time.Microsecond)
			m.itl.observe(time.Millisecond)
			m.genTokens.Add(1)
		})
		if allocs != 0 {
			t.Errorf("chat=%v: %v allocations per event", chat, allocs)
		}
	}
}
