package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/report"
)

// defaultProfileDuration is vllm-bench's --profile-duration default, in
// seconds.
const defaultProfileDuration = 5

// thresholdProfiler starts the server's profiler once it runs
// target.profile_batch_threshold requests, as vllm-bench's
// --profile-batch-threshold does: it reads the server's
// vllm:num_requests_running every 0.5 s, starts the profiler when it
// reaches the threshold, and stops it after target.profile_duration
// seconds or at the run's end.
type thresholdProfiler struct {
	done    chan struct{} // closed when the watcher has finished
	end     chan struct{} // closed at the run's end
	started bool          // the profiler was started (read after done)
}

// startThresholdProfiler starts watching, or returns nil when the scenario
// profiles from the start (or not at all).
func (pr *preparedRun) startThresholdProfiler(ctx context.Context, env Env) *thresholdProfiler {
	t := pr.sc.Target
	if !t.Profile || t.ProfileBatchThreshold <= 0 {
		return nil
	}
	dur := time.Duration(defaultProfileDuration * float64(time.Second))
	if t.ProfileDuration > 0 {
		dur = time.Duration(t.ProfileDuration * float64(time.Second))
	}
	tp := &thresholdProfiler{done: make(chan struct{}), end: make(chan struct{})}
	obs := env.observer()
	go func() {
		defer close(tp.done)
		client := &http.Client{Timeout: 2 * time.Second}
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tp.end:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			running, ok := readRunning(ctx, client, pr.tgt.base+"/metrics")
			if !ok || running < float64(t.ProfileBatchThreshold) {
				continue
			}
			if pr.profile(ctx, env, "/start_profile") != report.ProfilerOK {
				return
			}
			tp.started = true
			obs.Diagnostic(fmt.Sprintf("Profiler started: the server runs %.0f requests (threshold %d); it stops after %v or at the run's end", running, t.ProfileBatchThreshold, dur))
			select {
			case <-time.After(dur):
			case <-tp.end:
			case <-ctx.Done():
			}
			if pr.profile(ctx, env, "/stop_profile") == report.ProfilerOK {
				obs.Diagnostic("Profiler stopped")
			}
			return
		}
	}()
	return tp
}

// finish ends the watch at the run's end (stopping a running profiler) and
// says when the run was not profiled.
func (tp *thresholdProfiler) finish(env Env, threshold int) {
	if tp == nil {
		return
	}
	close(tp.end)
	<-tp.done
	if !tp.started {
		env.observer().Diagnostic(fmt.Sprintf("Profiling skipped: the server never ran %d requests at once", threshold))
	}
}

// readRunning reads vllm:num_requests_running from a /metrics URL.
func readRunning(ctx context.Context, client *http.Client, url string) (float64, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, false
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, false
	}
	s, err := promscrape.ReadGauges(resp.Body)
	if err != nil || s.Running < 0 {
		return 0, false
	}
	return s.Running, true
}
