package scenario

import (
	"strings"
	"testing"
)

// A base's defaults win over the schema's, an overlay's values over the
// base's defaults; two concrete values still conflict.
func TestOverlayDefaults(t *testing.T) {
	base := Source{Name: "base.cue", Data: []byte(`
load: {num_prompts: *4096 | int, max_concurrency: *64 | int}
dataset: random: input_len: *8192 | int
target: simulator: ttft_ms: *20 | number
metrics: percentile_metrics: *["ttft", "e2el"] | [...]
sweep: axes: "load.max_concurrency": *[1, 4] | [...]
`)}
	for _, tc := range []struct {
		name    string
		overlay string
		check   func(*Scenario) bool
		wantErr string
	}{
		{"base alone", "", func(s *Scenario) bool {
			return s.Load.NumPrompts == 4096 && *s.Load.MaxConcurrency == 64 && dsNum(s, "random.input_len") == 8192 &&
				s.Target.Simulator.TTFTMs == 20 && strings.Join(s.Metrics.PercentileMetrics, ",") == "ttft,e2el" &&
				len(s.Sweep.Axes["load.max_concurrency"]) == 2
		}, ""},
		{"overlay decides", "load: num_prompts: 6\ndataset: random: input_len: 64\ntarget: simulator: ttft_ms: 1.5\nmetrics: percentile_metrics: [\"itl\"]\nsweep: axes: \"load.max_concurrency\": [2, 3, 5]\n",
			func(s *Scenario) bool {
				return s.Load.NumPrompts == 6 && *s.Load.MaxConcurrency == 64 && dsNum(s, "random.input_len") == 64 &&
					s.Target.Simulator.TTFTMs == 1.5 && strings.Join(s.Metrics.PercentileMetrics, ",") == "itl" &&
					len(s.Sweep.Axes["load.max_concurrency"]) == 3
			}, ""},
		{"overlay outside the schema", "load: num_prompts: -1\n", nil, "overlay.cue:1:20: load.num_prompts: invalid value -1 (out of bound >=0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srcs := []Source{base}
			if tc.overlay != "" {
				srcs = append(srcs, Source{Name: "overlay.cue", Data: []byte(tc.overlay)})
			}
			s, err := LoadSources(srcs, Options{Dir: "."})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(s) {
				t.Errorf("resolved scenario:\n%s", s.Canonical())
			}
		})
	}

	// A base that writes a plain value cannot be overridden by a file (only
	// by --set, which replaces).
	_, err := LoadSources([]Source{{Name: "a.cue", Data: []byte("load: num_prompts: 7\n")}, {Name: "b.cue", Data: []byte("load: num_prompts: 8\n")}}, Options{Dir: "."})
	if err == nil || !strings.Contains(err.Error(), "conflicting values 8 and 7") {
		t.Errorf("two plain values: err = %v, want a conflict", err)
	}
}
