package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vbench/vbench/internal/experiment"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/schedule"
	"github.com/vbench/vbench/internal/server"
)

const runDoc = `Run the benchmark a scenario describes and print vLLM's result block.

The scenario files (.cue, .yaml, .yml, .json) are unified with each other and
with vbench's schema; --set and --tag override fields. The result JSON (when
output.save_result is set) has vllm bench serve's keys in its order, plus a
"vbench" object with the version, the scenario hash and the resolved scenario.
Per-request records stream to a JSONL file next to it as requests complete
(its first line is a header: run start, host, shard, scenario hash, version),
so a killed run keeps them; "vbench report FILE.records.jsonl" folds them.

A scenario with sweep, repeat or compare is an experiment: it expands into
runs (sweep points × variants × repeats), run interleaved so that drift over
time does not line up with one point or variant (repeat by repeat, point by
point, and the variants in turn, their order alternating per repeat: A B,
then B A). Every run writes its own result
JSON under output.result_dir, named after its variant, point and repeat
("slow-max_concurrency=8-run=1.json"). Then the experiment prints a summary
table (per metric the mean over repeats, with a 95 % Student-t confidence
interval), compares each variant with the baseline (the relative change, its
confidence interval and a verdict: better, worse or no significant
difference), checks the gates, and writes summary.csv, summary.json,
comparison.csv and report.html (throughput-latency charts) next to the
results. --dry-run lists the runs; --resume skips runs whose result already
exists with the same scenario hash.

Exit codes: 0 success, 1 the run failed (e.g. every request failed), 2 bad
usage or an invalid scenario (or a result location that cannot be written,
or a result that would be overwritten: see --overwrite), 3 a compare gate
failed. An interrupted run (Ctrl-C) still writes what it has, counts the
requests it never sent apart from the failed ones, and exits 1.`

const runExamples = `  vbench run scenarios/quickstart.cue
  vbench run scenarios/kimi-8k.cue --set target.base_url=http://gpu:8000
  VBENCH_URL=http://gpu:8000 vbench run scenarios/kimi-8k.cue
  vbench run base.cue overrides.yaml --set load.num_prompts=100

  # one run split over three clients, merged afterwards (see vbench k8s)
  vbench run s.cue --shard 0/3 --clock host0:7070 --start-at 2026-12-04T12:00:00Z
  vbench merge results/
  # experiments
  vbench run scenarios/sweep-concurrency.cue --dry-run
  vbench run scenarios/sweep-concurrency.cue --resume
  vbench run scenarios/ab-compare.cue || echo "gate failed: exit $?"`

// experimentFlags are run's experiment switches.
type experimentFlags struct {
	resume, dryRun, overwrite bool
}

// shardFlags are run's switches for a run split over several clients.
type shardFlags struct {
	shard, startAt, clock string
	linger                time.Duration
}

func (f *shardFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", "send stripe `I/N` of the run (load.shard): request i goes to shard i mod N; merge the shards' records with vbench merge")
	fs.StringVar(&f.startAt, "start-at", "", "start the run at this instant (`RFC3339`, e.g. 2026-12-04T12:00:00Z; env VBENCH_START_AT), on shard 0's clock with --clock")
	fs.StringVar(&f.clock, "clock", "", "shard 0's clock endpoint `HOST:PORT` (env VBENCH_CLOCK): shard 0 serves it, the others measure their clock offset to it")
	fs.DurationVar(&f.linger, "clock-linger", pipeline.DefaultLinger, "how long shard 0 keeps its clock after its run for the other shards to measure again (`duration`)")
}

// apply sets sc's shard and returns the run's start options (nil when
// none is given). Environment variables stand in for flags not given.
func (f *shardFlags) apply(p Process, sc *scenario.Scenario, now time.Time) (*pipeline.ShardSync, error) {
	if f.shard != "" {
		sh, err := schedule.ParseShard(f.shard)
		if err != nil {
			return nil, fmt.Errorf("--shard: %w", err)
		}
		sc.Load.Shard = &scenario.Shard{Index: sh.Index, Count: sh.Count}
	}
	startAt, clock := cmp.Or(f.startAt, p.Getenv("VBENCH_START_AT")), cmp.Or(f.clock, p.Getenv("VBENCH_CLOCK"))
	if startAt == "" && clock == "" {
		return nil, nil
	}
	if clock != "" {
		host, port, err := net.SplitHostPort(clock)
		if p, perr := strconv.Atoi(port); err != nil || perr != nil || p <= 0 || p > 65535 || host == "" {
			return nil, fmt.Errorf("--clock %q: want HOST:PORT, shard 0's address as every shard reaches it (e.g. vbench-0.vbench:7070)", clock)
		}
	}
	if f.linger <= 0 {
		return nil, fmt.Errorf("--clock-linger %v: want a duration above 0", f.linger)
	}
	sync := &pipeline.ShardSync{Clock: clock, Linger: f.linger}
	if startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, startAt)
		if err != nil {
			return nil, fmt.Errorf("--start-at %q: want an RFC 3339 time such as 2026-12-04T12:00:00Z", startAt)
		}
		if !t.After(now) {
			return nil, fmt.Errorf("--start-at %s has passed (it is %s): give a time far enough ahead for every shard to be ready", startAt, now.UTC().Format(time.RFC3339))
		}
		sync.StartAt = t
	}
	if clock != "" && sc.Load.Shard == nil {
		return nil, errors.New("--clock needs a sharded run (--shard I/N or load.shard)")
	}
	return sync, nil
}

func newRunCmd(p Process) *cobra.Command {
	var sf scenarioFlags
	var ef experimentFlags
	var shf shardFlags
	cmd := &cobra.Command{
		Use:     "run FILE...",
		Short:   "Run a scenario",
		Long:    runDoc,
		Example: runExamples,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return doRun(cmd, p, &sf, &ef, &shf, args)
		},
	}
	sf.register(cmd.Flags())
	cmd.Flags().BoolVar(&ef.resume, "resume", false, "experiments: skip runs whose result file exists with the same scenario hash")
	cmd.Flags().BoolVar(&ef.dryRun, "dry-run", false, "list the runs (and their result files) without running them")
	cmd.Flags().BoolVar(&ef.overwrite, "overwrite", false, "replace existing results (output.overwrite: true); without it vbench never overwrites a result")
	shf.register(cmd.Flags())
	return cmd
}

func doRun(cmd *cobra.Command, p Process, sf *scenarioFlags, ef *experimentFlags, shf *shardFlags, files []string) error {
	sc, err := sf.load(p, files)
	if err != nil {
		return err
	}
	sync, err := shf.apply(p, sc, time.Now())
	if err != nil {
		return usageErr(err)
	}
	if (sync != nil || sc.Load.Shard != nil) && (sc.Search != nil || experiment.IsExperiment(sc)) {
		return usageErr(errors.New("--shard, --start-at and --clock (load.shard) apply to a single run, not to an experiment (sweep, repeat, compare, search)"))
	}
	env := pipeline.Env{Stdout: p.Stdout, Stderr: p.Stderr, Getenv: p.Getenv, Now: time.Now, Shard: sync}
	if sc.Search != nil {
		_, err = experiment.ExecuteSearch(cmd.Context(), sc, env, experiment.Options{Resume: ef.resume, DryRun: ef.dryRun, Overwrite: ef.overwrite})
		return runErr(err)
	}
	if experiment.IsExperiment(sc) {
		plan, err := experiment.Expand(sc)
		if err != nil {
			return usageErr(err)
		}
		_, err = experiment.Execute(cmd.Context(), plan, env, experiment.Options{Resume: ef.resume, DryRun: ef.dryRun, Overwrite: ef.overwrite})
		return experimentErr(err)
	}
	if ef.resume {
		return usageErr(errors.New("--resume needs an experiment (a scenario with sweep, repeat or compare)"))
	}
	if ef.dryRun {
		_, err := fmt.Fprintf(p.Stdout, "single run (no sweep, repeat or compare) of scenario %s\n", sc.Hash())
		return err
	}
	if ef.overwrite {
		sc.Output.Overwrite = true
	}
	if sc.Target.Server == nil {
		_, err = pipeline.Run(cmd.Context(), sc, env)
		return runErr(err)
	}
	return runErr(runManaged(cmd.Context(), sc, env))
}

// runManaged makes a single run with its managed server (target.server):
// started first, watched during the run (the run stops if it exits), and
// stopped afterwards.
func runManaged(ctx context.Context, sc *scenario.Scenario, env pipeline.Env) error {
	if err := pipeline.CheckRun(sc); err != nil {
		return err
	}
	servers := &server.Manager{Stderr: env.Stderr}
	defer servers.Close()
	if err := servers.Ensure(ctx, sc, sc.Output.ResultDir); err != nil {
		return err
	}
	runCtx, cancel := servers.Watch(ctx)
	_, err := pipeline.Run(runCtx, sc, env)
	cancel()
	if died := servers.Died(); died != nil {
		return died
	}
	if err != nil {
		return err
	}
	_ = servers.AfterRun(ctx, sc) // a failure is a warning: the result is saved
	return servers.Close()
}

// runErr maps a run's error to its exit code: 2 when the scenario asks for
// something vbench cannot run (pipeline.ErrUnsupported), its result
// cannot be written (pipeline.ErrOutput) or its input is bad (no server
// at the base URL, a missing or malformed dataset file:
// pipeline.ErrInput), else 1.
func runErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pipeline.ErrUnsupported), errors.Is(err, pipeline.ErrOutput), errors.Is(err, pipeline.ErrInput):
		return usageErr(err)
	}
	return failErr(err)
}
