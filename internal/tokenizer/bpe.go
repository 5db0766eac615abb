package tokenizer

import (
	"container/heap"
	"math"
	"slices"
	"strings"
	"sync/atomic"
)

// noRank marks a pair of parts that is not a token.
const noRank = math.MaxUint32

// smallPiece is the longest piece (in bytes) merged with the quadratic
// array scan; longer pieces use a heap.
const smallPiece = 64

// bpe holds a byte-level BPE vocabulary in tiktoken's form: a token's rank
// is its id, and merging two adjacent parts is allowed when their
// concatenation is a token.
type bpe struct {
	vocab *vocabTable
	// pair holds the rank of every two-byte string, noRank where it is
	// not a token: the first round of every merge looks there instead of
	// hashing.
	pair []uint32
	// cache remembers the tokens of pieces that needed merging.
	cache pieceCache
}

// newBPE builds the merge tables for the tokens in dec.
func newBPE(dec decoder) (bpe, error) {
	vt, err := newVocabTable(dec)
	if err != nil {
		return bpe{}, err
	}
	pair := make([]uint32, 1<<16)
	for i := range pair {
		pair[i] = noRank
	}
	for r := 0; r+1 < len(dec.off); r++ {
		if s := dec.token(r); len(s) == 2 {
			pair[int(s[0])<<8|int(s[1])] = uint32(r)
		}
	}
	return bpe{vocab: vt, pair: pair, cache: newPieceCache()}, nil
}

// rank returns the rank of s, or noRank.
func (b *bpe) rank(s string) uint32 {
	if r, ok := b.vocab.get(s); ok {
		return r
	}
	return noRank
}

// merge appends the tokens of a pre-tokenizer piece that is not itself a
// token, following tiktoken's byte_pair_encode: start from single bytes and
// repeatedly join the adjacent pair whose concatenation has the lowest
// rank, the leftmost one among equals, until no adjacent pair is a token.
// Results are cached.
func (b *bpe) merge(piece string, out []int) []int {
	lo, hi := packKey(piece)
	h := vhash(lo, hi, piece)
	if toks, ok := b.cache.get(piece, h); ok {
		return append(out, toks...)
	}
	n := len(out)
	if len(piece) <= smallPiece {
		out = b.mergeSmall(piece, out)
	} else {
		out = b.mergeHeap(piece, out)
	}
	b.cache.put(piece, h, out[n:])
	return out
}

// mergeSmall is the merge loop over arrays, O(n²) for a piece of n bytes.
func (b *bpe) mergeSmall(piece string, out []int) []int {
	n := len(piece)
	var startBuf [smallPiece + 1]int32
	var rankBuf [smallPiece]uint32
	starts := startBuf[:n+1] // part i is piece[starts[i]:starts[i+1]]
	ranks := rankBuf[:n]     // ranks[i] is the rank of parts i and i+1 joined
	for i := range starts {
		starts[i] = int32(i)
	}
	for i := 0; i+1 < n; i++ {
		ranks[i] = b.pair[int(piece[i])<<8|int(piece[i+1])]
	}
	m := n // number of parts
	for {
		best, at := uint32(noRank), -1
		for i := 0; i+1 < m; i++ {
			if ranks[i] < best {
				best, at = ranks[i], i
			}
		}
		if at < 0 {
			break
		}
		// Join parts at and at+1: drop boundary at+1 and pair at+1.
		copy(starts[at+1:m], starts[at+2:m+1])
		copy(ranks[at+1:m-1], ranks[at+2:m])
		m--
		if at+1 < m {
			ranks[at] = b.rank(piece[starts[at]:starts[at+2]])
		}
		if at > 0 {
			ranks[at-1] = b.rank(piece[starts[at-1]:starts[at+1]])
		}
	}
	for i := 0; i < m; i++ {
		out = append(out, int(b.rank(piece[starts[i]:starts[i+1]])))
	}
	return out
}

// mergeHeap gives the same result as mergeSmall in O(n log n): parts form
// a linked list and candidate pairs wait in a min-heap ordered by (rank,
// start offset), which is the scan's "lowest rank, leftmost first"; stale
// entries are skipped when popped.
func (b *bpe) mergeHeap(piece string, out []int) []int {
	n := len(piece)
	next := make([]int32, n) // next part start, n at the end
	prev := make([]int32, n) // previous part start, -1 at the start
	alive := make([]bool, n)
	for i := 0; i < n; i++ {
		next[i], prev[i], alive[i] = int32(i+1), int32(i-1), true
	}
	h := make(pairHeap, 0, n)
	pairRank := func(i int32) uint32 {
		j := next[i]
		if int(j) >= n {
			return noRank
		}
		return b.rank(piece[i:next[j]])
	}
	for i := 0; i+1 < n; i++ {
		if r := b.pair[int(piece[i])<<8|int(piece[i+1])]; r != noRank {
			h = append(h, pairItem{rank: r, start: int32(i)})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		it := heap.Pop(&h).(pairItem)
		i := it.start
		if !alive[i] || int(next[i]) >= n || pairRank(i) != it.rank {
			continue // stale: a part changed since this entry was pushed
		}
		j := next[i]
		alive[j] = false
		next[i] = next[j]
		if int(next[j]) < n {
			prev[next[j]] = i
		}
		if r := pairRank(i); r != noRank {
			heap.Push(&h, pairItem{rank: r, start: i})
		}
		if p := prev[i]; p >= 0 {
			if r := pairRank(p); r != noRank {
				heap.Push(&h, pairItem{rank: r, start: p})
			}
		}
	}
	for i := int32(0); int(i) < n; i = next[i] {
		out = append(out, int(b.rank(piece[i:next[i]])))
	}
	return out
}

// pairItem is a candidate merge of the part starting at start with the
// part after it.
type pairItem struct {
	rank  uint32
	start int32
}

// pairHeap is a min-heap of pairItem by (rank, start).
type pairHeap []pairItem

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].start < h[j].start
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairItem)) }
func (h *pairHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// pieceCache is a concurrent, lossy map from a piece to its tokens. Text
// built from runs of consecutive token ids, as random-token prompts build
// it, repeats the same pieces across prompts, so most merges are answered
// here. Reads take no lock: slots hold immutable entries, installed with
// compare-and-swap or overwritten when their probe window is full.
type pieceCache struct {
	slots []atomic.Pointer[cacheEntry]
	mask  uint64
}

type cacheEntry struct {
	key  string
	toks []int
}

const (
	cacheSlots = 1 << 18
	cacheProbe = 4
)

func newPieceCache() pieceCache {
	return pieceCache{slots: make([]atomic.Pointer[cacheEntry], cacheSlots), mask: cacheSlots - 1}
}

// get returns the cached tokens of piece, whose vhash is h.
func (c *pieceCache) get(piece string, h uint64) ([]int, bool) {
	for k := uint64(0); k < cacheProbe; k++ {
		e := c.slots[(h+k)&c.mask].Load()
		if e == nil {
			return nil, false
		}
		if e.key == piece {
			return e.toks, true
		}
	}
	return nil, false
}

// put caches a copy of toks for piece.
func (c *pieceCache) put(piece string, h uint64, toks []int) {
	e := &cacheEntry{key: strings.Clone(piece), toks: slices.Clone(toks)}
	for k := uint64(0); k < cacheProbe; k++ {
		if c.slots[(h+k)&c.mask].CompareAndSwap(nil, e) {
			return
		}
	}
	c.slots[h&c.mask].Store(e)
}
