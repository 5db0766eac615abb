package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/argv"
	"github.com/vbench/vbench/internal/experiment"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
)

const serveDoc = `Run a vllm bench serve command line unchanged: vbench serve takes the flags
of vllm bench serve, with vLLM's defaults and its argv dialect, and prints the
same console block and writes the same result JSON (file name, keys and key
order) as vllm bench serve does. "vbench bench serve" is the same command, so
vbench can stand in where vLLM runs an external bench binary
(VLLM_USE_RUST_BENCH=1 VLLM_RUST_FRONTEND_PATH=vbench).

The result JSON has exactly vLLM's keys and no per-request records file is
written. --vbench-extras adds vbench's "vbench" object (version, scenario hash,
resolved scenario) and the records JSONL, as vbench run writes them.

Flags vbench does not implement yet are refused with the reason, never
ignored; --help lists them. "vbench import" turns a command line into a
scenario file.

Exit codes: 0 success, 1 the run failed, 2 bad flags.`

const serveExamples = `  vbench serve --backend vllm --model Qwen/Qwen3-8B --dataset-name random \
    --random-input-len 1024 --random-output-len 128 --num-prompts 200 \
    --max-concurrency 16 --save-result --result-dir results
  vbench serve --base-url http://gpu:8000 --model m --tokenizer o200k_base --config bench.yaml
  vbench serve --help=ramp`

func newServeCmd(p Process) *cobra.Command {
	return &cobra.Command{
		Use:                "serve [FLAG...]",
		Short:              "Run a vllm bench serve command line",
		Long:               serveDoc,
		Example:            serveExamples,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return doServe(cmd, p, args)
		},
	}
}

func newBenchCmd(p Process) *cobra.Command {
	bench := &cobra.Command{
		Use:   "bench",
		Short: "vllm bench's command names: vbench bench serve is vbench serve",
		Long: `vllm bench's command names, so that vbench can replace the binary vLLM runs for
"vllm bench serve" (VLLM_USE_RUST_BENCH=1): vbench bench serve is vbench serve.`,
		Example: "  vbench bench serve --model m --num-prompts 10",
		Args:    cobra.NoArgs,
	}
	bench.AddCommand(newServeCmd(p), newSweepCmd(p))
	return bench
}

func doServe(cmd *cobra.Command, p Process, args []string) error {
	pc, err := parseArgv(cmd, p, args)
	if err != nil || pc == nil {
		return err
	}
	switch {
	case pc.Compare != nil: // vllm-bench --compare A B
		sum, err := experiment.CompareFiles(pc.Compare, experiment.CompareOptions{})
		if err != nil {
			return usageErr(fmt.Errorf("--compare: %w", err))
		}
		if err := report.WriteExperimentConsole(p.Stdout, sum); err != nil {
			return failErr(err)
		}
		return nil
	case pc.DryRun: // vllm-bench --dry-run
		return serveDryRun(p, pc.Scenario)
	case experiment.IsExperiment(pc.Scenario): // vllm-bench --num-runs, --sweep-*
		plan, err := experiment.Expand(pc.Scenario)
		if err != nil {
			return usageErr(err)
		}
		env := pipeline.Env{Stdout: p.Stdout, Stderr: p.Stderr, Getenv: p.Getenv, Now: time.Now}
		_, err = experiment.Execute(cmd.Context(), plan, env, experiment.Options{Overwrite: pc.Scenario.Output.Overwrite})
		return experimentErr(err)
	}
	_, err = pipeline.Run(cmd.Context(), pc.Scenario, pipeline.Env{
		Stdout: p.Stdout, Stderr: p.Stderr, Getenv: p.Getenv, Now: time.Now,
		Argv: &pipeline.ArgvMode{Extras: pc.Extras},
	})
	return runErr(err)
}

// parseArgv parses a vllm bench serve command line. It prints the flag list
// and returns nil, nil for --help, and prints the warnings.
func parseArgv(cmd *cobra.Command, p Process, args []string) (*argv.Command, error) {
	pc, err := argv.ParseCommand(args, argv.Options{})
	var help *argv.HelpError
	if errors.As(err, &help) {
		if help.Keyword == "" {
			fmt.Fprintf(p.Stdout, "%s\n\nUsage:\n  %s [FLAG...]\n\nExamples:\n%s\n", serveDoc, cmd.CommandPath(), serveExamples)
		}
		return nil, argv.WriteHelp(p.Stdout, help.Keyword)
	}
	if err != nil {
		var e *argv.Error
		if errors.As(err, &e) && e.Flag == "" {
			err = fmt.Errorf("%w (see 'vbench serve --help')", err)
		}
		return nil, usageErr(err)
	}
	for _, w := range pc.Warnings {
		fmt.Fprintf(p.Stderr, "vbench: warning: %s\n", w)
	}
	return pc, nil
}

// serveDryRun prepares a command line's requests without sending them and
// prints their totals, as vllm-bench's --dry-run does.
func serveDryRun(p Process, sc *scenario.Scenario) error {
	tok, _, err := clientTokenizer(p, sc)
	if err != nil {
		return usageErr(fmt.Errorf("--dry-run: %w (it needs a client tokenizer: --tokenizer or --model)", err))
	}
	reqs, err := pipeline.BuildDataset(p.Context, sc, pipeline.Env{Stdout: p.Stderr, Stderr: p.Stderr, Getenv: p.Getenv, Now: time.Now},
		pipeline.DatasetOptions{Tokenizer: tok})
	if err != nil {
		return failErr(err)
	}
	in, out := 0, 0
	for _, r := range reqs {
		in += r.PromptLen
		out += r.OutputLen
	}
	n := max(len(reqs), 1)
	_, err = fmt.Fprintf(p.Stdout, "Dry run stats:\n  Total prompts: %d\n  Total input tokens: %d\n  Total expected output tokens: %d\n  Avg input tokens: %.1f\n  Avg output tokens: %.1f\n",
		len(reqs), in, out, float64(in)/float64(n), float64(out)/float64(n))
	return err
}
