package scenario

import (
	"errors"
	"testing"
)

// TestOptionsCheck checks that the problems of Options.Check are placed at
// the value of their field where it was written, at a --set when it came
// from one, and at the nearest written ancestor (or the first file)
// otherwise.
func TestOptionsCheck(t *testing.T) {
	tests := []struct {
		name, path string
		sets       []string
		want       string
	}{
		{"value in the file", "load.num_prompts", nil, "s.cue:2:41: load.num_prompts: refused"},
		{"list element", "metrics.percentile_metrics[1]", nil, "s.cue:3:39: metrics.percentile_metrics[1]: refused"},
		{"from --set", "load.num_prompts", []string{"load.num_prompts=7"}, "--set load.num_prompts=7: load.num_prompts: refused"},
		{"default under a written parent", "load.burstiness", nil, "s.cue:2:1: load.burstiness: refused"},
		{"default only", "sampling.temperature", nil, "s.cue: sampling.temperature: refused"},
	}
	src := "\nload: {max_concurrency: 2, num_prompts: 10}\nmetrics: percentile_metrics: [\"ttft\", \"e2el\"]\n"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen *Scenario
			check := func(s *Scenario) []Problem {
				seen = s
				return []Problem{{Path: tt.path, Msg: "refused"}}
			}
			_, err := LoadBytes("s.cue", []byte(src), Options{Sets: tt.sets, Check: check, Dir: t.TempDir()})
			var e *Error
			if !errors.As(err, &e) || err.Error() != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
			if seen == nil || seen.Load.MaxConcurrency == nil || *seen.Load.MaxConcurrency != 2 {
				t.Errorf("check saw %+v", seen)
			}
		})
	}
	if _, err := LoadBytes("s.cue", []byte(src), Options{Check: func(*Scenario) []Problem { return nil }}); err != nil {
		t.Errorf("a check without problems failed the load: %v", err)
	}
}
