package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/argv"
	"github.com/vbench/vbench/internal/pipeline"
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
