package cli

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/sweep"
)

const sweepServeDoc = `Run a vllm bench sweep serve command line: the server command starts once per
combination of --serve-params (applied to it as options), the benchmark
command (a vllm bench serve command line, run by vbench) runs --num-runs times
for every combination of --bench-params that --link-vars allows, and the
results land where vLLM's sweep puts them:

  OUTPUT_DIR/EXPERIMENT/SERVE--<name>-BENCH--<name>/run=<n>.json
  OUTPUT_DIR/EXPERIMENT/SERVE--<name>-BENCH--<name>/summary.json
  OUTPUT_DIR/EXPERIMENT/summary.csv

Each run=<n>.json is vllm bench serve's result with run_number and the
parameters added (indent 4); summary.json lists a combination's runs and
summary.csv is pandas' to_csv of every run, as vLLM writes them. A parameter
file is a JSON list of objects, or an object of named objects. After each run
the server's caches are reset (/reset_prefix_cache, /reset_mm_cache,
/reset_encoder_cache) unless --after-bench-cmd replaces that. The server's
output goes to EXPERIMENT/server.log; it is stopped with SIGTERM, then SIGKILL
to its process group.

Exit codes: 0 success, 1 a run failed, 2 bad flags or parameter files.`

const sweepServeExamples = `  vbench bench sweep serve \
    --serve-cmd 'vllm serve meta-llama/Llama-3.1-8B-Instruct' \
    --bench-cmd 'vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --dataset-name random --random-input-len 1024 --num-prompts 200' \
    --serve-params serve_params.json --bench-params bench_params.json -o results`

const sweepWorkloadDoc = `Run a vllm bench sweep serve_workload command line: vllm bench sweep serve's
flags and layout, exploring the workload between two ends for every serve and
bench combination. A serial run (max_concurrency 1 and --workload-var 1) and a
batch run (both the dataset size: the combination's num_prompts, else the
bench command's --num-prompts) come first; their runs estimate the workload
each sustained (request_rate: the request throughput; max_concurrency: the
throughput times the mean E2EL), and the rounded values evenly spaced between
the two (--workload-iters in all, the ends included) run next. Each level has
its directory, SERVE--<name>-BENCH--<name>-WL--<var>=<value>, and summary.csv
lists the serial, the intermediate and the batch runs.

Exit codes: 0 success, 1 a run failed, 2 bad flags or parameter files.`

func newSweepCmd(p Process) *cobra.Command {
	sw := &cobra.Command{
		Use:   "sweep",
		Short: "vllm bench sweep's commands",
		Args:  cobra.NoArgs,
	}
	sw.AddCommand(newSweepServeCmd(p, false), newSweepServeCmd(p, true))
	return sw
}

// newSweepServeCmd is sweep serve, or with workload sweep serve_workload.
func newSweepServeCmd(p Process, workload bool) *cobra.Command {
	var o sweep.Options
	use, short, long, run := "serve", "Run a vllm bench sweep serve command line", sweepServeDoc, sweep.Run
	if workload {
		use, short, long, run = "serve_workload", "Run a vllm bench sweep serve_workload command line", sweepWorkloadDoc, sweep.RunWorkload
	}
	serve := &cobra.Command{
		Use:     use,
		Short:   short,
		Long:    long,
		Example: sweepServeExamples,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := run(cmd.Context(), o, pipeline.Env{Stdout: p.Stdout, Stderr: p.Stderr, Getenv: p.Getenv, Now: time.Now})
			var u *sweep.UsageError
			if errors.As(err, &u) {
				return usageErr(err)
			}
			return runErr(err)
		},
	}
	f := serve.Flags()
	o.AddFlags(f)
	if workload {
		f.StringVar(&o.WorkloadVar, "workload-var", "request_rate", "the variable of each workload level: request_rate or max_concurrency")
		f.IntVar(&o.WorkloadIters, "workload-iters", 10, "workload levels, the serial and batch ends included")
	}
	_ = serve.MarkFlagRequired("serve-cmd")
	_ = serve.MarkFlagRequired("bench-cmd")
	return serve
}
