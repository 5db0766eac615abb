package experiment

import (
	"os"

	"github.com/vbench/vbench/internal/pipeline"
)

// checkPlanOutput is the output check of an experiment, made once before
// its first run: the result directory must be writable, and no run's
// result, nor its records file (an interrupted run's), may exist already, unless replace is set (--resume: runs whose
// result is done are skipped, the others are run again and replace theirs;
// or --overwrite) or the run's output.overwrite is.
func checkPlanOutput(plan *Plan, replace bool) error {
	if err := pipeline.ProbeDir(plan.Dir); err != nil {
		return err
	}
	if replace {
		return nil
	}
	for i := range plan.Runs {
		r := &plan.Runs[i]
		if r.Scenario.Output.Overwrite {
			continue
		}
		for _, p := range []string{r.Path, pipeline.RecordsPath(r.Path)} {
			if _, err := os.Lstat(p); err == nil {
				return pipeline.OutputErrorf("%s already exists (from an earlier run of this experiment?) and vbench does not overwrite results: pass --resume to continue that experiment, --overwrite (output.overwrite: true) to replace its results, or set output.result_dir to another directory", p)
			}
		}
	}
	return nil
}
