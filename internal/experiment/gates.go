package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/typo"
)

// MetricSetup is what a run of sc is set to produce, for the metric table
// (metrics.Setup): the sources vbench reads for it and the settings that
// decide which metrics its result holds. It follows the same settings as
// the metrics.Options of the run.
func MetricSetup(sc *scenario.Scenario) metrics.Setup {
	return metrics.Setup{
		// The client's records and its health (the result's "vbench" object)
		// are always there, and every run scrapes the server's /metrics
		// before and after the timed phase, as vLLM does: the speculative-
		// and diffusion-decoding metrics are there when the server
		// exposes their counters.
		Sources:        metrics.SourceClient | metrics.SourceServer | metrics.SourceHealth | serverSamples(sc),
		Generation:     !scenario.Pooling(sc.Target.Backend),
		Tokenizer:      !sc.Tokenizer.SkipInit,
		Goodput:        len(sc.Metrics.Goodput) > 0,
		MaxConcurrency: sc.Load.MaxConcurrency != nil && *sc.Load.MaxConcurrency > 0,
		FiniteRate:     !sc.Load.RequestRate.IsInf(),
		Probes:         sc.Load.ProbeRequestRate > 0,
		SteadyState: !scenario.Pooling(sc.Target.Backend) && sc.Metrics.SteadyStateOn() && sc.Load.MaxConcurrency != nil && *sc.Load.MaxConcurrency > 0 &&
			sc.Load.RequestRate.IsInf() && sc.Load.RampUp == nil,
		PercentileMetrics: sc.Metrics.PercentileMetrics,
		Percentiles:       sc.Metrics.MetricPercentiles,
	}
}

// serverSamples is metrics.SourceServerSamples when a run of sc samples
// the server's gauges (metrics.scrape_interval; experiments run as
// vbench run does).
func serverSamples(sc *scenario.Scenario) metrics.Source {
	if sc.ScrapeInterval(false) > 0 {
		return metrics.SourceServerSamples
	}
	return 0
}

// gateError is the error of Expand for gates on metrics the runs will not
// produce: one scenario problem per gate, each naming its field.
type gateError struct{ problems []scenario.Problem }

func (e *gateError) Error() string {
	lines := make([]string, len(e.problems))
	for i, p := range e.problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// CheckMetrics is a scenario.Options.Check: it refuses each compare gate
// whose metric a run of the experiment (any sweep point of any variant)
// will not produce, naming the gate's metric field and the metrics it can
// gate on, so that `vbench vet` and `vbench run` say so at the field's
// file:line:col before anything runs. Other problems of the experiment are
// left to Check.
func CheckMetrics(sc *scenario.Scenario) []scenario.Problem {
	if sc.Compare == nil || len(sc.Compare.Gates) == 0 {
		return nil
	}
	var ge *gateError
	if _, err := Expand(sc); errors.As(err, &ge) {
		return ge.problems
	}
	return nil
}

// gateRun is one distinct run scenario of an experiment, and where it is.
type gateRun struct {
	setup metrics.Setup
	where string // "sweep point …, variant …", the parts that vary
}

// gateProblems checks each gate's metric against every run of the
// experiment: the runs' scenarios by variant, then sweep point.
func gateProblems(gates []scenario.Gate, variants []string, points []Point, scenarios [][]*scenario.Scenario) []scenario.Problem {
	var runs []gateRun
	for vi, row := range scenarios {
		for pi, sc := range row {
			var where []string
			if len(points) > 1 {
				where = append(where, "sweep point "+points[pi].Name)
			}
			if len(variants) > 1 {
				where = append(where, "variant "+variants[vi])
			}
			runs = append(runs, gateRun{setup: MetricSetup(sc), where: strings.Join(where, ", ")})
		}
	}
	// The metrics every run produces, in table order.
	var common []string
	for _, k := range runs[0].setup.Keys() {
		all := true
		for _, r := range runs[1:] {
			all = all && r.setup.Produces(k)
		}
		if all {
			common = append(common, k)
		}
	}
	var problems []scenario.Problem
	for i, g := range gates {
		if g.Metric == "" {
			continue // Validate reports it
		}
		// The first run without the metric, and whether some run has it.
		missing, some := -1, false
		for j, r := range runs {
			if r.setup.Produces(g.Metric) {
				some = true
			} else if missing < 0 {
				missing = j
			}
		}
		if missing < 0 {
			continue
		}
		msg := unproducedReason(g.Metric, runs[missing].setup)
		if some {
			msg += " (at " + runs[missing].where + ")"
		}
		problems = append(problems, scenario.Problem{
			Path: fmt.Sprintf("compare.gates[%d].metric", i),
			Msg:  msg + gateChoices(g.Metric, common),
		})
	}
	return problems
}

// needTexts say how a scenario meets each of metrics.Needs.
var needTexts = []struct {
	need metrics.Needs
	text string
}{
	{metrics.NeedsTokenizer, "a client tokenizer (tokenizer.skip_init is true)"},
	{metrics.NeedsGoodput, "metrics.goodput"},
	{metrics.NeedsMaxConcurrency, "load.max_concurrency"},
	{metrics.NeedsFiniteRate, "a finite load.request_rate"},
	{metrics.NeedsProbes, "probe requests (a positive load.probe_request_rate)"},
	{metrics.NeedsGeneration, "a generation backend"},
	{metrics.NeedsPooling, "a pooling backend"},
	{metrics.NeedsSteadyState, "a closed-loop run (load.max_concurrency set, request rate inf, no ramp-up) with metrics.steady_state on"},
}

// unproducedReason says why setup does not produce the metric key.
func unproducedReason(key string, setup metrics.Setup) string {
	d, ok := metrics.Lookup(key)
	if !ok {
		return notAMetric(key, setup)
	}
	if d.List {
		return fmt.Sprintf("%s is a list, not a number a gate can compare", key)
	}
	if (setup.Sources|metrics.SourceClient)&d.Source == 0 {
		return fmt.Sprintf("%s comes from the %s, which this scenario does not read", key, d.Source)
	}
	stat, metric, isStat := metrics.SplitStatKey(key)
	if !knownLatency(key) {
		return notAMetric(key, setup)
	}
	if isStat && !slices.Contains(setup.PercentileMetrics, metric) {
		return fmt.Sprintf("%s needs %s in metrics.percentile_metrics", key, metric)
	}
	var missing []string
	for _, n := range needTexts {
		if d.Needs&n.need != 0 && !setup.Meets(n.need) {
			missing = append(missing, n.text)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("%s needs %s", key, strings.Join(missing, " and "))
	}
	if isStat && stat != metrics.StatMean && stat != metrics.StatMedian && stat != metrics.StatStd {
		return fmt.Sprintf("%s needs %s in metrics.metric_percentiles", key, stat[1:])
	}
	return fmt.Sprintf("%s is not in this scenario's results", key)
}

// notAMetric says key names no metric, with the closest one setup
// produces when it looks like a typo of it.
func notAMetric(key string, setup metrics.Setup) string {
	msg := fmt.Sprintf("%q is not a metric", key)
	if s := metrics.Suggest(key, setup.Keys()); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return msg
}

// GateMetricError is the error of CompareFiles for a gate whose metric is
// not in every compared result.
type GateMetricError struct {
	// Gate is the gate's index in CompareOptions.Gates.
	Gate int
	// Msg says why and lists the metrics it can gate on.
	Msg string
}

// Error returns Msg.
func (e *GateMetricError) Error() string { return e.Msg }

// checkGateMetrics refuses the first gate whose metric is not a number of
// every result, listing those it can gate on: the metric table's metrics
// that every result holds, in the first result's order.
func checkGateMetrics(gates []scenario.Gate, results []*Result) error {
	if len(gates) == 0 || len(results) == 0 {
		return nil
	}
	inAll := func(k string) bool {
		for _, r := range results {
			if _, ok := r.Values[k]; !ok {
				return false
			}
		}
		return true
	}
	var keys []string
	for _, k := range results[0].Keys {
		if d, ok := metrics.Lookup(k); ok && d.Gateable() && inAll(k) {
			keys = append(keys, k)
		}
	}
	for _, d := range metrics.Defs() {
		if len(d.Path) > 1 && inAll(d.Key) {
			keys = append(keys, d.Key)
		}
	}
	for i, g := range gates {
		if slices.Contains(keys, g.Metric) {
			continue
		}
		var msg string
		switch d, ok := metrics.Lookup(g.Metric); {
		case !ok || !knownLatency(g.Metric):
			msg = fmt.Sprintf("%q is not a metric", g.Metric)
			if s := metrics.Suggest(g.Metric, keys); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
		case d.List:
			msg = fmt.Sprintf("%s is a list, not a number a gate can compare", g.Metric)
		default:
			var without []string
			for _, r := range results {
				if _, ok := r.Values[g.Metric]; !ok {
					without = append(without, r.Path)
				}
			}
			msg = fmt.Sprintf("%s is not in %s", g.Metric, strings.Join(without, ", "))
			if len(without) == len(results) {
				msg = fmt.Sprintf("%s is not in the results", g.Metric)
			}
		}
		return &GateMetricError{Gate: i, Msg: msg + gateChoices(g.Metric, keys)}
	}
	return nil
}

// knownLatency is false for a key shaped like a latency statistic whose
// metric is not one of metrics.Latencies (a typo such as p99_ttfx_ms).
func knownLatency(key string) bool {
	_, metric, isStat := metrics.SplitStatKey(key)
	if !isStat {
		return true
	}
	_, ok := metrics.LatencyByName(metric)
	return ok
}

// gateChoicesShown is how many of the metrics a gate can use its error
// lists.
const gateChoicesShown = 5

// gateChoices ends a gate metric's error with the metrics it can gate on
// nearest to the one it names (all of them when there are few).
func gateChoices(metric string, keys []string) string {
	if len(keys) <= gateChoicesShown {
		return "; metrics it can gate on: " + strings.Join(keys, ", ")
	}
	return fmt.Sprintf("; the nearest of the %d metrics it can gate on: %s", len(keys), strings.Join(typo.Nearest(metric, keys, gateChoicesShown), ", "))
}
