package pipeline

import (
	"context"
	"fmt"

	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
)

// profile calls the server's profiler endpoint path ("/start_profile" or
// "/stop_profile") when the scenario asks (target.profile, --profile), as
// vLLM does: a POST to the base URL with the run's headers. A failure
// never fails the run: vLLM then leaves out its "Profiler started" or
// "Profiler stopped" line, and vbench says why on its diagnostics. The
// stop call is made even when ctx is cancelled (an interrupted run),
// so that a started profiler is not left running.
func (pr *preparedRun) profile(ctx context.Context, env Env, path string) report.Profiler {
	if !pr.sc.Target.Profile {
		return report.ProfilerOff
	}
	api, err := pr.tgt.ep.serverAPI(pr.tgt.modelID, env)
	if err == nil {
		err = api.Profile(context.WithoutCancel(ctx), path)
	}
	if err != nil {
		env.observer().Diagnostic(fmt.Sprintf("warning: --profile (target.profile): %s on %s failed, the run goes on: %v", path, scenario.RedactURL(pr.tgt.base), err))
		return report.ProfilerFailed
	}
	return report.ProfilerOK
}
