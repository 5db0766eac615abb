package tokenizer

import (
	"strings"
	"testing"
)

func TestLossyUTF8(t *testing.T) {
	const r = "\uFFFD"
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"ascii", "abc", "abc"},
		{"valid multibyte", "€ 漢字 😀", "€ 漢字 😀"},
		{"literal replacement char kept", "a\uFFFDb", "a\uFFFDb"},
		{"truncated 3-byte", "\xe2\x82", r},
		{"truncated 3-byte then ascii", "\xe2\x82A", r + "A"},
		{"truncated 4-byte", "\xf0\x9f\x98", r},
		{"truncated 4-byte then ascii", "\xf0\x9f\x98A", r + "A"},
		{"lone continuation", "\x80", r},
		{"two continuations", "\x80\x80", r + r},
		{"overlong lead C0", "\xc0\x80", r + r},
		{"surrogate ED A0 80", "\xed\xa0\x80", r + r + r},
		{"E0 needs A0..BF", "\xe0\x80\x80", r + r + r},
		{"F4 needs 80..8F", "\xf4\x90\x80\x80", r + r + r + r},
		{"F5 never valid", "\xf5\x80", r + r},
		{"FF", "a\xffb", "a" + r + "b"},
		{"invalid between valid", "漢\xe5\xad字", "漢" + r + "字"},
		// Unicode's own example (Table 3-8, "U+FFFD for each maximal
		// subpart"): 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
		{"unicode table 3-8", "\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
			"a" + r + r + r + "b" + r + "c" + r + r + "d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LossyUTF8([]byte(tt.in)); got != tt.want {
				t.Errorf("LossyUTF8(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestLossyUTF8NotToValidUTF8 documents why strings.ToValidUTF8 is not
// used: it collapses a run of invalid bytes into one replacement.
func TestLossyUTF8NotToValidUTF8(t *testing.T) {
	in := "\xed\xa0\x80"
	if strings.ToValidUTF8(in, "\uFFFD") == LossyUTF8([]byte(in)) {
		t.Error("expected LossyUTF8 to differ from strings.ToValidUTF8 on a surrogate")
	}
}
