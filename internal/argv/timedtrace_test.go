package argv

import (
	"slices"
	"strings"
	"testing"
)

// With a self-timed replay (timed_trace's default) the arrival flags do
// nothing, as in vLLM: the parse says so; with --no-self-timed they apply.
func TestTimedTraceArrivalFlagsWarn(t *testing.T) {
	base := []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--request-rate", "5", "--burstiness", "0.5"}
	for _, tc := range []struct {
		extra []string
		warn  bool
	}{{nil, true}, {[]string{"--self-timed"}, true}, {[]string{"--no-self-timed"}, false}} {
		cmd, err := ParseCommand(append(slices.Clone(base), tc.extra...), Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(cmd.Warnings, "\n")
		for _, flag := range []string{"--request-rate", "--burstiness"} {
			if has := strings.Contains(got, flag+" has no effect with a self-timed trace replay"); has != tc.warn {
				t.Errorf("%q: warnings %q, want a warning about %s: %v", tc.extra, got, flag, tc.warn)
			}
		}
	}
}
