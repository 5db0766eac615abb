package run

import (
	"testing"
	"time"
)

// TestTimeQueue: pairs come out in order and unchanged, across the
// queue's emptying and its blocks, at a few bytes a pair.
func TestTimeQueue(t *testing.T) {
	var q timeQueue
	var want [][2]time.Duration
	in, out := 0, 0
	push := func(k int) {
		for range k {
			a, b := time.Duration(in)*time.Microsecond, time.Duration(in*in%977)*time.Nanosecond-500
			q.push(a, b)
			want = append(want, [2]time.Duration{a, b})
			in++
		}
	}
	pop := func(k int) {
		for range k {
			a, b := q.pop()
			if w := want[out]; a != w[0] || b != w[1] {
				t.Fatalf("pair %d: (%v, %v), want %v", out, a, b, w)
			}
			out++
		}
	}
	push(3)
	pop(3) // empties
	push(100000)
	held := 0
	for _, b := range q.blocks {
		held += cap(b)
	}
	if per := float64(held) / float64(q.n); per > 6 {
		t.Errorf("%.1f bytes a pair", per)
	}
	pop(70000) // drops the blocks read
	push(10)
	pop(30010)
	if q.n != 0 || len(q.blocks) != 1 || len(q.blocks[0]) != 0 {
		t.Errorf("emptied queue holds %d pairs, %d blocks; want one empty block kept", q.n, len(q.blocks))
	}
}
