package argv

import (
	"slices"
	"testing"
)

// configArgs turns YAML into flags as vLLM's load_config_file does, with
// PyYAML's typing of plain scalars.
func TestConfigArgs(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want []string
	}{
		{"num-prompts: 5\n", []string{"--num-prompts", "5"}},
		{"save-result: true\nignore-eos: false\n", []string{"--save-result"}},
		{"a: yes\nb: Off\nc: 'yes'\n", []string{"--a", "--c", "yes"}},
		{"self-timed: false\n", []string{"--no-self-timed"}},
		{"n: 0x1F\nm: 017\nk: 1_000\nz: -0\n", []string{"--n", "31", "--m", "15", "--k", "1000", "--z", "0"}},
		{"f: 0.50\ng: 1.\nh: .inf\ni: 1e3\nj: 1.0e+3\n", []string{"--f", "0.5", "--g", "1.0", "--h", "inf", "--i", "1e3", "--j", "1000.0"}},
		{"model: ~\nlabel: null\n", []string{"--model", "None", "--label", "None"}},
		{"metadata: [a=1, 2, true, null]\nempty: []\n", []string{"--metadata", "a=1", "2", "True", "None"}},
		{"extra-body: {temperature: 0, stop: [x, 1.5], n: null, é: yes}\n", []string{"--extra-body", `{"temperature": 0, "stop": ["x", 1.5], "n": null, "\u00e9": true}`}},
		{"x: &a 5\ny: *a\n", []string{"--x", "5", "--y", "5"}},
		{"s: !!str 5\nq: \"0x10\"\n", []string{"--s", "5", "--q", "0x10"}},
		{"extra_body.top_k: 5\n", []string{"--extra_body.top_k", "5"}},
	} {
		got, err := configArgs([]byte(tc.yaml))
		if err != nil {
			t.Errorf("%q: %v", tc.yaml, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.yaml, got, tc.want)
		}
	}
	for _, bad := range []string{"", "- a\n", "a: [\n", "a: [[1]]\n", "a: {b: .nan}\n", "? [a]\n: 1\n"} {
		if got, err := configArgs([]byte(bad)); err == nil {
			t.Errorf("%q: got %q, want an error", bad, got)
		}
	}
}
