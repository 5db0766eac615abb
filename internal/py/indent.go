package py

import (
	"bytes"
	"fmt"
)

// DumpsIndent is Python's json.dumps(v, indent=n): every member of a
// non-empty object or list on a line of its own, indented n spaces per
// level, "," ending each line but the last and ": " after each key; an
// empty object or list stays "{}" or "[]". Scalars are written as Dumps
// writes them. vLLM's sweep saves its results this way (indent=4).
func DumpsIndent(v any, n int) ([]byte, error) {
	flat, err := Dumps(v)
	if err != nil {
		return nil, err
	}
	ordered, err := Loads(flat) // *Object, []any and scalars only
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := indentTo(&b, ordered, n, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// indentTo writes v at nesting depth level.
func indentTo(b *bytes.Buffer, v any, n, level int) error {
	newline := func(l int) {
		b.WriteByte('\n')
		for range l * n {
			b.WriteByte(' ')
		}
	}
	switch x := v.(type) {
	case *Object:
		if x.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		i := 0
		for k, val := range x.All() {
			if i > 0 {
				b.WriteByte(',')
			}
			i++
			newline(level + 1)
			b.Write(AppendString(nil, k))
			b.WriteString(": ")
			if err := indentTo(b, val, n, level+1); err != nil {
				return fmt.Errorf("key %q: %w", k, err)
			}
		}
		newline(level)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, val := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(level + 1)
			if err := indentTo(b, val, n, level+1); err != nil {
				return err
			}
		}
		newline(level)
		b.WriteByte(']')
	default:
		s, err := Dumps(v)
		if err != nil {
			return err
		}
		b.Write(s)
	}
	return nil
}
