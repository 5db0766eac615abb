package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
)

// CompareOptions are the settings of CompareFiles.
type CompareOptions struct {
	// Baseline names the input the others are compared with ("" = the
	// first). Inputs are named after their file or directory, without .json.
	Baseline string
	// Gates are checked against every other input.
	Gates []scenario.Gate
	// Force compares results whose workloads differ.
	Force bool
}

// ErrWorkloadMismatch is returned (wrapped) when compared results did not
// send the same workload.
var ErrWorkloadMismatch = errors.New("the workloads differ")

// CompareFiles compares saved results (vLLM's or vbench's), the first
// input (or opt.Baseline) being the baseline. An input is a result file,
// or a directory whose result files (*.json, not recursive) are repeated
// runs of one variant. The summary has a row per input and a comparison of
// each other input with the baseline: over repeats (Welch's t interval)
// when both have several results, else a percentile bootstrap over the
// per-request samples when the results carry them (vbench's records, or
// the arrays of --save-detailed), else no interval.
//
// A gate on a metric that some result lacks is refused with a
// *GateMetricError, which lists the metrics it can gate on. Results whose
// workloads differ (dataset, mean input length, request rate, burstiness,
// concurrency, ramp-up, number of prompts) are refused with an error
// wrapping ErrWorkloadMismatch, unless opt.Force.
func CompareFiles(inputs []string, opt CompareOptions) (*report.ExperimentSummary, error) {
	if len(inputs) < 2 {
		return nil, fmt.Errorf("compare needs at least two results, got %d", len(inputs))
	}
	type group struct {
		name    string
		results []*Result
	}
	var groups []group
	used := map[string]bool{}
	for _, in := range inputs {
		files, err := resultFiles(in)
		if err != nil {
			return nil, err
		}
		g := group{name: inputName(in, used)}
		for _, f := range files {
			res, err := LoadResult(f, true)
			if err != nil {
				return nil, err
			}
			g.results = append(g.results, res)
		}
		groups = append(groups, g)
	}
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.name
	}
	baseline := names[0]
	if opt.Baseline != "" {
		if !slices.Contains(names, opt.Baseline) {
			return nil, fmt.Errorf("--baseline %q: not one of the inputs (%s)", opt.Baseline, strings.Join(names, ", "))
		}
		baseline = opt.Baseline
	}
	for i, g := range opt.Gates {
		if g.MaxIncrease == "" && g.MaxDecrease == "" {
			return nil, fmt.Errorf("gate %d on %s: needs max_increase or max_decrease", i, g.Metric)
		}
		for _, l := range []string{g.MaxIncrease, g.MaxDecrease} {
			if l == "" {
				continue
			}
			if _, err := ParseLimit(l); err != nil {
				return nil, fmt.Errorf("gate on %s: %w", g.Metric, err)
			}
		}
	}

	var all []*Result
	for _, g := range groups {
		all = append(all, g.results...)
	}
	if err := checkGateMetrics(opt.Gates, all); err != nil {
		return nil, err
	}

	// Every result against the baseline's first.
	ref := groups[slices.Index(names, baseline)].results[0]
	var diffs []string
	for _, g := range groups {
		for _, r := range g.results {
			if r == ref {
				continue
			}
			for _, d := range ref.Workload.Differences(r.Workload) {
				diffs = append(diffs, fmt.Sprintf("%s vs %s: %s", ref.Path, r.Path, d))
			}
		}
	}
	if len(diffs) > 0 && !opt.Force {
		return nil, fmt.Errorf("%w, so their metrics are not comparable:\n  %s\n(--force compares them anyway)", ErrWorkloadMismatch, strings.Join(diffs, "\n  "))
	}

	spec := &Spec{Points: []Point{{}}, Baseline: baseline, Gates: opt.Gates}
	spec.Variants = append([]string{baseline}, slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == baseline })...)
	for _, g := range groups {
		for i, r := range g.results {
			r.Experiment = &RunInfo{Point: 0, Variant: g.name, Repeat: i, Spec: spec}
		}
	}
	return summarize(spec, "", all, false, func(p string) string { return p }), nil
}

// resultFiles lists an input: a file itself, or a directory's *.json
// files except summary.json, in natural order.
func resultFiles(in string) ([]string, error) {
	fi, err := os.Stat(in)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %v (want a result JSON file or a directory of them)", in, err)
	}
	if !fi.IsDir() {
		return []string{in}, nil
	}
	entries, err := os.ReadDir(in)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") && e.Name() != "summary.json" {
			files = append(files, filepath.Join(in, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no result files (*.json)", in)
	}
	slices.SortFunc(files, naturalCompare)
	return files, nil
}

// inputName names an input after its file (without .json) or directory;
// a name already used takes the cleaned path instead, then "#2", "#3"...
func inputName(in string, used map[string]bool) string {
	clean := filepath.Clean(in)
	name := strings.TrimSuffix(filepath.Base(clean), ".json")
	if used[name] {
		name = strings.TrimSuffix(clean, ".json")
	}
	for i, base := 2, name; used[name]; i++ {
		name = base + "#" + strconv.Itoa(i)
	}
	used[name] = true
	return name
}

// naturalCompare orders strings with their digit runs compared as
// numbers: "c=2" before "c=16".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da != "" && db != "" {
			na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitsPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
