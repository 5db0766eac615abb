package tokenizer

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// addedToken is an entry of tokenizer.json's "added_tokens".
type addedToken struct {
	id         int
	content    string
	singleWord bool
	lstrip     bool
	rstrip     bool
	normalized bool
	special    bool
}

// parseAddedTokens reads the "added_tokens" array.
func parseAddedTokens(v *jvalue) ([]addedToken, error) {
	if v.isNull() {
		return nil, nil
	}
	if v.kind != jArray {
		return nil, fmt.Errorf("added_tokens: want an array, got %s", v.kindName())
	}
	out := make([]addedToken, 0, len(v.items()))
	for i := range v.items() {
		e := &v.items()[i]
		where := fmt.Sprintf("added_tokens[%d]", i)
		var t addedToken
		var err error
		if t.id, err = e.get("id").asInt(where + ".id"); err != nil {
			return nil, err
		}
		if t.id < 0 || t.id > maxRank24 {
			return nil, fmt.Errorf("%s.id %d out of range", where, t.id)
		}
		if t.content, err = e.get("content").asString(where + ".content"); err != nil {
			return nil, err
		}
		if t.singleWord, err = e.get("single_word").asBool(where+".single_word", false); err != nil {
			return nil, err
		}
		if t.lstrip, err = e.get("lstrip").asBool(where+".lstrip", false); err != nil {
			return nil, err
		}
		if t.rstrip, err = e.get("rstrip").asBool(where+".rstrip", false); err != nil {
			return nil, err
		}
		if t.special, err = e.get("special").asBool(where+".special", false); err != nil {
			return nil, err
		}
		if t.normalized, err = e.get("normalized").asBool(where+".normalized", !t.special); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// addedMatcher finds added tokens in text the way Hugging Face's
// AddedVocabulary does with its Aho-Corasick automaton in leftmost-longest
// mode: scanning left to right, the match that starts first wins, and of
// those the longest. It is a byte trie walked from every position whose
// byte can start a token.
type addedMatcher struct {
	tokens []*addedToken
	starts [256]bool
	// children maps node<<8|byte to the child node; node 0 is the root.
	children map[uint32]uint32
	// accept maps a node to the token whose content ends there, +1.
	accept []int32
}

func newAddedMatcher(tokens []*addedToken, patterns []string) *addedMatcher {
	m := &addedMatcher{tokens: tokens, children: map[uint32]uint32{}, accept: []int32{0}}
	for i, pat := range patterns {
		if pat == "" {
			continue
		}
		m.starts[pat[0]] = true
		node := uint32(0)
		for k := 0; k < len(pat); k++ {
			key := node<<8 | uint32(pat[k])
			child, ok := m.children[key]
			if !ok {
				child = uint32(len(m.accept))
				m.accept = append(m.accept, 0)
				m.children[key] = child
			}
			node = child
		}
		if m.accept[node] == 0 {
			m.accept[node] = int32(i) + 1 // the first of equal patterns
		}
	}
	return m
}

// longest returns the token and end of the longest match starting at i.
func (m *addedMatcher) longest(s string, i int) (*addedToken, int) {
	var best *addedToken
	end := -1
	node := uint32(0)
	for k := i; k < len(s); k++ {
		child, ok := m.children[node<<8|uint32(s[k])]
		if !ok {
			break
		}
		node = child
		if a := m.accept[node]; a > 0 {
			best, end = m.tokens[a-1], k+1
		}
	}
	return best, end
}

// segment is a stretch of the input: an added token (id ≥ 0) or text for
// the model. orig is the segment's offset in the original input (for the
// Metaspace "first" scheme, only whether it is 0 matters).
type segment struct {
	text string
	id   int
	orig int
}

// split cuts s into added tokens and the text between them, as
// AddedVocabulary::find_matches does, including the single_word, lstrip
// and rstrip rules. Empty segments are dropped.
func (m *addedMatcher) split(s string, orig int, out []segment) []segment {
	if m == nil || len(m.tokens) == 0 {
		if s != "" {
			out = append(out, segment{text: s, id: -1, orig: orig})
		}
		return out
	}
	startOffset := 0
	for i := 0; i < len(s); {
		if !m.starts[s[i]] {
			i++
			continue
		}
		tok, end := m.longest(s, i)
		if tok == nil {
			i++
			continue
		}
		start, stop := i, end
		i = end // the automaton resumes after the match
		if tok.singleWord {
			startSpace := start == 0 || !endsWithWord(s[:start])
			stopSpace := stop == len(s) || !startsWithWord(s[stop:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if tok.lstrip {
			start = max(spaceLeftmostAtEnd(s[:start]), startOffset)
		}
		if tok.rstrip {
			stop += spaceRightmostAtStart(s[stop:])
		}
		if startOffset < start {
			out = append(out, segment{text: s[startOffset:start], id: -1, orig: orig + startOffset})
		}
		out = append(out, segment{text: s[start:stop], id: tok.id, orig: orig + start})
		startOffset = stop
	}
	if startOffset < len(s) {
		out = append(out, segment{text: s[startOffset:], id: -1, orig: orig + startOffset})
	}
	return out
}

// isWordChar is Hugging Face's test for single_word boundaries.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_'
}

func endsWithWord(s string) bool {
	r, size := utf8.DecodeLastRuneInString(s)
	return size > 0 && isWordChar(r)
}

func startsWithWord(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	return size > 0 && isWordChar(r)
}

// spaceLeftmostAtEnd returns where the white space ending s starts
// (len(s) when s does not end with white space).
func spaceLeftmostAtEnd(s string) int {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsSpace(r) {
			break
		}
		i -= size
	}
	return i
}

// spaceRightmostAtStart returns the length of the white space starting s.
// (Upstream computes the offset of its last character plus one, and the
// slice then snaps to the end of that character.)
func spaceRightmostAtStart(s string) int {
	for i, r := range s {
		if !unicode.IsSpace(r) {
			return i
		}
	}
	return len(s)
}
