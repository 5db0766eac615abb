package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/experiment"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
)

const compareDoc = `Compare saved benchmark results: vllm bench serve's result JSON, or
vbench's (vbench run, vbench serve).

The first input is the baseline (or --baseline NAME); every other input is
compared with it. An input is a result file, or a directory whose *.json
result files are repeated runs of one variant. For each throughput and
latency statistic the table shows both values, the relative change
(variant − baseline) / baseline with its 95 % confidence interval, and a
verdict: better, worse, no significant difference, or untested. The
interval comes from the repeats (Welch's t) when both inputs have several
results, else from a bootstrap over the per-request samples (the records
vbench saves next to its results, or the arrays of --save-detailed): blocks
of concurrent requests are resampled, 2000 times with a fixed seed, so the
same files always give the same answer. A percentile needs at least 5
samples beyond it (a P99 needs 500). Otherwise there is no interval and the
verdict is "untested". Each interval is a 95 % one on its own: across many
metrics, about one in twenty differs by chance alone.

Gates turn the comparison into a CI check, as compare.gates does in a
scenario: --max-increase p99_ttft_ms=5% fails when the P99 TTFT rises by
more than 5 %, --max-decrease output_throughput=3% when the output
throughput falls by more than 3 %. A gate fails when the change is beyond
its limit and, where there is a confidence interval, significant.

Results whose workloads differ (dataset, mean input length, request rate,
burstiness, max concurrency, ramp-up, number of prompts) are refused unless
--force.

A gate must name a metric every result holds; otherwise compare exits 2
and lists the metrics it can gate on.

Exit codes: 0 compared (and every gate passed), 2 bad usage (such as a gate
on a metric the results lack), unreadable or incomparable results, 3 a gate
failed.`

const compareExamples = `  vbench compare old.json new.json
  vbench compare results/old/ results/new/            # directories of repeats
  vbench compare a.json b.json --max-increase p99_ttft_ms=5% --max-decrease output_throughput=3%
  vbench compare --baseline b a.json b.json c.json --json comparison.json`

func newCompareCmd(p Process) *cobra.Command {
	var opt experiment.CompareOptions
	var incr, decr []string
	var jsonOut string
	cmd := &cobra.Command{
		Use:     "compare RESULT RESULT...",
		Short:   "Compare saved results, with significance and gates",
		Long:    compareDoc,
		Example: compareExamples,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			gates, flags, err := parseGateFlags(incr, decr)
			if err != nil {
				return usageErr(err)
			}
			opt.Gates = gates
			sum, err := experiment.CompareFiles(args, opt)
			var ge *experiment.GateMetricError
			if errors.As(err, &ge) {
				return usageErr(fmt.Errorf("%s: %w", flags[ge.Gate], err))
			}
			if err != nil {
				return usageErr(err)
			}
			if err := report.WriteExperimentConsole(p.Stdout, sum); err != nil {
				return failErr(err)
			}
			if jsonOut != "" {
				var b strings.Builder
				if err := report.WriteSummaryJSON(&b, sum); err != nil {
					return failErr(err)
				}
				if err := report.WriteResultFile(jsonOut, []byte(b.String()), false); err != nil {
					return failErr(fmt.Errorf("--json: %w", err))
				}
			}
			return experimentErr(experiment.GateError(sum))
		},
	}
	f := cmd.Flags()
	f.StringVar(&opt.Baseline, "baseline", "", "the input the others are compared with, by name (file or directory name without .json); default the first")
	f.StringArrayVar(&incr, "max-increase", nil, "gate: `METRIC=PCT`, fail when METRIC rises by more than PCT (e.g. p99_ttft_ms=5%); repeatable")
	f.StringArrayVar(&decr, "max-decrease", nil, "gate: `METRIC=PCT`, fail when METRIC falls by more than PCT (e.g. output_throughput=3%); repeatable")
	f.BoolVar(&opt.Force, "force", false, "compare results whose workloads differ")
	f.StringVar(&jsonOut, "json", "", "also write the comparison as JSON to `FILE`")
	return cmd
}

// parseGateFlags turns --max-increase and --max-decrease values into
// gates, one per flag, and says which flag each came from
// ("--max-increase p99_ttft_ms=5%").
func parseGateFlags(incr, decr []string) ([]scenario.Gate, []string, error) {
	var gates []scenario.Gate
	var flags []string
	for _, set := range []struct {
		flag   string
		values []string
	}{{"--max-increase", incr}, {"--max-decrease", decr}} {
		for _, v := range set.values {
			metric, limit, ok := strings.Cut(v, "=")
			metric, limit = strings.TrimSpace(metric), strings.TrimSpace(limit)
			if !ok || metric == "" {
				return nil, nil, fmt.Errorf("%s %q: want METRIC=PCT, e.g. p99_ttft_ms=5%%", set.flag, v)
			}
			if !strings.HasSuffix(limit, "%") {
				limit += "%"
			}
			if _, err := experiment.ParseLimit(limit); err != nil {
				return nil, nil, fmt.Errorf("%s %q: %w", set.flag, v, err)
			}
			g := scenario.Gate{Metric: metric}
			if set.flag == "--max-increase" {
				g.MaxIncrease = limit
			} else {
				g.MaxDecrease = limit
			}
			gates = append(gates, g)
			flags = append(flags, set.flag+" "+v)
		}
	}
	return gates, flags, nil
}

// experimentErr maps an experiment's error to its exit code: a failed
// gate exits ExitGate, any other error ExitFailed.
func experimentErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, experiment.ErrGateFailed):
		return &exitError{code: ExitGate, err: err}
	case errors.Is(err, pipeline.ErrUnsupported), errors.Is(err, pipeline.ErrOutput), errors.Is(err, pipeline.ErrInput):
		return usageErr(err)
	}
	return failErr(err)
}
