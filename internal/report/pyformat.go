package report

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PyFloatRepr formats f as Python's repr(float) (and str(float)) does: the
// shortest digit string that reads back as f; positional notation when the
// decimal exponent e (as in d.ddd×10^e) satisfies -4 <= e < 16, always with
// a fractional part ("865.0"); scientific notation otherwise, with a sign
// and at least two exponent digits ("1e-05", "1.5e+16"). Non-finite values
// are "inf", "-inf" and "nan".
func PyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // e.g. "-1.5e+16", "1e-05"
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

// pyJSONFloat formats f as Python's json module does: repr for finite
// values, and the bare tokens Infinity, -Infinity and NaN otherwise.
func pyJSONFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return PyFloatRepr(f)
}

// pyFixed2 formats f as Python's "{:.2f}": correctly rounded to two
// decimals (round-half-even on the exact binary value), "inf"/"nan" for
// non-finite values.
func pyFixed2(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// ljust pads s with spaces on the right to width runes, as Python's "<"
// alignment does; longer strings are kept whole.
func ljust(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// center centres s in width runes with fill, as Python's "^" alignment
// does: the left side gets floor(pad/2), the right side the rest.
func center(s string, fill byte, width int) string {
	n := utf8.RuneCountInString(s)
	if n >= width {
		return s
	}
	pad := width - n
	left := pad / 2
	return strings.Repeat(string(fill), left) + s + strings.Repeat(string(fill), pad-left)
}
