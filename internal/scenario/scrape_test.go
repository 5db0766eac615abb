package scenario

import (
	"testing"
	"time"
)

func TestScrapeInterval(t *testing.T) {
	tests := []struct {
		src      string
		timeline bool
		argv     bool
		want     time.Duration
	}{
		{"", false, false, time.Second},
		{"", false, true, 0},
		{"", true, true, time.Second},
		{"metrics: scrape_interval: 0.25\n", false, false, 250 * time.Millisecond},
		{"metrics: scrape_interval: 0.1\n", false, true, 100 * time.Millisecond},
		{"metrics: scrape_interval: 0\n", false, false, 0},
		{"metrics: scrape_interval: 0\n", true, true, 0},
	}
	for _, tt := range tests {
		s, err := LoadBytes("s.cue", []byte(tt.src), Options{})
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		// output.plot_timeline is set in Go, as the CLI sets it.
		s.Output.PlotTimeline = tt.timeline
		if got := s.ScrapeInterval(tt.argv); got != tt.want {
			t.Errorf("%q, timeline %v, argv %v: ScrapeInterval = %v, want %v", tt.src, tt.timeline, tt.argv, got, tt.want)
		}
	}
	// Not set is the default and changes no hash; set, it is in the hash.
	def, set := Default(), Default()
	one := 1.0
	set.Metrics.ScrapeIntervalSec = &one
	if def.Metrics.ScrapeIntervalSec != nil || def.Hash() == set.Hash() {
		t.Errorf("default %v; hashes %s, %s", def.Metrics.ScrapeIntervalSec, def.Hash(), set.Hash())
	}
	for _, src := range []string{"metrics: scrape_interval: 0.005\n", "metrics: scrape_interval: -1\n", "metrics: scrape_interval: 1e10\n", "metrics: scrape_interval: \"1s\"\n"} {
		if _, err := LoadBytes("s.cue", []byte(src), Options{}); err == nil {
			t.Errorf("%q accepted", src)
		}
	}
}
