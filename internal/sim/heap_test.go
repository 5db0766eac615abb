package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkDueHeap is a stream loop's heap work per event: pop the earliest
// stream and push it back one inter-token interval (with jitter) later,
// with n streams waiting, each in its own allocation as in the simulator.
func BenchmarkDueHeap(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			var h dueHeap[*generation]
			rng := rand.New(rand.NewPCG(1, 2))
			for range n {
				g := &generation{}
				g.loop.due = time.Duration(rng.IntN(int(100 * time.Millisecond)))
				h.push(g)
			}
			for b.Loop() {
				g := h.remove(0)
				g.loop.due += 100*time.Millisecond + time.Duration(rng.IntN(1000))
				h.push(g)
			}
		})
	}
}
