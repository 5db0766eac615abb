package py

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// WriteFrameCSV writes records as pandas writes
// pd.DataFrame.from_records(records).to_csv(path), which is how vLLM's
// sweep writes its summary.csv: an unnamed index column (0, 1, ...), then
// one column per key in the order keys are first seen, each formatted by
// the dtype pandas infers for it:
//   - integers only, none missing: int64, written as integers;
//   - numbers (or a missing value or null among integers): float64, every
//     value as a float (8 becomes 8.0), a missing one empty;
//   - booleans only, none missing: bool, True or False;
//   - anything else: object, each value as Python's str() (a list or dict
//     in Python's repr, with single-quoted strings), a missing one or null
//     empty.
//
// Fields are quoted as Python's csv module quotes them (QUOTE_MINIMAL:
// those holding a comma, a double quote or a line break). Records hold
// the values Loads returns.
func WriteFrameCSV(w io.Writer, records []*Object) error {
	var cols []string
	seen := map[string]bool{}
	for _, r := range records {
		for _, k := range r.keys {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	format := make([]func(v any, ok bool) string, len(cols))
	for i, c := range cols {
		format[i] = columnFormat(records, c)
	}
	var b bytes.Buffer
	for _, c := range cols {
		b.WriteByte(',')
		b.WriteString(csvField(c))
	}
	b.WriteByte('\n')
	for row, r := range records {
		b.WriteString(strconv.Itoa(row))
		for i, c := range cols {
			v, ok := r.Get(c)
			b.WriteByte(',')
			b.WriteString(csvField(format[i](v, ok)))
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// columnFormat returns how pandas writes the values of column c.
func columnFormat(records []*Object, c string) func(v any, ok bool) string {
	ints, numbers, bools, missing := true, true, true, false
	for _, r := range records {
		v, ok := r.Get(c)
		if !ok || v == nil {
			missing = true
			bools = false
			continue
		}
		switch v.(type) {
		case int64:
			bools = false
		case float64:
			ints, bools = false, false
		case bool:
			ints, numbers = false, false
		default:
			ints, numbers, bools = false, false, false
		}
	}
	switch {
	case ints && numbers && !missing:
		return func(v any, _ bool) string { return strconv.FormatInt(v.(int64), 10) }
	case numbers && !allMissing(records, c):
		return func(v any, ok bool) string {
			switch x := v.(type) {
			case int64:
				return Repr(float64(x))
			case float64:
				if math.IsNaN(x) { // pandas writes a missing value
					return ""
				}
				return Repr(x)
			}
			return ""
		}
	case bools:
		return func(v any, _ bool) string { return Str(v) }
	}
	return func(v any, ok bool) string {
		if !ok || v == nil {
			return ""
		}
		return Str(v)
	}
}

// allMissing says whether column c has no value in any record.
func allMissing(records []*Object, c string) bool {
	for _, r := range records {
		if v, ok := r.Get(c); ok && v != nil {
			return false
		}
	}
	return true
}

// Str is Python's str() of a value Loads returns (or of an int or a
// map[string]any, whose keys come in sorted order): a string as is,
// anything else as its repr (True, None, 1.0, [1, 'a'], {'k': 2}).
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyRepr is Python's repr() of a value Loads returns.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case json.Number:
		return string(x)
	case float64:
		return Repr(x)
	case string:
		return ReprString(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *Object:
		parts := make([]string, 0, x.Len())
		for k, e := range x.All() {
			parts = append(parts, ReprString(k)+": "+pyRepr(e))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, ReprString(k)+": "+pyRepr(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// csvField quotes a field as Python's csv module does by default.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
