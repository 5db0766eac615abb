package scenario

import (
	"strings"
	"testing"
)

// TestHeaderErrorsHideValues loads scenarios whose header values are
// wrong and requires errors that name the field but show none of the
// values, which are secrets.
func TestHeaderErrorsHideValues(t *testing.T) {
	tests := []struct {
		name string
		srcs []Source
		sets []string
		path string // the field the error names
	}{
		{"a list", []Source{{"a.cue", []byte(`target: headers: {"X-Key": ["sk-SECRET-list"]}`)}}, nil, `target.headers."X-Key"`},
		{"a number", []Source{{"a.cue", []byte(`target: headers: {"X-Key": 12345678}`)}}, nil, `target.headers."X-Key"`},
		{"a struct", []Source{{"a.cue", []byte(`target: headers: {"X-Key": {v: "sk-SECRET-struct"}}`)}}, nil, `target.headers."X-Key"`},
		{"YAML", []Source{{"a.yaml", []byte("target:\n  headers:\n    X-Key: [sk-SECRET-yaml]\n")}}, nil, `target.headers."X-Key"`},
		{"two files disagree", []Source{
			{"a.cue", []byte(`target: headers: {"X-Key": "sk-SECRET-one"}`)},
			{"b.cue", []byte(`target: headers: {"X-Key": "sk-SECRET-two"}`)},
		}, nil, `target.headers."X-Key"`},
		{"a compare variant", []Source{{"a.cue", []byte(`compare: variants: {a: target: headers: {"X-Key": ["sk-SECRET-variant"]}, b: {}}`)}}, nil, `headers`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadSources(tt.srcs, Options{Dir: "/", Sets: tt.sets})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "SECRET") || strings.Contains(msg, "12345678") {
				t.Errorf("the error shows a header value:\n%s", msg)
			}
			if !strings.Contains(msg, tt.path) {
				t.Errorf("the error does not name %s:\n%s", tt.path, msg)
			}
		})
	}
}

func TestSecretPath(t *testing.T) {
	tests := []struct {
		path []string
		want bool
	}{
		{[]string{"target", "headers", `"X-Key"`}, true},
		{[]string{"compare", "variants", "a", "target", "headers", "X"}, true},
		{[]string{"sweep", "axes", `"target.headers"`, "0", "X"}, true},
		{[]string{"target", "model"}, false},
		{[]string{"output", "metadata", "headers_seen"}, false},
	}
	for _, tt := range tests {
		if got := secretPath(pathSelectors(tt.path)); got != tt.want {
			t.Errorf("secretPath(%v) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestSetSourceHidesSecrets checks how errors and notes name a --set
// argument: header values and a base URL's password are not shown.
func TestSetSourceHidesSecrets(t *testing.T) {
	tests := []struct{ arg, want string }{
		{"load.num_prompts=10", "--set load.num_prompts=10"},
		{`target.headers."X-Key"=sk-SECRET`, `--set target.headers."X-Key"=<redacted>`},
		{`target.headers={"X-Key": "sk-SECRET"}`, `--set target.headers=<redacted>`},
		{`target={"headers": {"X-Key": "sk-SECRET"}}`, `--set target=<redacted>`},
		{`compare.variants.a.target.headers."X"=sk-SECRET`, `--set compare.variants.a.target.headers."X"=<redacted>`},
		{`target.headers.X-Key=sk-SECRET`, `--set target.headers.X-Key=<redacted>`},
		{"target.base_url=http://u:pw-SECRET@h:8000", "--set target.base_url=http://u:xxxxx@h:8000"},
		{`target.base_url="http://h:8000"`, `--set target.base_url="http://h:8000"`},
		{"noequals", "--set noequals"},
	}
	for _, tt := range tests {
		if got := setSource(tt.arg); got != tt.want {
			t.Errorf("setSource(%q) = %q, want %q", tt.arg, got, tt.want)
		}
	}
	// Through a load that fails.
	for _, set := range []string{`target.headers."X-Key"=["sk-SECRET-set"]`, `target.headers={"X-Key": 5}`, "target.base_url=http://u:pw-SECRET@h:bad:port", "target.base_url=u:pw-SECRET@h:8000"} {
		_, err := LoadSources(nil, Options{Dir: "/", Sets: []string{"target.model=m", set}})
		if err == nil {
			t.Errorf("--set %s: no error", set)
			continue
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("--set %s: the error shows the secret: %v", set, err)
		}
	}
}
