package pipeline

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vbench/vbench/internal/atomicfile"
	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
)

// checkDatasetStats refuses output.plot_dataset_stats without a result
// file name to name the plot after: vLLM names one only with
// --save-result, --append-result or --plot-timeline, and fails after the
// run (an assertion) without one.
func checkDatasetStats(sc *scenario.Scenario) error {
	if o := sc.Output; o.PlotDatasetStats && !o.SaveResult && !o.AppendResult && !o.PlotTimeline {
		return unsupported("output.plot_dataset_stats (--plot-dataset-stats) needs a result file name to name the plot after: " +
			"set output.save_result (--save-result), output.append_result (--append-result) or output.plot_timeline (--plot-timeline); " +
			"vllm bench serve fails after the run without one")
	}
	return nil
}

// writeDatasetStats writes vLLM's --plot-dataset-stats figure of the run's
// prompt and output lengths (in request order, a failed request's output
// counting 0, as vLLM's result lists them) next to the result file result,
// atomically, and says so as vLLM prints it. As in vLLM, a plot that
// cannot be made is only a warning: the run and its result stand.
func writeDatasetStats(result string, sum *metrics.Summary, obs report.RunObserver) {
	if len(sum.InputLens) == 0 || len(sum.OutputLens) == 0 {
		obs.Diagnostic("warning: Dataset statistics plot requires input and output length data. Ensure the benchmark completed successfully.")
		return
	}
	path := report.DatasetStatsPath(result)
	data, err := report.DatasetStatsPNG(sum.InputLens, sum.OutputLens)
	if err == nil {
		// vLLM creates the result directory when it names the result.
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		err = atomicfile.WriteFile(path, data, 0o644)
	}
	if err != nil {
		obs.Diagnostic(fmt.Sprintf("warning: Failed to generate dataset statistics plot: %v", err))
		return
	}
	obs.Message("Dataset statistics plot saved to: " + path)
}
