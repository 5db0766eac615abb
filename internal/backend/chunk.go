package backend

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// message is the part of a streamed completion chunk the metrics need, as
// encoding/json decodes it: the reference for scanChunk and its fallback.
type message struct {
	Choices []struct {
		Text  *string `json:"text"`
		Delta *struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
		} `json:"delta"`
		FinishReason *string         `json:"finish_reason"`
		StopReason   json.RawMessage `json:"stop_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens            *int `json:"prompt_tokens"`
		CompletionTokens        *int `json:"completion_tokens"`
		CompletionTokensDetails *struct {
			ReasoningTokens *int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

// decodeChunk decodes one OpenAI-style streamed chunk, the shape the
// completions and chat codecs share: choices[0]'s text (with delta set,
// the chat shape, choices[0].delta.content) is appended to text, the
// other fields go to f. It uses scanChunk and falls back to encoding/json
// for anything scanChunk does not handle, so its results are always those
// of json.Unmarshal into message; err is json.Unmarshal's error.
func decodeChunk(data []byte, delta bool, text []byte, f *Message) ([]byte, error) {
	n := len(text)
	if out, ok := scanChunk(data, delta, text, f); ok {
		return out, nil
	}
	return decodeChunkJSON(data, delta, text[:n], f)
}

// decodeChunkJSON is decodeChunk with encoding/json only.
func decodeChunkJSON(data []byte, delta bool, text []byte, f *Message) ([]byte, error) {
	*f = Message{}
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return text, err
	}
	if len(m.Choices) > 0 {
		f.Output = true
		ch := m.Choices[0]
		if delta {
			if d := ch.Delta; d != nil {
				if d.Content != nil {
					text = append(text, *d.Content...)
					f.Answer = *d.Content != ""
				}
				f.Reasoning = d.ReasoningContent != nil && *d.ReasoningContent != "" || d.Reasoning != nil && *d.Reasoning != ""
			}
		} else if ch.Text != nil {
			text = append(text, *ch.Text...)
		}
		if ch.FinishReason != nil {
			f.FinishReason = finishReason([]byte(*ch.FinishReason))
		}
		if len(ch.StopReason) > 0 && string(ch.StopReason) != "null" {
			f.StopReason = string(ch.StopReason)
		}
	}
	if u := m.Usage; u != nil {
		if u.PromptTokens != nil {
			f.HasPromptTokens, f.PromptTokens = true, *u.PromptTokens
		}
		if u.CompletionTokens != nil {
			f.HasOutputTokens, f.OutputTokens = true, *u.CompletionTokens
		}
		if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens != nil {
			f.HasReasoningTokens, f.ReasoningTokens = true, *d.ReasoningTokens
		}
	}
	return text, nil
}

// scanChunk is a single-pass scanner for the chunk shapes servers send. It
// validates the whole document as JSON and extracts what decodeChunkJSON
// does, without allocating beyond the growth of text. It returns ok=false,
// leaving f and text[:len(text)] in an unspecified state, for anything whose
// decoding by encoding/json it does not reproduce exactly: invalid JSON, a
// type mismatch, a duplicate or case-folded or escaped key among those it
// interprets, non-integer token counts, or nesting deeper than
// maxScanDepth. The caller then uses encoding/json.
func scanChunk(data []byte, delta bool, text []byte, f *Message) (_ []byte, ok bool) {
	*f = Message{}
	s := chunkScanner{b: data}
	s.ws()
	if s.lit("null") {
		s.ws()
		return text, s.i == len(s.b)
	}
	if !s.eat('{') {
		return text, false
	}
	var seenChoices, seenUsage bool
	ok = s.object(func(k []byte) bool {
		switch {
		case string(k) == "choices":
			if seenChoices {
				return false
			}
			seenChoices = true
			var good bool
			text, good = s.choices(delta, text, f)
			return good
		case string(k) == "usage":
			if seenUsage {
				return false
			}
			seenUsage = true
			return s.usage(f)
		case foldEq(k, "choices"), foldEq(k, "usage"):
			return false
		}
		return s.skip(0)
	})
	if !ok {
		return text, false
	}
	s.ws()
	return text, s.i == len(s.b)
}

// maxScanDepth bounds the nesting scanChunk skips over; deeper documents go
// to encoding/json (whose own limit is 10000).
const maxScanDepth = 256

// chunkScanner walks one JSON document.
type chunkScanner struct {
	b []byte
	i int
}

// ws skips JSON whitespace. Compact JSON has none, so the first test
// usually ends it.
func (s *chunkScanner) ws() {
	for s.i < len(s.b) && s.b[s.i] <= ' ' {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c after optional whitespace.
func (s *chunkScanner) eat(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// lit consumes the literal l (true, false, null) if it is next.
func (s *chunkScanner) lit(l string) bool {
	if len(s.b)-s.i >= len(l) && string(s.b[s.i:s.i+len(l)]) == l {
		s.i += len(l)
		return true
	}
	return false
}

// peek returns the next non-space byte, or 0 at the end.
func (s *chunkScanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object scans the members of an object whose '{' was consumed, calling
// member with each key (which must be plain: ASCII without escapes) when
// the scanner stands at the member's value; member consumes the value.
func (s *chunkScanner) object(member func(key []byte) bool) bool {
	if s.eat('}') {
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		raw, plain, ok := s.str()
		if !ok || !plain || !s.eat(':') {
			return false
		}
		s.ws()
		if !member(raw) {
			return false
		}
		if s.eat(',') {
			continue
		}
		return s.eat('}')
	}
}

// choices scans the value of "choices": null or an array of objects (or
// nulls). The text of element 0 is appended to text.
func (s *chunkScanner) choices(delta bool, text []byte, f *Message) ([]byte, bool) {
	if s.lit("null") {
		return text, true
	}
	if !s.eat('[') {
		return text, false
	}
	if s.eat(']') {
		return text, true
	}
	f.Output = true
	for idx := 0; ; idx++ {
		switch s.peek() {
		case 'n':
			if !s.lit("null") {
				return text, false
			}
		case '{':
			s.i++
			var ok bool
			if text, ok = s.choice(delta, idx == 0, text, f); !ok {
				return text, false
			}
		default:
			return text, false
		}
		if s.eat(',') {
			continue
		}
		return text, s.eat(']')
	}
}

// choice scans one choice object whose '{' was consumed; with first set the
// text (or with delta set, delta.content) is appended to text, and the
// finish and stop reasons go to f.
func (s *chunkScanner) choice(delta, first bool, text []byte, f *Message) ([]byte, bool) {
	var seenText, seenDelta, seenFinish, seenStop bool
	ok := s.object(func(k []byte) bool {
		switch {
		case string(k) == "finish_reason":
			if seenFinish {
				return false
			}
			seenFinish = true
			if s.lit("null") {
				return true
			}
			if s.peek() != '"' {
				return false
			}
			raw, plain, ok := s.str()
			if !ok || !plain {
				return false
			}
			if first {
				f.FinishReason = finishReason(raw)
			}
			return true
		case string(k) == "stop_reason":
			if seenStop {
				return false
			}
			seenStop = true
			if s.lit("null") {
				return true
			}
			start := s.i
			if !s.skip(0) {
				return false
			}
			if first {
				f.StopReason = string(s.b[start:s.i]) // rare: a stop string or stop token
			}
			return true
		case foldEq(k, "finish_reason"), foldEq(k, "stop_reason"):
			return false
		case string(k) == "text":
			if seenText {
				return false
			}
			seenText = true
			var good bool
			text, good = s.optString(text, first && !delta)
			return good
		case string(k) == "delta":
			if seenDelta {
				return false
			}
			seenDelta = true
			if s.lit("null") {
				return true
			}
			if !s.eat('{') {
				return false
			}
			var seenContent, seenRC, seenR bool
			return s.object(func(k []byte) bool {
				switch {
				case string(k) == "content":
					if seenContent {
						return false
					}
					seenContent = true
					n := len(text)
					var good bool
					text, good = s.optString(text, first && delta)
					f.Answer = f.Answer || first && delta && len(text) > n
					return good
				case string(k) == "reasoning_content", string(k) == "reasoning":
					seen := &seenRC
					if len(k) == len("reasoning") {
						seen = &seenR
					}
					if *seen {
						return false
					}
					*seen = true
					nonEmpty, good := s.optNonEmpty()
					f.Reasoning = f.Reasoning || first && delta && nonEmpty
					return good
				case foldEq(k, "content"), foldEq(k, "reasoning_content"), foldEq(k, "reasoning"):
					return false
				}
				return s.skip(0)
			})
		case foldEq(k, "text"), foldEq(k, "delta"):
			return false
		}
		return s.skip(0)
	})
	return text, ok
}

// optNonEmpty scans a string or null and reports whether it is a
// non-empty string.
func (s *chunkScanner) optNonEmpty() (nonEmpty, ok bool) {
	if s.lit("null") {
		return false, true
	}
	if s.peek() != '"' {
		return false, false
	}
	raw, _, ok := s.str()
	return len(raw) > 0, ok
}

// optString scans a string or null; with keep set a string's value is
// appended to text.
func (s *chunkScanner) optString(text []byte, keep bool) ([]byte, bool) {
	if s.lit("null") {
		return text, true
	}
	if s.peek() != '"' {
		return text, false
	}
	raw, plain, ok := s.str()
	if !ok {
		return text, false
	}
	if keep {
		if plain {
			text = append(text, raw...)
		} else {
			text = appendUnquoted(text, raw)
		}
	}
	return text, true
}

// usage scans the value of "usage": null or an object whose prompt_tokens
// and completion_tokens are integers or null.
func (s *chunkScanner) usage(f *Message) bool {
	if s.lit("null") {
		return true
	}
	if !s.eat('{') {
		return false
	}
	var seenPrompt, seenCompletion, seenDetails bool
	return s.object(func(k []byte) bool {
		switch {
		case string(k) == "prompt_tokens":
			if seenPrompt {
				return false
			}
			seenPrompt = true
			return s.optInt(&f.HasPromptTokens, &f.PromptTokens)
		case string(k) == "completion_tokens":
			if seenCompletion {
				return false
			}
			seenCompletion = true
			return s.optInt(&f.HasOutputTokens, &f.OutputTokens)
		case string(k) == "completion_tokens_details":
			if seenDetails {
				return false
			}
			seenDetails = true
			return s.reasoningTokens("reasoning_tokens", f)
		case foldEq(k, "prompt_tokens"), foldEq(k, "completion_tokens"), foldEq(k, "completion_tokens_details"):
			return false
		}
		return s.skip(0)
	})
}

// reasoningTokens scans null or an object whose member key (an integer
// or null) is the reasoning token count.
func (s *chunkScanner) reasoningTokens(key string, f *Message) bool {
	if s.lit("null") {
		return true
	}
	if !s.eat('{') {
		return false
	}
	seen := false
	return s.object(func(k []byte) bool {
		switch {
		case string(k) == key:
			if seen {
				return false
			}
			seen = true
			return s.optInt(&f.HasReasoningTokens, &f.ReasoningTokens)
		case foldEq(k, key):
			return false
		}
		return s.skip(0)
	})
}

// optInt scans null or a plain integer literal (no fraction or exponent)
// that fits an int; anything else is left to encoding/json.
func (s *chunkScanner) optInt(has *bool, v *int) bool {
	if s.lit("null") {
		return true
	}
	start := s.i
	if !s.number() {
		return false
	}
	lit := s.b[start:s.i]
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	const cutoff = (1<<63 - 1) / 10
	n := 0
	for _, c := range lit {
		if c < '0' || c > '9' || n > cutoff {
			return false // fraction, exponent, or about to overflow
		}
		n = n*10 + int(c-'0')
		if n < 0 {
			return false
		}
	}
	if neg {
		n = -n
	}
	*has, *v = true, n
	return true
}

// str scans a string at s.i (which must be '"') and returns its raw content
// between the quotes; plain reports that it is printable ASCII without
// escapes, so the raw bytes are its value.
func (s *chunkScanner) str() (raw []byte, plain, ok bool) {
	s.i++
	start := s.i
	plain = true
	b := s.b
	for {
		i := s.i
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		s.i = i
		if i >= len(b) {
			return nil, false, false
		}
		switch c := b[i]; {
		case c == '"':
			s.i++
			return b[start:i], plain, true
		case c == '\\':
			plain = false
			i++
			if i >= len(b) {
				return nil, false, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i = i + 1
			case 'u':
				if len(b)-i < 5 || hex4(b[i+1:i+5]) < 0 {
					return nil, false, false
				}
				s.i = i + 5
			default:
				return nil, false, false
			}
		case c < ' ':
			return nil, false, false
		default: // non-ASCII
			plain = false
			s.i++
		}
	}
}

// plainByte marks the bytes a string holds as themselves: printable ASCII
// other than '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// number scans a JSON number.
func (s *chunkScanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	s.i = i
	return true
}

// skip validates and skips one value at s.i.
func (s *chunkScanner) skip(depth int) bool {
	if depth > maxScanDepth {
		return false
	}
	switch s.peek() {
	case '"':
		_, _, ok := s.str()
		return ok
	case '{':
		s.i++
		return s.object(func([]byte) bool { return s.skip(depth + 1) })
	case '[':
		s.i++
		if s.eat(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.eat(',') {
				continue
			}
			return s.eat(']')
		}
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	default:
		return s.number()
	}
}

// foldEq reports whether the plain ASCII key k equals name under
// encoding/json's case-insensitive matching.
func foldEq(k []byte, name string) bool {
	return len(k) == len(name) && bytes.EqualFold(k, []byte(name))
}

// hex4 decodes four hex digits, or returns -1.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// appendUnquoted appends the value of the validated raw string content raw
// (between its quotes) to dst, as encoding/json decodes it: escapes
// resolved, a valid UTF-16 surrogate pair combined, a lone surrogate and
// every byte of invalid UTF-8 replaced by U+FFFD.
func appendUnquoted(dst, raw []byte) []byte {
	for r := 0; r < len(raw); {
		c := raw[r]
		switch {
		case c == '\\':
			switch raw[r+1] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := hex4(raw[r+2 : r+6])
				r += 6
				if utf16.IsSurrogate(rr) {
					if len(raw)-r >= 6 && raw[r] == '\\' && raw[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(raw[r+2:r+6])); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							r += 6
							continue
						}
					}
					rr = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, raw[r+1])
			}
			r += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(raw[r:])
			dst = utf8.AppendRune(dst, rr)
			r += size
		}
	}
	return dst
}

// finishReason is a choice's finish_reason: the values servers send are
// constants (no allocation), others are copied.
func finishReason(raw []byte) string {
	switch string(raw) {
	case "stop":
		return "stop"
	case "length":
		return "length"
	case "abort":
		return "abort"
	case "tool_calls":
		return "tool_calls"
	case "content_filter":
		return "content_filter"
	case "eos":
		return "eos"
	}
	return string(raw)
}
