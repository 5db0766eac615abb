package scenario

import (
	"math"
	"time"
)

// DefaultScrapeInterval is how often a run samples the server's load
// gauges when metrics.scrape_interval is not set (vbench run, and
// vbench serve with --plot-timeline).
const DefaultScrapeInterval = time.Second

// ScrapeInterval is how often a run of s samples the server's load gauges
// (0 = not at all): metrics.scrape_interval when set; otherwise
// DefaultScrapeInterval, except that a vllm bench serve command line
// (argv, vbench serve) samples only with output.plot_timeline, whose
// timeline shows the gauges: vllm bench serve has no such sampling.
func (s *Scenario) ScrapeInterval(argv bool) time.Duration {
	if p := s.Metrics.ScrapeIntervalSec; p != nil {
		return time.Duration(math.Round(*p * 1e9))
	}
	if argv && !s.Output.PlotTimeline {
		return 0
	}
	return DefaultScrapeInterval
}
