package sim

import (
	"hash/fnv"
	"strconv"
	"strings"
)

// Tokenizer turns text into token ids and back. The simulator uses it to count
// prompt tokens, to serve /tokenize and /detokenize, and to render the text of
// generated tokens. Implementations must be safe for concurrent use.
type Tokenizer interface {
	// Encode returns the token ids of text.
	Encode(text string) []int
	// Decode returns the text of ids.
	Decode(ids []int) string
}

// Vocabulary of [WordTokenizer].
const (
	wordConsonants = "bdfghjklmnprstvz"
	wordVowels     = "aeiou"
	wordSyllables  = len(wordConsonants) * len(wordVowels) // 80

	// WordVocabSize is the number of pseudo-words of [WordTokenizer]: the ids
	// 0..WordVocabSize-1, which are also the ids the simulator generates when
	// it uses the built-in tokenizer.
	WordVocabSize = wordSyllables * wordSyllables // 6400

	// wordHashedRange bounds the ids that unknown words hash to, so that every
	// id fits a signed 32-bit integer.
	wordHashedRange = 1<<31 - WordVocabSize
)

// consonant and vowel lookup tables: index+1, 0 when the byte is not one.
var wordConsonantIndex, wordVowelIndex = func() (c, v [256]uint8) {
	for i := 0; i < len(wordConsonants); i++ {
		c[wordConsonants[i]] = uint8(i + 1)
	}
	for i := 0; i < len(wordVowels); i++ {
		v[wordVowels[i]] = uint8(i + 1)
	}
	return c, v
}()

// WordTokenizer is the built-in deterministic tokenizer, used when
// [Config.Tokenizer] is nil. Its zero value is ready to use.
//
// A token is a whitespace-delimited word (strings.Fields). The ids
// 0..WordVocabSize-1 are the two-syllable pseudo-words consonant-vowel-
// consonant-vowel over the consonants "bdfghjklmnprstvz" and the vowels
// "aeiou": id = 80·s1 + s2 with s = 5·consonant + vowel, so 0 is "baba" and
// 6399 is "zuzu". An id ≥ WordVocabSize is the word "w" followed by the id in
// decimal ("w6400"). Decode joins the words of its ids with single spaces, and
// Encode(Decode(ids)) == ids for every slice of non-negative ids. Any other
// word (real text) maps to a stable id in [WordVocabSize, 2³¹) taken from the
// FNV-1a hash of the word, so its count is exact but its text is not
// recovered. There are no special tokens.
type WordTokenizer struct{}

// Encode returns one id per whitespace-delimited word of text.
func (WordTokenizer) Encode(text string) []int {
	words := strings.Fields(text)
	ids := make([]int, len(words))
	for i, w := range words {
		ids[i] = wordID(w)
	}
	return ids
}

// Decode joins the words of ids with single spaces.
func (WordTokenizer) Decode(ids []int) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(wordText(id))
	}
	return b.String()
}

// wordText returns the word of one id.
func wordText(id int) string {
	if id < 0 || id >= WordVocabSize {
		return "w" + strconv.Itoa(id)
	}
	s1, s2 := id/wordSyllables, id%wordSyllables
	return string([]byte{
		wordConsonants[s1/len(wordVowels)], wordVowels[s1%len(wordVowels)],
		wordConsonants[s2/len(wordVowels)], wordVowels[s2%len(wordVowels)],
	})
}

// wordID returns the id of one word.
func wordID(w string) int {
	if len(w) == 4 {
		c1, v1 := wordConsonantIndex[w[0]], wordVowelIndex[w[1]]
		c2, v2 := wordConsonantIndex[w[2]], wordVowelIndex[w[3]]
		if c1 != 0 && v1 != 0 && c2 != 0 && v2 != 0 {
			s1 := int(c1-1)*len(wordVowels) + int(v1-1)
			s2 := int(c2-1)*len(wordVowels) + int(v2-1)
			return s1*wordSyllables + s2
		}
	}
	if len(w) > 1 && w[0] == 'w' && w[1] >= '1' && w[1] <= '9' {
		if id, err := strconv.Atoi(w[1:]); err == nil && id >= WordVocabSize {
			return id
		}
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(w))
	return WordVocabSize + int(h.Sum64()%uint64(wordHashedRange))
}
