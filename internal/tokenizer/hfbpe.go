package tokenizer

import (
	"fmt"
	"math/bits"
	"runtime"
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
	// names and hasName are each id's token for decoding, and dupNames
	// the greatest token of an id given to two, until newHF takes them.
	names    []string
	hasName  []bool
	dupNames map[int32]string

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
	size := 0
	for _, tok := range byID {
		size += len(tok)
	}
	arena.Grow(size)
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
	merges := m.get("merges")
	if merges.isNull() {
		merges = &jvalue{kind: jArray}
	}
	if merges.kind != jArray {
		return nil, fmt.Errorf("model.merges: want an array, got %s", merges.kindName())
	}
	// The merges are read while the vocabulary is built: the two are
	// independent until the merges are looked up in it.
	var pairs *bpeMerges
	var mergesErr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		pairs, mergesErr = readMerges(merges, byteLevel)
	}()
	defer func() { <-read }()
	if err := b.readVocab(vocab); err != nil {
		return nil, err
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

	<-read
	if mergesErr != nil {
		return nil, mergesErr
	}
	if err := b.resolveMerges(pairs); err != nil {
		return nil, err
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
		for _, tok := range b.byID {
			if strings.Contains(strings.TrimLeft(tok, metaChar), metaChar) {
				b.wordSplit = false
				break
			}
		}
	}
	return b, nil
}

// readVocab reads the vocabulary object and builds the encode keys.
func (b *hfBPE) readVocab(vocab *jvalue) error {
	// The token of every id; an id given to two tokens keeps the last
	// (Hugging Face's reverse map is as arbitrary) for encoding, and the
	// greatest for decoding (names, dupNames).
	byID := make([]string, vocab.size())
	seen := make([]bool, vocab.size())
	var dupNames map[int32]string
	maxID, count := -1, 0
	if err := vocab.each(func(tok string, e *jvalue) error {
		if !e.isInt || e.num < 0 || e.num > maxRank24 {
			return fmt.Errorf("model.vocab[%s]: want a token id, got %s", strconvQuote(tok), e.kindName())
		}
		id := int(e.num)
		if id >= len(byID) {
			byID = append(byID, make([]string, id+1-len(byID))...)
			seen = append(seen, make([]bool, id+1-len(seen))...)
		}
		if seen[id] {
			if dupNames == nil {
				dupNames = map[int32]string{}
			}
			greatest, ok := dupNames[int32(id)]
			if !ok {
				greatest = byID[id]
			}
			dupNames[int32(id)] = max(greatest, tok)
		}
		byID[id], seen[id] = tok, true
		maxID, count = max(maxID, id), count+1
		return nil
	}); err != nil {
		return err
	}
	byID, seen = byID[:maxID+1], seen[:maxID+1]
	b.names, b.hasName, b.dupNames = byID, seen, dupNames
	b.size = count
	if err := b.buildKeys(byID); err != nil {
		// A token listed twice: the last of its ids wins, as in a Rust
		// HashMap. Rare, so done the slow way.
		b.names = slices.Clone(byID)
		last := make(map[string]int, count)
		_ = vocab.each(func(tok string, e *jvalue) error {
			last[tok] = int(e.num)
			return nil
		})
		clear(byID)
		for tok, id := range last {
			byID[id] = tok
		}
		b.size = len(last)
		if err := b.buildKeys(byID); err != nil {
			return fmt.Errorf("model.vocab: %w", err)
		}
	}
	return nil
}

// bpeMerges are the merges list read: each merge's sides as encode keys
// (byte-level sides as their bytes), left then right, in one arena, so
// that what is held has no pointers and the lookups need no conversion.
type bpeMerges struct {
	list  []bpeMerge
	arena []byte
	// spelled holds, by index in list, the sides of a merge whose keys
	// could not be made (a byte-level token outside the alphabet): they
	// are looked up as spelled.
	spelled map[int][2]string
}

// bpeMerge is one merge: where its keys are in the arena, and its index
// in the merges list.
type bpeMerge struct {
	off, nl, nr uint32
	at          int32
}

// readMerges reads the merges list, in rank order ("#version" lines
// skipped).
func readMerges(merges *jvalue, byteLevel bool) (*bpeMerges, error) {
	ms := &bpeMerges{list: make([]bpeMerge, 0, merges.size()), arena: make([]byte, 0, 8*merges.size())}
	add := func(l, r string, at int) {
		off := len(ms.arena)
		okL, okR := true, true
		var mid int
		if byteLevel {
			ms.arena, okL = appendUnByteLevel(ms.arena, l)
			mid = len(ms.arena)
			ms.arena, okR = appendUnByteLevel(ms.arena, r)
		} else {
			ms.arena = append(ms.arena, l...)
			mid = len(ms.arena)
			ms.arena = append(ms.arena, r...)
		}
		m := bpeMerge{off: uint32(off), nl: uint32(mid - off), nr: uint32(len(ms.arena) - mid), at: int32(at)}
		if !okL || !okR {
			ms.arena, m.nl, m.nr = ms.arena[:off], 0, 0
			if ms.spelled == nil {
				ms.spelled = map[int][2]string{}
			}
			ms.spelled[len(ms.list)] = [2]string{l, r}
		}
		ms.list = appendDoubling(ms.list, m)
	}
	i := -1
	err := merges.each(func(_ string, e *jvalue) error {
		i++
		switch e.kind {
		case jString:
			if strings.HasPrefix(e.str, "#version") {
				return nil
			}
			l, r, ok := strings.Cut(e.str, " ")
			if !ok || strings.Contains(r, " ") {
				return fmt.Errorf("model.merges[%d]: %q is not two tokens separated by a space", i, e.str)
			}
			add(l, r, i)
		case jArray:
			if len(e.items()) != 2 || e.items()[0].kind != jString || e.items()[1].kind != jString {
				return fmt.Errorf("model.merges[%d]: want a pair of strings", i)
			}
			add(e.items()[0].str, e.items()[1].str, i)
		default:
			return fmt.Errorf("model.merges[%d]: want a string or a pair of strings, got %s", i, e.kindName())
		}
		return nil
	})
	return ms, err
}

// resolveMerges looks each merge's sides and their join up in the
// vocabulary, on every core, and fills the pair table in rank order (a pair
// listed twice keeps its last rank).
func (b *hfBPE) resolveMerges(ms *bpeMerges) error {
	type resolved struct {
		l, r, n int32
		ok      bool
	}
	res := make([]resolved, len(ms.list))
	// A vocabulary trained by BPE often gives merge k's token the id
	// base+k: that is checked against the id's key, a comparison instead
	// of a lookup.
	base := -1
	if len(ms.list) > 0 && ms.spelled[0] == ([2]string{}) {
		m := ms.list[0]
		if id, ok := b.getKey(ms.arena[m.off : m.off+m.nl+m.nr]); ok {
			base = int(id)
		}
	}
	// The keys, on every core; what they miss is looked up below, in
	// order, as spelled.
	parallelRange(len(ms.list), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			m := ms.list[k]
			if _, slow := ms.spelled[k]; slow {
				continue
			}
			key := ms.arena[m.off : m.off+m.nl+m.nr]
			x := &res[k]
			var ok1, ok2, ok3 bool
			x.l, ok1 = b.getKey(key[:m.nl])
			x.r, ok2 = b.getKey(key[m.nl:])
			if guess := base + k; base >= 0 && b.keys.token(guess) == string(key) {
				x.n, ok3 = int32(guess), true
			} else {
				x.n, ok3 = b.getKey(key)
			}
			x.ok = ok1 && ok2 && ok3
		}
	})
	b.pairs = newPairTable(len(ms.list))
	for rank, m := range ms.list {
		x := res[rank]
		if !x.ok {
			// The slow way, for tokens outside the byte-level alphabet.
			var l, r string
			if sides, ok := ms.spelled[rank]; ok {
				l, r = sides[0], sides[1]
			} else {
				l, r = b.spelledSide(ms.arena[m.off:m.off+m.nl]), b.spelledSide(ms.arena[m.off+m.nl:m.off+m.nl+m.nr])
			}
			var ok1, ok2, ok3 bool
			x.l, ok1 = b.spelled(l)
			x.r, ok2 = b.spelled(r)
			x.n, ok3 = b.spelled(l + r)
			switch {
			case !ok1:
				return fmt.Errorf("model.merges[%d]: token %q is not in the vocabulary", m.at, l)
			case !ok2:
				return fmt.Errorf("model.merges[%d]: token %q is not in the vocabulary", m.at, r)
			case !ok3:
				return fmt.Errorf("model.merges[%d]: merged token %q is not in the vocabulary", m.at, l+r)
			}
		}
		b.pairs.put(x.l, x.r, uint32(rank), x.n)
	}
	return nil
}

// spelledSide is a merge side as the vocabulary spells it, from its key
// (in byte-level mode, its bytes spelled in the byte-level alphabet).
func (b *hfBPE) spelledSide(key []byte) string {
	if !b.byteLevel {
		return string(key)
	}
	var sb strings.Builder
	for _, c := range key {
		sb.WriteString(byteLevelChar[c])
	}
	return sb.String()
}

// parallelRange calls fn on consecutive ranges covering [0, n), one per
// core, and waits for them.
func parallelRange(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/4096))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(n*w/workers, n*(w+1)/workers)
		}()
	}
	wg.Wait()
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
