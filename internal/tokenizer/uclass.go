package tokenizer

import (
	"sync"
	"unicode"
)

// Character classes used by the tiktoken split patterns, one bit each.
const (
	clsL  uint8 = 1 << iota // \p{L}: Lu, Ll, Lt, Lm, Lo
	clsN                    // \p{N}: Nd, Nl, No
	clsS                    // \s: the Unicode White_Space property
	clsU                    // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k's "upper" class)
	clsW                    // [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k's "lower" class)
	clsH                    // \p{Han}: the Unicode Script Han (not Script_Extensions, as in Rust's regex)
	clsKU                   // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]] (Kimi's "upper" class)
	clsKW                   // [\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]] (Kimi's "lower" class)
)

var (
	classOnce  sync.Once
	classTable []uint8 // indexed by rune, unicode.MaxRune+1 entries
)

// classes returns the per-rune class table, built once from the unicode
// package's tables (Unicode 15.0 in this Go release).
func classes() []uint8 {
	classOnce.Do(func() {
		t := make([]uint8, unicode.MaxRune+1)
		// apply calls f for every rune of tab.
		apply := func(tab *unicode.RangeTable, f func(c uint32)) {
			for _, r := range tab.R16 {
				for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
					f(c)
				}
			}
			for _, r := range tab.R32 {
				for c := r.Lo; c <= r.Hi; c += r.Stride {
					f(c)
				}
			}
		}
		set := func(tab *unicode.RangeTable, bits uint8) { apply(tab, func(c uint32) { t[c] |= bits }) }
		set(unicode.Lu, clsL|clsU|clsKU)
		set(unicode.Lt, clsL|clsU|clsKU)
		set(unicode.Lm, clsL|clsU|clsW|clsKU|clsKW)
		set(unicode.Lo, clsL|clsU|clsW|clsKU|clsKW)
		set(unicode.Ll, clsL|clsW|clsKW)
		set(unicode.M, clsU|clsW|clsKU|clsKW)
		set(unicode.N, clsN)
		set(unicode.White_Space, clsS)
		// Han last: Kimi's classes are intersections with [^\p{Han}].
		apply(unicode.Han, func(c uint32) { t[c] = t[c]&^(clsKU|clsKW) | clsH })
		classTable = t
	})
	return classTable
}
