package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPyStringEscaping(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello world", `"hello world"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"short forms", "\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"control chars", "\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"DEL", "\x7f", `"\u007f"`},
		{"tilde and space stay", "~ ", `"~ "`},
		{"slash stays", "a/b", `"a/b"`},
		{"html stays", "<&>", `"<&>"`},
		{"latin", "é", `"\u00e9"`},
		{"bmp", "’“”", `"\u2019\u201c\u201d"`},
		{"emoji surrogates", "😀", `"\ud83d\ude00"`},
		{"max rune", "\U0010ffff", `"\udbff\udfff"`},
		{"invalid utf8", "a\xffb", `"a\ufffdb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(appendPyString(nil, tt.in)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestMarshalPython(t *testing.T) {
	o := NewObject()
	o.Set("b", 1)
	o.Set("a", []float64{1, 0.5, math.Inf(1)})
	o.Set("n", nil)
	o.Set("b", 2) // keeps its position
	type tagged struct {
		Z string `json:"z"`
		A int    `json:"a"`
	}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"object order and dict semantics", o, `{"b": 2, "a": [1.0, 0.5, Infinity], "n": null}`},
		{"empty object", NewObject(), `{}`},
		{"nil object", (*Object)(nil), `null`},
		{"ints stay ints", []int{1, -2}, `[1, -2]`},
		{"int64 and uint", []any{int64(-3), uint8(7), uint64(1 << 63)}, `[-3, 7, 9223372036854775808]`},
		{"bools", []any{true, false}, `[true, false]`},
		{"nested empty", [][]float64{{}, {0.25}}, `[[], [0.25]]`},
		{"empty list", []string{}, `[]`},
		{"float32", float32(0.5), `0.5`},
		{"nan", math.NaN(), `NaN`},
		{"neg inf", math.Inf(-1), `-Infinity`},
		{"json.Number verbatim", json.Number("123456789012345678901234567890"), `123456789012345678901234567890`},
		{"map sorted", map[string]any{"b": 1, "a": "x"}, `{"a": "x", "b": 1}`},
		{"struct via encoding/json keeps field order", tagged{Z: "é", A: 3}, `{"z": "\u00e9", "a": 3}`},
		{"non-ascii key", map[string]int{"ключ": 1}, `{"\u043a\u043b\u044e\u0447": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MarshalPython(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if _, err := MarshalPython(json.Number("1x")); err == nil {
		t.Error("invalid json.Number accepted")
	}
	if _, err := MarshalPython(make(chan int)); err == nil {
		t.Error("channel accepted")
	}
}

func TestObject(t *testing.T) {
	o := NewObject()
	for _, k := range []string{"a", "b", "c"} {
		o.Set(k, k)
	}
	o.Delete("b")
	o.Delete("missing")
	o.Set("b", 1)
	if got := o.Keys(); !slices.Equal(got, []string{"a", "c", "b"}) {
		t.Errorf("Keys = %v", got)
	}
	if v, ok := o.Get("b"); !ok || v != 1 || o.Len() != 3 {
		t.Errorf("Get(b) = %v, %v; Len = %d", v, ok, o.Len())
	}
	var zero Object
	zero.Set("x", 1) // the zero Object is usable
	if zero.Len() != 1 {
		t.Error("zero Object Set failed")
	}
}

func TestDecodePython(t *testing.T) {
	v, err := DecodePython(strings.NewReader(`{"b": [1, 1.0, 1e-05, -Infinity, NaN, Infinity], "a": {"x": "NaN \"Infinity\""}, "b": 2, "big": 123456789012345678901234567890}`))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	if got := o.Keys(); !slices.Equal(got, []string{"b", "a", "big"}) {
		t.Errorf("keys = %v", got)
	}
	if b, _ := o.Get("b"); b != int64(2) {
		t.Errorf("repeated key: b = %v, want the last value 2", b)
	}
	a, _ := o.Get("a")
	if x, _ := a.(*Object).Get("x"); x != `NaN "Infinity"` {
		t.Errorf("string content rewritten: %q", x)
	}
	out, err := MarshalPython(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b": 2, "a": {"x": "NaN \"Infinity\""}, "big": 123456789012345678901234567890}`
	if string(out) != want {
		t.Errorf("re-encoded %s, want %s", out, want)
	}
	arr, err := DecodePython(strings.NewReader(`[1, 1.0, 1e-05, -Infinity, NaN, Infinity, 1e400]`))
	if err != nil {
		t.Fatal(err)
	}
	out, _ = MarshalPython(arr)
	if want := `[1, 1.0, 1e-05, -Infinity, NaN, Infinity, Infinity]`; string(out) != want {
		t.Errorf("numbers re-encoded as %s, want %s", out, want)
	}
	for _, bad := range []string{`{"a": 1} x`, `{"a": }`, `[1, 2`, ``} {
		if _, err := DecodePython(strings.NewReader(bad)); err == nil {
			t.Errorf("DecodePython(%q) succeeded", bad)
		}
	}
}

// TestRoundTripVLLMFiles decodes vLLM's own result files and re-encodes
// them: the bytes must be identical. This checks the float repr against
// thousands of values Python wrote, the ensure_ascii escaping of real
// generated texts, and the separators.
func TestRoundTripVLLMFiles(t *testing.T) {
	for _, name := range []string{"random-basic.json", "random-detailed.json", "chat-detailed.json"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			v, err := DecodePython(bytes.NewReader(want))
			if err != nil {
				t.Fatal(err)
			}
			got, err := MarshalPython(v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("re-encoded file differs at byte %d", firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
