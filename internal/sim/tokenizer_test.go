package sim

import (
	"slices"
	"strings"
	"testing"
)

func TestWordTokenizerKnownWords(t *testing.T) {
	tests := []struct {
		word string
		id   int
	}{
		{"baba", 0},         // first consonant and vowel twice
		{"babe", 1},         // last syllable advances first
		{"beba", 80},        // the first syllable counts in 80s
		{"daba", 5 * 80},    // a syllable is 5·consonant + vowel
		{"zuzu", 6399},      // the last pseudo-word
		{"w6400", 6400},     // first id past the vocabulary
		{"w123456", 123456}, // any larger id
		{"w2147483647", 1<<31 - 1},
	}
	var tok WordTokenizer
	for _, tt := range tests {
		if got := tok.Encode(tt.word); !slices.Equal(got, []int{tt.id}) {
			t.Errorf("Encode(%q) = %v, want [%d]", tt.word, got, tt.id)
		}
		if got := tok.Decode([]int{tt.id}); got != tt.word {
			t.Errorf("Decode([%d]) = %q, want %q", tt.id, got, tt.word)
		}
	}
}

func TestWordTokenizerRoundTrip(t *testing.T) {
	var tok WordTokenizer
	tests := [][]int{
		{},
		{0},
		{0, 1, 2, 6399, 6400, 6401, 99999999},
		{17, 17, 17},
	}
	// every id of the vocabulary, and a stretch past it
	var all []int
	for id := range WordVocabSize + 100 {
		all = append(all, id)
	}
	tests = append(tests, all)
	for _, ids := range tests {
		text := tok.Decode(ids)
		if got := tok.Encode(text); !slices.Equal(got, ids) && len(ids) > 0 {
			t.Errorf("Encode(Decode(%v)) = %v", ids[:min(len(ids), 8)], got[:min(len(got), 8)])
		}
	}
}

func TestWordTokenizerForeignText(t *testing.T) {
	tests := []struct {
		text  string
		count int
	}{
		{"", 0},
		{"   \n\t ", 0},
		{"Hello, world!", 2},
		{"  leading and trailing  ", 3},
		{"w0123 w12 w-5 w+6400 bab", 5}, // non-canonical "w" words are ordinary words
		{"日本語 テキスト", 2},
	}
	var tok WordTokenizer
	for _, tt := range tests {
		ids := tok.Encode(tt.text)
		if len(ids) != tt.count {
			t.Errorf("Encode(%q) has %d tokens, want %d", tt.text, len(ids), tt.count)
		}
		for _, id := range ids {
			if id < WordVocabSize || id >= 1<<31 {
				t.Errorf("Encode(%q): foreign word got id %d, want one in [%d, 2^31)", tt.text, id, WordVocabSize)
			}
		}
		if again := tok.Encode(tt.text); !slices.Equal(ids, again) {
			t.Errorf("Encode(%q) is not stable: %v then %v", tt.text, ids, again)
		}
		// Decoding foreign ids gives canonical words with the same ids.
		if back := tok.Encode(tok.Decode(ids)); !slices.Equal(back, ids) {
			t.Errorf("Encode(Decode(Encode(%q))) = %v, want %v", tt.text, back, ids)
		}
	}
}

// mapTokenizer is a toy tokenizer over a fixed vocabulary: Encode splits
// on the pieces in order of length, longest first.
type mapTokenizer map[int]string

func (m mapTokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(m[id])
	}
	return b.String()
}

func (m mapTokenizer) Encode(text string) []int {
	var ids []int
	for text != "" {
		best, bestLen := -1, 0
		for id, piece := range m {
			if len(piece) > bestLen && strings.HasPrefix(text, piece) {
				best, bestLen = id, len(piece)
			}
		}
		if best < 0 {
			return append(ids, -1)
		}
		ids, text = append(ids, best), text[bestLen:]
	}
	return ids
}

// The simulator generates, with a custom tokenizer, only the tokens that
// are a space and a word and encode back to themselves, so that a client
// re-tokenizing the text counts what the usage says; without such tokens
// it falls back to every token with text.
func TestTokenPool(t *testing.T) {
	tok := mapTokenizer{1: " ba", 2: "ba", 3: " de", 4: "!", 5: " x"}
	texts := func(pool []outToken) (s []string) {
		for _, o := range pool {
			s = append(s, o.text)
		}
		return s
	}
	if got := texts(tokenPool(tok, []int{2, 1, 1, 4, 3, 5})); !slices.Equal(got, []string{" ba", " de", " x"}) {
		t.Errorf("pool %q, want the space-word tokens", got)
	}
	// " ba" + " de" + " x" re-encodes to the same three tokens.
	if got := tok.Encode(" ba de x"); !slices.Equal(got, []int{1, 3, 5}) {
		t.Errorf("re-encoded %v", got)
	}
	if got := texts(tokenPool(tok, []int{2, 4})); !slices.Equal(got, []string{"ba", "!"}) {
		t.Errorf("fallback pool %q, want every token with text", got)
	}
}
