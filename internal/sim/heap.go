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
type dueHeap[T dueItem] struct{ s []T }

func (h *dueHeap[T]) len() int { return len(h.s) }

// push adds x.
func (h *dueHeap[T]) push(x T) {
	h.s = append(h.s, x)
	*x.heapIndex() = len(h.s) - 1
	h.up(len(h.s) - 1)
}

// remove takes out and returns the entry at index i (0 is the earliest).
func (h *dueHeap[T]) remove(i int) T {
	s := h.s
	x := s[i]
	n := len(s) - 1
	*x.heapIndex() = -1
	if i != n {
		s[i] = s[n]
		*s[i].heapIndex() = i
	}
	var zero T
	s[n] = zero
	h.s = s[:n]
	if i != n {
		h.down(i)
		h.up(i)
	}
	return x
}

func (h *dueHeap[T]) up(i int) {
	s := h.s
	for i > 0 {
		p := (i - 1) / 2
		if s[p].dueTime() <= s[i].dueTime() {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *dueHeap[T]) down(i int) {
	s := h.s
	n := len(s)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && s[r].dueTime() < s[l].dueTime() {
			m = r
		}
		if s[i].dueTime() <= s[m].dueTime() {
			return
		}
		h.swap(i, m)
		i = m
	}
}

func (h *dueHeap[T]) swap(i, j int) {
	s := h.s
	s[i], s[j] = s[j], s[i]
	*s[i].heapIndex() = i
	*s[j].heapIndex() = j
}
