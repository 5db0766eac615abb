package experiment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/report"
)

// ReportOptions are the settings of ReportDir.
type ReportOptions struct {
	// Experiment picks the experiment to summarise when the directory holds
	// the results of several: by its name, or by a prefix of its hash (with
	// or without "sha256:").
	Experiment string
	// Warnings, if set, receives a line for each file skipped because it
	// holds several results (--append-result).
	Warnings io.Writer
}

// ReportDir summarises the saved results under dir again, without running
// anything. Results that vbench wrote as part of an experiment carry the
// experiment's shape, so the summary is the one the experiment printed:
// its rows, comparisons and gates. Other results (vLLM's, or single vbench
// runs) are summarised as a plain set: the results in each directory are
// the repeats of one row named after the directory (vllm bench sweep's
// layout), and results directly under dir are a row each. JSON files that
// are not serving results are ignored, and files holding several results
// are skipped with a warning.
func ReportDir(dir string, opt ReportOptions) (*report.ExperimentSummary, error) {
	var tagged, loose []*Result
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") || d.Name() == "summary.json" {
			return nil
		}
		res, err := LoadResult(path, false)
		if err != nil {
			if errors.Is(err, ErrNotResult) {
				return nil
			}
			if errors.Is(err, report.ErrTrailingData) {
				if opt.Warnings != nil {
					fmt.Fprintf(opt.Warnings, "warning: skipping %v\n", err)
				}
				return nil
			}
			return err
		}
		if res.Experiment != nil && res.Experiment.Spec != nil {
			tagged = append(tagged, res)
		} else {
			loose = append(loose, res)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(dir, p); err == nil {
			return r
		}
		return p
	}
	if len(tagged) > 0 {
		return reportExperiment(tagged, opt, rel)
	}
	if len(loose) == 0 {
		return nil, fmt.Errorf("%s: no result files", dir)
	}
	return reportLoose(dir, loose, rel), nil
}

// reportExperiment summarises the results of one experiment.
func reportExperiment(tagged []*Result, opt ReportOptions, rel func(string) string) (*report.ExperimentSummary, error) {
	byHash := map[string][]*Result{}
	for _, r := range tagged {
		byHash[r.Experiment.Hash] = append(byHash[r.Experiment.Hash], r)
	}
	if opt.Experiment != "" {
		want := strings.TrimPrefix(opt.Experiment, "sha256:")
		for h, rs := range byHash {
			if rs[0].Experiment.Spec.Name != opt.Experiment && !strings.HasPrefix(strings.TrimPrefix(h, "sha256:"), want) {
				delete(byHash, h)
			}
		}
		if len(byHash) == 0 {
			return nil, fmt.Errorf("--experiment %s: no results of such an experiment", opt.Experiment)
		}
	}
	if len(byHash) > 1 {
		var desc []string
		for _, h := range slices.Sorted(maps.Keys(byHash)) {
			rs := byHash[h]
			name := rs[0].Experiment.Spec.Name
			if name == "" {
				name = "unnamed"
			}
			desc = append(desc, fmt.Sprintf("%s (%s, %d results)", h, name, len(rs)))
		}
		return nil, fmt.Errorf("the directory holds results of %d experiments; choose one with --experiment NAME or HASH:\n  %s", len(byHash), strings.Join(desc, "\n  "))
	}
	var results []*Result
	var hash string
	for h, rs := range byHash {
		hash, results = h, rs
	}
	spec := results[0].Experiment.Spec
	if needSamples(spec) {
		for i, r := range results {
			withSamples, err := LoadResult(r.Path, true)
			if err != nil {
				return nil, err
			}
			results[i] = withSamples
		}
	}
	slices.SortFunc(results, func(a, b *Result) int { return a.Experiment.Index - b.Experiment.Index })
	return summarize(spec, hash, results, true, rel), nil
}

// reportLoose summarises results that are not from a vbench experiment.
func reportLoose(dir string, loose []*Result, rel func(string) string) *report.ExperimentSummary {
	groups := map[string][]*Result{}
	for _, r := range loose {
		d := filepath.Dir(rel(r.Path))
		key := d
		if d == "." {
			key = strings.TrimSuffix(filepath.Base(r.Path), ".json")
		}
		groups[key] = append(groups[key], r)
	}
	keys := slices.SortedFunc(maps.Keys(groups), naturalCompare)
	spec := &Spec{Name: filepath.Base(filepath.Clean(dir))}
	var results []*Result
	for pi, k := range keys {
		spec.Points = append(spec.Points, Point{Name: k})
		rs := groups[k]
		slices.SortFunc(rs, func(a, b *Result) int { return naturalCompare(a.Path, b.Path) })
		for i, r := range rs {
			r.Experiment = &RunInfo{Point: pi, Repeat: i, Spec: spec}
			results = append(results, r)
		}
	}
	return summarize(spec, "", results, false, rel)
}
