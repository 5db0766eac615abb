package tokenizer

import (
	"sync"
	"unicode"
)

// Character classes used by the tiktoken split patterns, one bit each.
const (
	clsL uint8 = 1 << iota // \p{L}: Lu, Ll, Lt, Lm, Lo
	clsN                   // \p{N}: Nd, Nl, No
	clsS                   // \s: the Unicode White_Space property
	clsU                   // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k's "upper" class)
	clsW                   // [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k's "lower" class)
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
		set := func(tab *unicode.RangeTable, bits uint8) {
			for _, r := range tab.R16 {
				for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
					t[c] |= bits
				}
			}
			for _, r := range tab.R32 {
				for c := r.Lo; c <= r.Hi; c += r.Stride {
					t[c] |= bits
				}
			}
		}
		set(unicode.Lu, clsL|clsU)
		set(unicode.Lt, clsL|clsU)
		set(unicode.Lm, clsL|clsU|clsW)
		set(unicode.Lo, clsL|clsU|clsW)
		set(unicode.Ll, clsL|clsW)
		set(unicode.M, clsU|clsW)
		set(unicode.N, clsN)
		set(unicode.White_Space, clsS)
		classTable = t
	})
	return classTable
}
