// Package experiment executes the shapes of a scenario: sweeps, repeats
// and comparisons expand into single runs (made by internal/pipeline), whose
// results are then summarised, compared and gated.
package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/server"
)

// Options are an experiment's command-line switches.
type Options struct {
	// Resume skips the runs whose result file already exists, is complete
	// (completed + failed = num_prompts, and not marked interrupted) and was
	// made from the same run scenario (the same scenario hash).
	Resume bool
	// DryRun lists the runs and their result files instead of running them.
	DryRun bool
	// Overwrite lets the runs replace the results of an earlier run of the
	// experiment (vbench run --overwrite), as output.overwrite does, but
	// without changing the runs' scenarios and so their hashes.
	Overwrite bool
}

// ErrUnsupported is wrapped by the errors of Check: the scenario is valid
// against the schema but asks for something vbench cannot run (yet).
var ErrUnsupported = pipeline.ErrUnsupported

// Check reports, before anything runs, what in a schema-valid scenario
// vbench cannot run (see pipeline.CheckRun: an unregistered dataset kind,
// an unimplemented backend, a wrong endpoint, more requests than memory
// holds). An experiment is checked run by run. Its errors
// wrap ErrUnsupported.
func Check(sc *scenario.Scenario) error {
	if sc.Search != nil {
		if err := CheckSearch(sc); err != nil {
			return pipeline.Unsupportedf("%v", err)
		}
		return nil
	}
	if IsExperiment(sc) {
		plan, err := Expand(sc)
		if err != nil {
			return err
		}
		for i := range plan.Runs {
			if err := pipeline.CheckRun(plan.Runs[i].Scenario); err != nil {
				return pipeline.Unsupportedf("run %s: %v", plan.Runs[i].Label, err)
			}
		}
		return nil
	}
	return pipeline.CheckRun(sc)
}

// ErrGateFailed is returned (wrapped) when a comparison gate failed.
var ErrGateFailed = errors.New("gate failed")

// Execute runs an experiment's runs in plan order, each one a full run
// writing its own result JSON (and records) under plan.Dir, then summarises
// the results (those of the runs made now from memory, those --resume
// skipped from their files): the summary table, the comparisons and
// the gates on stdout, and summary.csv, summary.json, comparison.csv (with
// variants) and report.html in plan.Dir. On a terminal an overall progress
// line on stderr says which run of how many is starting.
//
// It stops at the first run that fails (the results written so far stay;
// --resume continues). When a gate fails it returns the summary and an
// error wrapping ErrGateFailed that names the failed gates.
func Execute(ctx context.Context, plan *Plan, env pipeline.Env, opt Options) (*report.ExperimentSummary, error) {
	if opt.DryRun {
		return nil, writeDryRun(env.Stdout, plan, opt.Resume)
	}
	if err := checkPlanOutput(plan, opt.Resume || opt.Overwrite); err != nil {
		return nil, err
	}
	ov := newOverall(env.Stderr, len(plan.Runs), plan.DisableProgress)
	// The managed server (target.server), started, reused and restarted
	// as the runs need, and stopped at the end.
	servers := &server.Manager{Stderr: env.Stderr}
	defer servers.Close()
	// The summaries of the runs made now, in plan order (nil for the runs
	// --resume skipped, which are read back from their files). A run's
	// records and result document are dropped as soon as its summary is
	// taken, so an experiment holds no more than one run at a time.
	made := make([]*Result, len(plan.Runs))
	// The runs whose managed server failed them: left out of the summary.
	failed := map[int]error{}
	for i := range plan.Runs {
		run := &plan.Runs[i]
		if opt.Resume {
			if state := runState(run); state == stateDone {
				fmt.Fprintf(env.Stderr, "Skipping run %d of %d (%s): %s already holds its result\n", i+1, len(plan.Runs), run.Label, run.Path)
				ov.skip()
				continue
			}
		}
		ov.begin(i, run.Label)
		fmt.Fprintf(env.Stdout, "Experiment run %d of %d: %s\n", i+1, len(plan.Runs), run.Label)
		out, err := runWithServer(ctx, servers, run, plan.Dir, env)
		var serverErr *serverFailure
		if errors.As(err, &serverErr) && ctx.Err() == nil {
			// The server failed this point; the experiment goes on.
			fmt.Fprintf(env.Stderr, "Run %d of %d (%s) failed: %v\n", i+1, len(plan.Runs), run.Label, serverErr.err)
			failed[i] = serverErr.err
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("run %d of %d (%s): %w", i+1, len(plan.Runs), run.Label, err)
		}
		if made[i], err = resultOf(out, false); err != nil {
			return nil, fmt.Errorf("reading the result of run %d (%s): %w", i+1, run.Label, err)
		}
	}
	if err := servers.Close(); err != nil {
		return nil, err
	}
	sum, err := summarizePlan(plan, made, failed)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(env.Stdout)
	if err := report.WriteExperimentConsole(env.Stdout, sum); err != nil {
		return nil, err
	}
	files, err := WriteSummaryFiles(plan.Dir, sum)
	if err != nil {
		return sum, err
	}
	fmt.Fprintf(env.Stderr, "Summary written to %s\n", strings.Join(files, ", "))
	if len(failed) > 0 {
		var lines []string
		for _, i := range slices.Sorted(maps.Keys(failed)) {
			first, _, _ := strings.Cut(failed[i].Error(), "\n") // the log's tail was shown when it failed
			lines = append(lines, fmt.Sprintf("run %d (%s): %s", i+1, plan.Runs[i].Label, first))
		}
		return sum, fmt.Errorf("%d of %d runs failed (the summary leaves them out; --resume runs them again):\n  %s", len(failed), len(plan.Runs), strings.Join(lines, "\n  "))
	}
	return sum, GateError(sum)
}

// serverFailure is a run that its managed server failed: it did not start
// or it exited during the run.
type serverFailure struct{ err error }

func (e *serverFailure) Error() string { return e.err.Error() }
func (e *serverFailure) Unwrap() error { return e.err }

// runWithServer makes one run with the managed server it needs (if any):
// the server is started or restarted first, the run stops if the server
// exits, and the caches are reset afterwards. A server that does not start
// or exits during the run makes a *serverFailure.
func runWithServer(ctx context.Context, servers *server.Manager, run *PlannedRun, dir string, env pipeline.Env) (*pipeline.Outcome, error) {
	if err := servers.Ensure(ctx, run.Scenario, dir); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &serverFailure{err}
	}
	if t := run.Scenario.Target; t.ResetPrefixCache && t.Simulator == nil {
		if err := server.ResetPrefixCache(ctx, t.ServerURL()); err != nil {
			return nil, err
		}
	}
	runCtx, cancel := servers.Watch(ctx)
	out, err := pipeline.RunInExperiment(runCtx, run.Scenario, env, run.Info.JSON())
	cancel()
	if died := servers.Died(); died != nil {
		return nil, &serverFailure{died}
	}
	if err != nil {
		return out, err // out, when not nil, holds what the run saved
	}
	_ = servers.AfterRun(ctx, run.Scenario) // reported on stderr; the next run goes on
	return out, nil
}

// summarizePlan summarises the plan's results: the summaries of the runs
// made now (made[i], nil for a run not made now), the others read back
// from their files; and, when the comparisons bootstrap over per-request
// samples, every run's samples read back from its files.
func summarizePlan(plan *Plan, made []*Result, failed map[int]error) (*report.ExperimentSummary, error) {
	samples := needSamples(&plan.Spec)
	var results []*Result
	for i := range plan.Runs {
		if failed[i] != nil {
			continue
		}
		run := &plan.Runs[i]
		var res *Result
		var err error
		if i < len(made) && made[i] != nil && !samples {
			res = made[i]
		} else {
			res, err = LoadResult(run.Path, samples)
		}
		if err != nil {
			return nil, fmt.Errorf("reading the result of run %d (%s): %w", i+1, run.Label, err)
		}
		res.Experiment = &run.Info
		results = append(results, res)
	}
	return summarize(&plan.Spec, plan.Hash, results, true, func(p string) string {
		if rel, err := filepath.Rel(plan.Dir, p); err == nil {
			return rel
		}
		return p
	}), nil
}

// needSamples says whether comparisons will bootstrap over per-request
// samples: with variants and a single run of each.
func needSamples(spec *Spec) bool { return len(spec.Variants) >= 2 && spec.Repeat < 2 }

// GateError returns nil when every gate passed, else an error wrapping
// ErrGateFailed with one line per failed gate check.
func GateError(sum *report.ExperimentSummary) error {
	failed := sum.FailedGates()
	if len(failed) == 0 {
		return nil
	}
	lines := make([]string, len(failed))
	for i, g := range failed {
		lines[i] = report.GateLine(g)
	}
	return fmt.Errorf("%w: %d of %d gate checks failed:\n  %s", ErrGateFailed, len(failed), len(sum.Gates), strings.Join(lines, "\n  "))
}

// WriteSummaryFiles writes the summary files into dir: summary.csv,
// summary.json, comparison.csv (when variants were compared) and
// report.html, each atomically. It returns their paths.
func WriteSummaryFiles(dir string, sum *report.ExperimentSummary) ([]string, error) {
	type file struct {
		name  string
		write func(io.Writer, *report.ExperimentSummary) error
	}
	files := []file{{"summary.csv", report.WriteSummaryCSV}, {"summary.json", report.WriteSummaryJSON}}
	if len(sum.Comparisons) > 0 {
		files = append(files, file{"comparison.csv", report.WriteComparisonCSV})
	}
	files = append(files, file{"report.html", report.WriteHTML})
	var paths []string
	for _, f := range files {
		var b bytes.Buffer
		if err := f.write(&b, sum); err != nil {
			return paths, fmt.Errorf("rendering %s: %w", f.name, err)
		}
		path := filepath.Join(dir, f.name)
		if err := report.WriteResultFile(path, b.Bytes(), false); err != nil {
			return paths, fmt.Errorf("writing %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// States of a planned run's result file.
const (
	stateMissing    = "missing"
	stateDone       = "done"
	stateIncomplete = "incomplete (the run was interrupted)"
	stateOther      = "from another scenario"
	stateUnreadable = "unreadable"
)

// runState says whether a run's result file holds its finished result.
func runState(run *PlannedRun) string {
	res, err := LoadResult(run.Path, false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return stateMissing
	case err != nil:
		return stateUnreadable
	case res.ScenarioHash != run.Scenario.Hash():
		return stateOther
	case res.Interrupted, res.StoppedEarly == "" && res.Values["completed"]+res.Values["failed"] < float64(run.Scenario.Load.NumPrompts):
		return stateIncomplete
	}
	return stateDone
}

// writeDryRun lists the plan: what is swept, how many runs, and each run
// with its seed and result file (and with resume, whether it would be
// skipped).
func writeDryRun(w io.Writer, plan *Plan, resume bool) error {
	sp := &plan.Spec
	var shape []string
	if len(sp.Axes) > 0 {
		shape = append(shape, fmt.Sprintf("sweep (%s) over %s: %d points", sp.Mode, strings.Join(sp.Axes, ", "), len(sp.Points)))
	}
	if len(sp.Variants) > 0 {
		shape = append(shape, fmt.Sprintf("compare %s (baseline %s)", strings.Join(sp.Variants, ", "), sp.Baseline))
	}
	if sp.Repeat > 1 || len(shape) == 0 {
		seeds := "a seed derived per repeat"
		if sp.FixedSeed {
			seeds = "the same seed"
		}
		shape = append(shape, fmt.Sprintf("repeat %d times with %s", sp.Repeat, seeds))
	}
	name := sp.Name
	if name == "" {
		name = "experiment"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s; %d runs, results in %s\n", name, strings.Join(shape, "; "), len(plan.Runs), plan.Dir)
	for i := range plan.Runs {
		run := &plan.Runs[i]
		fmt.Fprintf(&b, "run %d of %d: %s (seed %d) -> %s", i+1, len(plan.Runs), run.Label, run.Info.Seed, run.Path)
		if resume {
			if st := runState(run); st == stateDone {
				b.WriteString(" [done, skipped]")
			} else if st != stateMissing {
				fmt.Fprintf(&b, " [result %s, runs again]", st)
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
