package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/py"
)

// Split agrees with CPython's shlex.split on testdata/shlex_golden.json
// (made by testdata/gen_shlex.py), errors included.
func TestSplitGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/shlex_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Line  string
		Words []string
		Error string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, err := Split(c.Line)
		switch {
		case c.Error != "" && err == nil:
			t.Errorf("Split(%q) = %q, want error %q", c.Line, got, c.Error)
		case c.Error == "" && err != nil:
			t.Errorf("Split(%q): %v", c.Line, err)
		case c.Error == "" && !slices.Equal(got, c.Words) && !(len(got) == 0 && len(c.Words) == 0):
			t.Errorf("Split(%q) = %q, want %q", c.Line, got, c.Words)
		}
	}
}

func obj(t *testing.T, text string) *py.Object {
	t.Helper()
	v, err := py.Loads([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*py.Object)
}

// Apply follows vLLM's ParameterSweepItem.apply_to_cmd.
func TestApply(t *testing.T) {
	base := []string{"vllm", "serve", "m", "--max-num-seqs", "8", "--enforce-eager"}
	for _, tc := range []struct {
		name, params string
		want         string
	}{
		{"nothing", `{}`, "vllm serve m --max-num-seqs 8 --enforce-eager"},
		{"replaced in place", `{"max_num_seqs": 64}`, "vllm serve m --max-num-seqs 64 --enforce-eager"},
		{"appended, dashed", `{"max_num_batched_tokens": 2048}`, "vllm serve m --max-num-seqs 8 --enforce-eager --max-num-batched-tokens 2048"},
		{"bool off in place", `{"enforce_eager": false}`, "vllm serve m --max-num-seqs 8 --no-enforce-eager"},
		{"bool on appended", `{"enable_prefix_caching": true}`, "vllm serve m --max-num-seqs 8 --enforce-eager --enable-prefix-caching"},
		{"dotted bool", `{"compilation_config.use_cudagraph": true}`, "vllm serve m --max-num-seqs 8 --enforce-eager --compilation-config.use_cudagraph=true"},
		{"object as JSON", `{"speculative_config": {"method": "ngram", "num_speculative_tokens": 3}}`,
			`vllm serve m --max-num-seqs 8 --enforce-eager --speculative-config {"method": "ngram", "num_speculative_tokens": 3}`},
		{"list as Python", `{"cuda_graph_sizes": [1, 2], "x": "a"}`, "vllm serve m --max-num-seqs 8 --enforce-eager --cuda-graph-sizes [1, 2] --x a"},
		{"float and name", `{"_benchmark_name": "n", "gpu_memory_utilization": 0.9, "y": 1e-05}`,
			"vllm serve m --max-num-seqs 8 --enforce-eager --gpu-memory-utilization 0.9 --y 1e-05"},
		{"underscore spelling found", `{"max_num_seqs": 4}`, "vllm serve m --max-num-seqs 4 --enforce-eager"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(base)
			got := strings.Join(Apply(in, obj(t, tc.params)), " ")
			if got != tc.want {
				t.Errorf("Apply:\n got %s\nwant %s", got, tc.want)
			}
			if !slices.Equal(in, base) {
				t.Errorf("Apply changed its input: %q", in)
			}
		})
	}
	if got := Apply([]string{"s", "--max_num_seqs", "8"}, obj(t, `{"max_num_seqs": 16}`)); !slices.Equal(got, []string{"s", "--max-num-seqs", "16"}) {
		t.Errorf("underscored option: %q", got)
	}
}

// Combinations are named by _benchmark_name, else key=value with Python's
// str() of the values.
func TestName(t *testing.T) {
	for params, want := range map[string]string{
		`{"max_num_seqs": 32, "max_num_batched_tokens": 1024}`: "max_num_seqs=32-max_num_batched_tokens=1024",
		`{"_benchmark_name": "fast", "x": 1}`:                  "fast",
		`{"eager": true, "rate": 2.0, "cfg": {"a": [1, "b"]}}`: "eager=True-rate=2.0-cfg={'a': [1, 'b']}",
		`{}`: "",
	} {
		if got := Name(obj(t, params)); got != want {
			t.Errorf("Name(%s) = %q, want %q", params, got, want)
		}
	}
}

// A parameter file is a list of objects or an object of named objects;
// anything else, or duplicate names, is an error.
func TestLoadParams(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	list, err := LoadParams(write("list.json", `[{"a": 1}, {"a": 2}]`))
	if err != nil || len(list) != 2 || Name(list[1]) != "a=2" {
		t.Errorf("list: %v, %v", list, err)
	}
	named, err := LoadParams(write("named.json", `{"small": {"a": 1}, "big": {"a": 9}}`))
	if err != nil || len(named) != 2 || Name(named[1]) != "big" {
		t.Fatalf("named: %v, %v", named, err)
	}
	if got := strings.Join(Apply([]string{"s"}, named[1]), " "); got != "s --a 9" {
		t.Errorf("a named combination applies as %q", got)
	}
	if one, err := LoadParams(""); err != nil || len(one) != 1 || one[0].Len() != 0 {
		t.Errorf("no file: %v, %v", one, err)
	}
	for name, text := range map[string]string{
		"scalar.json": `3`, "items.json": `[1]`, "dup.json": `[{"_benchmark_name": "x"}, {"_benchmark_name": "x"}]`,
		"empty.json": `[]`, "broken.json": `[{`,
	} {
		if _, err := LoadParams(write(name, text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := LoadParams(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file: no error")
	}
}

// --link-vars keeps the combinations whose linked values are equal as
// Python compares them (8 == 8.0), and drops those missing a key.
func TestLinked(t *testing.T) {
	links, err := LinkVars("max_num_seqs=max_concurrency, a = b")
	if err != nil || len(links) != 2 || links[1] != [2]string{"a", "b"} {
		t.Fatalf("LinkVars: %v, %v", links, err)
	}
	for _, tc := range []struct {
		serve, bench string
		want         bool
	}{
		{`{"max_num_seqs": 8, "a": "x"}`, `{"max_concurrency": 8, "b": "x"}`, true},
		{`{"max_num_seqs": 8, "a": "x"}`, `{"max_concurrency": 8.0, "b": "x"}`, true},
		{`{"max_num_seqs": 8, "a": "x"}`, `{"max_concurrency": 16, "b": "x"}`, false},
		{`{"max_num_seqs": 8}`, `{"max_concurrency": 8, "b": "x"}`, false},
	} {
		if got := Linked(links, obj(t, tc.serve), obj(t, tc.bench)); got != tc.want {
			t.Errorf("Linked(%s, %s) = %v", tc.serve, tc.bench, got)
		}
	}
	if l, err := LinkVars(""); l != nil || err != nil {
		t.Errorf("empty: %v, %v", l, err)
	}
	for _, bad := range []string{"a", "a=b=c"} {
		if _, err := LinkVars(bad); err == nil {
			t.Errorf("LinkVars(%q): no error", bad)
		}
	}
}

// Split never panics, and a line without quotes or backslashes splits at
// shlex's whitespace (space, tab, CR, LF) and nowhere else.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"vllm serve m", `a "b c" 'd'`, `x\ y`, `"unclosed`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := Split(s)
		if !strings.ContainsAny(s, `'"\`) {
			if err != nil {
				t.Fatalf("Split(%q): %v", s, err)
			}
			want := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\n' })
			if !slices.Equal(words, want) && (len(words) != 0 || len(want) != 0) {
				t.Fatalf("Split(%q) = %q, want %q", s, words, want)
			}
		}
	})
}
