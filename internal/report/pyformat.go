package report

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vbench/vbench/internal/py"
)

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

// percentileWord is vLLM's name for percentile p in keys and labels:
// str(int(p)) when p is integral, else str(p) ("99", "99.9", "1e-05").
func percentileWord(p float64) string {
	if p == math.Trunc(p) && !math.IsInf(p, 0) {
		if p == 0 {
			return "0" // int(-0.0) is 0
		}
		return strconv.FormatFloat(p, 'f', 0, 64)
	}
	return py.Repr(p)
}
