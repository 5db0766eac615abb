package tokenizer

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
)

// fuzzOracles caches the tiktoken-go encodings (building one takes about
// a second); they come from the rank files embedded in
// tiktoken-go-loader, so no network is needed.
var fuzzOracles sync.Map // name → *tiktoken.Tiktoken

func fuzzOracle(t *testing.T, name string) *tiktoken.Tiktoken {
	if enc, ok := fuzzOracles.Load(name); ok {
		return enc.(*tiktoken.Tiktoken)
	}
	enc := oracle(t, name)
	fuzzOracles.Store(name, enc)
	return enc
}

// FuzzTiktokenMatchesTiktokenGo checks the built-in encodings against
// github.com/pkoukk/tiktoken-go on arbitrary text: the same token ids,
// from scratch and through the shared memo of recent texts (which earlier
// inputs of the same fuzz process fill), and Decode gives the text back.
// Invalid UTF-8 is compared after LossyUTF8, as Encode documents. The two
// documented differences of the oracle (see oracle_test.go) are skipped.
func FuzzTiktokenMatchesTiktokenGo(f *testing.F) {
	for i, s := range roundTripTexts {
		f.Add(s, uint8(i))
	}
	for i, s := range []string{
		"", " ", "\n", "a  \n  b", "x\xffy\xe2\x82z", "\xed\xa0\x80", "<|endoftext|>",
		"HTTPServer2's 1234567 lines\r\n\tand   tabs", "   \u00a0\u3000x", "'S'T'RE'VE'M'LL'D",
		"data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"delta\":{\"content\":\" the\"}}]}",
	} {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, text string, which uint8) {
		name := builtinNames[int(which)%len(builtinNames)]
		tk := mustBuiltin(t, name)
		valid := text
		if !utf8.ValidString(text) {
			valid = LossyUTF8([]byte(text))
		}
		if strings.ContainsRune(valid, 'ſ') || name == "cl100k_base" && endsInNewlineRun(valid) {
			return // the oracle's documented differences
		}
		want := fuzzOracle(t, name).EncodeOrdinary(valid)
		if want == nil {
			want = []int{}
		}
		fresh := encodeFresh(tk, text)
		if !slices.Equal(fresh, want) {
			t.Fatalf("%s: Encode(%q) = %v, tiktoken-go %v (first difference at token %d)", name, text, fresh, want, firstDiff(fresh, want))
		}
		if got := tk.Encode(text, false); !slices.Equal(got, want) {
			t.Fatalf("%s: Encode(%q) through the memo = %v, tiktoken-go %v", name, text, got, want)
		}
		if back := tk.Decode(fresh); back != valid {
			t.Fatalf("%s: Decode(Encode(%q)) = %q", name, text, back)
		}
	})
}
