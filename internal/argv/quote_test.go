package argv

import (
	"slices"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "Qwen/Qwen3-8B", "--num-prompts", "5"}, "--model Qwen/Qwen3-8B --num-prompts 5"},
		{[]string{"--label", ""}, "--label ''"},
		{[]string{"--extra-body", `{"a": 1}`}, `--extra-body '{"a": 1}'`},
		{[]string{"--label", "it's"}, `--label 'it'\''s'`},
		{[]string{"--header", " -h=v", "--label=~x"}, `--header ' -h=v' '--label=~x'`},
	} {
		if got := Quote(tc.args); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestSplitCommandLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"--num-prompts 5", []string{"--num-prompts", "5"}},
		{"vllm bench serve --model m", []string{"--model", "m"}},
		{"VLLM_USE_RUST_BENCH=1 vllm bench serve --model m", []string{"--model", "m"}},
		{"vbench serve --model m", []string{"--model", "m"}},
		{"/usr/local/bin/vbench bench serve --seed 1", []string{"--seed", "1"}},
		{"python -m vllm.entrypoints.cli.main bench serve --seed 1", []string{"--seed", "1"}},
		{"vllm bench serve \\\n  --model m \\\n  --label 'a b' # trailing comment\n", []string{"--model", "m", "--label", "a b"}},
		{`--extra-body "{\"a\": \"\$x \\\\\"}"`, []string{"--extra-body", `{"a": "$x \\"}`}},
		{`--label a\ b --x ''`, []string{"--label", "a b", "--x", ""}},
		{"--label a#b", []string{"--label", "a#b"}},
		{"", nil},
	} {
		got, err := SplitCommandLine(tc.line)
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.line, got, tc.want)
		}
	}
	for _, tc := range []struct{ line, want string }{
		{"--model $MODEL", "$: shell expansions and operators are not supported"},
		{"--model m | tee x", "|: shell expansions"},
		{`--label "$x"`, "$ in double quotes: expansions are not supported"},
		{"--label 'a", "unterminated single quote"},
		{`--label "a`, "unterminated double quote"},
		{`--label a\`, "a backslash ends the command line"},
	} {
		_, err := SplitCommandLine(tc.line)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.line, err, tc.want)
		}
	}
}

func FuzzQuote(f *testing.F) {
	f.Add("--label\nit's a \"test\"\n\n--x\\y")
	f.Add("#\n$HOME\n\t\n'")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\n")
		got, err := splitWords(Quote(args))
		if err != nil {
			t.Fatalf("split(Quote(%q)): %v", args, err)
		}
		if !slices.Equal(got, args) {
			t.Fatalf("split(Quote(%q)) = %q", args, got)
		}
	})
}
