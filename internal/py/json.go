package py

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Object is a JSON object that keeps its keys in insertion order, with
// Python dict semantics: setting an existing key replaces its value in
// place, setting a new key appends it, deleting removes it. The zero
// Object is empty and ready to use. Small objects are plain slices; an
// index is built once an object holds more than indexFrom keys.
type Object struct {
	keys  []string
	vals  []any
	index map[string]int // key -> position, once len(keys) > indexFrom
}

// indexFrom is the size above which an Object indexes its keys.
const indexFrom = 16

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{} }

// find returns the position of key, or -1.
func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// reindex rebuilds the index when the object is large enough to need one.
func (o *Object) reindex() {
	o.index = nil
	if len(o.keys) <= indexFrom {
		return
	}
	o.index = make(map[string]int, len(o.keys))
	for i, k := range o.keys {
		o.index[k] = i
	}
}

// Set assigns key: a new key goes last, an existing key keeps its position
// and takes the new value (Python's d[key] = v).
func (o *Object) Set(key string, v any) {
	if i := o.find(key); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	switch {
	case o.index != nil:
		o.index[key] = len(o.keys) - 1
	case len(o.keys) > indexFrom:
		o.reindex()
	}
}

// Get returns the value of key and whether it is present.
func (o *Object) Get(key string) (any, bool) {
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Delete removes key if present.
func (o *Object) Delete(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.keys = slices.Delete(o.keys, i, i+1)
	o.vals = slices.Delete(o.vals, i, i+1)
	o.reindex()
}

// Keys returns the keys in order.
func (o *Object) Keys() []string { return slices.Clone(o.keys) }

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// All iterates over the members in order.
func (o *Object) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for i, k := range o.keys {
			if !yield(k, o.vals[i]) {
				return
			}
		}
	}
}

// MarshalJSON encodes the object as compact JSON in insertion order (no
// spaces, as Go writes it), each value through encoding/json without HTML
// escaping, so a prompt is sent as written. Non-finite floats are an error,
// as encoding/json has them. For Python's json.dumps text, use Dumps.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(256)
	if err := o.marshalInto(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// marshalInto appends the JSON of o to b (MarshalJSON).
func (o *Object) marshalInto(b *bytes.Buffer) error {
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := marshalTo(b, k); err != nil {
			return err
		}
		b.WriteByte(':')
		if err := marshalTo(b, o.vals[i]); err != nil {
			return fmt.Errorf("encoding %q: %w", k, err)
		}
	}
	b.WriteByte('}')
	return nil
}

// marshalTo appends the JSON of v to b as encoding/json writes it without
// HTML escaping, and without the encoder's trailing newline. The values a
// request payload is made of (strings without characters to escape,
// integers, finite floats, booleans, nil, Objects, maps with string keys)
// are written directly, byte for byte as encoding/json would; anything
// else goes through encoding/json.
func marshalTo(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
		return nil
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
		return nil
	case int:
		b.Grow(20)
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(x), 10))
		return nil
	case int64:
		b.Grow(20)
		b.Write(strconv.AppendInt(b.AvailableBuffer(), x, 10))
		return nil
	case string:
		b.Grow(len(x) + 2)
		if out, ok := appendPlainString(b.AvailableBuffer(), x); ok {
			b.Write(out)
			return nil
		}
	case float64:
		b.Grow(32)
		if out, ok := appendGoJSONFloat(b.AvailableBuffer(), x); ok {
			b.Write(out)
			return nil
		}
	case *Object:
		if x != nil {
			return x.marshalInto(b)
		}
	case map[string]any:
		if x != nil {
			b.WriteByte('{')
			keys := make([]string, 0, 8)
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := marshalTo(b, k); err != nil {
					return err
				}
				b.WriteByte(':')
				if err := marshalTo(b, x[k]); err != nil {
					return err
				}
			}
			b.WriteByte('}')
			return nil
		}
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1)
	return nil
}

// appendPlainString appends s quoted, when encoding/json would write it
// so: valid UTF-8 with no control character, quote, backslash, U+2028 or
// U+2029 (ok false otherwise, and b unchanged).
func appendPlainString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				return b, false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return b, false
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// appendGoJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 and
// from 1e21 on (with a one-digit negative exponent unpadded). ok is false
// for NaN and infinities, which JSON cannot hold.
func appendGoJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, true
}

// Dumps encodes v as Python's json.dumps(v) does with its default
// settings: separators ", " and ": ", ensure_ascii (see AppendString),
// floats as Python repr with bare Infinity/NaN, integers as integers, and no
// trailing newline.
//
// Supported values: nil, bool, signed and unsigned integers, float32/64,
// string, json.Number (written as is), *Object, map[string]T (keys sorted),
// and slices of any of these. Any other value (a struct, say) is first
// marshalled with encoding/json and re-read with Loads, so its field
// order and json tags are kept.
func Dumps(v any) ([]byte, error) {
	return appendPy(nil, v)
}

// AppendDumps appends Dumps(v) to b.
func AppendDumps(b []byte, v any) ([]byte, error) {
	return appendPy(b, v)
}

func appendPy(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		return appendJSONFloat(b, x), nil
	case float32:
		return appendJSONFloat(b, float64(x)), nil
	case string:
		return AppendString(b, x), nil
	case json.Number:
		if !json.Valid([]byte(x)) {
			return nil, fmt.Errorf("invalid json.Number %q", string(x))
		}
		return append(b, x...), nil
	case *Object:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = AppendString(b, k)
			b = append(b, ": "...)
			var err error
			if b, err = appendPy(b, x.vals[i]); err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
		}
		return append(b, '}'), nil
	case []any:
		return appendPySlice(b, x)
	case []int:
		return appendPySlice(b, x)
	case []int64:
		return appendPySlice(b, x)
	case []float64:
		return appendPySlice(b, x)
	case []string:
		return appendPySlice(b, x)
	case [][]float64:
		return appendPySlice(b, x)
	case []*Object:
		return appendPySlice(b, x)
	case map[string]any:
		return appendPyMap(b, x)
	case map[string]string:
		return appendPyMap(b, x)
	case map[string]float64:
		return appendPyMap(b, x)
	}
	// Anything else: encoding/json's view of it, re-read in order.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", v, err)
	}
	ordered, err := Loads(raw)
	if err != nil {
		return nil, fmt.Errorf("re-read %T: %w", v, err)
	}
	return appendPy(b, ordered)
}

func appendPySlice[T any](b []byte, s []T) ([]byte, error) {
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		var err error
		if b, err = appendPy(b, v); err != nil {
			return nil, fmt.Errorf("index %d: %w", i, err)
		}
	}
	return append(b, ']'), nil
}

func appendPyMap[T any](b []byte, m map[string]T) ([]byte, error) {
	o := NewObject()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		o.Set(k, m[k])
	}
	return appendPy(b, o)
}

const hexDigits = "0123456789abcdef"

// appendPyString appends s as a JSON string the way Python's json module
// writes it with ensure_ascii=True: `"` and `\` escaped, \n \r \t \b \f in
// their short forms, every other character outside 0x20..0x7e as \u00XX
// with lowercase hex, characters beyond the BMP as a UTF-16 surrogate pair
// (😀 is \ud83d\ude00). Invalid UTF-8 bytes are written as \ufffd.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '"':
				b = append(b, `\"`...)
			case '\\':
				b = append(b, `\\`...)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			case '\b':
				b = append(b, `\b`...)
			case '\f':
				b = append(b, `\f`...)
			default:
				if c >= 0x20 && c <= 0x7e {
					b = append(b, c)
				} else {
					b = appendU4(b, rune(c))
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r > 0xffff {
			r -= 0x10000
			b = appendU4(b, 0xd800+(r>>10))
			b = appendU4(b, 0xdc00+(r&0x3ff))
			continue
		}
		b = appendU4(b, r)
	}
	return append(b, '"')
}

func appendU4(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// ErrTrailingData is returned (wrapped) by Loads when the input holds more
// than one JSON value, e.g. results appended to one file.
var ErrTrailingData = errors.New("unexpected data after the value")

// Loads reads one JSON value the way Python's json.loads does: objects
// become *Object with their key order kept (a repeated key keeps its first
// position and its last value), arrays []any, integer literals int64 (or
// json.Number when they overflow), other numbers float64 (±Inf beyond
// float64's range), and the non-standard tokens NaN, Infinity and
// -Infinity that Python writes are accepted. Trailing data after the value
// is an error.
func Loads(data []byte) (any, error) {
	return loads(replaceNonFinite(data), true)
}

// LoadsStrict is Loads for RFC 8259 JSON only: the tokens NaN, Infinity
// and -Infinity, and numbers beyond float64's range, are errors.
func LoadsStrict(data []byte) (any, error) {
	return loads(data, false)
}

func loads(data []byte, nonFinite bool) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, nonFinite)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, ErrTrailingData
	}
	return v, nil
}

// Sentinel strings standing in for Python's non-finite number tokens while
// encoding/json parses the document.
const (
	nanToken    = "\x00vbench-non-finite\x00NaN"
	posInfToken = "\x00vbench-non-finite\x00Infinity"
	negInfToken = "\x00vbench-non-finite\x00-Infinity"
)

// replaceNonFinite rewrites the bare tokens NaN, Infinity and -Infinity
// outside strings into sentinel strings that encoding/json accepts.
func replaceNonFinite(data []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			out = append(out, c)
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		replaced := false
		for _, tok := range []struct{ lit, sentinel string }{
			{"-Infinity", negInfToken}, {"Infinity", posInfToken}, {"NaN", nanToken},
		} {
			if bytes.HasPrefix(data[i:], []byte(tok.lit)) {
				out = AppendString(out, tok.sentinel)
				i += len(tok.lit) - 1
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, c)
		}
	}
	return out
}

func decodeValue(dec *json.Decoder, nonFinite bool) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				v, err := decodeValue(dec, nonFinite)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, nonFinite)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	case json.Number:
		return parseJSONNumber(t, nonFinite)
	case string:
		if !nonFinite {
			return t, nil
		}
		switch t {
		case nanToken:
			return math.NaN(), nil
		case posInfToken:
			return math.Inf(1), nil
		case negInfToken:
			return math.Inf(-1), nil
		}
		return t, nil
	default: // bool, nil
		return t, nil
	}
}

// parseJSONNumber converts a JSON number as Python does: a literal without
// fraction or exponent is an int, anything else a float; with nonFinite
// unset a float beyond float64's range is an error.
func parseJSONNumber(n json.Number, nonFinite bool) (any, error) {
	s := string(n)
	if !bytes.ContainsAny([]byte(s), ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
		return n, nil // arbitrary-precision int, kept verbatim
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("number %q: %w", s, err)
	}
	if math.IsInf(f, 0) && !nonFinite {
		return nil, fmt.Errorf("number %s is out of range", s)
	}
	return f, nil
}
