package scenario

import (
	"strings"
	"testing"
)

// FuzzLoadBytes feeds arbitrary CUE or YAML to LoadBytes. Loading must
// not panic or hit an internal error, and a scenario that loads must come
// back with the same hash from each export format.
func FuzzLoadBytes(f *testing.F) {
	seeds := []struct {
		yaml bool
		data string
	}{
		{false, ""},
		{true, ""},
		{false, rich},
		{false, base},
		{false, "load: num_promts: 1\n"},
		{true, "load:\n  num_prompts: ten\n"},
		{true, "target: {simulator: {}}\ndataset: {sharegpt: {path: x}}\n"},
		{true, "load: {request_rate: .inf, burstiness: 0.5}\nname: \"0x10\"\n"},
		{true, "- a\n- b\n"},
		{false, "dataset: random: {}\ndataset: sonnet: path: \"s\"\n"},
		{false, "target: base_url: *\"http://127.0.0.1:8000\" | string @tag(url)\n"},
		{true, "sweep: {axes: {load.max_concurrency: [1, 2]}}\n"},
		{true, "compare: {variants: {a: {}, b: {load: {num_prompts: 3}}}}\n"},
		{true, "output: {metadata: {\"_k\": v, \"#k\": w, \"if\": x}}\ntarget: {headers: {\"\": \"\"}}\n"},
		{true, "seed: 9223372036854775807\nload: {probe_request_rate: 1e300}\n"},
		{true, "load: {num_prompts: 100000000000000000000}\n"},
		{true, "sampling: {extra_body: {a: [1, {b: null}], c: 1.5e-7}}\n"},
	}
	for _, s := range seeds {
		f.Add(s.yaml, []byte(s.data))
	}
	f.Fuzz(func(t *testing.T, yaml bool, data []byte) {
		name := "fuzz.cue"
		if yaml {
			name = "fuzz.yaml"
		}
		s, err := LoadBytes(name, data, Options{})
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("load %q: %v", data, err)
			}
			return
		}
		for _, format := range Formats {
			out, err := Export(s, format)
			if err != nil {
				t.Fatalf("export %s of %q: %v", format, data, err)
			}
			back, err := LoadBytes("fuzz."+format, out, Options{})
			if err != nil {
				t.Fatalf("reload %s of %q: %v\n%s", format, data, err, out)
			}
			if back.Hash() != s.Hash() {
				t.Fatalf("%s round trip of %q changed the hash:\n%s\n%s", format, data, s.Canonical(), back.Canonical())
			}
		}
	})
}
