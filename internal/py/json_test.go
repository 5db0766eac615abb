package py

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
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
			if got := string(AppendString(nil, tt.in)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDumps(t *testing.T) {
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
			got, err := Dumps(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if _, err := Dumps(json.Number("1x")); err == nil {
		t.Error("invalid json.Number accepted")
	}
	if _, err := Dumps(make(chan int)); err == nil {
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

func TestLoads(t *testing.T) {
	v, err := Loads([]byte(`{"b": [1, 1.0, 1e-05, -Infinity, NaN, Infinity], "a": {"x": "NaN \"Infinity\""}, "b": 2, "big": 123456789012345678901234567890}`))
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
	out, err := Dumps(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b": 2, "a": {"x": "NaN \"Infinity\""}, "big": 123456789012345678901234567890}`
	if string(out) != want {
		t.Errorf("re-encoded %s, want %s", out, want)
	}
	arr, err := Loads([]byte(`[1, 1.0, 1e-05, -Infinity, NaN, Infinity, 1e400]`))
	if err != nil {
		t.Fatal(err)
	}
	out, _ = Dumps(arr)
	if want := `[1, 1.0, 1e-05, -Infinity, NaN, Infinity, Infinity]`; string(out) != want {
		t.Errorf("numbers re-encoded as %s, want %s", out, want)
	}
	for _, bad := range []string{`{"a": 1} x`, `{"a": }`, `[1, 2`, ``} {
		if _, err := Loads([]byte(bad)); err == nil {
			t.Errorf("Loads(%q) succeeded", bad)
		}
	}
}

func TestObjectLarge(t *testing.T) {
	// Past indexFrom keys the Object indexes them; order and dict
	// semantics must not change.
	var o Object
	var want []string
	for i := range 3 * indexFrom {
		k := string(rune('A' + i))
		o.Set(k, i)
		want = append(want, k)
	}
	o.Set("B", "again") // keeps its place
	o.Delete("A")
	o.Delete("C")
	want = slices.DeleteFunc(want, func(k string) bool { return k == "A" || k == "C" })
	o.Set("A", "last")
	want = append(want, "A")
	if got := o.Keys(); !slices.Equal(got, want) {
		t.Fatalf("Keys = %v, want %v", got, want)
	}
	for i, k := range want {
		v, ok := o.Get(k)
		switch {
		case !ok:
			t.Errorf("Get(%s) missing", k)
		case k == "B" && v != "again", k == "A" && v != "last":
			t.Errorf("Get(%s) = %v", k, v)
		}
		if i >= 3 && k != "A" && v != int(k[0]-'A') {
			t.Errorf("Get(%s) = %v", k, v)
		}
	}
	if _, ok := o.Get("C"); ok {
		t.Error("deleted key still present")
	}
	var seen []string
	for k := range o.All() {
		seen = append(seen, k)
	}
	if !slices.Equal(seen, want) {
		t.Errorf("All = %v, want %v", seen, want)
	}
	// Shrinking below the threshold drops the index and keeps working.
	for _, k := range want[:len(want)-2] {
		o.Delete(k)
	}
	if o.index != nil || o.Len() != 2 {
		t.Errorf("after deletes: index %v, Len %d", o.index != nil, o.Len())
	}
}

func TestMarshalJSON(t *testing.T) {
	var o Object
	o.Set("model", "m")
	o.Set("prompt", "<a & b>")
	o.Set("n", 1.0)
	o.Set("x", []string{"é"})
	o.Set("model", "m2")
	got, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"model":"m2","prompt":"<a & b>","n":1,"x":["é"]}`; string(got) != want {
		t.Errorf("MarshalJSON = %s, want %s", got, want)
	}
	o.Set("bad", math.NaN())
	if _, err := o.MarshalJSON(); err == nil {
		t.Error("NaN accepted")
	}
	// encoding/json uses it for nested objects.
	b, err := json.Marshal(map[string]*Object{"o": NewObject()})
	if err != nil || string(b) != `{"o":{}}` {
		t.Errorf("nested = %s, %v", b, err)
	}
}

func TestLoadsStrict(t *testing.T) {
	for _, bad := range []string{`NaN`, `[Infinity]`, `{"a": -Infinity}`, `1e400`, `[1,`, ``, `1 2`} {
		if v, err := LoadsStrict([]byte(bad)); err == nil {
			t.Errorf("LoadsStrict(%q) = %v, want an error", bad, v)
		}
	}
	v, err := LoadsStrict([]byte(`{"s": "NaN", "i": -0, "f": 2.50}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Dumps(v); string(got) != `{"s": "NaN", "i": 0, "f": 2.5}` {
		t.Errorf("LoadsStrict round trip = %s", got)
	}
	if _, err := Loads([]byte(`[1] [2]`)); !errors.Is(err, ErrTrailingData) {
		t.Errorf("trailing data error = %v", err)
	}
}

func TestReprString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", `'abc'`},
		{"it's", `"it's"`},
		{`it's "x"`, `'it\'s "x"'`},
		{"a\\b", `'a\\b'`},
		{"\x00\x7f\n", `'\x00\x7f\n'`},
		{"\u0085", `'\x85'`},
		{"\u200b", `'\u200b'`},
		{"\U000e0001", `'\U000e0001'`},
		{"é😀", `'é😀'`},
	}
	for _, tt := range tests {
		if got := ReprString(tt.in); got != tt.want {
			t.Errorf("ReprString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
