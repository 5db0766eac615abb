package dataset

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The references here restate what the JSON-lines readers accept, over
// encoding/json's generic decoding (any, with json.Number), for the fuzz
// targets to compare the readers with: the lines and values they keep,
// and the line of the first error.

// refLines splits a file as the readers do: lines end at "\n", a line is
// trimmed of white space, blank ones are skipped; numbers count from 1.
func refLines(data string, fn func(n int, line string) bool) {
	for i, l := range strings.Split(data, "\n") {
		if l = strings.TrimSpace(l); l != "" && !fn(i+1, l) {
			return
		}
	}
}

// refObject decodes one line: a JSON object, or ok false.
func refObject(line string) (map[string]any, bool) {
	d := json.NewDecoder(strings.NewReader(line))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	obj, ok := v.(map[string]any)
	return obj, ok
}

// refCustom is what readCustom must read: the lines, or the line number
// of the first bad one (0: the file has no lines).
func refCustom(data string) (lines []CustomLine, bad int) {
	refLines(data, func(n int, line string) bool {
		obj, ok := refObject(line)
		prompt, isStr := obj["prompt"].(string)
		if !ok || !isStr {
			bad = n
			return false
		}
		l := CustomLine{Prompt: prompt, OutputTokens: -1, Line: n}
		switch v := obj["output_tokens"].(type) {
		case nil:
		case string:
			k, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || k < 0 || k > math.MaxInt32 {
				bad = n
				return false
			}
			l.OutputTokens = k
		case json.Number:
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
				bad = n
				return false
			}
			l.OutputTokens = int(f)
		default:
			bad = n
			return false
		}
		lines = append(lines, l)
		return true
	})
	if bad != 0 {
		return nil, bad
	}
	return lines, 0
}

// refBench is what readSpecBench (turns) or readSpeedBench (!turns) must
// read: the kept lines and the objects read, or the line of the first bad
// one (0 with no lines kept).
func refBench(data, category string, turns bool) (lines []CustomLine, objects, bad int) {
	refLines(data, func(n int, line string) bool {
		objects++
		obj, ok := refObject(line)
		if !ok {
			bad = n
			return false
		}
		if category != "" {
			if c, _ := obj["category"].(string); c != category {
				return true
			}
		}
		var prompt any
		if turns {
			if list, ok := obj["turns"].([]any); ok && len(list) > 0 {
				prompt = list[0]
			}
		} else if list, ok := obj["messages"].([]any); ok && len(list) > 0 {
			if msg, ok := list[0].(map[string]any); ok {
				prompt = msg["content"]
			}
		}
		s, ok := prompt.(string)
		if !ok {
			bad = n
			return false
		}
		lines = append(lines, CustomLine{Prompt: s, OutputTokens: -1, Line: n})
		return true
	})
	if bad != 0 || len(lines) == 0 {
		return nil, 0, bad
	}
	return lines, objects, 0
}

// checkAgainstRef compares a reader's result with its reference's: the
// same lines, or an error at the same line ("f.jsonl:N: ..."), or an
// error about the whole file when the reference has no bad line.
func checkAgainstRef(t *testing.T, data string, got []CustomLine, err error, want []CustomLine, bad int) {
	t.Helper()
	switch {
	case want != nil:
		if err != nil {
			t.Fatalf("%q: error %v; the reference reads %d lines", data, err, len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read %+v, the reference %+v", data, got, want)
		}
	case err == nil:
		t.Fatalf("%q: read %+v; the reference fails at line %d", data, got, bad)
	case bad > 0 && !strings.HasPrefix(err.Error(), "f.jsonl:"+strconv.Itoa(bad)+": "):
		t.Fatalf("%q: error %q; the reference fails at line %d", data, err, bad)
	case bad == 0 && !strings.HasPrefix(err.Error(), "f.jsonl: "):
		t.Fatalf("%q: error %q; the reference fails for the whole file", data, err)
	}
}

// refJSONRows is what readJSONRows must yield for a file named x.jsonl:
// a list of objects (or of strings) when the file starts with '[' (after
// a byte order mark and white space, within its first 512 bytes), else
// one object per line; ok is false where it must fail.
func refJSONRows(data []byte) (rows []hfRow, ok bool) {
	head := bytes.TrimPrefix(data[:min(len(data), 512)], []byte("\xef\xbb\xbf"))
	if h := bytes.TrimLeft(head, " \t\r\n"); len(h) > 0 && h[0] == '[' {
		var list []any
		if json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &list) != nil {
			return nil, false
		}
		strs := len(list) > 0 && reflect.TypeOf(list[0]) == reflect.TypeFor[string]()
		for _, e := range list {
			if strs {
				str, ok := e.(string)
				if !ok {
					return nil, false
				}
				rows = append(rows, hfRow{"text": str})
				continue
			}
			obj, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			rows = append(rows, hfRow(obj))
		}
		return rows, true
	}
	for i, line := range strings.Split(string(data), "\n") {
		b := strings.TrimSpace(line)
		if i == 0 {
			b = strings.TrimPrefix(b, "\xef\xbb\xbf")
		}
		if b == "" {
			continue
		}
		var row map[string]any
		if b[0] != '{' || json.Unmarshal([]byte(b), &row) != nil {
			return nil, false
		}
		rows = append(rows, hfRow(row))
	}
	return rows, true
}
