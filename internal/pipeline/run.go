package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/progress"
	"github.com/vbench/vbench/internal/promscrape"
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
	// Records are the per-request records, in request order, when the
	// run kept them (Env.KeepRecords, or a timeline to draw); nil
	// otherwise.
	Records []*record.Record
	// ResultPath is the result JSON written ("" when not saved).
	ResultPath string
	// RecordsPath is the per-request JSONL written ("" when not saved).
	RecordsPath string
	// Interrupted reports the run was cancelled before it finished.
	Interrupted bool
	// StoppedEarly, when set, says why the run ended before all its
	// requests were sent, as load.early_stop asked (not an interruption).
	StoppedEarly *EarlyStop
	// NotSent is the number of planned requests never sent (an
	// interrupted run's): they are in neither Summary.Completed nor
	// Summary.Failed.
	NotSent int
	// EndedTurns counts the turns of conversations a failed turn ended,
	// which were not sent (dataset.Request.Skip); they are not in
	// NotSent.
	EndedTurns int
	// Conversations are a conversations run's figures by turn and by
	// conversation (nil for other runs).
	Conversations *conversationsJSON
	// Health is the client's health during the run: send lag and CPU use.
	Health run.Health
	// ResultJSON is the result JSON document the run saved (nil when not
	// saved): experiments summarise from it without reading the file back.
	ResultJSON []byte
	// SpecDecode and Diffusion are vLLM's speculative- and
	// diffusion-decoding statistics from the server's /metrics, scraped
	// before and after the timed phase (nil when the server reports none).
	SpecDecode *report.SpecDecodeStats
	Diffusion  *report.DiffusionStats
	// PrefixCache is the server's prefix-cache hit rate over the timed
	// phase, from vLLM's prefix-cache counters (nil when the server has
	// none, or no prompt token was looked up).
	PrefixCache *promscrape.PrefixCacheStats
	// Probe summarises the probe requests (load.probe_request_rate; nil
	// without, or when none succeeded).
	Probe *metrics.ProbeSummary
	// ServerSamples are the server's load gauges read every
	// metrics.scrape_interval during the timed phase, in time order
	// (nil when sampling is off or the server exposes none; see
	// serverSampler).
	ServerSamples []promscrape.ServerSample
	// TokenAccounting compares the client tokenizer's output counts with
	// the server's usage (nil without a tokenizer).
	TokenAccounting *metrics.TokenAccounting
	// experiment places the run in its experiment; it is saved in the
	// result's "vbench" object (nil for a single run).
	experiment json.RawMessage
}

// Run executes one scenario run end to end: tokenizer, target, dataset,
// ready check, warmups, the timed run, metrics, the console block and the
// result files. Experiment shapes (sweep, repeat, compare) are not handled
// here.
func Run(ctx context.Context, sc *scenario.Scenario, env Env) (*Outcome, error) {
	return runOne(ctx, sc, env, nil)
}

// RunInExperiment is Run for one run of an experiment: exp (a JSON
// object, not empty) is saved as the "experiment" member of the result's
// "vbench" object.
func RunInExperiment(ctx context.Context, sc *scenario.Scenario, env Env, exp json.RawMessage) (*Outcome, error) {
	if len(exp) == 0 || !json.Valid(exp) {
		return nil, fmt.Errorf("internal error: a run of an experiment needs its place in it as JSON, got %q", exp)
	}
	return runOne(ctx, sc, env, exp)
}

// runOne is Run for one run of an experiment: exp, when not nil, is saved
// as the "experiment" member of the result's "vbench" object.
func runOne(ctx context.Context, sc *scenario.Scenario, env Env, exp json.RawMessage) (_ *Outcome, err error) {
	if sc.Sweep != nil || sc.Repeat != nil || sc.Compare != nil {
		return nil, fmt.Errorf("a single run cannot have sweep, repeat or compare: expand the experiment into its runs first (experiment.Expand)")
	}
	if err := checkRun(sc); err != nil {
		return nil, err
	}
	if err := checkOutput(sc, exp != nil); err != nil {
		return nil, err
	}
	if sc.Load.Shard != nil && exp != nil {
		return nil, unsupported("load.shard splits a single run over several clients; it does not apply to the runs of an experiment (sweep, repeat, compare, search)")
	}
	if err := preflight(ctx, sc, env); err != nil {
		return nil, err
	}
	// Shard 0 serves its clock from now on: the other shards measure
	// against it once they are ready, which may be before it is.
	sr, err := startShard(sc, env)
	if err != nil {
		return nil, err
	}
	defer func() { sr.finish(ctx, err != nil, env.observer().Diagnostic) }()
	if sr != nil && sr.shard.Count > 1 && (!sc.Output.SaveResult || !sc.Output.Records) {
		env.observer().Diagnostic(fmt.Sprintf("warning: shard %v writes no records file (it needs output.save_result and output.records): vbench merge will have nothing of it", sr.shard))
	}
	pr, err := prepare(ctx, sc, env)
	if err != nil {
		return nil, err
	}
	defer pr.close()
	pr.shardRun = sr
	return pr.execute(ctx, env, exp)
}

// preparedRun is a run whose stages are ready: the tokenizer, the target,
// the dataset's requests prepared by the backend client, and the schedule.
type preparedRun struct {
	// activity is what the timed requests are doing, for the progress
	// display (the client writes the last byte's time to it).
	activity progress.Activity
	sc       *scenario.Scenario
	tok      tokenizer.Tokenizer
	tokName  string
	tgt      *target
	ep       *endpoint
	releaser *dataset.ConvReleaser // a conversations run's schedule, nil otherwise
	client   *backend.Client
	// stream gives the requests the window renders as the run goes, and
	// lora, when not nil, assigns each its LoRA module.
	stream *dataset.Stream
	lora   func(i int, r *dataset.Request)
	// datasetLog holds what the dataset prints while the run pulls from
	// it, until the run ends.
	datasetLog *heldObserver
	window     *window
	probe      []backend.Prepared
	// sched gives the n requests' intended send times; replay holds a
	// self-timed run's (nil otherwise).
	sched   run.Schedule
	n       int
	replay  []time.Duration
	maxConc int
	// sideProbe is the payload of the probe requests
	// (load.probe_request_rate; nil without).
	sideProbe *backend.Prepared
	// closers release the stages (the client, the built-in simulator), in
	// reverse order.
	closers []func()
	// clockStarted is set when the window is full and the run's clock is
	// about to start (see datasetWorkers); window is set before it.
	clockStarted atomic.Bool
	// plan is the part of the whole plan a sharded run sends (load.shard),
	// and shardRun its start and clock coordination (nil for a run that
	// is neither split nor timed to start).
	plan     shardPlan
	shardRun *shardRun
}

// close releases the run's stages.
func (pr *preparedRun) close() {
	for i := len(pr.closers) - 1; i >= 0; i-- {
		pr.closers[i]()
	}
}

// prepare resolves and builds the stages of a run, in order: the tokenizer,
// the target (starting the built-in simulator), the dataset, the backend
// client with the prepared requests, and the schedule. Nothing is sent to
// the benchmark endpoint yet; the caller has checked sc (checkRun) and
// its output location (checkOutput). On error the stages made so far are
// released.
func prepare(ctx context.Context, sc *scenario.Scenario, env Env) (_ *preparedRun, err error) {
	pr := &preparedRun{sc: sc}
	defer func() {
		if err != nil {
			pr.close()
		}
	}()
	ep := newEndpoint(sc)
	// Until the dataset is built, vbench's lines wait, so that a bad
	// dataset file is one line: unless they may announce a wait (a Hub
	// download, the server's /tokenize), which is shown as it starts.
	held := &heldObserver{RunObserver: env.observer(), holding: localTokenizer(sc)}
	outer := env
	env.Observer = held
	defer held.flush()
	tok, tokName, err := loadTokenizerEnv(ctx, sc, env, ep)
	if err != nil {
		return nil, err
	}
	tgt, err := resolveTarget(ctx, sc, tok, env, ep)
	if err != nil {
		return nil, err
	}
	pr.closers = append(pr.closers, tgt.closeSim)
	pr.tok, pr.tokName, pr.tgt, pr.ep = tok, tokName, tgt, ep

	ignoreEOS := sc.Sampling.IgnoreEOS
	dsKind := sc.Dataset.Name
	if dataset.ForcesIgnoreEOS(dsKind, backend.OpenAICompatible(sc.Target.Backend)) {
		ignoreEOS = true // vLLM forces it for random data
	}

	pyGlobal := pyGlobalRandom(sc.Seed)
	stream, err := openDataset(ctx, sc, tok, tgt, env, pyGlobal, held.flush, pr.datasetWorkers)
	if errors.Is(err, dataset.ErrInput) {
		held.drop()
		return nil, InputError(err)
	}
	held.flush()
	env = outer
	if err != nil {
		return nil, err
	}
	if srv, ok := tok.(*tokenizer.Server); ok && srv.Err() != nil {
		return nil, fmt.Errorf("the server's tokenizer failed while building the dataset: %w", srv.Err())
	}
	pr.closers = append(pr.closers, stream.Close)
	if stream.Len() == 0 {
		return nil, noRequests(sc)
	}
	pr.datasetLog = held

	extra := samplingBody(sc)
	obs := env.observer()
	if sc.Sampling.Temperature == nil && !scenario.Pooling(sc.Target.Backend) {
		obs.Message(temperatureWarning(env.Argv)) // vLLM warns for generation only
	}
	maxConc := 0
	if sc.Load.MaxConcurrency != nil {
		maxConc = *sc.Load.MaxConcurrency
	}
	// A shard sends its part of the whole plan under its part of the
	// concurrency limit.
	if maxConc, err = shardOf(sc).MaxConcurrency(maxConc); err != nil {
		return nil, unsupported("load.shard: %v", err)
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
		Timeout:   time.Duration(sc.Target.RequestTimeoutSeconds() * float64(time.Second)),

		ExactCounting: sc.Target.StreamCounting == "exact",

		TraceContext: sc.Metrics.TraceContext,
		LastByte:     pr.activity.LastByte(),
	})
	if err != nil {
		return nil, err
	}
	pr.closers = append(pr.closers, func() { client.Close() })
	if sc.Target.Insecure {
		env.observer().Diagnostic("WARNING: TLS certificate verification is off (--insecure, target.insecure): the server's identity is not checked")
	}
	// The ready check and the warmups send request 0 with the run's model
	// (vLLM's test input), whatever LoRA module request 0 gets.
	first := stream.First()
	// The payloads are rendered as the run goes (window); the first one
	// now, so that a request the backend cannot send fails the run before
	// it starts.
	if _, err := client.Prepare([]dataset.Request{first}, true); err != nil {
		return nil, err
	}
	probe, err := client.Prepare([]dataset.Request{first}, false)
	if err != nil {
		return nil, err
	}
	if sc.Load.ProbeRequestRate < 0 {
		env.observer().Diagnostic("WARNING: load.probe_request_rate is negative: no probe requests are sent (as in vllm bench serve)")
	}
	if pr.sideProbe, err = prepareProbe(sc, client, first); err != nil {
		return nil, err
	}
	sched, replay, err := runSchedule(sc, stream.Len(), stream.All())
	if err != nil {
		return nil, err
	}
	if rel := stream.Releaser(sc.Seed); rel != nil {
		// A conversations run: its conversations arrive by the run's
		// arrival process; each later turn is released once the one
		// before it has answered (and its think time has passed).
		arrivals, err := schedule.NewCursor(scheduleSpec(sc), rel.Conversations(), arrivalSeed(sc))
		if err != nil {
			return nil, err
		}
		rel.Start(ctx, arrivals.Next)
		sched, pr.releaser = rel, rel
	}
	if shardOf(sc).Count > 1 {
		if pr.releaser != nil || stream.WantsFeedback() {
			return nil, unsupported("load.shard: a conversations run cannot be split over clients yet (each conversation's turns wait on its earlier answers, which another shard would hold)")
		}
		if shardOf(sc).Index != 0 {
			pr.sideProbe = nil // shard 0 alone sends the probes
		}
	}
	total := stream.Len()
	seq, n, plan, err := stripe(sc, sched, total)
	if err != nil {
		return nil, err
	}
	sched, pr.plan = seq, plan
	pr.client, pr.stream, pr.lora, pr.probe, pr.maxConc = client, stream, loraAssigner(sc.Target, pyGlobal), probe, maxConc
	pr.sched, pr.n, pr.replay = sched, n, replay
	return pr, nil
}

// execute runs a prepared run: the ready check, the warmups, the timed
// run through the dispatcher with its sinks (the records file, the metrics
// accumulator, the progress bar), then the reports. exp, when not nil, is
// saved as the "experiment" member of the result's "vbench" object.
func (pr *preparedRun) execute(ctx context.Context, env Env, exp json.RawMessage) (*Outcome, error) {
	sc, tok, tokName, tgt, client := pr.sc, pr.tok, pr.tokName, pr.tgt, pr.client
	probe, n, maxConc := pr.probe, pr.n, pr.maxConc
	obs := env.observer()
	obs.ReadyCheck(report.ReadyStarting, 0)
	if err := readyCheck(ctx, sc, client, probe, env); err != nil {
		return nil, err
	}
	if n := sc.Load.NumWarmups; n > 0 {
		obs.Warmup(n, false)
		sendAll(ctx, client, probe[0], n, maxConc)
		obs.Warmup(n, true)
	}

	steady := steadyOptions(sc, maxConc)
	acc := metrics.NewAccumulator(metrics.Options{
		PercentileMetrics: sc.Metrics.PercentileMetrics,
		Percentiles:       sc.Metrics.MetricPercentiles,
		Goodput:           sc.Metrics.Goodput,
		CountTokens:       countTokens(tok),
		AccountTokens:     tok != nil && !scenario.Pooling(sc.Target.Backend),
		MaxConcurrencySet: maxConc > 0,
		RequestRateFinite: !sc.Load.RequestRate.IsInf(),
		Pooling:           scenario.Pooling(sc.Target.Backend),
		SteadyState:       steady,
		SpillDir:          os.TempDir(),
	})
	defer acc.Release()
	// The fold's spill files are made before the profiler starts: a
	// failure here leaves nothing running on the server.
	if err := acc.Err(); err != nil {
		return nil, fmt.Errorf("%w (set TMPDIR to a writable directory)", err)
	}
	// The output files are named, and the records file opened, before the
	// run (and before the profiler starts, so that a failure here leaves
	// nothing running on the server): the records stream into the file as
	// they complete. A computed name, or an explicit one that was free
	// before the run (checkOutput) and may not be replaced, is never
	// overwritten; an experiment's planned names were checked by
	// checkPlanOutput.
	o := sc.Output
	fresh := !o.AppendResult && (o.ResultFilename == "" || (!o.Overwrite && exp == nil))
	files, recFile, err := claimFiles(sc, planFiles(sc, tgt.modelID, env.Now(), env.Argv), fresh, obs.Diagnostic)
	if err != nil {
		return nil, err
	}

	traffic := report.Traffic{RequestRate: float64(sc.Load.RequestRate), Burstiness: float64(sc.Load.Burstiness), MaxConcurrency: maxConc,
		ProbeRate: float64(sc.Load.ProbeRequestRate)}
	if r := sc.Load.RampUp; r != nil {
		traffic.RampUp = &report.RampUp{Strategy: r.Strategy, StartRPS: r.StartRPS, EndRPS: r.EndRPS}
	}
	if sc.Target.ProfileBatchThreshold <= 0 { // else started during the run
		traffic.Profile = pr.profile(ctx, env, "/start_profile")
	}
	traffic.SelfTimed = selfTimed(sc)
	if w := selfTimedIgnored(sc); w != "" && env.Argv == nil {
		obs.Diagnostic(w)
	}
	obs.Traffic(traffic)
	// vLLM scrapes /metrics after the traffic lines, before the clock
	// starts.
	server := newServerScrape(sc, tgt.base, env.observer().Diagnostic)
	server.start(ctx)
	sampler := newServerSampler(ctx, sc, tgt.base, env.Argv != nil, recFile)

	// Open the connections the first wave will use before the clock starts.
	if err := client.Preconnect(ctx, probeConns(preconnectWave(sc, n, pr.replay, maxConc), maxConc, pr.sideProbe != nil)); err != nil {
		obs.Diagnostic(fmt.Sprintf("warning: %v", err))
	}
	// The window renders the first payloads, and the dataset's garbage is
	// collected, before the clock starts.
	// What the dataset prints while the run pulls from it waits for the
	// run's end.
	pr.datasetLog.holding = true
	pr.window = startWindow(ctx, client, pr.stream, pr.lora, pr.plan.owns)
	pr.window.wait(ctx)
	// The model lookup's and the alignment's connections are not held
	// through the run (a later alignment dials again).
	pr.ep.closeIdle()
	if recFile != nil {
		recFile.Annotate(func(h *record.Header) { h.ModelID, h.TokenizerID = tgt.modelID, tokName })
	}
	// A shard measures its clock and places the agreed start on it, then
	// waits for it, before the progress display and the early stop start
	// their clocks. A shard that cannot start (too late, or interrupted
	// while it waits) leaves nothing behind: the profiler is stopped and
	// the records file, which holds nothing yet, removed.
	startAt, err := pr.shardRun.beforeRun(ctx, obs.Diagnostic)
	if err == nil {
		if recFile != nil {
			recFile.Annotate(pr.shardRun.annotate)
		}
		// From here the dataset makes its requests on one core while the
		// window is well ahead (see datasetWorkers).
		pr.clockStarted.Store(true)
		runtime.GC()
		err = waitStart(ctx, startAt)
	}
	if err != nil {
		pr.window.stop()
		sampler.stop()
		if traffic.Profile != report.ProfilerOff {
			pr.profile(ctx, env, "/stop_profile")
		}
		if recFile != nil {
			_ = recFile.Close()
			_ = os.Remove(recFile.Path())
		}
		return nil, err
	}
	// The progress reporter starts last: its heartbeat counts the run's
	// time only, and nothing else writes to stderr while it runs.
	display := progress.New(env.Stderr, n, sc.Output.DisableTqdm, &pr.activity)
	ramp := newRampLog(sc, pr.plan.total)
	sinks := []run.Sink{pr.plan.local(acc.Add), run.SinkFunc(display.Done), ramp}
	if recFile != nil {
		sinks = append([]run.Sink{recFile}, sinks...)
	}
	if sampler != nil { // after the records file, which writes its header first
		sinks = append(sinks, sampler)
	}
	if pr.stream.WantsFeedback() { // first: a later request waits on it
		sinks = append([]run.Sink{run.SinkFunc(func(rec *record.Record) { pr.stream.Feedback(answerOf(rec)) })}, sinks...)
	}
	// A records file that cannot be written (a full disk) stops the run:
	// its requests would be measured and lost. What was written stays,
	// and the results are written as for an interrupted run.
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	if pr.releaser != nil {
		// A stopped run stops waiting for a conversation's next turn.
		defer context.AfterFunc(runCtx, pr.releaser.End)()
	}
	if recFile != nil {
		recFile.OnError(func(error) { stopRun(errRecordsFailed) })
	}
	// load.early_stop (or a search's failure-rate SLO) may end the run
	// once its outcome is settled.
	if stopper := newEarlyStopper(sc, n, pr.activity.InFlight, stopRun); stopper != nil {
		sinks = append(sinks, stopper)
		stopper.run(runCtx)
		defer stopper.close()
	}
	// The timeline draws every request: only then are the records kept.
	keep := sc.Output.PlotTimeline || env.KeepRecords
	var skipped atomic.Int64 // requests the dataset said not to send (an ended conversation's turns)
	turns := &turnStats{}
	sinks = append(sinks, turns)
	profiler := pr.startThresholdProfiler(runCtx, env)
	res := run.RunWith(runCtx, run.Plan{Schedule: pr.sched, MaxConcurrency: maxConc, Sinks: sinks, Probe: runProbe(sc, client, pr.sideProbe), Discard: !keep,
		Index: pr.plan.index, StartAt: startAt},
		pr.window.take,
		func(ctx context.Context, p *backend.Prepared, rec *record.Record, now func() time.Duration) {
			if p == nil {
				rec.Start = now()
				rec.Error = "request not sent: its payload could not be made (see the run's error)"
				return
			}
			rec.Conversation, rec.Turn = p.Conversation()
			if why := p.NotSent(); why != "" {
				rec.Start, rec.Error, rec.NotSent = now(), why, true
				skipped.Add(1)
				return
			}
			pr.activity.Send(now, func() { client.Send(ctx, p, rec, now) })
		})

	pr.window.stop()
	profiler.finish(env, sc.Target.ProfileBatchThreshold)
	samples := sampler.stop()
	display.Finish()
	pr.datasetLog.flush()
	pr.shardRun.afterRun(ctx, obs.Diagnostic)
	var recErr error
	if recFile != nil {
		recFile.End(record.RunEnd{DurationNs: int64(res.Duration), Planned: n, Sent: res.Sent, Interrupted: res.Interrupted, ClockAfter: pr.shardRun.clockAfter()})
		if recErr = recFile.Close(); recErr != nil {
			recErr = fmt.Errorf("writing the records: %w", recErr)
		}
	}
	// A request that could not be made fails the run, after its results
	// are written.
	var windowErr error
	if err := pr.window.err(); err != nil {
		windowErr = fmt.Errorf("making the requests: %w", err)
	}

	sum, err := acc.Close(res.Duration)
	if err != nil {
		return nil, fmt.Errorf("folding the run's records (the records file, when saved, holds every one): %w", err)
	}
	tokAcct := acc.TokenAccounting()
	if srv, ok := tok.(*tokenizer.Server); ok && srv.Err() != nil {
		obs.Diagnostic(fmt.Sprintf("warning: no token accounting: the server's tokenizer failed while counting the outputs: %v", srv.Err()))
		tokAcct = nil
	}
	if files.result != "" || sc.Output.PlotDatasetStats {
		if err := acc.Arrays(sum, sc.Output.SaveDetailed || sc.Output.PlotDatasetStats); err != nil {
			return nil, fmt.Errorf("reading the run's records back: %w", err)
		}
	}
	profileStop := report.ProfilerOff
	if traffic.Profile != report.ProfilerOff {
		profileStop = pr.profile(ctx, env, "/stop_profile")
	}
	load := res.Load()
	load.WithSimulator = sc.Target.Simulator != nil
	out := &Outcome{Summary: sum, Records: res.Records, Interrupted: res.Interrupted, NotSent: res.NotSent(), EndedTurns: int(skipped.Load()), experiment: exp,
		Health: run.HealthOf(run.Lags(acc.Lags()), load), Probe: metrics.ComputeProbe(res.Probes), TokenAccounting: tokAcct, ServerSamples: samples}
	out.Conversations = turns.json(out.EndedTurns)
	var early *EarlyStop
	if res.Interrupted && errors.As(context.Cause(runCtx), &early) {
		// Not interrupted: the run ended as its scenario asked.
		out.Interrupted, out.StoppedEarly = false, early
		obs.Diagnostic(fmt.Sprintf("Stopped early after %.1f s, %d of %d requests sent: %s", early.AfterS, res.Sent, n, early.Reason))
	}
	if note := probeNote(res.Probes, out.Probe); note != "" {
		obs.Diagnostic(note)
	}
	server.finish(ctx, sum.Duration, out)
	var rampEvents []report.RPSChangeEvent
	if pr.plan.owns == nil { // a shard's events are the merged run's (vbench merge)
		rampEvents = ramp.events(res)
	}
	err = writeReports(sc, tgt, tokName, sum, res, rampEvents, files, fresh, recErr, profileStop, env, out)
	obs.Health(notSentText(out.NotSent, n) + endedTurnsText(out.EndedTurns, n) + turns.line() + steadyLine(steady, sum.SteadyState) + reasoningLine(sum.Reasoning) + prefixCacheLine(out.PrefixCache) + tokenAccountingLine(out.TokenAccounting, tokName) + serverSamplesLine(out.ServerSamples) + healthLines(out.Health))
	var stopErr error
	if res.Interrupted && out.StoppedEarly == nil {
		stopErr = fmt.Errorf("run interrupted after %d of %d requests were sent: %w", res.Sent-out.EndedTurns, n, context.Cause(runCtx))
	}
	if err := errors.Join(stopErr, windowErr, err); err != nil {
		return out, err
	}
	if sum.Completed == 0 && out.StoppedEarly == nil { // a run stopped early says why instead
		return out, fmt.Errorf("%w: this is likely due to a misconfiguration of the benchmark arguments (first error: %s)", ErrAllFailed, firstError(sum))
	}
	return out, nil
}

// errRecordsFailed stops a run whose records file could not be written;
// the write's own error follows it in the run's error.
var errRecordsFailed = errors.New("the records file could not be written")

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

// openDataset opens the scenario's dataset through its registry entry,
// which may align the prompts with the server's tokenizer as vLLM does;
// beforeServer is called before the server's tokenizer is first asked for.
// workers says how many cores the stream may use to make requests
// (dataset.Env.Workers).
func openDataset(ctx context.Context, sc *scenario.Scenario, tok tokenizer.Tokenizer, tgt *target, env Env, pyGlobal *numpy.PyRandom, beforeServer func(), workers func() int) (*dataset.Stream, error) {
	server := alignServer(tgt, env)
	denv := datasetEnv(sc, tok, pyGlobal, requestIDPrefix(sc), func() (dataset.ServerTokenizer, error) {
		beforeServer()
		return server()
	}, env.observer())
	denv.Workers = workers
	return dataset.Open(ctx, sc.Dataset, denv)
}

// datasetWorkers is how many cores the dataset may use to make its next
// requests (dataset.Env.Workers): every core before the run's clock
// starts, and while the window runs low (the run is then waiting for
// requests to be made); otherwise one, so that making requests in bursts
// on every core does not delay the reads the run times.
func (pr *preparedRun) datasetWorkers() int {
	if !pr.clockStarted.Load() || pr.window.low() {
		return runtime.GOMAXPROCS(0)
	}
	return 1
}

// readyCheck sends request 0 until it succeeds, retrying every 5 s for up
// to ready_check_timeout_sec; 0 skips the check (vLLM's default).
func readyCheck(ctx context.Context, sc *scenario.Scenario, c *backend.Client, probe []backend.Prepared, env Env) error {
	timeout := time.Duration(sc.Load.ReadyCheckTimeoutSec) * time.Second
	if timeout <= 0 {
		env.observer().ReadyCheck(report.ReadySkipped, 0)
		return nil
	}
	env.observer().ReadyCheck(report.ReadyWaiting, sc.Load.ReadyCheckTimeoutSec)
	deadline := time.Now().Add(timeout)
	for {
		rec := sendAll(ctx, c, probe[0], 1, 0)[0]
		if rec.Success {
			env.observer().ReadyCheck(report.ReadyDone, 0)
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

// answerOf is a finished request's answer, for a dataset that asks for
// feedback.
func answerOf(rec *record.Record) dataset.Answer {
	a := dataset.Answer{Index: rec.Index, Success: rec.Success, Error: rec.Error, Text: rec.GeneratedText,
		PromptTokens: rec.PromptLen, OutputTokens: rec.OutputTokens, End: rec.End}
	if len(rec.Chunks) > 0 {
		a.TTFT = rec.Chunks[0] - rec.Start
	}
	if rec.End > 0 {
		a.Latency = rec.End - rec.Start
	}
	return a
}

// firstError is the text of the run's first failure, in request order.
func firstError(sum *metrics.Summary) string {
	if len(sum.FailureErrors) > 0 {
		return sum.FailureErrors[0]
	}
	return "none"
}
