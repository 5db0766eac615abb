package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Object is a JSON object that keeps its keys in insertion order, with
// Python dict semantics: setting an existing key replaces its value in
// place, setting a new key appends it, deleting removes it.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Set assigns key: a new key goes last, an existing key keeps its position
// and takes the new value (Python's d[key] = v).
func (o *Object) Set(key string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Get returns the value of key and whether it is present.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Delete removes key if present.
func (o *Object) Delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
}

// Keys returns the keys in order.
func (o *Object) Keys() []string { return slices.Clone(o.keys) }

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// MarshalPython encodes v as Python's json.dumps(v) does with its default
// settings: separators ", " and ": ", ensure_ascii (see appendPyString),
// floats as Python repr with bare Infinity/NaN, integers as integers, and no
// trailing newline.
//
// Supported values: nil, bool, signed and unsigned integers, float32/64,
// string, json.Number (written as is), *Object, map[string]T (keys sorted),
// and slices of any of these. Any other value (a struct, say) is first
// marshalled with encoding/json and re-read with DecodePython, so its field
// order and json tags are kept.
func MarshalPython(v any) ([]byte, error) {
	return appendPy(nil, v)
}

// EncodePython writes MarshalPython(v) to w.
func EncodePython(w io.Writer, v any) error {
	b, err := MarshalPython(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
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
		return append(b, pyJSONFloat(x)...), nil
	case float32:
		return append(b, pyJSONFloat(float64(x))...), nil
	case string:
		return appendPyString(b, x), nil
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
			b = appendPyString(b, k)
			b = append(b, ": "...)
			var err error
			if b, err = appendPy(b, x.vals[k]); err != nil {
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
	ordered, err := DecodePython(bytes.NewReader(raw))
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
func appendPyString(b []byte, s string) []byte {
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

// ErrTrailingData is returned (wrapped) by DecodePython when the input
// holds more than one JSON value, e.g. results appended to one file.
var ErrTrailingData = errors.New("unexpected data after the value")

// DecodePython reads one JSON value the way Python's json.load does:
// objects become *Object with their key order kept (a repeated key keeps
// its first position and its last value), integer literals int64 (or
// json.Number when they overflow), other numbers float64, and the
// non-standard tokens NaN, Infinity and -Infinity that Python writes are
// accepted. Trailing data after the value is an error.
func DecodePython(r io.Reader) (any, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read json: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(replaceNonFinite(data)))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("decode json: %w", ErrTrailingData)
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
				out = appendPyString(out, tok.sentinel)
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

func decodeValue(dec *json.Decoder) (any, error) {
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
				v, err := decodeValue(dec)
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
				v, err := decodeValue(dec)
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
		return parseJSONNumber(t)
	case string:
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
// fraction or exponent is an int, anything else a float.
func parseJSONNumber(n json.Number) (any, error) {
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
	return f, nil
}
