package argv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/py"
)

// JSON values here are py's model of what Python's json module sees: nil,
// bool, int64 or json.Number (Python int), float64 (Python float), string,
// []any and *py.Object (a dict: key order kept, a repeated key keeps its
// first position and takes the last value).

// parseJSON parses text as Python's json.loads does, except that the
// non-standard NaN and Infinity literals are errors (no request body can
// carry them).
func parseJSON(text string) (any, error) {
	return py.LoadsStrict([]byte(text))
}

// dumps encodes v as Python's json.dumps(v) does with its defaults:
// separators ", " and ": ", non-ASCII characters as \u escapes, floats in
// Python's repr.
func dumps(v any) string {
	b, err := py.Dumps(v)
	if err != nil {
		// Values here are built only from py's JSON model, which always
		// encodes.
		panic(fmt.Sprintf("argv: internal error: %v", err))
	}
	return string(b)
}

// intText is the decimal text of a JSON integer value, and whether v is one.
func intText(v any) (string, bool) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), true
	case json.Number:
		return string(x), true
	}
	return "", false
}

// plainJSON converts v into the plain Go value encoding/json would decode
// it into (numbers as json.Number, so nothing is rounded on the way).
func plainJSON(v any) any {
	switch x := v.(type) {
	case int64, json.Number:
		s, _ := intText(x)
		return json.Number(s)
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = plainJSON(item)
		}
		return out
	case *py.Object:
		out := make(map[string]any, x.Len())
		for k, item := range x.All() {
			out[k] = plainJSON(item)
		}
		return out
	}
	return v // nil, bool, string
}

// mergeJSON merges update into orig as vLLM's recursive_dict_update does:
// objects merge key by key, lists are concatenated, anything else replaces.
func mergeJSON(orig, update *py.Object) {
	for k, u := range update.All() {
		o, ok := orig.Get(k)
		if ok {
			switch uv := u.(type) {
			case *py.Object:
				if ov, isObj := o.(*py.Object); isObj {
					mergeJSON(ov, uv)
					continue
				}
			case []any:
				if ov, isArr := o.([]any); isArr {
					orig.Set(k, append(ov, uv...))
					continue
				}
			}
		}
		orig.Set(k, u)
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
