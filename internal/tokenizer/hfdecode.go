package tokenizer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A tokenizer.json decoder turns the tokens of a sequence of ids back into
// text through a chain of steps, each taking and returning a list of
// strings (Hugging Face's decode_chain), whose results are finally
// concatenated. Decode runs the chain generically, or, for the two chains
// nearly every byte-level and SentencePiece-style tokenizer uses, a
// precomputed equivalent (see hfDecoder).

// decodeStep is one decoder of a chain.
type decodeStep interface {
	chain(tokens []string) []string
}

// parseDecoder reads a tokenizer.json "decoder" value into a flat chain.
func parseDecoder(v *jvalue, where string) ([]decodeStep, error) {
	if v.isNull() {
		return nil, nil
	}
	typ, err := v.get("type").asString(where + ".type")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "Sequence":
		list := v.get("decoders")
		if list == nil || list.kind != jArray {
			return nil, fmt.Errorf("%s.decoders: want an array, got %s", where, list.kindName())
		}
		var steps []decodeStep
		for i := range list.items() {
			e := &list.items()[i]
			s, err := parseDecoder(e, fmt.Sprintf("%s.decoders[%d]", where, i))
			if err != nil {
				return nil, err
			}
			steps = append(steps, s...)
		}
		return steps, nil
	case "ByteLevel":
		return []decodeStep{byteLevelStep{}}, nil
	case "Replace":
		r, err := parseReplace(v, where)
		if err != nil {
			return nil, err
		}
		return []decodeStep{replaceStep(r)}, nil
	case "ByteFallback":
		return []decodeStep{byteFallbackStep{}}, nil
	case "Fuse":
		return []decodeStep{fuseStep{}}, nil
	case "Strip":
		content, err := v.get("content").asString(where + ".content")
		if err != nil {
			return nil, err
		}
		if utf8.RuneCountInString(content) != 1 {
			return nil, fmt.Errorf("%s.content %q: want one character", where, content)
		}
		start, err := v.get("start").asInt(where + ".start")
		if err != nil {
			return nil, err
		}
		stop, err := v.get("stop").asInt(where + ".stop")
		if err != nil {
			return nil, err
		}
		r, _ := utf8.DecodeRuneInString(content)
		return []decodeStep{stripStep{content: r, start: max(start, 0), stop: max(stop, 0)}}, nil
	case "Metaspace":
		m, err := parseMetaspace(v, where)
		if err != nil {
			return nil, err
		}
		return []decodeStep{metaspaceStep{m}}, nil
	}
	return nil, fmt.Errorf("%s: decoder %q is not supported (vbench supports ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace and Sequence)", where, typ)
}

// byteLevelStep maps each token's characters back to bytes (a token with
// a character outside the alphabet keeps its UTF-8 bytes) and returns one
// string of all of them, with invalid UTF-8 replaced as
// String::from_utf8_lossy does.
type byteLevelStep struct{}

func (byteLevelStep) chain(tokens []string) []string {
	var b []byte
	for _, t := range tokens {
		b = append(b, byteLevelDecode(t)...)
	}
	return []string{LossyUTF8(b)}
}

// replaceStep replaces a string in every token.
type replaceStep replaceNormalizer

func (r replaceStep) chain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = replaceNormalizer(r).normalize(t)
	}
	return out
}

// byteFallbackStep turns runs of <0xXX> tokens into the text of their
// bytes, or into one U+FFFD per byte when the run is not valid UTF-8.
type byteFallbackStep struct{}

// fallbackByte parses a <0xXX> token as upstream does (Rust's
// u8::from_str_radix on the two characters after "<0x", which also
// accepts a leading '+').
func fallbackByte(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	digits := t[3:5]
	if digits[0] == '+' {
		digits = digits[1:]
	}
	n, err := strconv.ParseUint(digits, 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(n), true
}

func (byteFallbackStep) chain(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	var run []byte
	flush := func() {
		if len(run) == 0 {
			return
		}
		if utf8.Valid(run) {
			out = append(out, string(run))
		} else {
			for range run {
				out = append(out, replacement)
			}
		}
		run = run[:0]
	}
	for _, t := range tokens {
		if b, ok := fallbackByte(t); ok {
			run = append(run, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// fuseStep joins all tokens into one.
type fuseStep struct{}

func (fuseStep) chain(tokens []string) []string {
	return []string{strings.Join(tokens, "")}
}

// stripStep removes up to start leading and stop trailing occurrences of
// content from every token.
type stripStep struct {
	content     rune
	start, stop int
}

func (s stripStep) chain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = s.strip(t)
	}
	return out
}

func (s stripStep) strip(t string) string {
	for k := 0; k < s.start; k++ {
		r, size := utf8.DecodeRuneInString(t)
		if size == 0 || r != s.content {
			break
		}
		t = t[size:]
	}
	for k := 0; k < s.stop; k++ {
		r, size := utf8.DecodeLastRuneInString(t)
		if size == 0 || r != s.content {
			break
		}
		t = t[:len(t)-size]
	}
	return t
}

// metaspaceStep turns the replacement character back into spaces; in the
// first token it is dropped instead, unless the prepend scheme is never.
type metaspaceStep struct{ m *metaspace }

func (s metaspaceStep) chain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		with := " "
		if i == 0 && s.m.scheme != "never" {
			with = ""
		}
		out[i] = strings.ReplaceAll(t, s.m.replacement, with)
	}
	return out
}

// runDecoder applies a chain to tokens and concatenates the result; with
// no decoder, tokens are joined with spaces, as upstream does.
func runDecoder(steps []decodeStep, tokens []string) string {
	if len(steps) == 0 {
		return strings.Join(tokens, " ")
	}
	for _, s := range steps {
		tokens = s.chain(tokens)
	}
	return strings.Join(tokens, "")
}
