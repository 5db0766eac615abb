package tokenizer

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON parser for tokenizer files. A tokenizer.json holds a
// vocabulary of 100k–250k strings and as many merges; encoding/json spends
// most of half a second on them, while this parser, which builds a plain
// tree and nothing else, reads an 11 MB file in a few tens of milliseconds.
// It accepts exactly RFC 8259 JSON; lone surrogate escapes become U+FFFD,
// as encoding/json does.

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// jvalue is a parsed JSON value. Objects keep their members in order
// (keys[i] goes with elems[i]); duplicate keys are kept, and get returns
// the last, as Rust's serde and Python's json do.
type jvalue struct {
	kind  jkind
	b     bool
	isInt bool   // a number that is an integer, in num
	num   int64  // the integer value of a number
	str   string // string value, or the text of a number
	c     *jcontainer
}

// jcontainer holds the members of an object or the elements of an array.
type jcontainer struct {
	keys  []string
	elems []jvalue
}

// items returns the elements of an array or the values of an object's
// members.
func (v *jvalue) items() []jvalue {
	if v == nil || v.c == nil {
		return nil
	}
	return v.c.elems
}

// names returns the keys of an object's members.
func (v *jvalue) names() []string {
	if v == nil || v.c == nil {
		return nil
	}
	return v.c.keys
}

// get returns the member key of an object, nil when v is not an object or
// has no such member.
func (v *jvalue) get(key string) *jvalue {
	if v == nil || v.kind != jObject || v.c == nil {
		return nil
	}
	for i := len(v.c.keys) - 1; i >= 0; i-- {
		if v.c.keys[i] == key {
			return &v.c.elems[i]
		}
	}
	return nil
}

// isNull reports whether v is absent or JSON null.
func (v *jvalue) isNull() bool { return v == nil || v.kind == jNull }

// asString returns the string value, or an error naming what where is.
func (v *jvalue) asString(where string) (string, error) {
	if v == nil || v.kind != jString {
		return "", fmt.Errorf("%s: want a string, got %s", where, v.kindName())
	}
	return v.str, nil
}

// asInt returns the value as an integer.
func (v *jvalue) asInt(where string) (int, error) {
	if v == nil || v.kind != jNumber {
		return 0, fmt.Errorf("%s: want an integer, got %s", where, v.kindName())
	}
	if v.isInt {
		return int(v.num), nil
	}
	n, err := strconv.Atoi(v.str)
	if err != nil {
		return 0, fmt.Errorf("%s: want an integer, got %s", where, v.str)
	}
	return n, nil
}

// asFloat returns the value as a number.
func (v *jvalue) asFloat(where string) (float64, error) {
	if v == nil || v.kind != jNumber {
		return 0, fmt.Errorf("%s: want a number, got %s", where, v.kindName())
	}
	return strconv.ParseFloat(v.str, 64)
}

// asBool returns the boolean value; def when v is absent or null.
func (v *jvalue) asBool(where string, def bool) (bool, error) {
	if v.isNull() {
		return def, nil
	}
	if v.kind != jBool {
		return false, fmt.Errorf("%s: want a boolean, got %s", where, v.kindName())
	}
	return v.b, nil
}

// optString returns the string value, def when v is absent or null.
func (v *jvalue) optString(where, def string) (string, error) {
	if v.isNull() {
		return def, nil
	}
	return v.asString(where)
}

func (v *jvalue) kindName() string {
	if v == nil {
		return "nothing"
	}
	return v.kind.String()
}

// maxJSONDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxJSONDepth = 512

// parseJSON parses one JSON document.
func parseJSON(data []byte) (*jvalue, error) {
	// Strings without escapes are slices of one copy of the document, so
	// the hundreds of thousands of tokens of a vocabulary cost no
	// allocation each.
	p := &jparser{data: data, src: string(data)}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errorf("unexpected %q after the top-level value", p.data[p.pos])
	}
	return &v, nil
}

type jparser struct {
	data  []byte
	src   string // data as a string
	pos   int
	buf   []byte   // scratch for strings with escapes
	stack []jvalue // elements of the arrays and objects being parsed
	kstk  []string // keys of the objects being parsed
}

// collect moves the elements (and keys) pushed since mark (kmark) into
// exactly sized slices.
func (p *jparser) collect(v *jvalue, mark, kmark int) {
	c := &jcontainer{}
	if n := len(p.stack) - mark; n > 0 {
		c.elems = make([]jvalue, n)
		copy(c.elems, p.stack[mark:])
		clear(p.stack[mark:])
		p.stack = p.stack[:mark]
	}
	if n := len(p.kstk) - kmark; n > 0 {
		c.keys = make([]string, n)
		copy(c.keys, p.kstk[kmark:])
		clear(p.kstk[kmark:])
		p.kstk = p.kstk[:kmark]
	}
	v.c = c
}

func (p *jparser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for _, c := range p.data[:min(p.pos, len(p.data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, fmt.Sprintf(format, args...))
}

func (p *jparser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (jvalue, error) {
	if depth > maxJSONDepth {
		return jvalue{}, p.errorf("nested too deeply")
	}
	if p.pos >= len(p.data) {
		return jvalue{}, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return jvalue{}, err
		}
		return jvalue{kind: jString, str: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", jvalue{kind: jBool, b: true})
	case c == 'f':
		return p.literal("false", jvalue{kind: jBool})
	case c == 'n':
		return p.literal("null", jvalue{kind: jNull})
	default:
		return jvalue{}, p.errorf("unexpected %q", c)
	}
}

func (p *jparser) literal(word string, v jvalue) (jvalue, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return jvalue{}, p.errorf("invalid literal")
	}
	p.pos += len(word)
	return v, nil
}

func (p *jparser) object(depth int) (jvalue, error) {
	p.pos++ // {
	v := jvalue{kind: jObject}
	mark, kmark := len(p.stack), len(p.kstk)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return jvalue{}, p.errorf("want an object key")
		}
		k, err := p.string()
		if err != nil {
			return jvalue{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return jvalue{}, p.errorf("want ':' after an object key")
		}
		p.pos++
		p.skipSpace()
		e, err := p.value(depth + 1)
		if err != nil {
			return jvalue{}, err
		}
		p.kstk = append(p.kstk, k)
		p.stack = append(p.stack, e)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return jvalue{}, p.errorf("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.collect(&v, mark, kmark)
			return v, nil
		default:
			return jvalue{}, p.errorf("want ',' or '}' in an object")
		}
	}
}

func (p *jparser) array(depth int) (jvalue, error) {
	p.pos++ // [
	v := jvalue{kind: jArray}
	mark := len(p.stack)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.skipSpace()
		e, err := p.value(depth + 1)
		if err != nil {
			return jvalue{}, err
		}
		p.stack = append(p.stack, e)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return jvalue{}, p.errorf("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.collect(&v, mark, len(p.kstk))
			return v, nil
		default:
			return jvalue{}, p.errorf("want ',' or ']' in an array")
		}
	}
}

func (p *jparser) number() (jvalue, error) {
	start := p.pos
	d := p.data
	i := p.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return jvalue{}, p.errorf("invalid number")
	}
	frac := false
	if i < len(d) && d[i] == '.' {
		frac = true
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			p.pos = i
			return jvalue{}, p.errorf("invalid number")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		frac = true
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			p.pos = i
			return jvalue{}, p.errorf("invalid number")
		}
	}
	p.pos = i
	text := d[start:i]
	if !frac && len(text) <= 18 && string(text) != "-0" {
		var n int64
		neg := text[0] == '-'
		for _, c := range text[btoi(neg):] {
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return jvalue{kind: jNumber, isInt: true, num: n, str: ""}, nil
	}
	return jvalue{kind: jNumber, str: string(text)}, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// string parses a string literal at p.pos (which is '"').
func (p *jparser) string() (string, error) {
	p.pos++
	d := p.data
	start := p.pos
	// Fast path: no escapes.
	i := start
	for i < len(d) {
		c := d[i]
		if c == '"' {
			s := p.src[start:i]
			p.pos = i + 1
			if !utf8.ValidString(s) {
				return string(toValidUTF8([]byte(s))), nil
			}
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			p.pos = i
			return "", p.errorf("control character in a string")
		}
		i++
	}
	b := append(p.buf[:0], d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			p.buf = b
			if !utf8.Valid(b) {
				return string(toValidUTF8(b)), nil
			}
			return string(b), nil
		case c < 0x20:
			p.pos = i
			return "", p.errorf("control character in a string")
		case c != '\\':
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(d) {
			break
		}
		i++
		switch d[i] {
		case '"', '\\', '/':
			b = append(b, d[i])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(d, i+1)
			if !ok {
				p.pos = i
				return "", p.errorf("invalid \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+2 < len(d) && d[i+1] == '\\' && d[i+2] == 'u' {
					r2, ok2 = hex4(d, i+3)
				}
				if ok2 {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			p.pos = i
			return "", p.errorf("invalid escape \\%c", d[i])
		}
		i++
	}
	p.pos = len(d)
	return "", p.errorf("unterminated string")
}

// hex4 decodes four hex digits at d[i:].
func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// toValidUTF8 replaces each invalid byte with U+FFFD, as encoding/json does.
func toValidUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}
