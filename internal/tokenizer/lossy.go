package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// replacement is U+FFFD REPLACEMENT CHARACTER in UTF-8.
const replacement = "\uFFFD"

// LossyUTF8 converts b to a string the way Python's
// bytes.decode("utf-8", errors="replace") and Rust's String::from_utf8_lossy
// do: every maximal subpart of an ill-formed subsequence becomes one U+FFFD
// (Unicode 15, §3.9, "U+FFFD Substitution of Maximal Subparts").
//
// A maximal subpart is the longest prefix of a well-formed UTF-8 sequence
// that starts at the offending byte, or that single byte if no well-formed
// sequence starts with it. The well-formed sequences are (Unicode Table 3-7):
//
//	00..7F
//	C2..DF 80..BF
//	E0     A0..BF 80..BF
//	E1..EC 80..BF 80..BF
//	ED     80..9F 80..BF
//	EE..EF 80..BF 80..BF
//	F0     90..BF 80..BF 80..BF
//	F1..F3 80..BF 80..BF 80..BF
//	F4     80..8F 80..BF 80..BF
//
// So the truncated sequence E2 82 gives one U+FFFD, the surrogate encoding
// ED A0 80 gives three, and a lone continuation byte gives one. This differs
// from strings.ToValidUTF8, which collapses a run of invalid bytes into one
// replacement, and from ranging over the string, which replaces byte by byte.
func LossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return lossy(b)
}

// lossy is LossyUTF8 for input known to be invalid.
func lossy(b []byte) string {
	var out strings.Builder
	out.Grow(len(b) + 8)
	start := 0 // start of the valid stretch not yet written
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		if _, size := utf8.DecodeRune(b[i:]); size > 1 {
			i += size
			continue
		}
		// b[i] starts an ill-formed sequence: replace its maximal subpart.
		out.Write(b[start:i])
		out.WriteString(replacement)
		i += maximalSubpart(b[i:])
		start = i
	}
	out.Write(b[start:])
	return out.String()
}

// maximalSubpart returns the length (≥ 1) of the maximal subpart of an
// ill-formed sequence at the start of b, which must not begin with a
// well-formed sequence.
func maximalSubpart(b []byte) int {
	lo, hi, need := secondByteRange(b[0])
	if need == 0 {
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		c := b[n]
		if k == 0 {
			if c < lo || c > hi {
				break
			}
		} else if c < 0x80 || c > 0xBF {
			break
		}
		n++
	}
	return n
}

// secondByteRange returns, for a lead byte, the allowed range of the byte
// that follows it and the number of continuation bytes the sequence needs;
// need is 0 when c cannot start a multi-byte sequence.
func secondByteRange(c byte) (lo, hi byte, need int) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 0x80, 0xBF, 1
	case c == 0xE0:
		return 0xA0, 0xBF, 2
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		return 0x80, 0xBF, 2
	case c == 0xED:
		return 0x80, 0x9F, 2
	case c == 0xF0:
		return 0x90, 0xBF, 3
	case c >= 0xF1 && c <= 0xF3:
		return 0x80, 0xBF, 3
	case c == 0xF4:
		return 0x80, 0x8F, 3
	}
	return 0, 0, 0
}
