// Package calibrate measures vbench's own timing error and overhead on this
// host: it runs closed-loop benchmarks at several concurrencies against a
// simulator with a known latency model (by default `vbench sim` started as
// a separate process), through the same backend and run code as real runs,
// and compares what the client reports with the truth. The simulator's own
// lateness (scraped from its /metrics before and after each step) is
// reported next to the error, so server-side delays are not blamed on the
// client; the client's CPU time, peak RSS and send lag are reported too.
package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/kfloor"
	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/version"
)

// Config is one calibration.
type Config struct {
	// Target is the base URL of a running simulator; "" starts one.
	Target string
	// Executable is the vbench binary started as `Executable sim ...` when
	// Target is ""; "" means os.Executable().
	Executable string
	// Concurrency lists the closed-loop concurrencies, one step each.
	Concurrency []int
	// TTFT, ITL and OutputLen are the latency model: the truth the client's
	// numbers are compared with. With Target set they must match the
	// simulator's settings (and its prefill cost must be 0).
	TTFT, ITL time.Duration
	OutputLen int
	// Duration is the approximate length of each step when Requests is 0:
	// each of the c streams sends about Duration / (TTFT + (OutputLen−1)·ITL)
	// requests back to back.
	Duration time.Duration
	// Requests, when positive, is the number of requests of every step.
	Requests int
	// SimNice is the niceness (0–19) the simulator calibrate starts runs
	// at; unused with Target. On a host the two processes share, a
	// lower-priority simulator absorbs the CPU contention: its lateness
	// grows, and is measured and set apart, while the client, the
	// instrument under test, runs as it would beside a remote server.
	// Applied on Linux only.
	SimNice int
	// Burst starts every stream of a step at once, as vLLM's
	// --request-rate inf does; by default the streams are evenly phased
	// (see offsets), so their token events are spread in time, as
	// independent users' would be.
	Burst bool
	// Out receives the table of each step as it completes; Progress
	// receives progress lines. Either may be nil.
	Out, Progress io.Writer
}

// DefaultConfig is `vbench calibrate` without flags.
func DefaultConfig() Config {
	return Config{
		Concurrency: []int{1, 100, 500, 1000},
		TTFT:        50 * time.Millisecond,
		ITL:         10 * time.Millisecond,
		OutputLen:   64,
		Duration:    10 * time.Second,
		SimNice:     DefaultSimNice,
	}
}

// DefaultSimNice is the simulator's default niceness (see Config.SimNice).
const DefaultSimNice = 5

// Validate reports every invalid field, naming its flag.
func (c *Config) Validate() error {
	var errs []error
	if len(c.Concurrency) == 0 {
		errs = append(errs, errors.New("--concurrency: give at least one concurrency"))
	}
	for _, n := range c.Concurrency {
		if n < 1 {
			errs = append(errs, fmt.Errorf("--concurrency: %d is not a positive integer", n))
		}
	}
	if c.TTFT < 0 || c.ITL < 0 {
		errs = append(errs, fmt.Errorf("--ttft and --itl must not be negative (got %v and %v)", c.TTFT, c.ITL))
	}
	if c.OutputLen < 1 {
		errs = append(errs, fmt.Errorf("--output-len must be at least 1, got %d", c.OutputLen))
	}
	if c.Requests < 0 {
		errs = append(errs, fmt.Errorf("--requests must not be negative, got %d", c.Requests))
	}
	if c.SimNice < 0 || c.SimNice > 19 {
		errs = append(errs, fmt.Errorf("--sim-nice must be between 0 and 19, got %d", c.SimNice))
	}
	if c.Requests == 0 && c.Duration <= 0 {
		errs = append(errs, fmt.Errorf("--duration must be positive (or set --requests), got %v", c.Duration))
	}
	return errors.Join(errs...)
}

// requestsFor is the number of requests of the step at concurrency c.
func (c *Config) requestsFor(conc int) int {
	if c.Requests > 0 {
		return c.Requests
	}
	e2e := c.requestTime()
	rounds := 1
	if e2e > 0 {
		rounds = max(1, int((c.Duration+e2e/2)/e2e))
	}
	return conc * rounds
}

// requestTime is one request's duration under the latency model.
func (c *Config) requestTime() time.Duration {
	return c.TTFT + time.Duration(c.OutputLen-1)*c.ITL
}

// offsets is the step's schedule of n requests for conc streams: request i
// is due at i/conc of one request's duration, the time stream i mod conc
// would free up if every request took exactly the model's time. So the
// streams are evenly phased (their token events spread in time, as
// independent users' are), each stream sends its requests back to back
// (a request due before its stream is free waits in the client queue), and
// the dispatcher's send lag measures how precisely it releases them. With
// Burst every request is due at 0, as with vLLM's --request-rate inf.
func (c *Config) offsets(n, conc int) []time.Duration {
	out := make([]time.Duration, n)
	if c.Burst {
		return out
	}
	period := c.requestTime()
	for i := range out {
		out[i] = time.Duration(float64(period) * float64(i) / float64(conc))
	}
	return out
}

// Report is a whole calibration, as written by --json.
type Report struct {
	// Version is vbench's version.
	Version string `json:"vbench_version"`
	// Target is the simulator's base URL.
	Target string `json:"target"`
	// SeparateProcess reports that calibrate started the simulator as a
	// child process (false with --target).
	SeparateProcess bool `json:"simulator_started"`
	// SimNice is the niceness the started simulator runs at (-1 when it
	// could not be set, or calibrate did not start it).
	SimNice int `json:"simulator_nice"`
	// TTFTMs, ITLMs and OutputLen are the latency model (the truth).
	TTFTMs    float64 `json:"ttft_ms"`
	ITLMs     float64 `json:"itl_ms"`
	OutputLen int     `json:"output_len"`
	// Start is "staggered" or "burst" (see Config.Burst).
	Start string `json:"start"`
	// GOMAXPROCS and NumCPU describe the client's CPUs.
	GOMAXPROCS int `json:"gomaxprocs"`
	NumCPU     int `json:"num_cpu"`
	// KernelFloor is what this host's kernel charges for one token event
	// on loopback (see package kfloor), measured before the first step;
	// nil when it could not be measured.
	KernelFloor *kfloor.Floor `json:"kernel_floor,omitempty"`
	// Steps has one entry per concurrency, in order.
	Steps []*Step `json:"steps"`
}

// Step is the result at one concurrency.
type Step struct {
	// Concurrency is the number of concurrent streams (closed loop).
	Concurrency int `json:"concurrency"`
	// Requests, Completed and Failed count the step's requests.
	Requests  int `json:"requests"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	// FirstError is the first failed request's error.
	FirstError string `json:"first_error,omitempty"`
	// Events is the number of token events received.
	Events int `json:"events"`
	// DurationS is the step's benchmark duration in seconds.
	DurationS float64 `json:"duration_s"`
	// LoadAverageBefore and LoadAverageAfter are the host's load average
	// (1, 5, 15 min) before and after the step, from /proc/loadavg.
	LoadAverageBefore string `json:"load_average_before,omitempty"`
	LoadAverageAfter  string `json:"load_average_after,omitempty"`
	// TTFT and ITL compare the client's numbers with the truth.
	TTFT TTFTStats `json:"ttft_ms"`
	ITL  ITLStats  `json:"itl_ms"`
	// Request splits the time before the simulator's clock for a request
	// starts.
	Request RequestPath `json:"request_ms"`
	// Sim is the simulator's own lateness during the step; nil when the
	// target does not report it.
	Sim *SimLateness `json:"simulator,omitempty"`
	// SimCPUSeconds is the CPU time the simulator process used during the
	// step (when calibrate started it, on Linux; 0 otherwise), and
	// SimCPUUserS and SimCPUSystemS its user and system parts.
	SimCPUSeconds float64 `json:"simulator_cpu_s,omitempty"`
	SimCPUUserS   float64 `json:"simulator_cpu_user_s,omitempty"`
	SimCPUSystemS float64 `json:"simulator_cpu_system_s,omitempty"`
	// ClientExcess is the error the simulator's lateness does not explain;
	// nil without Sim.
	ClientExcess *Excess `json:"client_excess_ms,omitempty"`
	// Client is the client's own resource use.
	Client Client `json:"client"`
}

// TTFTStats is the reported time to first token against the truth, in ms.
type TTFTStats struct {
	// Mean and P99 are the client's reported statistics.
	Mean float64 `json:"mean"`
	P99  float64 `json:"p99"`
	// Truth is the configured TTFT.
	Truth float64 `json:"truth"`
	// MeanError and P99Error are the reported values minus the truth.
	MeanError float64 `json:"mean_error"`
	P99Error  float64 `json:"p99_error"`
}

// ITLStats is the reported inter-token latency against the truth, in ms.
type ITLStats struct {
	// Mean, Std and P99 are the client's reported statistics.
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	P99  float64 `json:"p99"`
	// Truth is the configured ITL (whose true std is 0).
	Truth float64 `json:"truth"`
	// MeanError and P99Error are the reported values minus the truth.
	MeanError float64 `json:"mean_error"`
	P99Error  float64 `json:"p99_error"`
}

// Excess is the part of the error the simulator does not explain, in ms:
// the client's (and the network's) own contribution.
type Excess struct {
	// TTFTMean is the mean TTFT error minus the simulator's mean
	// first-token lateness.
	TTFTMean float64 `json:"ttft_mean"`
	// ITLStd is the reported ITL std minus the std of the ITL the
	// simulator actually wrote.
	ITLStd float64 `json:"itl_std"`
}

// Client is the client's resource use during one step.
type Client struct {
	// CPUUserS and CPUSystemS are the process's CPU seconds (getrusage
	// RUSAGE_SELF deltas over the step), CPUSeconds their sum.
	CPUUserS   float64 `json:"cpu_user_s"`
	CPUSystemS float64 `json:"cpu_system_s"`
	CPUSeconds float64 `json:"cpu_s"`
	// CPUPer1000Events is CPUSeconds per 1000 token events.
	CPUPer1000Events float64 `json:"cpu_s_per_1000_events"`
	// CPUFraction is CPUSeconds / (duration × GOMAXPROCS).
	CPUFraction float64 `json:"cpu_fraction"`
	// PeakRSSBytes is the client's peak resident set size; PeakRSSScope
	// says whether it is the peak of the step's streaming phase ("step",
	// Linux: from a collected heap to the last response) or the process's
	// high-water mark so far ("process").
	PeakRSSBytes int64  `json:"peak_rss_bytes"`
	PeakRSSScope string `json:"peak_rss_scope"`
	// GCCycles and GCPauseMs are the garbage collections during the step.
	GCCycles  int64   `json:"gc_cycles"`
	GCPauseMs float64 `json:"gc_pause_ms"`
	// HostCPUBusy is the busy share of the whole host's CPU during the
	// step (client, simulator and anything else), or -1 when unknown.
	HostCPUBusy float64 `json:"host_cpu_busy"`
	// SendLag is Released−Intended in ms.
	SendLag SendLag `json:"send_lag_ms"`
	// Warnings are the client-health warnings (see run.ComputeHealth).
	Warnings []string `json:"warnings,omitempty"`
}

// Spread is a mean, 99th percentile (numpy's linear interpolation) and
// maximum, in ms.
type Spread struct {
	// Mean is the mean, in ms.
	Mean float64 `json:"mean"`
	// P99 is the 99th percentile, in ms.
	P99 float64 `json:"p99"`
	// Max is the maximum, in ms.
	Max float64 `json:"max"`
}

// RequestPath times a request's way to the simulator's handler, whose
// start the simulator signals by sending the response headers at once. Each
// is a Spread over the successful requests, in ms, from the client's trace
// (net/http/httptrace).
type RequestPath struct {
	// Written is from the request's start to the end of writing it: the
	// client's own send path.
	Written Spread `json:"start_to_written"`
	// WrittenToHeader is from then until the response headers arrived:
	// the server's way to its handler, the network, and the client's read
	// of the headers.
	WrittenToHeader Spread `json:"written_to_headers"`
	// StartToHeader is the sum: the part of the TTFT before the
	// simulator's clock starts.
	StartToHeader Spread `json:"start_to_headers"`
}

// spread is the Spread of d over the successful records.
func spread(recs []*record.Record, d func(*record.Record) time.Duration) Spread {
	var v []float64
	for _, r := range recs {
		if r.Success {
			v = append(v, d(r).Seconds())
		}
	}
	if len(v) == 0 {
		return Spread{}
	}
	m := metrics.Describe("", v, []float64{99, 100})
	return Spread{Mean: m.Mean, P99: m.Percentiles[0].Value, Max: m.Percentiles[1].Value}
}

// SendLag holds send-lag percentiles in ms.
type SendLag struct {
	// P50 is the median send lag, in ms.
	P50 float64 `json:"p50"`
	// P99 is the 99th-percentile send lag, in ms.
	P99 float64 `json:"p99"`
	// Max is the largest send lag, in ms.
	Max float64 `json:"max"`
}

// Run performs the calibration: it starts the simulator unless cfg.Target
// is set, then runs one step per concurrency, writing each step's table to
// cfg.Out as it completes. It returns the report so far with any error.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	out, progress := cfg.Out, cfg.Progress
	if out == nil {
		out = io.Discard
	}
	if progress == nil {
		progress = io.Discard
	}
	rep := &Report{
		Version: version.Version, TTFTMs: ms(cfg.TTFT), ITLMs: ms(cfg.ITL), OutputLen: cfg.OutputLen,
		GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(), Start: "staggered", SimNice: -1,
	}
	if cfg.Burst {
		rep.Start = "burst"
	}
	base := strings.TrimSuffix(cfg.Target, "/")
	simPid := 0
	if base == "" {
		exe := cfg.Executable
		if exe == "" {
			var err error
			if exe, err = os.Executable(); err != nil {
				return nil, fmt.Errorf("finding the vbench executable to start the simulator: %w", err)
			}
		}
		proc, err := StartSim(ctx, exe, cfg)
		if err != nil {
			return nil, err
		}
		defer proc.Close()
		base = proc.URL
		rep.SeparateProcess = true
		rep.SimNice = proc.Nice
		simPid = proc.Pid()
		nice := ""
		if proc.Nice > 0 {
			nice = fmt.Sprintf(" at nice %d (lower CPU priority than the client; see --sim-nice)", proc.Nice)
		}
		fmt.Fprintf(progress, "Started vbench sim (pid %d) on %s%s\n", proc.Pid(), base, nice)
	}
	rep.Target = base
	api, err := backend.NewServerAPI(base, "", nil, false, "")
	if err != nil {
		return rep, err
	}
	model, _, err := api.Models(ctx)
	if err != nil {
		return rep, err
	}
	how := fmt.Sprintf("streams staggered over %v", cfg.requestTime())
	if cfg.Burst {
		how = "all streams started at once"
	}
	fmt.Fprintf(out, "Calibration against %s: TTFT %v, ITL %v, %d output tokens, closed loop (%s); client GOMAXPROCS %d\n",
		base, cfg.TTFT, cfg.ITL, cfg.OutputLen, how, rep.GOMAXPROCS)
	if f, err := kfloor.Measure(floorConns, floorRounds, floorNullCalls); err != nil {
		fmt.Fprintf(progress, "warning: the kernel floor was not measured: %v\n", err)
	} else {
		rep.KernelFloor = &f
		writeFloor(out, &f)
	}
	hc := &http.Client{Timeout: scrapeTimeout}
	for _, c := range cfg.Concurrency {
		fmt.Fprintf(progress, "Calibrating at concurrency %d (%d requests)...\n", c, cfg.requestsFor(c))
		st, err := runStep(ctx, &cfg, base, model, c, hc, simPid, progress)
		if err != nil {
			return rep, fmt.Errorf("concurrency %d: %w", c, err)
		}
		rep.Steps = append(rep.Steps, st)
		if err := writeStep(out, st, rep.GOMAXPROCS); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// The kernel floor's measurement: 256 connections, 64 counted rounds and
// 100,000 null system calls on each CPU (about 0.3 s per CPU on a host
// where an event costs 10 µs; at most kfloor.MaxCPUs CPUs).
const (
	floorConns     = 256
	floorRounds    = 64
	floorNullCalls = 100_000
)

// probeTimeout bounds the request that checks the target before a step.
const probeTimeout = time.Minute

// runStep runs the closed-loop benchmark at concurrency c.
func runStep(ctx context.Context, cfg *Config, base, model string, c int, hc *http.Client, simPid int, progress io.Writer) (*Step, error) {
	n := cfg.requestsFor(c)
	client, err := backend.New(backend.Config{
		Backend: "openai", URL: base + "/v1/completions", Model: model, IgnoreEOS: true, MaxConns: c,
	})
	if err != nil {
		return nil, err
	}
	defer client.Close()
	reqs := make([]dataset.Request, n)
	for i := range reqs {
		reqs[i] = dataset.Request{Prompt: "vbench calibrate", PromptLen: 2, OutputLen: cfg.OutputLen,
			ID: fmt.Sprintf("calibrate-c%d-%d", c, i)}
	}
	prepared, err := client.Prepare(reqs, true)
	if err != nil {
		return nil, err
	}
	// One request first: the target works, and its connection is warm.
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	var probe record.Record
	start := time.Now()
	client.Send(pctx, &prepared[0], &probe, func() time.Duration { return time.Since(start) })
	cancel()
	if !probe.Success {
		return nil, fmt.Errorf("the probe request failed: %s", probe.Error)
	}
	if err := client.Preconnect(ctx, min(c, n)); err != nil {
		fmt.Fprintf(progress, "warning: %v\n", err)
	}
	st := &Step{Concurrency: c, Requests: n, LoadAverageBefore: loadAverage()}
	// Start from a collected heap, returned to the OS, so the peak RSS is
	// this step's.
	runtime.GC()
	debug.FreeOSMemory()
	stepRSS := resetPeakRSS()
	before, serr := scrape(ctx, hc, base)
	if serr != nil && !errors.Is(serr, errNotSim) {
		return nil, serr
	}
	var simUser0, simSys0 time.Duration
	simCPU := false
	if simPid > 0 {
		simUser0, simSys0, simCPU = processCPU(simPid)
	}
	// The time each response's headers arrived: the simulator sends them
	// as its handler starts, so Start→headers is the request's way to the
	// handler and the headers' way back (client and server both).
	// WroteRequest splits that into the client's part (writing the
	// request) and the rest.
	headers, wrote := make([]time.Duration, n), make([]time.Duration, n)
	res := run.Run(ctx, run.Plan{Offsets: cfg.offsets(n, c), MaxConcurrency: c},
		run.SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
			trace := &httptrace.ClientTrace{
				WroteRequest:         func(httptrace.WroteRequestInfo) { wrote[i] = now() },
				GotFirstResponseByte: func() { headers[i] = now() },
			}
			client.Send(httptrace.WithClientTrace(ctx, trace), &prepared[i], rec, now)
		}))
	rss := peakRSS() // the streaming phase's peak, before the metrics fold
	if simCPU {
		if u, s, ok := processCPU(simPid); ok {
			st.SimCPUUserS, st.SimCPUSystemS = (u - simUser0).Seconds(), (s - simSys0).Seconds()
			st.SimCPUSeconds = st.SimCPUUserS + st.SimCPUSystemS
		}
	}
	if res.Interrupted {
		return nil, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	var after simSnapshot
	if serr == nil {
		if after, serr = scrape(ctx, hc, base); serr != nil {
			return nil, serr
		}
	}
	st.LoadAverageAfter = loadAverage()
	if errors.Is(serr, errNotSim) {
		fmt.Fprintf(progress, "warning: %v: the simulator's own lateness is not reported\n", serr)
	}
	if !stepRSS {
		rss = 0
	}
	fill(st, cfg, res, serr == nil, before, after, rss)
	st.Request = RequestPath{
		Written:         spread(res.Records, func(r *record.Record) time.Duration { return wrote[r.Index] - r.Start }),
		WrittenToHeader: spread(res.Records, func(r *record.Record) time.Duration { return headers[r.Index] - wrote[r.Index] }),
		StartToHeader:   spread(res.Records, func(r *record.Record) time.Duration { return headers[r.Index] - r.Start }),
	}
	return st, nil
}

// fill computes a step's numbers from the run and the two scrapes.
func fill(st *Step, cfg *Config, res *run.Result, haveSim bool, before, after simSnapshot, stepRSS int64) {
	sum := metrics.Compute(res.Records, res.Duration, metrics.Options{
		PercentileMetrics: []string{metrics.TTFT, metrics.ITL},
		Percentiles:       []float64{99},
		// The simulator reports usage, so this fallback counter is never
		// consulted; it only marks the token metrics as applicable.
		CountTokens: func(s string) int { return len(strings.Fields(s)) },
	})
	st.Completed, st.Failed, st.DurationS = sum.Completed, sum.Failed, sum.Duration
	if len(sum.FailureErrors) > 0 {
		st.FirstError = sum.FailureErrors[0]
	}
	for _, r := range res.Records {
		st.Events += len(r.Chunks)
	}
	truthTTFT, truthITL := ms(cfg.TTFT), ms(cfg.ITL)
	if m, ok := sum.Metric(metrics.TTFT); ok {
		st.TTFT = TTFTStats{Mean: m.Mean, P99: p99(m), Truth: truthTTFT, MeanError: m.Mean - truthTTFT, P99Error: p99(m) - truthTTFT}
	}
	if m, ok := sum.Metric(metrics.ITL); ok {
		st.ITL = ITLStats{Mean: m.Mean, Std: m.Std, P99: p99(m), Truth: truthITL, MeanError: m.Mean - truthITL, P99Error: p99(m) - truthITL}
	}
	if haveSim {
		sim := simDelta(before, after)
		st.Sim = &sim
		st.ClientExcess = &Excess{TTFTMean: st.TTFT.MeanError - sim.FirstToken.Mean, ITLStd: st.ITL.Std - sim.ITL.Std}
	}
	h := res.Health()
	cl := &st.Client
	cl.CPUUserS, cl.CPUSystemS, cl.CPUSeconds = h.CPU.User.Seconds(), h.CPU.System.Seconds(), h.CPU.Total().Seconds()
	if st.Events > 0 {
		cl.CPUPer1000Events = cl.CPUSeconds / float64(st.Events) * 1000
	}
	cl.CPUFraction, cl.HostCPUBusy = h.CPUFraction, h.HostBusy
	cl.PeakRSSBytes, cl.PeakRSSScope = res.CPU.MaxRSS, "process"
	if stepRSS > 0 {
		cl.PeakRSSBytes, cl.PeakRSSScope = stepRSS, "step"
	}
	cl.GCCycles, cl.GCPauseMs = h.GC.Cycles, ms(h.GC.Pause)
	cl.SendLag = SendLag{P50: ms(h.SendLagP50), P99: ms(h.SendLagP99), Max: ms(h.SendLagMax)}
	cl.Warnings = stepWarnings(h)
}

// stepWarnings are a step's client-health warnings: the client's own
// signals (run.Health's Reasons), then, as in vbench run's health lines,
// a saturated host with who kept it busy. A busy host distorts the
// client's timing whoever keeps it busy, so calibrate warns about it
// either way, but it blames other processes when they used most of it.
func stepWarnings(h run.Health) []string {
	w := slices.Clone(h.Reasons)
	switch {
	case h.HostNote == "":
	case h.OthersBusy:
		w = append(w, "other processes kept the host busy ("+h.HostNote+")")
	default:
		w = append(w, h.HostNote)
	}
	return w
}

// p99 is the 99th percentile of m.
func p99(m metrics.MetricStats) float64 {
	for _, p := range m.Percentiles {
		if p.P == 99 {
			return p.Value
		}
	}
	return 0
}

// ms converts d to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
