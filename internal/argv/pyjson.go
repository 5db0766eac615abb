package argv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/vbench/vbench/internal/report"
)

// jsonKind is the type of a jsonValue.
type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonInt    // an integer literal (Python int)
	jsonFloat  // a number with a fraction or exponent (Python float)
	jsonString // a string
	jsonArray
	jsonObject
)

// jsonValue is a JSON value as Python's json module sees it: objects keep
// their key order (a repeated key keeps its first position and takes the
// last value, as a dict does), and numbers keep Python's int/float
// distinction.
type jsonValue struct {
	kind jsonKind
	// text is the string of a jsonString, the digits of a jsonInt, "true"
	// or "false" for a jsonBool.
	text string
	// num is the value of a jsonFloat.
	num   float64
	items []jsonValue // jsonArray
	keys  []string    // jsonObject, in order
	vals  []jsonValue // jsonObject, parallel to keys
}

func jsonStr(s string) jsonValue { return jsonValue{kind: jsonString, text: s} }

// set assigns key in an object with dict semantics.
func (v *jsonValue) set(key string, val jsonValue) {
	for i, k := range v.keys {
		if k == key {
			v.vals[i] = val
			return
		}
	}
	v.keys = append(v.keys, key)
	v.vals = append(v.vals, val)
}

// get returns the value of key in an object.
func (v *jsonValue) get(key string) (*jsonValue, bool) {
	for i, k := range v.keys {
		if k == key {
			return &v.vals[i], true
		}
	}
	return nil, false
}

// parseJSON parses text as Python's json.loads does, except that the
// non-standard NaN and Infinity literals are errors (no request body can
// carry them).
func parseJSON(text string) (jsonValue, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return jsonValue{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jsonValue{}, errors.New("extra data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (jsonValue, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return jsonValue{}, errors.New("unexpected end of JSON input")
		}
		return jsonValue{}, err
	}
	switch t := tok.(type) {
	case nil:
		return jsonValue{kind: jsonNull}, nil
	case bool:
		return jsonValue{kind: jsonBool, text: strconv.FormatBool(t)}, nil
	case string:
		return jsonStr(t), nil
	case json.Number:
		return numberValue(string(t))
	case json.Delim:
		switch t {
		case '[':
			v := jsonValue{kind: jsonArray}
			for dec.More() {
				item, err := decodeValue(dec)
				if err != nil {
					return jsonValue{}, err
				}
				v.items = append(v.items, item)
			}
			_, err := dec.Token()
			return v, err
		case '{':
			v := jsonValue{kind: jsonObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jsonValue{}, err
				}
				key, _ := kt.(string)
				val, err := decodeValue(dec)
				if err != nil {
					return jsonValue{}, err
				}
				v.set(key, val)
			}
			_, err := dec.Token()
			return v, err
		}
	}
	return jsonValue{}, fmt.Errorf("unexpected JSON token %v", tok)
}

// numberValue classifies a JSON number literal as Python does.
func numberValue(lit string) (jsonValue, error) {
	if !strings.ContainsAny(lit, ".eE") {
		if lit == "-0" {
			lit = "0"
		}
		return jsonValue{kind: jsonInt, text: lit}, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return jsonValue{}, fmt.Errorf("invalid number %s", lit)
	}
	if math.IsInf(f, 0) {
		return jsonValue{}, fmt.Errorf("number %s is out of range", lit)
	}
	return jsonValue{kind: jsonFloat, num: f}, nil
}

// pyDumps encodes v as Python's json.dumps(v) does with its defaults:
// separators ", " and ": ", non-ASCII characters as \u escapes, floats in
// Python's repr.
func (v jsonValue) pyDumps() string {
	var b strings.Builder
	v.writePy(&b)
	return b.String()
}

func (v jsonValue) writePy(b *strings.Builder) {
	switch v.kind {
	case jsonNull:
		b.WriteString("null")
	case jsonBool, jsonInt:
		b.WriteString(v.text)
	case jsonFloat:
		b.WriteString(report.PyFloatRepr(v.num))
	case jsonString:
		writePyString(b, v.text)
	case jsonArray:
		b.WriteByte('[')
		for i, item := range v.items {
			if i > 0 {
				b.WriteString(", ")
			}
			item.writePy(b)
		}
		b.WriteByte(']')
	case jsonObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyString(b, k)
			b.WriteString(": ")
			v.vals[i].writePy(b)
		}
		b.WriteByte('}')
	}
}

// writePyString writes s as a JSON string with ensure_ascii.
func writePyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || (r >= 0x7f && r <= 0xffff):
				fmt.Fprintf(b, `\u%04x`, r)
			case r > 0xffff:
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// any converts v into the plain Go value encoding/json would decode it
// into (numbers as json.Number, so nothing is rounded on the way).
func (v jsonValue) any() any {
	switch v.kind {
	case jsonBool:
		return v.text == "true"
	case jsonInt:
		return json.Number(v.text)
	case jsonFloat:
		return json.Number(strconv.FormatFloat(v.num, 'g', -1, 64))
	case jsonString:
		return v.text
	case jsonArray:
		out := make([]any, len(v.items))
		for i, item := range v.items {
			out[i] = item.any()
		}
		return out
	case jsonObject:
		out := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			out[k] = v.vals[i].any()
		}
		return out
	}
	return nil
}

// mergeJSON merges update into orig as vLLM's recursive_dict_update does:
// objects merge key by key, lists are concatenated, anything else replaces.
func mergeJSON(orig *jsonValue, update jsonValue) {
	for i, k := range update.keys {
		u := update.vals[i]
		o, ok := orig.get(k)
		switch {
		case ok && u.kind == jsonObject && o.kind == jsonObject:
			mergeJSON(o, u)
		case ok && u.kind == jsonArray && o.kind == jsonArray:
			o.items = append(o.items, u.items...)
		default:
			orig.set(k, u)
		}
	}
}

// compactJSON encodes v as compact JSON without HTML escaping.
func compactJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
