package tokenizer

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A small JSON parser for tokenizer files. A tokenizer.json holds a
// vocabulary of 100k–250k strings and as many merges; encoding/json spends
// most of half a second on them. This parser builds a plain tree and
// nothing else, and leaves the vocabulary and merges lazy
// (parseJSONLazy): they are only skipped over, their elements counted, and
// their readers walk them (each) without building them, each on its own
// core.
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
// A lazy container (parseJSONLazy) holds the value's JSON text instead,
// already validated, until a method needs its members (materialize); each
// walks it without building it.
type jcontainer struct {
	keys  []string
	elems []jvalue
	// lazy holds a lazy container's JSON text; nil once materialized.
	lazy *jlazy
}

// jlazy is where a lazy container's JSON text is in its document, which
// is validated only as it is read (each, materialize).
type jlazy struct {
	data  []byte
	src   string
	start int // the container's opening bracket is data[start]
	// n is the number of elements, counted from the commas (exact for
	// valid JSON), for readers to size what they build.
	n int
}

// size returns the number of elements or members of v: for a lazy
// container, what its commas say (exact when it is valid JSON).
func (v *jvalue) size() int {
	switch {
	case v == nil || v.c == nil:
		return 0
	case v.c.lazy != nil:
		return v.c.lazy.n
	}
	return len(v.c.elems)
}

// materialize builds a lazy container's members. Text that does not
// parse leaves it empty: each, which the readers of lazy values use,
// reports the error.
func (v *jvalue) materialize() {
	c := v.c
	if c == nil || c.lazy == nil {
		return
	}
	l := c.lazy
	*c = jcontainer{}
	p := &jparser{data: l.data, src: l.src, pos: l.start}
	if full, err := p.value(0); err == nil && full.c != nil {
		*c = *full.c
	}
}

// each calls fn for each member of an object (key set) or element of an
// array (key ""), in order, and stops at fn's first error. A lazy
// container is walked without being built: only the element passed to fn
// exists, and it is valid only during the call.
func (v *jvalue) each(fn func(key string, e *jvalue) error) error {
	if v == nil || v.c == nil {
		return nil
	}
	if v.c.lazy == nil {
		for i := range v.c.elems {
			key := ""
			if v.kind == jObject {
				key = v.c.keys[i]
			}
			if err := fn(key, &v.c.elems[i]); err != nil {
				return err
			}
		}
		return nil
	}
	l := v.c.lazy
	p := &jparser{data: l.data, src: l.src, pos: l.start + 1}
	closer, what := byte(']'), "an array"
	if v.kind == jObject {
		closer, what = '}', "an object"
	}
	p.skipSpace()
	if p.data[p.pos] == closer {
		return nil
	}
	for {
		p.skipSpace()
		key := ""
		if v.kind == jObject {
			if p.data[p.pos] != '"' {
				return p.errorf("want an object key")
			}
			var err error
			if key, err = p.string(); err != nil {
				return err
			}
			p.skipSpace()
			if p.data[p.pos] != ':' {
				return p.errorf("want ':' after an object key")
			}
			p.pos++
			p.skipSpace()
		}
		// The element lives only during fn: the chunks its containers
		// take are reused for the next one.
		conts, chunk := p.conts, p.elemChunk
		if err := p.element(); err != nil {
			return err
		}
		if err := fn(key, &p.cur); err != nil {
			return err
		}
		if len(conts) > len(p.conts) && len(chunk) > len(p.elemChunk) {
			p.conts, p.elemChunk = conts, chunk
		}
		p.skipSpace()
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case closer:
			return nil
		default:
			return p.errorf("want ',' or '%c' in %s", closer, what)
		}
	}
}

// element parses a lazy container's element at p.pos into p.cur: a
// string, an integer, or a pair of strings (a vocabulary's entries, a
// merge) directly, anything else as value does.
func (p *jparser) element() error {
	var err error
	switch c := p.data[p.pos]; {
	case c == '"':
		var s string
		if s, err = p.string(); err == nil {
			p.cur = jvalue{kind: jString, str: s}
		}
		return err
	case c >= '0' && c <= '9':
		p.cur, err = p.number()
		return err
	case c == '[':
		if ok, err := p.pair(); ok || err != nil {
			return err
		}
	}
	p.cur, err = p.value(1)
	return err
}

// pair parses an array of two strings at p.pos into p.cur (ok), its
// elements in p.pairElems; anything else leaves p.pos where it was (not
// ok) for value to parse.
func (p *jparser) pair() (ok bool, err error) {
	start := p.pos
	p.pos++
	var two [2]string
	for k := range 2 {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			p.pos = start
			return false, nil
		}
		if two[k], err = p.string(); err != nil {
			return false, err
		}
		p.skipSpace()
		if want := ",]"[k]; p.pos >= len(p.data) || p.data[p.pos] != want {
			p.pos = start
			return false, nil
		}
		p.pos++
	}
	p.pairElems = [2]jvalue{{kind: jString, str: two[0]}, {kind: jString, str: two[1]}}
	p.pairC.elems = p.pairElems[:]
	p.cur = jvalue{kind: jArray, c: &p.pairC}
	return true, nil
}

// items returns the elements of an array or the values of an object's
// members.
func (v *jvalue) items() []jvalue {
	if v == nil || v.c == nil {
		return nil
	}
	v.materialize()
	return v.c.elems
}

// names returns the keys of an object's members.
func (v *jvalue) names() []string {
	if v == nil || v.c == nil {
		return nil
	}
	v.materialize()
	return v.c.keys
}

// get returns the member key of an object, nil when v is not an object or
// has no such member.
func (v *jvalue) get(key string) *jvalue {
	if v == nil || v.kind != jObject || v.c == nil {
		return nil
	}
	v.materialize()
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
	return parse(&jparser{data: data, src: string(data)})
}

// parseJSONLazy parses one JSON document, keeping the objects and arrays
// at the paths lazy (a path is the keys of nested objects from the root):
// they are neither validated nor built until they are read. each walks
// them without building them, and reports their errors at their line and
// column; other methods build them, empty when they do not parse. A tokenizer's vocabulary and
// merges, hundreds of thousands of entries, are read this way.
//
// The strings of the values are slices of data, which the caller must not
// modify afterwards (parseJSON copies it instead).
func parseJSONLazy(data []byte, lazy ...[]string) (*jvalue, error) {
	return parse(&jparser{data: data, src: unsafe.String(unsafe.SliceData(data), len(data)), lazy: lazy})
}

// parse parses the document of p. Strings without escapes are slices of
// p.src, so the hundreds of thousands of tokens of a vocabulary cost no
// allocation each.
func parse(p *jparser) (*jvalue, error) {
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
	// conts and elemChunk are what is left of the chunks collect carves
	// containers and small containers' elements from.
	conts     []jcontainer
	elemChunk []jvalue
	// lazy are the paths of the values to keep lazy, path the keys of the
	// objects being parsed (tracked while lazy is set).
	lazy [][]string
	path []string
	// cur is the element each passes to its function; pairC and
	// pairElems hold it when it is a pair of strings.
	cur       jvalue
	pairC     jcontainer
	pairElems [2]jvalue
}

// collect moves the elements (and keys) pushed since mark (kmark) into
// exactly sized slices. Small containers (a merge's pair, a short list)
// are carved from shared chunks, so that a file of hundreds of thousands
// of them costs a few hundred allocations, not three per container.
func (p *jparser) collect(v *jvalue, mark, kmark int) {
	if len(p.conts) == 0 {
		p.conts = make([]jcontainer, jchunk)
	}
	c := &p.conts[0]
	p.conts = p.conts[1:]
	if n := len(p.stack) - mark; n > 0 {
		c.elems = p.elems(n)
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

// push pushes an element of the container being parsed. The stack doubles
// when full (append grows a large slice by a quarter at a time, which for
// a vocabulary of 150k entries allocates five times its final size).
func (p *jparser) push(e jvalue) {
	p.stack = appendDoubling(p.stack, e)
}

// appendDoubling appends v to s, doubling s's capacity when it is full
// (append grows a large slice by a quarter at a time).
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, len(s)+16)
	}
	return append(s, v)
}

// jchunk is how many containers, or elements of small containers, one
// allocation holds.
const jchunk = 4096

// elems returns a slice of n elements with capacity n: from the shared
// chunk when n is small, else its own.
func (p *jparser) elems(n int) []jvalue {
	if n > jchunk/16 {
		return make([]jvalue, n)
	}
	if len(p.elemChunk) < n {
		p.elemChunk = make([]jvalue, jchunk)
	}
	e := p.elemChunk[:n:n]
	p.elemChunk = p.elemChunk[n:]
	return e
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
	d, i := p.data, p.pos
	for i < len(d) && space[d[i]] != 0 {
		i++
	}
	p.pos = i
}

// space marks JSON's whitespace bytes.
var space = [256]byte{' ': 1, '\t': 1, '\n': 1, '\r': 1}

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
		var e jvalue
		if p.lazy != nil {
			e, err = p.member(k, depth+1)
		} else {
			e, err = p.value(depth + 1)
		}
		if err != nil {
			return jvalue{}, err
		}
		p.kstk = appendDoubling(p.kstk, k)
		p.push(e)
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

// member parses the value of member key of the object being parsed,
// keeping it lazy when its path is one of p.lazy.
func (p *jparser) member(key string, depth int) (jvalue, error) {
	p.path = append(p.path, key)
	defer func() { p.path = p.path[:len(p.path)-1] }()
	lazy := false
	for _, l := range p.lazy {
		lazy = lazy || slices.Equal(l, p.path)
	}
	if !lazy || p.pos >= len(p.data) || p.data[p.pos] != '{' && p.data[p.pos] != '[' {
		return p.value(depth)
	}
	start := p.pos
	kind := jObject
	if p.data[p.pos] == '[' {
		kind = jArray
	}
	n, err := p.skipBalanced()
	if err != nil {
		return jvalue{}, err
	}
	return jvalue{kind: kind, c: &jcontainer{lazy: &jlazy{data: p.data, src: p.src, start: start, n: n}}}, nil
}

// skipBalanced moves past the object or array at p.pos to its matching
// bracket, skipping strings, without validating what is between (each
// does that as it reads it), and returns its number of elements as its
// commas and content say.
func (p *jparser) skipBalanced() (n int, err error) {
	d := p.data
	j := p.pos + 1
	for j < len(d) && space[d[j]] != 0 {
		j++
	}
	if j < len(d) && (d[j] == ']' || d[j] == '}') { // empty (each checks the bracket)
		p.pos = j + 1
		return 0, nil
	}
	depth, commas := 0, 0
	for i := p.pos; i < len(d); i++ {
		for i < len(d) && structural[d[i]] == 0 {
			i++
		}
		if i == len(d) {
			break
		}
		switch d[i] {
		case ',':
			if depth == 1 {
				commas++
			}
		case '"': // to the closing quote: one not preceded by an odd run of backslashes
			for {
				k := bytes.IndexByte(d[i+1:], '"')
				if k < 0 {
					i = len(d)
					break
				}
				i += 1 + k
				b := i - 1
				for b > p.pos && d[b] == '\\' {
					b--
				}
				if (i-1-b)%2 == 0 {
					break
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				p.pos = i + 1
				return commas + 1, nil
			}
		}
	}
	p.pos = len(d)
	return 0, p.errorf("unexpected end of input")
}

// structural marks the bytes skipBalanced stops at outside strings.
var structural = [256]byte{',': 1, '"': 1, '{': 1, '}': 1, '[': 1, ']': 1}

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
		p.push(e)
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
