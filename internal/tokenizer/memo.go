package tokenizer

import (
	"hash/maphash"
	"slices"
	"sync"
)

// Encoding a text that shares a long prefix with a text encoded shortly
// before (generated prompts re-encode a truncated or extended decoding
// of every prompt) reuses the earlier pieces that cannot have changed.
//
// The split patterns look only forward from a piece's start, so the pieces
// of two texts agree up to the first piece whose scan examined a rune that
// is not common to both (or checked for the end of the text). Encode
// records, for every piece, the byte offset just past the last rune its
// scan examined (need); in a text that shares at least need leading bytes,
// that piece, and so its tokens, is the same. The result is exactly what
// encoding from scratch gives.

const (
	memoKeyLen   = 64       // texts shorter than this are not remembered
	memoMaxLen   = 1 << 24  // nor are texts this long or longer
	memoPerKey   = 4        // texts remembered per leading-bytes key
	memoMaxTexts = 256      // the memo is cleared when it would hold more keys
	memoMaxBytes = 64 << 20 // or more than about this many bytes
)

// memoPiece is one piece of a remembered text.
type memoPiece struct {
	start int32 // byte offset of the piece
	tok   int32 // index of its first token
	need  int32 // bytes another text must share for this piece to be the same
}

// memoEntry is a remembered encoding.
type memoEntry struct {
	text   string
	tokens []int32
	pieces []memoPiece
}

// size is roughly the memory an entry holds.
func (e *memoEntry) size() int {
	return len(e.text) + 4*len(e.tokens) + 12*len(e.pieces)
}

// encodeMemo maps the first memoKeyLen bytes of a text to the latest
// encodings of texts starting with them. It is safe for concurrent use.
type encodeMemo struct {
	seed    maphash.Seed
	mu      sync.Mutex
	entries map[uint64][]*memoEntry
	bytes   int // total size of the entries
}

func newEncodeMemo() *encodeMemo {
	return &encodeMemo{seed: maphash.MakeSeed(), entries: make(map[uint64][]*memoEntry)}
}

// best returns the remembered entry sharing the longest prefix with text
// (len(text) ≥ memoKeyLen) and the length of that prefix.
func (m *encodeMemo) best(text string) (*memoEntry, int) {
	h := maphash.String(m.seed, text[:memoKeyLen])
	m.mu.Lock()
	list := m.entries[h]
	m.mu.Unlock()
	var best *memoEntry
	bestLen := 0
	for _, e := range list {
		if n := commonPrefix(e.text, text); n > bestLen {
			best, bestLen = e, n
		}
	}
	return best, bestLen
}

// put remembers an encoding. tokens is copied; pieces is kept.
func (m *encodeMemo) put(text string, tokens []int, pieces []memoPiece) {
	narrow := make([]int32, len(tokens))
	for i, id := range tokens {
		narrow[i] = int32(id)
	}
	e := &memoEntry{text: text, tokens: narrow, pieces: pieces}
	h := maphash.String(m.seed, text[:memoKeyLen])
	m.mu.Lock()
	defer m.mu.Unlock()
	list, ok := m.entries[h]
	if !ok && len(m.entries) >= memoMaxTexts || m.bytes+e.size() > memoMaxBytes {
		clear(m.entries)
		list, m.bytes = nil, 0
	}
	if len(list) >= memoPerKey {
		m.bytes -= list[0].size()
		list = list[1:]
	}
	m.entries[h] = append(list[:len(list):len(list)], e)
	m.bytes += e.size()
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && a[i:i+8] == b[i:i+8] {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// widen appends ids to out as ints.
func widen(out []int, ids []int32) []int {
	out = slices.Grow(out, len(ids))
	for _, id := range ids {
		out = append(out, int(id))
	}
	return out
}
