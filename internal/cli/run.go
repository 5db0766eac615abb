package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/experiment"
)

const runDoc = `Run the benchmark a scenario describes and print vLLM's result block.

The scenario files (.cue, .yaml, .yml, .json) are unified with each other and
with vbench's schema; --set and --tag override fields. The result JSON (when
output.save_result is set) has vllm bench serve's keys in its order, plus a
"vbench" object with the version, the scenario hash and the resolved scenario.
Per-request records are written as JSONL next to it.

Exit codes: 0 success, 1 the run failed (e.g. every request failed), 2 bad
usage or an invalid scenario. An interrupted run (Ctrl-C) still writes what it
has and exits 1.`

const runExamples = `  vbench run scenarios/quickstart.cue
  vbench run scenarios/kimi-8k.cue --set target.base_url=http://gpu:8000
  VBENCH_URL=http://gpu:8000 vbench run scenarios/kimi-8k.cue
  vbench run base.cue overrides.yaml --set load.num_prompts=100`

func newRunCmd(p Process) *cobra.Command {
	var sf scenarioFlags
	cmd := &cobra.Command{
		Use:     "run FILE...",
		Short:   "Run a scenario",
		Long:    runDoc,
		Example: runExamples,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return doRun(cmd, p, &sf, args)
		},
	}
	sf.register(cmd.Flags())
	return cmd
}

func doRun(cmd *cobra.Command, p Process, sf *scenarioFlags, files []string) error {
	sc, err := sf.load(p, files)
	if err != nil {
		return err
	}
	_, err = experiment.Run(cmd.Context(), sc, experiment.Env{
		Stdout: p.Stdout, Stderr: p.Stderr, Getenv: p.Getenv, Now: time.Now,
	})
	if err != nil {
		return failErr(err)
	}
	return nil
}
