package tokenizer

import (
	"slices"
	"sync"
	"unicode/utf8"
)

// runeText is a string decoded once into per-rune classes and byte offsets,
// so the split patterns can look backwards and forwards by rune index.
// cls and off have n+1 entries: cls[n] is 0 and off[n] is len(text), which
// lets the scanners run off the end without bounds checks of their own.
//
// hi is the highest rune index a scan has examined, t.n meaning it checked
// for the end of the text; Encode uses it to know which pieces stay the
// same in another text that shares a prefix with this one.
type runeText struct {
	text string
	cls  []uint8
	off  []int
	n    int
	hi   int
}

// look records that rune i (the end of the text when i ≥ n) was examined.
func (t *runeText) look(i int) {
	if i > t.hi {
		t.hi = i
	}
}

var runeTextPool = sync.Pool{New: func() any { return new(runeText) }}

// decodeRunes fills a pooled runeText for text; ok is false (and the
// runeText nil) when text is not valid UTF-8.
func decodeRunes(text string) (rt *runeText, ok bool) {
	t := runeTextPool.Get().(*runeText)
	table := classes()
	t.text = text
	cls := slices.Grow(t.cls[:0], len(text)+1)[:len(text)+1]
	off := slices.Grow(t.off[:0], len(text)+1)[:len(text)+1]
	n := 0
	for i := 0; i < len(text); n++ {
		c := text[i]
		off[n] = i
		if c < utf8.RuneSelf {
			cls[n] = table[c]
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			t.cls, t.off = cls, off
			t.release()
			return nil, false
		}
		cls[n] = table[r]
		i += size
	}
	cls[n], off[n] = 0, len(text)
	t.cls, t.off, t.n = cls[:n+1], off[:n+1], n
	return t, true
}

func (t *runeText) release() {
	t.text = ""
	if cap(t.cls) > 1<<20 {
		return // let very large buffers go
	}
	runeTextPool.Put(t)
}

// b returns the first byte of rune i (the rune itself when it is ASCII).
func (t *runeText) b(i int) byte {
	t.look(i)
	return t.text[t.off[i]]
}

// isNL reports whether rune i is \r or \n.
func (t *runeText) isNL(i int) bool {
	t.look(i)
	if i >= t.n {
		return false
	}
	c := t.b(i)
	return c == '\r' || c == '\n'
}

// isNRLN reports whether rune i is in [^\r\n\p{L}\p{N}].
func (t *runeText) isNRLN(i int) bool {
	t.look(i)
	return i < t.n && t.cls[i]&(clsL|clsN) == 0 && !t.isNL(i)
}

// isP reports whether rune i is in [^\s\p{L}\p{N}].
func (t *runeText) isP(i int) bool {
	t.look(i)
	return i < t.n && t.cls[i]&(clsS|clsL|clsN) == 0
}

// isByte reports whether rune i is the ASCII character c.
func (t *runeText) isByte(i int, c byte) bool {
	t.look(i)
	return i < t.n && t.b(i) == c
}

// is reports whether rune i has any of the class bits.
func (t *runeText) is(i int, bits uint8) bool {
	t.look(i)
	return t.cls[i]&bits != 0
}

// run returns the end of the run of runes with any of bits starting at i.
func (t *runeText) run(i int, bits uint8) int {
	for t.cls[i]&bits != 0 {
		i++
	}
	t.look(i)
	return i
}

// foldEq reports whether rune i equals the ASCII lower-case letter c, case
// insensitively with Unicode simple case folding as Rust's regex crate does
// it: besides the upper-case letter, 's' also matches U+017F LATIN SMALL
// LETTER LONG S (no other letter of the contractions has a further fold).
func (t *runeText) foldEq(i int, c byte) bool {
	t.look(i)
	if i >= t.n {
		return false
	}
	b := t.b(i)
	if b == c || b == c-'a'+'A' {
		return true
	}
	return c == 's' && t.text[t.off[i]:t.off[i+1]] == "\u017f"
}

// contraction returns the length in runes of a contraction at i: 2 for
// 's 't 'm 'd, 3 for 're 've 'll, 0 for none. With fold the letters match
// case-insensitively ("(?i:'s|'t|'re|'ve|'m|'ll|'d)"), without it exactly
// ("'(?:[sdmt]|ll|ve|re)").
func (t *runeText) contraction(i int, fold bool) int {
	if !t.isByte(i, '\'') {
		return 0
	}
	eq := func(j int, c byte) bool {
		if fold {
			return t.foldEq(j, c)
		}
		return t.isByte(j, c)
	}
	j := i + 1
	switch {
	case eq(j, 's'), eq(j, 't'), eq(j, 'm'), eq(j, 'd'):
		return 2
	case eq(j, 'r') && eq(j+1, 'e'), eq(j, 'v') && eq(j+1, 'e'), eq(j, 'l') && eq(j+1, 'l'):
		return 3
	}
	return 0
}

// A splitFunc returns the end (> p) of the pre-tokenizer piece that starts
// at rune p < t.n: the leftmost-first match of the encoding's pattern, as a
// backtracking regex engine (tiktoken uses fancy-regex) finds it.
type splitFunc func(t *runeText, p int) int

// splitO200k implements o200k_base's pattern, alternatives in order:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+[\r\n/]*
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
func splitO200k(t *runeText, p int) int {
	if e := o200kWord(t, p, clsU, clsW); e > p {
		return e
	}
	// Alternative 3.
	if t.is(p, clsN) {
		return digits3(t, p)
	}
	return o200kTail(t, p, true)
}

// splitKimi implements the pattern of Kimi K2's tiktoken.model
// (tokenization_kimi.py), o200k_base's with Han runs split off first and
// kept out of the letter classes, and without "/" after punctuation:
//
//	[\p{Han}]+
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+[\r\n]*
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
//
// \p{Han} is the Script property (Rust's regex crate reads a bare script
// name so), and "&&" is class intersection.
func splitKimi(t *runeText, p int) int {
	if t.is(p, clsH) {
		return t.run(p, clsH)
	}
	if e := o200kWord(t, p, clsKU, clsKW); e > p {
		return e
	}
	if t.is(p, clsN) {
		return digits3(t, p)
	}
	return o200kTail(t, p, false)
}

// o200kWord matches o200k_base's first two alternatives at p with the
// "upper" class u and the "lower" class w, and returns the end of the
// match, or p when neither matches:
//
//	[^\r\n\p{L}\p{N}]?[u]*[w]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	[^\r\n\p{L}\p{N}]?[u]+[w]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
func o200kWord(t *runeText, p int, u, w uint8) int {
	// Alternative 1: the optional prefix is tried consumed first, then not;
	// u* is greedy and gives back runes until w+ can start.
	for _, opt := range [2]bool{true, false} {
		q := p
		if opt {
			if !t.isNRLN(p) {
				continue
			}
			q++
		}
		e := t.run(q, u)
		for j := e; j >= q; j-- {
			if t.is(j, w) {
				m := t.run(j, w)
				return m + t.contraction(m, true)
			}
		}
	}
	// Alternative 2.
	for _, opt := range [2]bool{true, false} {
		q := p
		if opt {
			if !t.isNRLN(p) {
				continue
			}
			q++
		}
		e := t.run(q, u)
		if e == q {
			continue
		}
		m := t.run(e, w)
		return m + t.contraction(m, true)
	}
	return p
}

// o200kTail matches the alternatives of o200k_base's pattern after the
// number one at p, where the earlier ones did not match; slash says
// whether "/" may follow punctuation as a newline may:
//
//	 ?[^\s\p{L}\p{N}]+[\r\n/]*    (or [\r\n]* without slash)
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
func o200kTail(t *runeText, p int, slash bool) int {
	for _, opt := range [2]bool{true, false} {
		q := p
		if opt {
			if !t.isByte(p, ' ') {
				continue
			}
			q++
		}
		e := q
		for t.isP(e) {
			e++
		}
		if e == q {
			continue
		}
		for t.isNL(e) || slash && t.isByte(e, '/') {
			e++
		}
		return e
	}
	// The last three alternatives all start with a whitespace run.
	e := t.run(p, clsS)
	if e == p {
		return p + 1 // unreachable: every rune is L, N, \s or [^\s\p{L}\p{N}]
	}
	if j := lastNL(t, p, e); j >= 0 {
		return j + 1 // \s*[\r\n]+ ends after the run's last newline
	}
	return wsTail(t, p, e)
}

// splitCl100k implements cl100k_base's pattern as tiktoken writes it today
// (possessive quantifiers), alternatives in order:
//
//	'(?i:[sdmt]|ll|ve|re)
//	[^\r\n\p{L}\p{N}]?+\p{L}++
//	\p{N}{1,3}+
//	 ?[^\s\p{L}\p{N}]++[\r\n]*+
//	\s++$
//	\s*[\r\n]
//	\s+(?!\S)
//	\s
func splitCl100k(t *runeText, p int) int {
	if k := t.contraction(p, true); k > 0 {
		return p + k
	}
	q := p
	if t.isNRLN(p) {
		q++ // possessive: never given back
	}
	if e := t.run(q, clsL); e > q {
		return e
	}
	if t.is(p, clsN) {
		return digits3(t, p)
	}
	q = p
	if t.isByte(p, ' ') && t.isP(p+1) {
		q++
	}
	if t.isP(q) {
		e := q
		for t.isP(e) {
			e++
		}
		for t.isNL(e) {
			e++
		}
		return e
	}
	e := t.run(p, clsS)
	if e == p {
		return p + 1 // unreachable, see splitO200k
	}
	if e == t.n {
		return e // \s++$
	}
	if j := lastNL(t, p, e); j >= 0 {
		return j + 1 // \s*[\r\n]
	}
	return wsTail(t, p, e)
}

// splitR50k implements the GPT-2 pattern shared by r50k_base and p50k_base,
// as tiktoken writes it today:
//
//	'(?:[sdmt]|ll|ve|re)
//	 ?\p{L}++
//	 ?\p{N}++
//	 ?[^\s\p{L}\p{N}]++
//	\s++$
//	\s+(?!\S)
//	\s
func splitR50k(t *runeText, p int) int {
	if k := t.contraction(p, false); k > 0 {
		return p + k
	}
	q := p
	if t.isByte(p, ' ') {
		q++
	}
	for _, bits := range [2]uint8{clsL, clsN} {
		if q > p && t.is(q, bits) {
			return t.run(q, bits)
		}
		if t.is(p, bits) {
			return t.run(p, bits)
		}
	}
	if q > p && t.isP(q) {
		p0 := q
		for t.isP(q) {
			q++
		}
		if q > p0 {
			return q
		}
	}
	if t.isP(p) {
		e := p
		for t.isP(e) {
			e++
		}
		return e
	}
	e := t.run(p, clsS)
	if e == p {
		return p + 1 // unreachable, see splitO200k
	}
	if e == t.n {
		return e // \s++$
	}
	return wsTail(t, p, e)
}

// digits3 matches \p{N}{1,3} at p, which must be a number.
func digits3(t *runeText, p int) int {
	e := p + 1
	for e < p+3 && t.is(e, clsN) {
		e++
	}
	return e
}

// lastNL returns the index of the last \r or \n in [p, e), or -1.
func lastNL(t *runeText, p, e int) int {
	for j := e - 1; j >= p; j-- {
		if t.isNL(j) {
			return j
		}
	}
	return -1
}

// wsTail matches "\s+(?!\S)" and then "\s+" (or "\s") on the whitespace run
// [p, e): the whole run at the end of the text, else the run less its last
// rune (so that rune can prefix the next word), else the single rune.
func wsTail(t *runeText, p, e int) int {
	if e == t.n {
		return e
	}
	if e-1 > p {
		return e - 1
	}
	return e
}
