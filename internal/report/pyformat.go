package report

import (
	"strings"
	"unicode/utf8"
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
