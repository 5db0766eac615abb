package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

func mustBuiltin(t testing.TB, name string) *Tiktoken {
	t.Helper()
	tk, err := builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestKnownEncodings(t *testing.T) {
	tests := []struct {
		enc  string
		text string
		want []int
	}{
		{"cl100k_base", "hello world", []int{15339, 1917}},
		{"o200k_base", "hello world", []int{24912, 2375}},
		{"p50k_base", "hello world", []int{31373, 995}},
		{"r50k_base", "hello world", []int{31373, 995}},
		// OpenAI cookbook, "How to count tokens with tiktoken".
		{"cl100k_base", "tiktoken is great!", []int{83, 1609, 5963, 374, 2294, 0}},
		{"o200k_base", "", []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.enc+"/"+tt.text, func(t *testing.T) {
			tk, err := Builtin(tt.enc)
			if err != nil {
				t.Fatal(err)
			}
			got := tk.Encode(tt.text, true)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
			}
			if back := tk.Decode(got); back != tt.text {
				t.Errorf("Decode(%v) = %q, want %q", got, back, tt.text)
			}
		})
	}
}

func TestBuiltinFacts(t *testing.T) {
	tests := []struct {
		name     string
		vocab    int
		specials []int
	}{
		{"o200k_base", 199998, []int{199999, 200018}},
		{"cl100k_base", 100256, []int{100257, 100258, 100259, 100260, 100276}},
		{"p50k_base", 50280, []int{50256}},
		{"r50k_base", 50256, []int{50256}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !IsBuiltin(tt.name) {
				t.Errorf("IsBuiltin(%q) = false", tt.name)
			}
			tk, err := Builtin(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if tk.Name() != tt.name {
				t.Errorf("Name() = %q", tk.Name())
			}
			if tk.VocabSize() != tt.vocab {
				t.Errorf("VocabSize() = %d, want %d", tk.VocabSize(), tt.vocab)
			}
			if got := tk.SpecialIDs(); !slices.Equal(got, tt.specials) {
				t.Errorf("SpecialIDs() = %v, want %v", got, tt.specials)
			}
			if n := tk.NumSpecialTokensToAdd(); n != 0 {
				t.Errorf("NumSpecialTokensToAdd() = %d, want 0", n)
			}
			again, _ := Builtin(tt.name)
			if again != tk {
				t.Error("Builtin built the encoding twice")
			}
		})
	}
}

func TestBuiltinUnknown(t *testing.T) {
	for _, name := range []string{"", "gpt2", "O200K_BASE", "p50k_edit"} {
		if IsBuiltin(name) {
			t.Errorf("IsBuiltin(%q) = true", name)
		}
		_, err := Builtin(name)
		if err == nil {
			t.Fatalf("Builtin(%q): no error", name)
		}
		for _, want := range BuiltinNames() {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Builtin(%q) error %q does not list %s", name, err, want)
			}
		}
	}
}

var roundTripTexts = []string{
	"hello world",
	"Hello, World! How's it going? I'm fine; they're here, we've gone, you'll see, he'd know.",
	"DON'T SHOUT. camelCaseWords and HTTPServer2 and snake_case_words",
	"数字 1234567 and 3.14159, 1,000,000",
	"日本語のテキストと한국어 텍스트 and Ελληνικά and русский текст",
	"emoji 😀👍🏽👨‍👩‍👧 and flags 🇫🇷🇯🇵",
	"combining: e\u0301 a\u0300 \u0915\u094d\u0937 ʰ ǅ Ⅻ ½",
	"tabs\tand\nnewlines\r\nand  double  spaces   \n\n\n  trailing   ",
	"  leading spaces\u00a0nbsp\u2028line sep\u3000ideographic space",
	"path/to/file.go:12:3 // comment\n\tif x != nil {\n\t\treturn x\n\t}\n",
	"<|endoftext|> is text here, <|fim_prefix|> too",
	"it's 'quoted' and ‘curly’ and don'ſ",
	strings.Repeat("a", 300) + strings.Repeat(" ", 70) + strings.Repeat("é", 90),
}

func TestRoundTrip(t *testing.T) {
	for _, name := range builtinNames {
		tk := mustBuiltin(t, name)
		for _, text := range roundTripTexts {
			ids := tk.Encode(text, false)
			if got := tk.Decode(ids); got != text {
				t.Errorf("%s: Decode(Encode(%q)) = %q", name, text, got)
			}
		}
	}
}

func TestSpecialTokenTextIsOrdinary(t *testing.T) {
	tk := mustBuiltin(t, "o200k_base")
	ids := tk.Encode("<|endoftext|>", false)
	if slices.Contains(ids, 199999) || len(ids) < 2 {
		t.Errorf("Encode(<|endoftext|>) = %v, want ordinary tokens", ids)
	}
	if got := tk.Decode([]int{199999}); got != "<|endoftext|>" {
		t.Errorf("Decode(199999) = %q", got)
	}
}

func TestDecodeSkipsUnknownIDs(t *testing.T) {
	tk := mustBuiltin(t, "p50k_base")
	hello := tk.Encode("hello", false)
	// 50280 is p50k_base's highest rank; 50281 is past every token and
	// special token.
	ids := append([]int{-1, 50281, 1 << 40}, hello...)
	if got := tk.Decode(ids); got != "hello" {
		t.Errorf("Decode(%v) = %q, want %q", ids, got, "hello")
	}
}

func TestDecodeRuns(t *testing.T) {
	tk := mustBuiltin(t, "p50k_base")
	// 50256 is <|endoftext|>, between the ranks 50255 and 50257.
	ids := []int{50254, 50255, 50256, 50257, 50258, 7, 8, 9, 50281}
	var want strings.Builder
	for _, id := range ids {
		want.WriteString(tk.Decode([]int{id}))
	}
	if got := tk.Decode(ids); got != want.String() {
		t.Errorf("Decode(%v) = %q, want %q", ids, got, want.String())
	}
	if !strings.Contains(want.String(), "<|endoftext|>") {
		t.Error("the special token's text is missing")
	}
}

func TestDecodeLossy(t *testing.T) {
	tk := mustBuiltin(t, "cl100k_base")
	byteID := func(b byte) int {
		r, ok := tk.bpe.vocab.get(string([]byte{b}))
		if !ok {
			t.Fatalf("no token for byte %#x", b)
		}
		return int(r)
	}
	a := tk.Encode("a", false)[0]
	tests := []struct {
		name string
		ids  []int
		want string
	}{
		{"truncated euro sign", []int{byteID(0xe2), byteID(0x82)}, "\uFFFD"},
		{"truncated then ascii", []int{byteID(0xe2), byteID(0x82), a}, "\uFFFDa"},
		{"complete euro sign", []int{byteID(0xe2), byteID(0x82), byteID(0xac)}, "€"},
		{"two lone continuations", []int{byteID(0x82), byteID(0xac)}, "\uFFFD\uFFFD"},
		{"surrogate bytes", []int{byteID(0xed), byteID(0xa0), byteID(0x80)}, "\uFFFD\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tk.Decode(tt.ids); got != tt.want {
				t.Errorf("Decode = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEncodeInvalidUTF8(t *testing.T) {
	tk := mustBuiltin(t, "o200k_base")
	long := strings.Repeat("word ", 20) // long enough to be remembered
	for _, in := range []string{"a\xffb", "\xe2\x82", long + "\xed\xa0\x80 tail"} {
		want := tk.Encode(LossyUTF8([]byte(in)), false)
		if got := tk.Encode(in, false); !slices.Equal(got, want) {
			t.Errorf("Encode(%q) = %v, want the encoding of its lossy conversion %v", in, got, want)
		}
	}
}

// randomTokenText returns the text of runs of consecutive token ids, as the
// random dataset builds prompts.
func randomTokenText(tk *Tiktoken, r *rand.Rand, runs, runLen int) string {
	var ids []int
	for range runs {
		off := r.IntN(tk.VocabSize())
		for k := range runLen {
			ids = append(ids, (off+k)%tk.VocabSize())
		}
	}
	return tk.Decode(ids)
}

// encodeFresh encodes text with an empty memo, that is from scratch.
func encodeFresh(tk *Tiktoken, text string) []int {
	fresh := *tk
	fresh.memo = newEncodeMemo()
	return fresh.Encode(text, false)
}

// TestMemoMatchesScratch checks that reusing a remembered text's pieces
// gives exactly the encoding from scratch, for prefixes cut anywhere
// (including mid-rune, as a decode of truncated tokens gives) and for
// extensions.
func TestMemoMatchesScratch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	tails := []string{"", " ", "  ", "\n", " \n ", "'s", "'", "1", "12", "a", "A", "é", "\u0301", "漢", "!", "/", "\r\n"}
	for _, name := range builtinNames {
		tk := mustBuiltin(t, name)
		texts := append([]string{}, roundTripTexts...)
		for range 8 {
			texts = append(texts, randomTokenText(tk, r, 1, 200))
		}
		for _, text := range texts {
			if len(text) < memoKeyLen {
				continue
			}
			for range 20 {
				tk.Encode(text, false) // remember text
				cut := memoKeyLen + r.IntN(len(text)-memoKeyLen+1)
				variant := LossyUTF8([]byte(text[:cut])) + tails[r.IntN(len(tails))]
				got := tk.Encode(variant, false)
				if want := encodeFresh(tk, variant); !slices.Equal(got, want) {
					t.Fatalf("%s: memo encoding of %q differs from scratch:\n got %v\nwant %v", name, variant, got, want)
				}
			}
		}
	}
}

func TestConcurrentEncode(t *testing.T) {
	tk := mustBuiltin(t, "o200k_base")
	r := rand.New(rand.NewPCG(2, 2))
	texts := make([]string, 16)
	want := make([][]int, len(texts))
	for i := range texts {
		texts[i] = randomTokenText(tk, r, 2, 300)
		want[i] = encodeFresh(tk, texts[i])
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for k := range 3 * len(texts) {
				i := (g + k) % len(texts)
				text := texts[i]
				if k%2 == 1 {
					text = text[:len(text)*2/3] // exercise the memo
					if got, w := tk.Encode(LossyUTF8([]byte(text)), false), encodeFresh(tk, LossyUTF8([]byte(text))); !slices.Equal(got, w) {
						errs <- fmt.Sprintf("prefix of text %d differs", i)
					}
					continue
				}
				if got := tk.Encode(text, false); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("text %d differs", i)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func BenchmarkEncode(b *testing.B) {
	tk := mustBuiltin(b, "o200k_base")
	r := rand.New(rand.NewPCG(3, 3))
	text := randomTokenText(tk, r, 14, 1024) // about 100 KB
	b.Run("cold", func(b *testing.B) {
		// No memo and an empty merge cache: every merge is computed.
		b.SetBytes(int64(len(text)))
		tokens := 0
		for b.Loop() {
			fresh := *tk
			fresh.memo = newEncodeMemo()
			fresh.bpe.cache = newPieceCache()
			tokens += len(fresh.Encode(text, false))
		}
		b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	})
	b.Run("scratch", func(b *testing.B) {
		// No memo; merges come from the cache filled by earlier runs.
		b.SetBytes(int64(len(text)))
		tokens := 0
		for b.Loop() {
			tokens += len(encodeFresh(tk, text))
		}
		b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	})
	b.Run("prefix", func(b *testing.B) {
		// Re-encoding a 90% prefix of a just-encoded text, as the random
		// dataset's fix-up does.
		prefix := LossyUTF8([]byte(text[:len(text)*9/10]))
		b.SetBytes(int64(len(prefix)))
		tokens := 0
		for b.Loop() {
			tk.Encode(text, false)
			tokens += len(tk.Encode(prefix, false))
		}
		b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	})
}

func BenchmarkDecode(b *testing.B) {
	tk := mustBuiltin(b, "o200k_base")
	r := rand.New(rand.NewPCG(4, 4))
	ids := tk.Encode(randomTokenText(tk, r, 14, 1024), false)
	b.SetBytes(int64(len(tk.Decode(ids))))
	for b.Loop() {
		tk.Decode(ids)
	}
}
