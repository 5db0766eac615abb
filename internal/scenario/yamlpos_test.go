package scenario

import (
	"errors"
	"testing"
)

// YAML syntax errors are placed at the parser's problem mark (or, for a
// construct left open at the end of the file, where it opens), with a
// column. This also pins the reflection on go.yaml.in/yaml/v3's parser
// state (yamlSyntax): if a new version moves the marks, this fails.
func TestYAMLSyntaxPositions(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string
	}{
		{"tab", "load:\n  num_prompts: 5\n\tmax_concurrency: 2\n", "s.yaml:3:1: found a tab character that violates indentation"},
		{"sequence after mapping", "a: 1\n- b\n", "s.yaml:2:1: did not find expected key"},
		{"second colon", "load:\n  num_prompts: 5: 3\n", "s.yaml:2:17: mapping values are not allowed in this context"},
		{"unclosed flow sequence", "name: x\nmetrics:\n  percentile_metrics: [ttft, tpot\n", "s.yaml:3:23: while parsing a flow sequence started here: did not find expected ',' or ']' at the end of the file"},
		{"unclosed flow mapping", "name: x\nload: {num_prompts: 1\n", "s.yaml:2:7: while parsing a flow mapping started here: did not find expected ',' or '}' at the end of the file"},
		{"unclosed quote", "name: x\ntarget:\n  model: 'm\n", "s.yaml:3:10: while scanning a quoted scalar started here: found unexpected end of stream"},
		{"bad character", "name: x\nload: {num_prompts: @1}\n", "s.yaml:2:21: found character that cannot start any token"},
		{"second document", "name: x\n---\nload:\n num_prompts: 1\n  x: 2\n", "s.yaml:5:4: mapping values are not allowed in this context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadBytes("s.yaml", []byte(tc.yaml), Options{Dir: "."})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if got := e.Error(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
