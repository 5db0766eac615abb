package sim

import "time"

// dueItem is an entry of a dueHeap: its due time, and where the heap keeps
// its index.
type dueItem interface {
	dueTime() time.Duration
	heapIndex() *int
}

// dueHeap is a min-heap by due time whose entries know their index (-1
// once out of the heap), so that one can be removed from the middle. It
// serves the waker and the stream loops; its user guards it.
//
// Each slot holds the entry's due time and the address of its index next
// to the entry, so sifting compares and re-indexes without a method call
// and without touching the entries themselves: with thousands of streams,
// whose states are scattered over the heap of the process, that is most of
// the cost of a sift.
type dueHeap[T dueItem] struct{ s []dueSlot[T] }

// dueSlot is one place of a dueHeap.
type dueSlot[T dueItem] struct {
	due time.Duration
	idx *int
	x   T
}

func (h *dueHeap[T]) len() int { return len(h.s) }

// first returns the earliest entry; the heap must not be empty.
func (h *dueHeap[T]) first() T { return h.s[0].x }

// firstDue returns the earliest due time; the heap must not be empty.
func (h *dueHeap[T]) firstDue() time.Duration { return h.s[0].due }

// push adds x, due at x.dueTime(), which must not change while x is in the
// heap.
func (h *dueHeap[T]) push(x T) {
	i := len(h.s)
	h.s = append(h.s, dueSlot[T]{due: x.dueTime(), idx: x.heapIndex(), x: x})
	*h.s[i].idx = i
	h.up(i)
}

// remove takes out and returns the entry at index i (0 is the earliest).
func (h *dueHeap[T]) remove(i int) T {
	s := h.s
	x := s[i]
	n := len(s) - 1
	*x.idx = -1
	if i != n {
		s[i] = s[n]
		*s[i].idx = i
	}
	s[n] = dueSlot[T]{}
	h.s = s[:n]
	if i != n {
		h.down(i)
		h.up(i)
	}
	return x.x
}

func (h *dueHeap[T]) up(i int) {
	s := h.s
	e := s[i]
	for i > 0 {
		p := (i - 1) / 2
		if s[p].due <= e.due {
			break
		}
		s[i] = s[p]
		*s[i].idx = i
		i = p
	}
	s[i] = e
	*e.idx = i
}

func (h *dueHeap[T]) down(i int) {
	s := h.s
	n := len(s)
	e := s[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].due < s[l].due {
			m = r
		}
		if e.due <= s[m].due {
			break
		}
		s[i] = s[m]
		*s[i].idx = i
		i = m
	}
	s[i] = e
	*e.idx = i
}
