package py

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// WriteFrameCSV and DumpsIndent agree with pandas 1.5 and CPython on the
// cases of testdata/pandas_golden.json (made by testdata/gen_pandas.py):
// dtype inference (ints promoted to floats by a gap, booleans with a gap
// as objects, all-null columns), Python's str() of lists and dicts, CSV
// quoting, and json.dumps(indent=4).
func TestPandasGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/pandas_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			Name, Records, CSV, Indent4 string
		}
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < 2 {
		t.Fatalf("%d cases", len(g.Cases))
	}
	for _, c := range g.Cases {
		t.Run(c.Name, func(t *testing.T) {
			v, err := Loads([]byte(c.Records))
			if err != nil {
				t.Fatal(err)
			}
			var records []*Object
			for _, r := range v.([]any) {
				records = append(records, r.(*Object))
			}
			var b bytes.Buffer
			if err := WriteFrameCSV(&b, records); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.CSV {
				t.Errorf("CSV:\n%s\npandas:\n%s", b.String(), c.CSV)
			}
			ind, err := DumpsIndent(v, 4)
			if err != nil {
				t.Fatal(err)
			}
			if string(ind) != c.Indent4 {
				t.Errorf("indent=4:\n%s\nPython:\n%s", ind, c.Indent4)
			}
		})
	}
}

// Str covers the values the audio backend's form fields carry too: ints
// and Go maps (keys sorted), nested, strings quoted inside containers.
func TestStrGoValues(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"plain", "plain"},
		{true, "True"},
		{nil, "None"},
		{7, "7"},
		{int64(-3), "-3"},
		{0.5, "0.5"},
		{2.0, "2.0"},
		{[]any{1, "a", false}, "[1, 'a', False]"},
		{map[string]any{"b": []any{"it's"}, "a": map[string]any{"k": nil}}, `{'a': {'k': None}, 'b': ["it's"]}`},
	} {
		if got := Str(tc.v); got != tc.want {
			t.Errorf("Str(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
