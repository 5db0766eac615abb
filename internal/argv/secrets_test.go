package argv

import (
	"strings"
	"testing"
)

// TestFlagErrorsHideSecrets checks that an error about --base-url shows
// the URL without its password, and one about the scenario the command
// line makes shows no header value.
func TestFlagErrorsHideSecrets(t *testing.T) {
	for _, args := range [][]string{
		{"--base-url", "http://u:pw-SECRET@h:bad:port", "--model", "m"},
		{"--base-url", "u:pw-SECRET@h:8000", "--model", "m"},
		{"--base-url", "ftp://u:pw-SECRET@h:8000", "--model", "m"},
		{"--base-url", "http://u:pw-SECRET@h:8000", "--model", "m", "--max-concurrency", "0"},
		{"--header", "X-Key=sk-SECRET\nInjected: 1", "--model", "m"},
	} {
		_, err := Parse(args, Options{})
		if err == nil {
			t.Errorf("%q: no error", args)
			continue
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%q: the error shows the secret: %s", args, err)
		}
	}
}
