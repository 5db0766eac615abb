package py

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Repr formats f as Python's repr(float) does, which since Python 3.2 is
// also str(float): the shortest digit string that reads back as f;
// positional notation when the decimal exponent e (as in d.ddd×10^e)
// satisfies -4 <= e < 16, always with a fractional part ("865.0");
// scientific notation otherwise, with a sign and at least two exponent
// digits ("1e-05", "1.5e+16"). Non-finite values are "inf", "-inf" and
// "nan".
func Repr(f float64) string {
	return string(AppendRepr(nil, f))
}

// AppendRepr appends Repr(f) to b.
func AppendRepr(b []byte, f float64) []byte {
	if w := nonFinite(f); w != "" {
		return append(b, w...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'e', -1, 64) // e.g. "-1.5e+16", "1e-05"
	e := b[start:]
	i := bytes.LastIndexByte(e, 'e')
	exp := 0
	for _, c := range e[i+2:] { // 'e' is always followed by a sign
		exp = exp*10 + int(c-'0')
	}
	if e[i+1] == '-' {
		exp = -exp
	}
	if exp < -4 || exp >= 16 {
		return b
	}
	b = strconv.AppendFloat(b[:start], f, 'f', -1, 64)
	if bytes.IndexByte(b[start:], '.') < 0 {
		b = append(b, ".0"...)
	}
	return b
}

// nonFinite is Python's str of a non-finite float ("nan", "inf", "-inf"),
// and "" for a finite one.
func nonFinite(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return ""
}

// appendJSONFloat appends f as Python's json module writes it: Repr for
// finite values, and the bare tokens Infinity, -Infinity and NaN otherwise.
func appendJSONFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return AppendRepr(b, f)
}

// Fixed formats f as Python's format(f, ".{prec}f") ("{:.2f}" for prec 2):
// correctly rounded to prec decimals (round-half-even on the exact binary
// value), "inf", "-inf" and "nan" for non-finite values.
func Fixed(f float64, prec int) string {
	if w := nonFinite(f); w != "" {
		return w
	}
	return strconv.FormatFloat(f, 'f', prec, 64)
}

// ReprString quotes s as Python's repr(str) does: single quotes, unless s
// holds a single quote and no double quote; backslash, the quote, \n, \r
// and \t escaped; other control characters and DEL as \xhh; characters
// that are not printable as \xhh, \uhhhh or \Uhhhhhhhh by size (Go's
// notion of printable, which agrees with Python's str.isprintable for the
// characters command lines carry).
func ReprString(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20 || r == 0x7f:
			b = append(b, '\\', 'x', hex[r>>4], hex[r&0xf])
		case !strconv.IsPrint(r):
			if r <= 0xff {
				b = append(b, '\\', 'x', hex[r>>4], hex[r&0xf])
			} else if r <= 0xffff {
				b = append(b, '\\', 'u')
				b = appendHex(b, uint32(r), 4)
			} else {
				b = append(b, '\\', 'U')
				b = appendHex(b, uint32(r), 8)
			}
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(append(b, q))
}

// appendHex appends the low n hex digits of v, lowercase.
func appendHex(b []byte, v uint32, n int) []byte {
	const hex = "0123456789abcdef"
	for i := n - 1; i >= 0; i-- {
		b = append(b, hex[v>>(4*uint(i))&0xf])
	}
	return b
}

// Isoformat is Python's datetime.isoformat() of a naive datetime holding
// t's wall clock in t's location: "2006-01-02T15:04:05", with
// ".ffffff" (microseconds, truncated) only when they are not zero. For
// datetime.now().isoformat(), pass t.Local().
func Isoformat(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}
