package pipeline

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/scenario"
)

// steadyOptions asks for the steady-state window of a closed-loop run
// (vLLM's Rust client's steady_state): metrics.steady_state on, a
// concurrency limit, request rate inf, no ramp-up and no trace replay
// (a self-timed run's arrivals are the trace's). Nil for any other run.
func steadyOptions(sc *scenario.Scenario, maxConc int) *metrics.SteadyOptions {
	if !sc.Metrics.SteadyStateOn() || scenario.Pooling(sc.Target.Backend) || maxConc <= 0 || !sc.Load.RequestRate.IsInf() || sc.Load.RampUp != nil || selfTimed(sc) {
		return nil
	}
	opt := &metrics.SteadyOptions{Target: maxConc, Percentiles: sc.Metrics.MetricPercentiles}
	if t := sc.Metrics.SteadyStateThreshold; t != nil {
		opt.Threshold = *t
	}
	if w := sc.Metrics.SteadyStateMinWindow; w != nil {
		// 0 asks for no warning at all, which MinWindow spells as the
		// smallest positive length (its 0 means the default).
		opt.MinWindow = max(*w, math.SmallestNonzeroFloat64)
	}
	return opt
}

// steadyJSON is the "steady_state" member of the result's "vbench" object:
// the window and its metrics (the keys of vllm-bench's steady_state, with
// the TTFT percentiles under vLLM's p<P>_ttft_ms keys), JSON null when the
// run had no window or is not a closed loop, and nil (no key) when
// metrics.steady_state is off.
func steadyJSON(sc *scenario.Scenario, ss *metrics.SteadyState) any {
	if !sc.Metrics.SteadyStateOn() {
		return nil
	}
	if ss == nil {
		return json.RawMessage("null")
	}
	w := ss.Window
	win := py.NewObject()
	win.Set("start_s", w.StartS)
	win.Set("end_s", w.EndS)
	win.Set("duration_s", w.DurationS)
	win.Set("target_concurrency", w.TargetConcurrency)
	win.Set("threshold", w.Threshold)
	win.Set("threshold_abs", w.ThresholdAbs)
	win.Set("observed_peak", w.ObservedPeak)
	win.Set("requests_started_in_window", w.RequestsStarted)
	win.Set("requests_completed_in_window", w.RequestsCompleted)
	win.Set("requests_total", w.RequestsTotal)
	if w.Warning != "" {
		win.Set("warning", w.Warning)
	} else {
		win.Set("warning", nil)
	}
	o := py.NewObject()
	o.Set("window", win)
	o.Set("request_throughput", ss.RequestThroughput)
	o.Set("input_throughput", ss.InputThroughput)
	o.Set("output_throughput", ss.OutputThroughput)
	o.Set("total_token_throughput", ss.TotalTokenThroughput)
	o.Set("mean_ttft_ms", ss.TTFT.Mean)
	o.Set("median_ttft_ms", ss.TTFT.Median)
	for _, p := range ss.TTFT.Percentiles {
		o.Set(metrics.PercentileKey(p.P, metrics.TTFT), p.Value)
	}
	o.Set("mean_tpot_ms", ss.TPOT.Mean)
	o.Set("median_tpot_ms", ss.TPOT.Median)
	for _, p := range ss.TPOT.Percentiles {
		o.Set(metrics.PercentileKey(p.P, metrics.TPOT), p.Value)
	}
	return o
}

// steadyLine is vbench's line after the result block about the
// steady-state window: its bounds and metrics, or that the run never held
// the threshold; "" when the run is not asked for one (opt nil).
func steadyLine(opt *metrics.SteadyOptions, ss *metrics.SteadyState) string {
	if opt == nil {
		return ""
	}
	if ss == nil {
		thr := opt.Threshold
		if thr <= 0 {
			thr = metrics.DefaultSteadyThreshold
		}
		return fmt.Sprintf("Steady state: none (in-flight requests never held %s of the %d concurrency limit)\n",
			py.Fixed(100*thr, 0)+" %", opt.Target)
	}
	w := ss.Window
	line := fmt.Sprintf("Steady state: %s s window (%s-%s s, >= %d of %d in flight, %d of %d requests started in it): %s req/s, %s output tok/s, mean TTFT %s ms, mean TPOT %s ms\n",
		py.Fixed(w.DurationS, 2), py.Fixed(w.StartS, 2), py.Fixed(w.EndS, 2), w.ThresholdAbs, w.TargetConcurrency,
		w.RequestsStarted, w.RequestsTotal, py.Fixed(ss.RequestThroughput, 2), py.Fixed(ss.OutputThroughput, 2),
		py.Fixed(ss.TTFT.Mean, 2), py.Fixed(ss.TPOT.Mean, 2))
	if w.Warning != "" {
		line += "Steady state warning: " + w.Warning + "\n"
	}
	return line
}
