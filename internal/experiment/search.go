package experiment

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/server"
	vstats "github.com/vbench/vbench/internal/stats"
)

// FailureRate is the SLO metric of the share of requests that failed,
// failed / (completed + failed), from 0 to 1.
const FailureRate = "failure_rate"

// Probe is one load a capacity search tried.
type Probe struct {
	// Load is the value of the searched variable.
	Load float64 `json:"load"`
	// Files are its runs' result files, relative to the result directory.
	Files []string `json:"files"`
	// Means are the SLO metrics' means over the runs.
	Means map[string]float64 `json:"means"`
	// Pass says whether the means meet every SLO.
	Pass bool `json:"pass"`
	// Noisy says that after the last run a bound still lay within the
	// noise (the verdict is the means').
	Noisy bool `json:"noisy,omitempty"`
	// Violated names the SLOs the probe missed, worst first.
	Violated []string `json:"violated,omitempty"`
	// Error is why the probe failed without a result (its managed server
	// exited).
	Error string `json:"error,omitempty"`
}

// SearchResult is a capacity search's outcome, saved as search.json.
type SearchResult struct {
	// Name is the scenario's name.
	Name string `json:"name,omitempty"`
	// Hash is the search scenario's hash.
	Hash string `json:"hash"`
	// Variable is the searched load field; Step the resolution.
	Variable string  `json:"variable"`
	Step     float64 `json:"step"`
	// SLOs are the objectives, as "metric <= bound".
	SLOs []string `json:"slos"`
	// Capacity is the largest load that met every SLO; nil when even the
	// smallest load probed missed one.
	Capacity *float64 `json:"capacity"`
	// Above is the smallest load that missed an SLO: the capacity lies
	// in [Capacity, Above). Nil when the largest load allowed passed.
	Above *float64 `json:"above"`
	// Bound names the SLO the load Above missed by the most: the one
	// that sets the capacity.
	Bound string `json:"bound,omitempty"`
	// Probes are the loads tried, in order.
	Probes []Probe `json:"probes"`
	// Runs counts the runs the probes took; LinearProbes is how many
	// loads a linear sweep from min to max at the same step would run.
	Runs         int `json:"runs"`
	LinearProbes int `json:"linear_probes"`
}

// CheckSearch reports what is wrong with a scenario's search before
// anything runs.
func CheckSearch(sc *scenario.Scenario) error {
	s := sc.Search
	if sc.Sweep != nil || sc.Repeat != nil || sc.Compare != nil {
		return errors.New("search cannot be combined with sweep, repeat or compare")
	}
	switch {
	case s.Min > s.Max:
		return fmt.Errorf("search.min %v is above search.max %v", s.Min, s.Max)
	case s.Start != 0 && (s.Start < s.Min || s.Start > s.Max):
		return fmt.Errorf("search.start %v is outside [search.min, search.max] = [%v, %v]", s.Start, s.Min, s.Max)
	}
	if s.Variable == "load.max_concurrency" {
		for name, v := range map[string]float64{"min": s.Min, "max": s.Max, "start": s.Start, "step": s.Step} {
			if v != math.Trunc(v) {
				return fmt.Errorf("search.%s must be a whole number to search load.max_concurrency, got %v", name, v)
			}
		}
	}
	setup := MetricSetup(sc)
	for i, slo := range s.SLOs {
		if (slo.Max == nil) == (slo.Min == nil) {
			return fmt.Errorf("search.slos[%d] (%s): set exactly one of max and min", i, slo.Metric)
		}
		if slo.Metric != FailureRate && !setup.Produces(slo.Metric) {
			return fmt.Errorf("search.slos[%d]: this run produces no metric %q (a result JSON key such as p99_ttft_ms, or %s)", i, slo.Metric, FailureRate)
		}
	}
	base := *sc
	base.Search = nil
	probe, err := base.With(scenario.Override{Path: s.Variable, Value: json.RawMessage(formatLoad(s.Min))})
	if err != nil {
		return err
	}
	return pipeline.CheckRun(probe)
}

// sloText shows an SLO as "metric <= bound" or "metric >= bound".
func sloText(s scenario.SLO) string {
	if s.Max != nil {
		return s.Metric + " <= " + formatLoad(*s.Max)
	}
	return s.Metric + " >= " + formatLoad(*s.Min)
}

// formatLoad writes a load (or bound) as its shortest decimal.
func formatLoad(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// searchGrid places loads on the search's grid.
type searchGrid struct{ min, max, step float64 }

// snap returns the grid load nearest x within [min, max].
func (g searchGrid) snap(x float64) float64 {
	k := math.Round((x - g.min) / g.step)
	return math.Min(math.Max(g.min+k*g.step, g.min), g.max)
}

// linear is the number of grid loads from min to max.
func (g searchGrid) linear() int { return int(math.Floor((g.max-g.min)/g.step+1e-9)) + 1 }

// findCapacity runs the search with judge as the verdict of one load and
// returns the largest passing load and the smallest failing one (each
// with whether there is one). It brackets from start (doubling while
// loads pass, halving while they fail), then bisects on the grid.
func findCapacity(g searchGrid, start float64, judge func(x float64) (bool, error)) (lo, hi float64, hasLo, hasHi bool, err error) {
	x := g.snap(start)
	pass, err := judge(x)
	if err != nil {
		return 0, 0, false, false, err
	}
	if pass {
		lo, hasLo = x, true
		for !hasHi {
			if lo >= g.max {
				return lo, 0, true, false, nil
			}
			next := math.Max(g.snap(lo*2), g.snap(lo+g.step))
			if pass, err = judge(next); err != nil {
				return 0, 0, false, false, err
			}
			if pass {
				lo = next
			} else {
				hi, hasHi = next, true
			}
		}
	} else {
		hi, hasHi = x, true
		for !hasLo {
			if hi <= g.min {
				return 0, hi, false, true, nil
			}
			next := math.Min(g.snap(hi/2), g.snap(hi-g.step))
			if pass, err = judge(next); err != nil {
				return 0, 0, false, false, err
			}
			if pass {
				lo, hasLo = next, true
			} else {
				hi = next
			}
		}
	}
	for {
		mid := g.snap((lo + hi) / 2)
		if mid <= lo || mid >= hi {
			return lo, hi, true, true, nil
		}
		pass, err := judge(mid)
		if err != nil {
			return 0, 0, false, false, err
		}
		if pass {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// assess judges one probe's runs: vals[i] are SLO i's values, one per
// run. It returns the means, whether they meet every SLO, whether a bound
// lies within the noise (so that another run is due), and the missed SLOs
// worst first (by relative distance past the bound).
func assess(slos []scenario.SLO, vals [][]float64, margin float64) (means map[string]float64, pass, noisy bool, violated []string) {
	means = map[string]float64{}
	pass = true
	type miss struct {
		name string
		by   float64
	}
	var misses []miss
	for i, slo := range slos {
		d := vstats.Describe(vals[i], Level)
		means[slo.Metric] = d.Mean
		bound, upper := 0.0, slo.Max != nil
		if upper {
			bound = *slo.Max
		} else {
			bound = *slo.Min
		}
		ok := d.Mean <= bound
		if !upper {
			ok = d.Mean >= bound
		}
		if !ok {
			pass = false
			misses = append(misses, miss{sloText(slo), math.Abs(d.Mean-bound) / math.Max(math.Abs(bound), 1e-12)})
		}
		if d.N < 2 {
			noisy = noisy || (bound != 0 && math.Abs(d.Mean-bound) <= margin*math.Abs(bound))
		} else {
			// A zero-width interval (identical runs) is settled.
			noisy = noisy || (d.CILow < d.CIHigh && d.CILow <= bound && bound <= d.CIHigh)
		}
	}
	slices.SortStableFunc(misses, func(a, b miss) int { return cmp.Compare(b.by, a.by) }) // worst first
	for _, m := range misses {
		violated = append(violated, m.name)
	}
	return means, pass, noisy, violated
}

// sloValue reads an SLO's metric from a run's result.
func sloValue(res *Result, metric string) (float64, error) {
	if metric == FailureRate {
		done := res.Values["completed"] + res.Values["failed"]
		if done == 0 {
			return 0, errors.New("the run finished no request")
		}
		return res.Values["failed"] / done, nil
	}
	v, ok := res.Values[metric]
	if !ok {
		return 0, fmt.Errorf("the result has no %s", metric)
	}
	return v, nil
}

// ExecuteSearch runs a capacity search (see the schema's #Search): every
// probe is a saved run under output.result_dir, with --resume reusing the
// results a probe already has. It prints the probes and the capacity,
// and writes search.json and search.csv next to the runs.
func ExecuteSearch(ctx context.Context, sc *scenario.Scenario, env pipeline.Env, opt Options) (*SearchResult, error) {
	if err := CheckSearch(sc); err != nil {
		return nil, pipeline.Unsupportedf("%v", err)
	}
	s := sc.Search
	dir := sc.Output.ResultDir
	if dir == "" {
		dir = "."
	}
	key := s.Variable[strings.LastIndex(s.Variable, ".")+1:]
	prefix := ""
	if f := sc.Output.ResultFilename; f != "" {
		prefix = strings.TrimSuffix(f, filepath.Ext(f)) + "-"
	}
	g := searchGrid{min: s.Min, max: s.Max, step: s.Step}
	res := &SearchResult{Name: sc.Name, Hash: sc.Hash(), Variable: s.Variable, Step: s.Step, LinearProbes: g.linear()}
	for _, slo := range s.SLOs {
		res.SLOs = append(res.SLOs, sloText(slo))
	}
	if opt.DryRun {
		_, err := fmt.Fprintf(env.Stdout, "capacity search over %s in [%s, %s] at step %s for %s: up to %d runs per probe, results in %s (a linear sweep would run %d loads)\n",
			s.Variable, formatLoad(s.Min), formatLoad(s.Max), formatLoad(s.Step), strings.Join(res.SLOs, ", "), s.MaxRuns, dir, res.LinearProbes)
		return nil, err
	}
	base := *sc
	base.Search = nil
	spec := &Spec{Name: sc.Name, Axes: []string{s.Variable}, Repeat: s.MaxRuns}
	servers := &server.Manager{Stderr: env.Stderr}
	defer servers.Close()

	judge := func(x float64) (bool, error) {
		pt := Point{Name: key + "=" + sanitizeName(formatLoad(x)), Values: []json.RawMessage{json.RawMessage(formatLoad(x))}}
		ps, err := base.With(scenario.Override{Path: s.Variable, Value: pt.Values[0]})
		if err != nil {
			return false, err
		}
		probe := Probe{Load: x}
		vals := make([][]float64, len(s.SLOs))
		for r := range s.MaxRuns {
			run := *ps
			run.Seed = RepeatSeed(run.Seed, r, false)
			name := prefix + "search-" + pt.Name + "-run=" + strconv.Itoa(r) + ".json"
			run.Output.SaveResult, run.Output.AppendResult = true, false
			run.Output.ResultDir, run.Output.ResultFilename = dir, name
			if opt.Overwrite {
				run.Output.Overwrite = true
			}
			// A run that misses an SLO for good stops (load.early_stop):
			// past its failure rate, or past a latency bound.
			es := scenario.EarlyStop{WindowS: 10} // over-saturation only if the scenario asks
			if run.Load.EarlyStop != nil {
				es = *run.Load.EarlyStop
			}
			for _, slo := range s.SLOs {
				if slo.Metric == FailureRate && slo.Max != nil {
					es.MaxFailureRate = slo.Max
				} else if slo.Max != nil {
					es.SLOs = append(es.SLOs, slo)
				}
			}
			if es.MaxFailureRate != nil || len(es.SLOs) > 0 {
				run.Load.EarlyStop = &es
			}
			info := RunInfo{Hash: res.Hash, Index: res.Runs, Point: 0, Repeat: r, Seed: run.Seed,
				Spec: &Spec{Name: spec.Name, Axes: spec.Axes, Repeat: spec.Repeat, Points: []Point{pt}}}
			planned := &PlannedRun{Info: info, Scenario: &run, Path: filepath.Join(dir, name), Label: pt.Name + ", run " + strconv.Itoa(r)}
			result, err := searchRun(ctx, servers, planned, dir, env, opt)
			res.Runs++
			var failure *serverFailure
			if errors.As(err, &failure) && ctx.Err() == nil {
				probe.Error = failure.err.Error()
				probe.Pass, probe.Noisy = false, false
				probe.Violated = []string{"the server exited"}
				fmt.Fprintf(env.Stderr, "Probe %s failed: %v\n", pt.Name, failure.err)
				break
			}
			if err != nil {
				return false, fmt.Errorf("probe %s: %w", planned.Label, err)
			}
			probe.Files = append(probe.Files, name)
			for i, slo := range s.SLOs {
				v, err := sloValue(result, slo.Metric)
				if err != nil {
					return false, fmt.Errorf("probe %s: %w", planned.Label, err)
				}
				vals[i] = append(vals[i], v)
			}
			var noisy bool
			probe.Means, probe.Pass, noisy, probe.Violated = assess(s.SLOs, vals, s.Margin)
			probe.Noisy = noisy
			if why := result.StoppedEarly; strings.HasPrefix(why, "over-saturated") {
				// The server could not keep up: the probe fails, whatever
				// its early requests measured.
				probe.Pass, probe.Noisy = false, false
				probe.Violated = append([]string{"over-saturated"}, probe.Violated...)
				probe.Error = why
				break
			}
			if !noisy {
				break
			}
		}
		res.Probes = append(res.Probes, probe)
		verdict := "meets every SLO"
		if !probe.Pass {
			verdict = "misses " + strings.Join(probe.Violated, ", ")
		}
		if probe.Noisy {
			verdict += " (within the noise after " + strconv.Itoa(len(probe.Files)) + " runs)"
		}
		fmt.Fprintf(env.Stdout, "Probe %d: %s %s\n", len(res.Probes), pt.Name, verdict)
		return probe.Pass, nil
	}
	start := s.Start
	if start == 0 {
		start = s.Min
	}
	lo, hi, hasLo, hasHi, err := findCapacity(g, start, judge)
	if err != nil {
		return nil, err
	}
	if err := servers.Close(); err != nil {
		return nil, err
	}
	if hasLo {
		res.Capacity = &lo
	}
	if hasHi {
		res.Above = &hi
		for _, p := range res.Probes {
			if p.Load == hi && len(p.Violated) > 0 {
				res.Bound = p.Violated[0]
			}
		}
	}
	if err := writeSearch(env.Stdout, res); err != nil {
		return res, err
	}
	files, err := writeSearchFiles(dir, res)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(env.Stderr, "Search written to %s\n", strings.Join(files, ", "))
	return res, nil
}

// searchRun makes one probe run (or, with --resume, reads the result it
// already has) and returns its result.
func searchRun(ctx context.Context, servers *server.Manager, run *PlannedRun, dir string, env pipeline.Env, opt Options) (*Result, error) {
	if opt.Resume && runState(run) == stateDone {
		fmt.Fprintf(env.Stderr, "Reusing %s: it already holds the result of %s\n", run.Path, run.Label)
		return LoadResult(run.Path, false)
	}
	fmt.Fprintf(env.Stdout, "Search run %d: %s\n", run.Info.Index+1, run.Label)
	out, err := runWithServer(ctx, servers, run, dir, env)
	if errors.Is(err, pipeline.ErrAllFailed) && out != nil && ctx.Err() == nil {
		// Every request failed: a probe that misses its SLOs (its
		// failure rate is 1), not a search that cannot go on.
		fmt.Fprintf(env.Stderr, "Every request of %s failed: %v\n", run.Label, err)
		return resultOf(out, false)
	}
	if err != nil {
		return nil, err
	}
	return resultOf(out, false)
}

// writeSearch prints the probes in load order and the capacity.
func writeSearch(w io.Writer, res *SearchResult) error {
	var b strings.Builder
	b.WriteString("\n================ Capacity Search ================\n")
	fmt.Fprintf(&b, "SLOs: %s\n", strings.Join(res.SLOs, ", "))
	probes := append([]Probe(nil), res.Probes...)
	sortProbes(probes)
	key := res.Variable[strings.LastIndex(res.Variable, ".")+1:]
	fmt.Fprintf(&b, "%-16s %-5s %-7s %s\n", key, "runs", "verdict", "means")
	for _, p := range probes {
		verdict := "pass"
		if !p.Pass {
			verdict = "fail"
		}
		var means []string
		for _, s := range res.SLOs {
			metric, _, _ := strings.Cut(s, " ")
			if v, ok := p.Means[metric]; ok {
				means = append(means, fmt.Sprintf("%s %.4g", metric, v))
			}
		}
		if p.Error != "" {
			what, _, _ := strings.Cut(p.Error, ":") // "over-saturated", "the server exited during the run (...)"
			means = append(means, what)
		}
		fmt.Fprintf(&b, "%-16s %-5d %-7s %s\n", formatLoad(p.Load), len(p.Files), verdict, strings.Join(means, ", "))
	}
	switch {
	case res.Capacity == nil:
		fmt.Fprintf(&b, "Capacity: none: the smallest load probed, %s = %s, misses %s\n", key, formatLoad(*res.Above), res.Bound)
	case res.Above == nil:
		fmt.Fprintf(&b, "Capacity: %s = %s or more: the largest load allowed meets every SLO\n", key, formatLoad(*res.Capacity))
	default:
		fmt.Fprintf(&b, "Capacity: %s = %s (in [%s, %s)); bound by %s\n", key, formatLoad(*res.Capacity), formatLoad(*res.Capacity), formatLoad(*res.Above), res.Bound)
	}
	fmt.Fprintf(&b, "Probes: %d loads in %d runs (a linear sweep at step %s would run %d loads)\n", len(res.Probes), res.Runs, formatLoad(res.Step), res.LinearProbes)
	b.WriteString("=================================================\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// sortProbes orders probes by load.
func sortProbes(p []Probe) {
	slices.SortStableFunc(p, func(a, b Probe) int { return cmp.Compare(a.Load, b.Load) })
}

// writeSearchFiles writes search.json and search.csv (one row per probe
// in load order) into dir, atomically, and returns their paths.
func writeSearchFiles(dir string, res *SearchResult) ([]string, error) {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false) // "p99_ttft_ms <= 500" as written
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return nil, err
	}
	var csv strings.Builder
	var metrics []string
	for _, s := range res.SLOs {
		m, _, _ := strings.Cut(s, " ")
		metrics = append(metrics, m)
	}
	csv.WriteString(res.Variable + ",runs,pass,noisy," + strings.Join(metrics, ",") + ",files\n")
	probes := append([]Probe(nil), res.Probes...)
	sortProbes(probes)
	for _, p := range probes {
		row := []string{formatLoad(p.Load), strconv.Itoa(len(p.Files)), strconv.FormatBool(p.Pass), strconv.FormatBool(p.Noisy)}
		for _, m := range metrics {
			v, ok := p.Means[m]
			if ok {
				row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
			} else {
				row = append(row, "")
			}
		}
		row = append(row, strings.Join(p.Files, " "))
		csv.WriteString(strings.Join(row, ",") + "\n")
	}
	var paths []string
	for _, f := range []struct {
		name string
		data []byte
	}{{"search.json", js.Bytes()}, {"search.csv", []byte(csv.String())}} {
		path := filepath.Join(dir, f.name)
		if err := report.WriteResultFile(path, f.data, false); err != nil {
			return paths, fmt.Errorf("writing %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
