package experiment

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/schedule"
	"github.com/vbench/vbench/internal/tokenizer"
)

// Outcome is what one run produced.
type Outcome struct {
	// Summary is vLLM's metrics summary.
	Summary *metrics.Summary
	// Records are the per-request records, in request order.
	Records []*record.Record
	// ResultPath is the result JSON written ("" when not saved).
	ResultPath string
	// RecordsPath is the per-request JSONL written ("" when not saved).
	RecordsPath string
	// Interrupted reports the run was cancelled before it finished.
	Interrupted bool
	// NotSent is the number of planned requests never sent (an
	// interrupted run's): they are in neither Summary.Completed nor
	// Summary.Failed.
	NotSent int
	// Health is the client's health during the run: send lag and CPU use.
	Health run.Health
	// experiment places the run in its experiment; it is saved in the
	// result's "vbench" object (nil for a single run).
	experiment *RunInfo
}

// Run executes one scenario run end to end: tokenizer, target, dataset,
// ready check, warmups, the timed run, metrics, the console block and the
// result files. Experiment shapes (sweep, repeat, compare) are not handled
// here.
func Run(ctx context.Context, sc *scenario.Scenario, env Env) (*Outcome, error) {
	return runOne(ctx, sc, env, nil)
}

// runOne is Run for one run of an experiment: exp, when not nil, is saved
// as the "experiment" member of the result's "vbench" object.
func runOne(ctx context.Context, sc *scenario.Scenario, env Env, exp *RunInfo) (*Outcome, error) {
	if sc.Sweep != nil || sc.Repeat != nil || sc.Compare != nil {
		return nil, fmt.Errorf("a single run cannot have sweep, repeat or compare: expand the experiment into its runs first (experiment.Expand)")
	}
	if err := Check(sc); err != nil {
		return nil, err
	}
	if err := checkOutput(sc, exp != nil); err != nil {
		return nil, err
	}
	tok, tokName, err := loadTokenizerEnv(ctx, sc, env)
	if err != nil {
		return nil, err
	}
	tgt, err := resolveTarget(ctx, sc, tok, env)
	if err != nil {
		return nil, err
	}
	defer tgt.closeSim()

	ignoreEOS := sc.Sampling.IgnoreEOS
	dsKind := sc.Dataset.Kind()
	if backend.OpenAICompatible(sc.Target.Backend) && (dsKind == "random" || dsKind == "random-mm") {
		ignoreEOS = true // vLLM forces it for random data
	}

	reqs, err := buildDataset(ctx, sc, tok, tgt, env)
	if err != nil {
		return nil, err
	}
	if srv, ok := tok.(*tokenizer.Server); ok && srv.Err() != nil {
		return nil, fmt.Errorf("the server's tokenizer failed while building the dataset: %w", srv.Err())
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("dataset %s produced no requests (load.num_prompts is %d)", dsKind, sc.Load.NumPrompts)
	}

	extra := samplingBody(sc)
	if sc.Sampling.Temperature == nil {
		fmt.Fprintln(env.Stdout, "WARNING: vllm bench serve no longer sets temperature==0 (greedy) in requests by default. The default will be determined on the server side and can be model/API specific. For the old behavior, include --temperature=0.")
	}
	maxConc := 0
	if sc.Load.MaxConcurrency != nil {
		maxConc = *sc.Load.MaxConcurrency
	}
	client, err := backend.New(backend.Config{
		Backend:   sc.Target.Backend,
		URL:       tgt.apiURL,
		Model:     tgt.modelName,
		Headers:   sc.Target.Headers,
		APIKey:    env.Getenv("OPENAI_API_KEY"),
		IgnoreEOS: ignoreEOS,
		Logprobs:  sc.Sampling.Logprobs,
		ExtraBody: extra,
		MaxConns:  maxConc,
		Insecure:  sc.Target.Insecure,
		CAFile:    sc.Target.CAFile,
	})
	if err != nil {
		return nil, err
	}
	defer client.Close()
	prepared, err := client.Prepare(reqs, true)
	if err != nil {
		return nil, err
	}
	probe, err := client.Prepare(reqs[:1], false)
	if err != nil {
		return nil, err
	}

	fmt.Fprintln(env.Stdout, "Starting initial single prompt test run...")
	if err := readyCheck(ctx, sc, client, probe, env); err != nil {
		return nil, err
	}
	if n := sc.Load.NumWarmups; n > 0 {
		fmt.Fprintf(env.Stdout, "Warming up with %d requests...\n", n)
		warm := make([]backend.Prepared, n)
		for i := range warm {
			warm[i] = probe[0]
		}
		sendAll(ctx, client, warm, maxConc)
		fmt.Fprintln(env.Stdout, "Warmup run completed.")
	}

	fmt.Fprintln(env.Stdout, "Starting main benchmark run...")
	spec := scheduleSpec(sc)
	if r := sc.Load.RampUp; r != nil {
		fmt.Fprintf(env.Stdout, "Traffic ramp-up strategy: %s.\n", r.Strategy)
		fmt.Fprintf(env.Stdout, "Will increase RPS from %s to %s RPS over the duration of the benchmark.\n", pyNum(r.StartRPS), pyNum(r.EndRPS))
	} else {
		fmt.Fprintf(env.Stdout, "Traffic request rate: %s\n", report.PyFloatRepr(float64(sc.Load.RequestRate)))
	}
	shape := "(Gamma distribution)"
	if sc.Load.Burstiness == 1 {
		shape = "(Poisson process)"
	}
	fmt.Fprintf(env.Stdout, "Burstiness factor: %s %s\n", report.PyFloatRepr(float64(sc.Load.Burstiness)), shape)
	if maxConc > 0 {
		fmt.Fprintf(env.Stdout, "Maximum request concurrency: %d\n", maxConc)
	} else {
		fmt.Fprintln(env.Stdout, "Maximum request concurrency: None")
	}
	offsets, err := schedule.Offsets(spec, len(prepared), uint32(sc.Seed))
	if err != nil {
		return nil, err
	}

	// Open the connections the first wave will use before the clock starts.
	if err := client.Preconnect(ctx, firstWave(sc, len(prepared), maxConc)); err != nil {
		fmt.Fprintf(env.Stderr, "warning: %v\n", err)
	}
	// Collect the dataset's garbage now rather than during the run.
	runtime.GC()
	progress := newProgress(env.Stderr, len(prepared), sc.Output.DisableTqdm)
	res := run.Run(ctx, run.Plan{Offsets: offsets, MaxConcurrency: maxConc, OnDone: progress.done},
		run.SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
			client.Send(ctx, &prepared[i], rec, now)
		}))
	progress.finish()
	end := env.Now()

	sum := metrics.Compute(res.Records, res.Duration, metrics.Options{
		PercentileMetrics: sc.Metrics.PercentileMetrics,
		Percentiles:       sc.Metrics.MetricPercentiles,
		Goodput:           sc.Metrics.Goodput,
		CountTokens:       countTokens(tok),
		MaxConcurrencySet: maxConc > 0,
		RequestRateFinite: !sc.Load.RequestRate.IsInf(),
	})
	load := res.Load()
	load.WithSimulator = sc.Target.Simulator != nil
	out := &Outcome{Summary: sum, Records: res.Records, Interrupted: res.Interrupted, NotSent: res.NotSent(), experiment: exp, Health: run.ComputeHealth(res.Records, load)}
	err = writeReports(sc, tgt, tokName, sum, res, len(prepared), end, env, out)
	// vbench serve keeps stdout to vLLM's output; the health line is vbench's.
	healthOut := env.Stdout
	if !env.Argv.extras() {
		healthOut = env.Stderr
	}
	writeNotSent(healthOut, out.NotSent, len(prepared))
	writeHealth(healthOut, out.Health)
	if err != nil {
		return out, err
	}
	if res.Interrupted {
		return out, fmt.Errorf("run interrupted after %d of %d requests were sent: %w", res.Sent(), len(prepared), ctx.Err())
	}
	if sum.Completed == 0 {
		return out, fmt.Errorf("%w: this is likely due to a misconfiguration of the benchmark arguments (first error: %s)", ErrAllFailed, firstError(res.Records))
	}
	return out, nil
}

// firstWave is how many connections the run's first second needs, capped
// at 1024: the concurrency limit, or the requests a finite (or ramp-up
// start) rate sends in its first second, or all of them at rate inf.
func firstWave(sc *scenario.Scenario, n, maxConc int) int {
	switch {
	case maxConc > 0:
		n = min(n, maxConc)
	case sc.Load.RampUp != nil:
		n = min(n, int(sc.Load.RampUp.StartRPS)+1)
	case !sc.Load.RequestRate.IsInf():
		n = min(n, int(math.Ceil(float64(sc.Load.RequestRate)))+1)
	}
	return min(n, 1024)
}

// scheduleSpec is the scenario's arrival process.
func scheduleSpec(sc *scenario.Scenario) schedule.Spec {
	spec := schedule.Spec{Rate: float64(sc.Load.RequestRate), Burstiness: float64(sc.Load.Burstiness)}
	if r := sc.Load.RampUp; r != nil {
		spec.RampUp = &schedule.RampUp{Strategy: r.Strategy, StartRPS: r.StartRPS, EndRPS: r.EndRPS}
	}
	return spec
}

// buildDataset samples the scenario's dataset and, for random data, aligns
// the prompts with the server's tokenizer as vLLM does.
func buildDataset(ctx context.Context, sc *scenario.Scenario, tok tokenizer.Tokenizer, tgt *target, env Env) ([]dataset.Request, error) {
	idPrefix := requestIDPrefix(sc)
	switch {
	case sc.Dataset.Random != nil:
		if tok == nil {
			return nil, fmt.Errorf("dataset random needs a client tokenizer: unset tokenizer.skip_init")
		}
		reqs, info, err := dataset.Random(*sc.Dataset.Random, sc.Load.NumPrompts, sc.Seed, tok, idPrefix)
		if err != nil {
			return nil, fmt.Errorf("dataset random: %w", err)
		}
		fmt.Fprintln(env.Stderr, info.SamplingMessage())
		for _, w := range info.Warnings() {
			fmt.Fprintln(env.Stderr, w)
		}
		api, err := backend.NewServerAPI(tgt.base, tgt.modelID, nil, sc.Target.Insecure, sc.Target.CAFile)
		if err != nil {
			return nil, err
		}
		reqs, res, err := dataset.Align(ctx, api, reqs)
		if err != nil {
			return nil, fmt.Errorf("aligning prompts with the server tokenizer: %w", err)
		}
		if msg := res.Message(); msg != "" {
			fmt.Fprintln(env.Stdout, msg)
		}
		return reqs, nil
	default:
		return nil, fmt.Errorf("dataset %s is not supported by vbench yet (supported: random)", sc.Dataset.Kind())
	}
}

// readyCheck sends request 0 until it succeeds, retrying every 5 s for up
// to ready_check_timeout_sec; 0 skips the check (vLLM's default).
func readyCheck(ctx context.Context, sc *scenario.Scenario, c *backend.Client, probe []backend.Prepared, env Env) error {
	timeout := time.Duration(sc.Load.ReadyCheckTimeoutSec) * time.Second
	if timeout <= 0 {
		fmt.Fprintln(env.Stdout, "Skipping endpoint ready check.")
		return nil
	}
	fmt.Fprintf(env.Stdout, "Waiting for endpoint to become up in %d seconds\n", sc.Load.ReadyCheckTimeoutSec)
	deadline := time.Now().Add(timeout)
	for {
		rec := sendAll(ctx, c, probe, 0)[0]
		if rec.Success {
			fmt.Fprintln(env.Stdout, "Initial test run completed.")
			return nil
		}
		if time.Now().Add(5*time.Second).After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("initial test run failed - please make sure benchmark arguments are correctly specified; error: %s", rec.Error)
		}
		select {
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// samplingBody is vLLM's extra_body: the sampling parameters that were set,
// then --extra-body, which wins.
func samplingBody(sc *scenario.Scenario) map[string]any {
	s := sc.Sampling
	body := map[string]any{}
	setF := func(k string, v *float64) {
		if v != nil {
			body[k] = *v
		}
	}
	setF("top_p", s.TopP)
	if s.TopK != nil {
		body["top_k"] = *s.TopK
	}
	setF("min_p", s.MinP)
	setF("temperature", s.Temperature)
	setF("frequency_penalty", s.FrequencyPenalty)
	setF("presence_penalty", s.PresencePenalty)
	setF("repetition_penalty", s.RepetitionPenalty)
	for k, v := range s.ExtraBody {
		body[k] = v
	}
	return body
}

// countTokens is the metrics' fallback output-length counter.
func countTokens(tok tokenizer.Tokenizer) func(string) int {
	if tok == nil {
		return nil
	}
	return func(s string) int { return len(tok.Encode(s, false)) }
}

func firstError(recs []*record.Record) string {
	for _, r := range recs {
		if !r.Success {
			return r.Error
		}
	}
	return "none"
}

// pyNum formats a ramp-up rate as vLLM prints its int flags.
func pyNum(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%d", int64(f))
	}
	return report.PyFloatRepr(f)
}
