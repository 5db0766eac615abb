package tokenizer

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// hfBPE is the BPE model of a tokenizer.json, merging by the rank of the
// merge rule of each adjacent pair of symbols, as Hugging Face's
// tokenizers crate does (unlike tiktoken, where the rank of the merged
// token decides).
//
// In byte-level mode (a ByteLevel pre-tokenizer) every token is keyed by
// the bytes it stands for instead of its GPT-2 alphabet spelling, so
// pieces are looked up and merged as raw bytes, with no mapping on the way
// in.
type hfBPE struct {
	vocab *vocabTable // encode key -> id
	// keys holds the encode key of every id (the vocabulary's token,
	// or in byte-level mode its bytes), "" where an id has none.
	keys  decoder
	pairs pairTable
	size  int // number of vocabulary entries

	byteLevel    bool
	byteID       [256]int32 // byte-level: the id of each single byte, -1 if none
	byteFallback bool
	fallback     [256]int32 // the id of <0xXX>, -1 if none
	unk          int32      // the unknown token's id, -1 if none
	fuseUnk      bool
	ignoreMerges bool

	cache pieceCache

	// bytePairs holds, in byte-level mode, the merge of every two bytes
	// (rank<<32 | merged id, rank noRank when none); see firstPair.
	bytePairs []uint64

	// wordSplit is set when no merge can join a character with a "▁"
	// after it (no token has "▁" after another character, and "▁" is a
	// token): a long SentencePiece-style piece is then tokenized word by
	// word, with the same result and each word cached.
	wordSplit bool

	// spelledMap maps the tokens outside the byte-level alphabet to
	// their ids, while loading (see spelled).
	spelledMap map[string]int32
	byID       []string
}

// buildKeys lays out the encode keys by id and builds the lookup table;
// it fails when two ids have the same key.
func (b *hfBPE) buildKeys(byID []string) error {
	var arena strings.Builder
	off := make([]uint32, len(byID)+1)
	var buf []byte
	for id, tok := range byID {
		off[id] = uint32(arena.Len())
		if tok == "" {
			continue
		}
		if b.byteLevel {
			var ok bool
			if buf, ok = appendUnByteLevel(buf[:0], tok); !ok {
				continue // unreachable from byte-level input
			}
			arena.Write(buf)
		} else {
			arena.WriteString(tok)
		}
	}
	off[len(byID)] = uint32(arena.Len())
	b.keys = decoder{arena: arena.String(), off: off}
	b.byID = byID
	var err error
	b.vocab, err = newVocabTable(b.keys)
	return err
}

// getKey looks an encode key up.
func (b *hfBPE) getKey(key []byte) (int32, bool) {
	id, ok := b.vocab.get(string(key))
	return int32(id), ok
}

// spelled returns the id of a token as the vocabulary spells it.
func (b *hfBPE) spelled(tok string) (int32, bool) {
	if !b.byteLevel {
		id, ok := b.vocab.get(tok)
		return int32(id), ok
	}
	if raw, ok := unByteLevel(tok); ok {
		id, found := b.vocab.get(raw)
		return int32(id), found
	}
	if b.spelledMap == nil {
		b.spelledMap = map[string]int32{}
		for id, t := range b.byID {
			if t != "" {
				if _, ok := unByteLevel(t); !ok {
					b.spelledMap[t] = int32(id)
				}
			}
		}
	}
	id, ok := b.spelledMap[tok]
	return id, ok
}

// bpeCacheMax is the longest piece (in bytes) whose tokens are cached.
// Long pieces (runs of CJK letters, whitespace or punctuation) are common
// in random-token text, and the cache is lossy, so it is generous.
const bpeCacheMax = 4096

// newHFBPE builds the model from the vocabulary and merges of a
// tokenizer.json "model" object of type BPE.
func newHFBPE(m *jvalue, byteLevel bool) (*hfBPE, error) {
	for _, k := range []string{"continuing_subword_prefix", "end_of_word_suffix"} {
		if s, err := m.get(k).optString("model."+k, ""); err != nil {
			return nil, err
		} else if s != "" {
			return nil, fmt.Errorf("model.%s %q is not supported", k, s)
		}
	}
	if d := m.get("dropout"); !d.isNull() {
		f, err := d.asFloat("model.dropout")
		if err != nil {
			return nil, err
		}
		if f != 0 {
			return nil, fmt.Errorf("model.dropout %v is not supported (BPE dropout is random)", f)
		}
	}
	b := &hfBPE{byteLevel: byteLevel, unk: -1, cache: newPieceCache()}
	var err error
	if b.byteFallback, err = m.get("byte_fallback").asBool("model.byte_fallback", false); err != nil {
		return nil, err
	}
	if b.fuseUnk, err = m.get("fuse_unk").asBool("model.fuse_unk", false); err != nil {
		return nil, err
	}
	if b.ignoreMerges, err = m.get("ignore_merges").asBool("model.ignore_merges", false); err != nil {
		return nil, err
	}

	vocab := m.get("vocab")
	if vocab == nil || vocab.kind != jObject {
		return nil, fmt.Errorf("model.vocab: want an object, got %s", vocab.kindName())
	}
	maxID := -1
	for i := range vocab.items() {
		e := &vocab.items()[i]
		if !e.isInt || e.num < 0 || e.num > maxRank24 {
			return nil, fmt.Errorf("model.vocab[%s]: want a token id, got %s", strconvQuote(vocab.names()[i]), e.kindName())
		}
		maxID = max(maxID, int(e.num))
	}
	// The token of every id; an id given to two tokens keeps the last
	// (Hugging Face's reverse map is as arbitrary).
	byID := make([]string, maxID+1)
	for i, tok := range vocab.names() {
		byID[vocab.items()[i].num] = tok
	}
	b.size = len(vocab.names())
	if err := b.buildKeys(byID); err != nil {
		// A token listed twice: the last of its ids wins, as in a Rust
		// HashMap. Rare, so done the slow way.
		last := make(map[string]int, len(vocab.names()))
		for i, tok := range vocab.names() {
			last[tok] = int(vocab.items()[i].num)
		}
		clear(byID)
		for tok, id := range last {
			byID[id] = tok
		}
		b.size = len(last)
		if err := b.buildKeys(byID); err != nil {
			return nil, fmt.Errorf("model.vocab: %w", err)
		}
	}

	for i := range b.byteID {
		b.byteID[i], b.fallback[i] = -1, -1
		if id, ok := b.vocab.get(string([]byte{byte(i)})); ok && byteLevel {
			b.byteID[i] = int32(id)
		}
		if id, ok := b.spelled(fmt.Sprintf("<0x%02X>", i)); ok {
			b.fallback[i] = id
		}
	}
	if u, err := m.get("unk_token").optString("model.unk_token", ""); err != nil {
		return nil, err
	} else if u != "" {
		// A missing unk token is an error only when it is needed, as in
		// Hugging Face; -2 marks that.
		b.unk = -2
		if id, ok := b.spelled(u); ok {
			b.unk = id
		}
	}

	merges := m.get("merges")
	if merges.isNull() {
		merges = &jvalue{kind: jArray}
	}
	if merges.kind != jArray {
		return nil, fmt.Errorf("model.merges: want an array, got %s", merges.kindName())
	}
	b.pairs = newPairTable(len(merges.items()))
	rank := 0
	var buf []byte
	for i := range merges.items() {
		e := &merges.items()[i]
		var l, r string
		switch e.kind {
		case jString:
			if strings.HasPrefix(e.str, "#version") {
				continue
			}
			var ok bool
			if l, r, ok = strings.Cut(e.str, " "); !ok || strings.Contains(r, " ") {
				return nil, fmt.Errorf("model.merges[%d]: %q is not two tokens separated by a space", i, e.str)
			}
		case jArray:
			if len(e.items()) != 2 || e.items()[0].kind != jString || e.items()[1].kind != jString {
				return nil, fmt.Errorf("model.merges[%d]: want a pair of strings", i)
			}
			l, r = e.items()[0].str, e.items()[1].str
		default:
			return nil, fmt.Errorf("model.merges[%d]: want a string or a pair of strings, got %s", i, e.kindName())
		}
		var lid, rid, nid int32
		var ok1, ok2, ok3 bool
		if b.byteLevel {
			// Look the parts and their join up by their bytes.
			var okL, okR bool
			buf, okL = appendUnByteLevel(buf[:0], l)
			nl := len(buf)
			buf, okR = appendUnByteLevel(buf, r)
			if okL && okR {
				lid, ok1 = b.getKey(buf[:nl])
				rid, ok2 = b.getKey(buf[nl:])
				nid, ok3 = b.getKey(buf)
			}
		} else {
			lid, ok1 = b.spelled(l)
			rid, ok2 = b.spelled(r)
			buf = append(append(buf[:0], l...), r...)
			nid, ok3 = b.getKey(buf)
		}
		if !ok1 || !ok2 || !ok3 {
			// The slow way, for tokens outside the byte-level alphabet.
			lid, ok1 = b.spelled(l)
			rid, ok2 = b.spelled(r)
			nid, ok3 = b.spelled(l + r)
		}
		switch {
		case !ok1:
			return nil, fmt.Errorf("model.merges[%d]: token %q is not in the vocabulary", i, l)
		case !ok2:
			return nil, fmt.Errorf("model.merges[%d]: token %q is not in the vocabulary", i, r)
		case !ok3:
			return nil, fmt.Errorf("model.merges[%d]: merged token %q is not in the vocabulary", i, l+r)
		}
		b.pairs.put(lid, rid, uint32(rank), nid)
		rank++
	}
	b.spelledMap = nil
	if byteLevel && !slices.Contains(b.byteID[:], -1) {
		b.bytePairs = make([]uint64, 1<<16)
		for x := range 256 {
			for y := range 256 {
				r, m := b.pairs.get(b.byteID[x], b.byteID[y])
				b.bytePairs[x<<8|y] = uint64(r)<<32 | uint64(uint32(m))
			}
		}
	}
	if !b.byteLevel {
		_, hasMeta := b.vocab.get(metaChar)
		b.wordSplit = hasMeta
		for _, tok := range byID {
			if strings.Contains(strings.TrimLeft(tok, metaChar), metaChar) {
				b.wordSplit = false
				break
			}
		}
	}
	return b, nil
}

// strconvQuote quotes s for an error message, shortened when long.
func strconvQuote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// metaChar is SentencePiece's word marker, U+2581.
const metaChar = "\u2581"

// tokenize appends the ids of one pre-tokenized piece (raw bytes in
// byte-level mode, the normalized text otherwise). It fails only when an
// unknown character needs an unknown token that the vocabulary lacks.
func (b *hfBPE) tokenize(piece string, out []int) ([]int, error) {
	if piece == "" {
		return out, nil
	}
	if b.wordSplit && len(piece) > 64 {
		// Split before each "▁" that follows another character.
		start := 0
		for i := 1; i < len(piece); {
			j := strings.Index(piece[i:], metaChar)
			if j < 0 {
				break
			}
			i += j
			if !strings.HasSuffix(piece[:i], metaChar) {
				var err error
				if out, err = b.tokenizeWord(piece[start:i], out); err != nil {
					return out, err
				}
				start = i
			}
			i += len(metaChar)
		}
		return b.tokenizeWord(piece[start:], out)
	}
	return b.tokenizeWord(piece, out)
}

// tokenizeWord is tokenize without word splitting.
func (b *hfBPE) tokenizeWord(piece string, out []int) ([]int, error) {
	if b.ignoreMerges {
		if id, ok := b.vocab.get(piece); ok {
			return append(out, int(id)), nil
		}
	}
	var h uint64
	cacheable := len(piece) <= bpeCacheMax
	if cacheable {
		lo, hi := packKey(piece)
		h = vhash(lo, hi, piece)
		if toks, ok := b.cache.get(piece, h); ok {
			return append(out, toks...), nil
		}
	}
	var symBuf [64]int32
	syms, err := b.symbols(piece, symBuf[:0])
	if err != nil {
		return out, err
	}
	if len(syms) <= smallPiece {
		syms = b.mergeSmall(syms, piece)
	} else {
		syms = b.mergeHeap(syms, piece)
	}
	n := len(out)
	for _, s := range syms {
		out = append(out, int(s))
	}
	if cacheable {
		b.cache.put(piece, h, out[n:])
	}
	return out, nil
}

// symbols returns the initial symbols of a piece: one per byte in
// byte-level mode, else one per character, with byte fallback and unknown
// tokens as Hugging Face's BPE::merge_word makes them. An unknown
// character waits (fused with the next unknown one when fuse_unk) until a
// known character or the end of the piece adds it; byte-fallback tokens
// do not flush it, exactly as upstream.
func (b *hfBPE) symbols(piece string, syms []int32) ([]int32, error) {
	pending := false
	for i := 0; i < len(piece); {
		var ch string // the character, as the model's vocabulary spells it
		if b.byteLevel {
			c := piece[i]
			i++
			if id := b.byteID[c]; id >= 0 {
				if pending {
					syms, pending = append(syms, b.unk), false
				}
				syms = append(syms, id)
				continue
			}
			ch = byteLevelChar[c]
		} else {
			_, size := utf8.DecodeRuneInString(piece[i:])
			ch = piece[i : i+size]
			i += size
			if id, ok := b.vocab.get(ch); ok {
				if pending {
					syms, pending = append(syms, b.unk), false
				}
				syms = append(syms, int32(id))
				continue
			}
		}
		if b.byteFallback && b.hasFallback(ch) {
			for k := 0; k < len(ch); k++ {
				syms = append(syms, b.fallback[ch[k]])
			}
			continue
		}
		switch b.unk {
		case -1:
			continue // no unknown token: the character is dropped
		case -2:
			return nil, fmt.Errorf("the unknown token is not in the vocabulary")
		}
		if pending && !b.fuseUnk {
			syms = append(syms, b.unk)
		}
		pending = true
	}
	if pending {
		syms = append(syms, b.unk)
	}
	return syms, nil
}

// hasFallback reports whether every byte of ch has a <0xXX> token.
func (b *hfBPE) hasFallback(ch string) bool {
	for k := 0; k < len(ch); k++ {
		if b.fallback[ch[k]] < 0 {
			return false
		}
	}
	return true
}

// firstPair returns the merge of the initial symbols i and i+1. When they
// are the piece's bytes (byte-level mode with all 256 bytes), a direct
// table answers: the first round of merges is where most lookups are,
// and the 512 KB table stays in the CPU caches where the pair table
// does not.
func (b *hfBPE) firstPair(syms []int32, piece string, i int) (uint32, int32) {
	if b.bytePairs != nil && len(piece) == len(syms) {
		v := b.bytePairs[int(piece[i])<<8|int(piece[i+1])]
		return uint32(v >> 32), int32(uint32(v))
	}
	return b.pairs.get(syms[i], syms[i+1])
}

// mergeSmall applies the merges by scanning for the pair of lowest rank
// (the leftmost among equals) until none is left: O(n²), fast for the
// short pieces most pre-tokenizers produce.
func (b *hfBPE) mergeSmall(syms []int32, piece string) []int32 {
	n := len(syms)
	if n < 2 {
		return syms
	}
	var rankBuf [smallPiece]uint32
	var newBuf [smallPiece]int32
	ranks, merged := rankBuf[:n-1], newBuf[:n-1]
	for i := 0; i+1 < n; i++ {
		ranks[i], merged[i] = b.firstPair(syms, piece, i)
	}
	for {
		best, at := uint32(noRank), -1
		for i, r := range ranks {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			return syms
		}
		syms[at] = merged[at]
		syms = slices.Delete(syms, at+1, at+2)
		ranks = slices.Delete(ranks, at, at+1)
		merged = slices.Delete(merged, at, at+1)
		if at < len(ranks) {
			ranks[at], merged[at] = b.pairs.get(syms[at], syms[at+1])
		}
		if at > 0 {
			ranks[at-1], merged[at-1] = b.pairs.get(syms[at-1], syms[at])
		}
	}
}

// mergeHeap gives the result of mergeSmall in O(n log n): the symbols form
// a linked list, candidate merges wait in a min-heap ordered by (rank,
// position), and an entry whose pair has changed since it was pushed is
// skipped when popped. This is Hugging Face's Word::merge_all.
func (b *hfBPE) mergeHeap(syms []int32, piece string) []int32 {
	n := len(syms)
	sc := mergeScratchPool.Get().(*mergeScratch)
	defer mergeScratchPool.Put(sc)
	next := slices.Grow(sc.next[:0], n)[:n] // next live symbol, n at the end
	prev := slices.Grow(sc.prev[:0], n)[:n] // previous live symbol, -1 at the start
	for i := range n {
		next[i], prev[i] = int32(i+1), int32(i-1)
	}
	h := mergeHeap(sc.heap[:0])
	for i := 0; i+1 < n; i++ {
		if r, m := b.firstPair(syms, piece, i); r != noRank {
			h = append(h, mergeItem{rank: r, pos: int32(i), merged: m})
		}
	}
	h.init()
	for len(h) > 0 {
		it := h.pop()
		i := it.pos
		if syms[i] < 0 {
			continue // merged into its left neighbour
		}
		j := next[i]
		if int(j) >= n {
			continue
		}
		if r, m := b.pairs.get(syms[i], syms[j]); r != it.rank || m != it.merged {
			continue // stale
		}
		syms[i] = it.merged
		syms[j] = -1
		next[i] = next[j]
		if int(next[j]) < n {
			prev[next[j]] = i
		}
		if p := prev[i]; p >= 0 {
			if r, m := b.pairs.get(syms[p], syms[i]); r != noRank {
				h.push(mergeItem{rank: r, pos: p, merged: m})
			}
		}
		if k := next[i]; int(k) < n {
			if r, m := b.pairs.get(syms[i], syms[k]); r != noRank {
				h.push(mergeItem{rank: r, pos: i, merged: m})
			}
		}
	}
	out := syms[:0]
	for i := int32(0); int(i) < n; i = next[i] {
		out = append(out, syms[i])
	}
	if cap(next) <= 1<<20 {
		sc.next, sc.prev, sc.heap = next, prev, h
	} else {
		sc.next, sc.prev, sc.heap = nil, nil, nil
	}
	return out
}

// mergeScratch holds mergeHeap's buffers between calls.
type mergeScratch struct {
	next, prev []int32
	heap       mergeHeap
}

var mergeScratchPool = sync.Pool{New: func() any { return new(mergeScratch) }}

// mergeItem is a candidate merge of the symbol at pos with the next one.
type mergeItem struct {
	rank   uint32
	pos    int32
	merged int32
}

// less orders merges by rank, then position: the leftmost of the lowest.
func (a mergeItem) less(b mergeItem) bool {
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}

// mergeHeap is a binary min-heap of mergeItem.
type mergeHeap []mergeItem

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(it mergeItem) {
	*h = append(*h, it)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *mergeHeap) pop() mergeItem {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

func (h mergeHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// pairTable maps a pair of ids to the rank of its merge and the merged id,
// with open addressing; key and value share a cache line.
type pairTable struct {
	slots []pairSlot
	mask  uint64
}

type pairSlot struct {
	key uint64 // left<<32 | right; emptyPair when free
	val uint64 // rank<<32 | merged id
}

const emptyPair = ^uint64(0)

func newPairTable(n int) pairTable {
	size := 1 << bits.Len(uint(n*2+1))
	t := pairTable{slots: make([]pairSlot, size), mask: uint64(size - 1)}
	for i := range t.slots {
		t.slots[i].key = emptyPair
	}
	return t
}

func pairHash(k uint64) uint64 {
	k *= 0x9E3779B97F4A7C15
	return k ^ k>>29
}

// put sets the merge of (l, r); a later merge of the same pair replaces
// an earlier one, as in Hugging Face's map.
func (t *pairTable) put(l, r int32, rank uint32, merged int32) {
	k := uint64(uint32(l))<<32 | uint64(uint32(r))
	for i := pairHash(k) & t.mask; ; i = (i + 1) & t.mask {
		if s := &t.slots[i]; s.key == emptyPair || s.key == k {
			s.key = k
			s.val = uint64(rank)<<32 | uint64(uint32(merged))
			return
		}
	}
}

// get returns the rank and merged id of (l, r), noRank if there is no
// such merge.
func (t *pairTable) get(l, r int32) (uint32, int32) {
	k := uint64(uint32(l))<<32 | uint64(uint32(r))
	for i := pairHash(k) & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		switch s.key {
		case k:
			return uint32(s.val >> 32), int32(uint32(s.val))
		case emptyPair:
			return noRank, -1
		}
	}
}
