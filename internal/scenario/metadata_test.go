package scenario

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func metadataKeys(m Metadata) []string {
	keys := make([]string, len(m))
	for i, kv := range m {
		keys[i] = kv.Key
	}
	return keys
}

// Metadata keeps the order the scenario file writes its keys in, in every
// format, across files and through --set.
func TestMetadataFileOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		srcs []Source
		sets []string
		want []string
	}{
		{"cue", []Source{src("s.cue", `output: metadata: {b: "2", a: "1", c: "3"}`)}, nil, []string{"b", "a", "c"}},
		{"yaml", []Source{src("s.yaml", "output:\n  metadata:\n    b: \"2\"\n    a: \"1\"\n    c: \"3\"\n")}, nil, []string{"b", "a", "c"}},
		{"json", []Source{src("s.json", `{"output": {"metadata": {"b": "2", "a": "1", "c": "3"}}}`)}, nil, []string{"b", "a", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustLoad(t, Options{Sets: tt.sets}, tt.srcs...)
			if got := metadataKeys(s.Output.Metadata); !slices.Equal(got, tt.want) {
				t.Errorf("keys %q, want %q", got, tt.want)
			}
		})
	}
}

// Keys from several files keep each file's order among themselves.
func TestMetadataTwoFiles(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, Options{}, src("a.cue", `output: metadata: {z: "1", x: "1"}`), src("b.yaml", "output: {metadata: {y: \"2\", w: \"2\"}}\n"))
	keys := metadataKeys(s.Output.Metadata)
	if len(keys) != 4 || slices.Index(keys, "z") > slices.Index(keys, "x") || slices.Index(keys, "y") > slices.Index(keys, "w") {
		t.Errorf("keys %q: each file's order not kept", keys)
	}
	// A --set key is taken out of the file and merged as another file.
	s = mustLoad(t, Options{Sets: []string{`output.metadata.b="x"`}}, src("s.cue", `output: metadata: {c: "3", b: "2", a: "1"}`))
	keys = metadataKeys(s.Output.Metadata)
	if v, _ := s.Output.Metadata.Get("b"); len(keys) != 3 || v != "x" || slices.Index(keys, "c") > slices.Index(keys, "a") {
		t.Errorf("after --set: %q", s.Output.Metadata)
	}
}

// The order of the metadata keys is not part of the scenario's identity.
func TestMetadataHashIgnoresOrder(t *testing.T) {
	t.Parallel()
	ba := mustLoad(t, Options{}, src("s.cue", `output: metadata: {b: "2", a: "1"}`))
	ab := mustLoad(t, Options{}, src("s.yaml", "output: {metadata: {a: \"1\", b: \"2\"}}\n"))
	if slices.Equal(metadataKeys(ba.Output.Metadata), metadataKeys(ab.Output.Metadata)) {
		t.Fatalf("the two scenarios have the same metadata order")
	}
	if ba.Hash() != ab.Hash() {
		t.Errorf("hashes differ:\n%s\n%s", ba.Canonical(), ab.Canonical())
	}
	if !strings.Contains(string(ba.Canonical()), `"metadata":{"a":"1","b":"2"}`) {
		t.Errorf("canonical form does not sort the metadata keys:\n%s", ba.Canonical())
	}
	other := mustLoad(t, Options{}, src("s.cue", `output: metadata: {b: "2", a: "3"}`))
	if other.Hash() == ba.Hash() {
		t.Errorf("a changed metadata value kept the hash")
	}
}

// Export writes the metadata in its order, and loading the export gives it
// back.
func TestMetadataExportOrder(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, Options{}, src("s.cue", `output: metadata: {zz: "1", "<a&>": "&", mm: "3"}`))
	want := []string{"zz", "<a&>", "mm"}
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out, err := Export(s, format)
			if err != nil {
				t.Fatal(err)
			}
			back, err := LoadBytes("exported."+format, out, Options{})
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got := metadataKeys(back.Output.Metadata); !slices.Equal(got, want) {
				t.Errorf("keys %q, want %q\n%s", got, want, out)
			}
			if back.Hash() != s.Hash() {
				t.Errorf("hash changed")
			}
		})
	}
	if c := s.Redacted(); !slices.Equal(metadataKeys(c.Output.Metadata), want) {
		t.Errorf("Redacted reordered the metadata: %q", metadataKeys(c.Output.Metadata))
	}
}

func TestMetadataJSON(t *testing.T) {
	t.Parallel()
	var m Metadata
	if err := json.Unmarshal([]byte(`{"b": "2", "a": "1", "b": "3", "<&>": ""}`), &m); err != nil {
		t.Fatal(err)
	}
	want := Metadata{{"b", "3"}, {"a", "1"}, {"<&>", ""}}
	if !slices.Equal(m, want) {
		t.Errorf("decoded %q, want %q", m, want)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), `{"b":"3","a":"1","\u003c\u0026\u003e":""}`; got != want {
		t.Errorf("encoded %s, want %s", got, want)
	}
	data, err = marshalCompact(m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), `{"b":"3","a":"1","<&>":""}`; got != want {
		t.Errorf("encoded without HTML escaping %s, want %s", got, want)
	}

	for in, want := range map[string]string{"null": "null", "{}": "{}"} {
		var m Metadata
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if data, _ := json.Marshal(m); string(data) != want {
			t.Errorf("%s round trips to %s", in, data)
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `{"a": 1}`, `{"a": null}`, `{"a"`} {
		var m Metadata
		if err := json.Unmarshal([]byte(bad), &m); err == nil {
			t.Errorf("%s: no error, got %q", bad, m)
		}
	}
}
