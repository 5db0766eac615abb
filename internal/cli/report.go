package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/experiment"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/report"
)

const reportDoc = `Summarise saved results again, without running anything.

DIR is searched recursively for result JSON files. Results written by a vbench
experiment carry its shape (sweep points, variants, repeats, gates), so the
report is the one the experiment printed: the summary table, the comparisons
and the gates. Other results (vllm bench serve's, single vbench runs) are
summarised as a set: the results in one directory are the repeats of one row
named after it (the layout of vllm bench sweep), and each result directly in
DIR is a row of its own.

The summary goes to the console and to summary.csv, summary.json,
comparison.csv (with variants) and report.html in DIR (or --output): a
self-contained page with the throughput-latency charts (one line per
variant) that opens offline.

Given a records file (NAME.records.jsonl) instead of a directory, it folds
the run's per-request records into the run's result block, using the scenario
its header holds: this works for a run that was killed before it could write
its result, since the records stream to the file as requests complete. The
rates divide by the run's duration, from the line a run writes after its
records; a run killed before its end wrote none, and its rates divide by the
time of the last response in the file. The shards of a split run merge with
vbench merge.

Exit codes: 0 success, 2 bad usage or no results, 3 a gate of the
experiment failed.`

const reportExamples = `  vbench report results/sweep-concurrency
  vbench report results/ab-compare --output /tmp/report
  vbench report results/ --experiment sweep-concurrency
  vbench report results/ --experiment sha256:1f2e
  vbench report results/openai-infqps-m-20260101-120000.records.jsonl`

func newReportCmd(p Process) *cobra.Command {
	var opt experiment.ReportOptions
	var out string
	cmd := &cobra.Command{
		Use:     "report DIR | RECORDS.jsonl",
		Short:   "Re-render the summaries and charts of saved results",
		Long:    reportDoc,
		Example: reportExamples,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if st, err := os.Stat(args[0]); err == nil && !st.IsDir() && strings.HasSuffix(args[0], ".jsonl") {
				if out != "" || opt.Experiment != "" {
					return usageErr(errors.New("--output and --experiment apply to a directory of results, not to a records file"))
				}
				return reportRecords(cmd.Context(), p, args[0])
			}
			opt.Warnings = p.Stderr
			sum, err := experiment.ReportDir(args[0], opt)
			if err != nil {
				return usageErr(err)
			}
			if err := report.WriteExperimentConsole(p.Stdout, sum); err != nil {
				return failErr(err)
			}
			if out == "" {
				out = args[0]
			}
			files, err := experiment.WriteSummaryFiles(out, sum)
			if err != nil {
				return failErr(err)
			}
			fmt.Fprintf(p.Stderr, "Summary written to %s\n", strings.Join(files, ", "))
			return experimentErr(experiment.GateError(sum))
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the summary files to `DIR` instead of the results' directory")
	cmd.Flags().StringVar(&opt.Experiment, "experiment", "", "the experiment to report when DIR holds several: its `NAME`, or a prefix of its hash")
	return cmd
}

// reportRecords prints the result block of the run whose records file is
// at path.
func reportRecords(ctx context.Context, p Process, path string) error {
	f, err := pipeline.Fold(ctx, path, pipeline.Env{Stdout: p.Stdout, Stderr: p.Stderr, Getenv: p.Getenv, Now: time.Now})
	if err != nil {
		return usageErr(err)
	}
	h := f.Header
	note := ""
	if f.Truncated {
		note = "; its last line was cut short and is left out"
	}
	fmt.Fprintf(p.Stderr, "%s: %d records of the run started %s on %s (shard %s, scenario %s)%s\n",
		path, len(f.Records), h.Start, h.Host, h.Shard, h.ScenarioHash, note)
	console := &report.Console{Stdout: p.Stdout, Stderr: p.Stderr}
	if err := console.Result(report.ConsoleInput{
		Summary:        f.Summary,
		MaxConcurrency: f.Scenario.Load.MaxConcurrency,
		RequestRate:    float64(f.Scenario.Load.RequestRate),
	}); err != nil {
		return failErr(err)
	}
	if _, err := fmt.Fprint(p.Stdout, f.NotSentLine()+pipeline.ServerSamplesLine(f.ServerSamples)); err != nil {
		return failErr(err)
	}
	return nil
}
