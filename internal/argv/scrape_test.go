package argv

import (
	"slices"
	"strings"
	"testing"
)

// vbench serve's --scrape-interval sets metrics.scrape_interval;
// vllm bench serve has no such flag, so Format leaves it out and Dropped
// names it. Without it the field stays unset: vbench serve then samples
// only with --plot-timeline (Scenario.ScrapeInterval).
func TestScrapeIntervalFlag(t *testing.T) {
	s, err := Parse([]string{"--scrape-interval", "0.25", "--save-result"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Metrics.ScrapeIntervalSec; p == nil || *p != 0.25 {
		t.Fatalf("metrics.scrape_interval = %v", p)
	}
	if got := s.ScrapeInterval(true).String(); got != "250ms" {
		t.Errorf("ScrapeInterval = %s", got)
	}
	args, err := Format(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(args, []string{"--save-result"}) {
		t.Errorf("Format = %q, want only --save-result", args)
	}
	if d := Dropped(s); !slices.Contains(d, "metrics.scrape_interval 0.25") {
		t.Errorf("Dropped = %q", d)
	}
	def, err := Parse(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if def.Metrics.ScrapeIntervalSec != nil || def.ScrapeInterval(true) != 0 {
		t.Errorf("without the flag: %v, %v", def.Metrics.ScrapeIntervalSec, def.ScrapeInterval(true))
	}
	for _, tt := range []struct{ arg, want string }{
		{"0.001", "--scrape-interval 0.001: invalid value 0.001 (out of bound >=0.01)"},
		{"-1", "--scrape-interval -1:"},
		{"inf", "--scrape-interval inf: invalid value"},
		{"x", "--scrape-interval x: invalid float value: 'x'"},
	} {
		if _, err := Parse([]string{"--scrape-interval", tt.arg}, Options{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--scrape-interval %s: err = %v, want %q", tt.arg, err, tt.want)
		}
	}
}
