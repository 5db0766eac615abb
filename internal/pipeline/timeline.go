package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/timeline"
)

// timelinePath is the timeline next to a result, named as vLLM names it
// (x.json → x.timeline.html, see report.WithSuffix).
func timelinePath(result string) string { return report.WithSuffix(result, ".timeline.html") }

// writeTimeline writes the run's request timeline when the scenario asks
// for one (output.plot_timeline), next to the result named result, and
// says where on the console, as vLLM does. When the result is not saved
// (saved false) and its name was computed, an existing timeline of that
// name is kept and the first free numbered name (x-2.timeline.html, …)
// taken, as for results; otherwise the timeline follows its result's
// name. Failures are warnings: the run and its result stand without the
// plot. It returns the result name the page is named after (result, or
// its numbered form), for the run's other plots, or "" without a page to
// write.
func writeTimeline(sc *scenario.Scenario, result string, saved bool, out *Outcome, env Env) string {
	o := sc.Output
	if !o.PlotTimeline || result == "" {
		return ""
	}
	obs := env.observer()
	var thr [2]float64
	copy(thr[:], o.TimelineITLThresholds)
	base := result
	if !saved && o.ResultFilename == "" {
		for k := 2; exists(timelinePath(base)) && k <= maxFreshNames; k++ {
			base = report.NumberedPath(result, k)
		}
	}
	path := timelinePath(base)
	err := timeline.Write(path, timeline.Input{
		Title:      filepath.Base(result),
		Records:    out.Records,
		Samples:    out.ServerSamples,
		Thresholds: thr,
	})
	switch {
	case errors.Is(err, timeline.ErrNoRequests):
		obs.Diagnostic("warning: no timeline plot: no request was sent")
	case err != nil:
		obs.Diagnostic(fmt.Sprintf("warning: failed to generate timeline plot: %v", err))
	default:
		obs.Message("Timeline plot saved to: " + path)
	}
	return base
}
