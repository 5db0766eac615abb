package metrics

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/typo"
)

// This file is the one table of metric definitions. The console block
// (report.WriteConsole), the result JSON (report.BuildResult), the
// experiment summaries, `vbench compare` and the gates read it; `vbench
// vet` uses it (through Setup) to refuse a gate on a metric the
// scenario's enabled sources cannot produce.
//
// To add a metric, add its Def to defs (a latency metric: its Latency to
// latencies, and Compute's rules) and write its value where its source
// computes it: report.BuildResult for a top-level vLLM key, else the
// "vbench" object at Def.Path (experiment.LoadResult reads it back from
// there). Summaries, comparisons and gates then know it. To add a source
// (a server /metrics family), add a Source bit and its Defs, and set the
// bit in experiment.MetricSetup when the scenario enables that source.

// Source is what produces a metric. Sources combine as a bit set (see
// Setup.Sources).
type Source uint8

const (
	// SourceClient is the client's per-request records: every run has it.
	SourceClient Source = 1 << iota
	// SourceServer is the server's Prometheus /metrics, scraped before and
	// after the timed phase (speculative and diffusion decoding, the
	// prefix-cache hit rate).
	SourceServer
	// SourceHealth is the client's own health during the run (send lag,
	// CPU, GC), in the result's "vbench"."client_health" object.
	SourceHealth
	// SourceServerSamples is the server's load gauges sampled every
	// metrics.scrape_interval during the timed phase, in the result's
	// "vbench"."server_timeline" object.
	SourceServerSamples
)

// String names the sources in s, e.g. "client records, client health".
func (s Source) String() string {
	var names []string
	for _, n := range []struct {
		bit  Source
		name string
	}{{SourceClient, "client records"}, {SourceServer, "server /metrics"}, {SourceHealth, "client health"},
		{SourceServerSamples, "server /metrics samples (metrics.scrape_interval)"}} {
		if s&n.bit != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Better is the direction in which a metric improves.
type Better int8

const (
	// BetterNone: the metric has no better direction (peak concurrency, a
	// standard deviation, a count of the workload).
	BetterNone Better = 0
	// BetterLower: a decrease is an improvement (latencies, failures).
	BetterLower Better = -1
	// BetterHigher: an increase is an improvement (throughputs).
	BetterHigher Better = 1
)

// Needs are the run settings, besides its source, that a metric needs to
// be in the result. They combine as a bit set.
type Needs uint16

const (
	// NeedsTokenizer: a client tokenizer (not tokenizer.skip_init).
	NeedsTokenizer Needs = 1 << iota
	// NeedsGoodput: service-level objectives (metrics.goodput).
	NeedsGoodput
	// NeedsMaxConcurrency: a concurrency limit (load.max_concurrency).
	NeedsMaxConcurrency
	// NeedsFiniteRate: a finite request rate.
	NeedsFiniteRate
	// NeedsProbes: side-channel probe requests.
	NeedsProbes
	// NeedsGeneration: a generation backend (completions, chat).
	NeedsGeneration
	// NeedsPooling: a pooling backend (embeddings and the like).
	NeedsPooling
	// NeedsSteadyState: a closed-loop run (a concurrency limit, request
	// rate inf, no ramp-up) with metrics.steady_state on. Its result has
	// the steady-state metrics only when the run had a window.
	NeedsSteadyState
)

// Def is one metric: a number a run reports, that summaries show and
// gates can name.
type Def struct {
	// Key names the metric in gates, summaries and `vbench compare`. For a
	// top-level key of the result JSON it is that key ("output_throughput",
	// "p99_ttft_ms").
	Key string
	// Path is where the value is in the result JSON: [Key] for a top-level
	// key, else the keys from the top, e.g. ["vbench", "client_health",
	// "send_lag_ms", "p99"].
	Path []string
	// Title is vLLM's console label, with its colon, e.g. "Output token
	// throughput (tok/s):"; "" when the console prints no line for it.
	Title string
	// Short is the short name of summary tables and charts, e.g. "output
	// tok/s" or "P99 TTFT (ms)"; "" means the key itself.
	Short string
	// Unit is the unit of the value: "ms", "s", "req/s", "tok/s", "%",
	// "requests", "tokens", ...; "" for a ratio.
	Unit string
	// Better is the direction of an improvement.
	Better Better
	// Headline metrics are the columns of the experiment summaries.
	Headline bool
	// Compared metrics are compared between variants even when no gate
	// names them: the throughputs and the latency statistics but std.
	Compared bool
	// Source is what produces the value (one bit).
	Source Source
	// Needs are the run settings the metric needs besides its source.
	Needs Needs
	// Int is true when the value is an integer (printed as one).
	Int bool
	// List is true when the value is a list (per-position rates), which no
	// gate or summary can use.
	List bool
}

// Label is the name shown in tables: Short, or the key when it has none.
func (d Def) Label() string {
	if d.Short != "" {
		return d.Short
	}
	return d.Key
}

// Gateable reports whether a gate can name the metric: a number.
func (d Def) Gateable() bool { return !d.List }

// Keys of the result JSON and the client-health metrics, for the code that
// fills or reads them.
const (
	KeyDuration              = "duration"
	KeyCompleted             = "completed"
	KeyFailed                = "failed"
	KeyTotalInputTokens      = "total_input_tokens"
	KeyTotalOutputTokens     = "total_output_tokens"
	KeyTotalInputSequences   = "total_input_sequences"
	KeyRequestThroughput     = "request_throughput"
	KeyRequestGoodput        = "request_goodput"
	KeyInputThroughput       = "input_sequence_throughput"
	KeyOutputThroughput      = "output_throughput"
	KeyTotalTokenThroughput  = "total_token_throughput"
	KeyMaxOutputTokensPerS   = "max_output_tokens_per_s"
	KeyMaxConcurrentRequests = "max_concurrent_requests"
	KeyRTFx                  = "rtfx"
	// KeyPeakOverlappingRequests is the true peak of overlapping requests,
	// in the "vbench" object (vLLM's max_concurrent_requests counts
	// one-second bins).
	KeyPeakOverlappingRequests = "peak_overlapping_requests"

	KeyProbeCompleted  = "probe_completed"
	KeyProbeFailed     = "probe_failed"
	KeyProbeMedianE2EL = "probe_median_e2el_ms"
	KeyProbeP99E2EL    = "probe_p99_e2el_ms"
	KeyProbeMaxE2EL    = "probe_max_e2el_ms"

	KeySpecAcceptanceRate   = "spec_decode_acceptance_rate"
	KeySpecAcceptanceLength = "spec_decode_acceptance_length"
	KeySpecNumDrafts        = "spec_decode_num_drafts"
	KeySpecDraftTokens      = "spec_decode_draft_tokens"
	KeySpecAcceptedTokens   = "spec_decode_accepted_tokens"
	KeySpecPerPosition      = "spec_decode_per_position_acceptance_rates"

	KeyDiffusionCommittedThroughput = "diffusion_committed_throughput"
	KeyDiffusionStepsPerCanvas      = "diffusion_steps_per_canvas"
	KeyDiffusionCommittedPerStep    = "diffusion_committed_per_step"
	KeyDiffusionCommittedTokens     = "diffusion_committed_tokens"
	KeyDiffusionDenoisingSteps      = "diffusion_denoising_steps"
	KeyDiffusionCanvasPositions     = "diffusion_canvas_positions"

	KeyPrefixCacheHitRate = "prefix_cache_hit_rate"

	KeyTokenDisagreeingShare  = "token_disagreeing_share"
	KeyTokenMeanAbsDiff       = "token_mean_abs_diff"
	KeyTokenNoServerUsage     = "token_no_server_usage"
	KeyServerKVCacheUsageMax  = "server_kv_cache_usage_max"
	KeyServerKVCacheUsageMean = "server_kv_cache_usage_mean"
	KeyServerRunningMax       = "server_running_max"
	KeyServerRunningMean      = "server_running_mean"
	KeyServerWaitingMax       = "server_waiting_max"
	KeyServerWaitingMean      = "server_waiting_mean"

	KeyClientSendLagP50  = "client_send_lag_p50_ms"
	KeyClientSendLagP99  = "client_send_lag_p99_ms"
	KeyClientSendLagMax  = "client_send_lag_max_ms"
	KeyClientCPUFraction = "client_cpu_fraction"
	KeyClientGCPause     = "client_gc_pause_ms"

	KeySteadyDuration             = "steady_state_duration"
	KeySteadyRequestThroughput    = "steady_state_request_throughput"
	KeySteadyInputThroughput      = "steady_state_input_throughput"
	KeySteadyOutputThroughput     = "steady_state_output_throughput"
	KeySteadyTotalTokenThroughput = "steady_state_total_token_throughput"
	KeySteadyMeanTTFT             = "steady_state_mean_ttft_ms"
	KeySteadyMedianTTFT           = "steady_state_median_ttft_ms"
	KeySteadyMeanTPOT             = "steady_state_mean_tpot_ms"
	KeySteadyMedianTPOT           = "steady_state_median_tpot_ms"
	KeySteadyP90TPOT              = "steady_state_p90_tpot_ms"
	KeySteadyP99TPOT              = "steady_state_p99_tpot_ms"
)

// defs are the metrics other than the latency statistics, in the order of
// the result JSON (vLLM's generation and pooling keys merged), then the
// metrics of the "vbench" object.
var defs = []Def{
	{Key: KeyDuration, Title: "Benchmark duration (s):", Unit: "s", Better: BetterLower, Headline: true},
	{Key: KeyCompleted, Title: "Successful requests:", Unit: "requests", Better: BetterHigher, Headline: true, Int: true},
	{Key: KeyFailed, Title: "Failed requests:", Unit: "requests", Better: BetterLower, Headline: true, Int: true, Needs: NeedsGeneration},
	{Key: KeyTotalInputTokens, Title: "Total input tokens:", Unit: "tokens", Int: true},
	{Key: KeyTotalOutputTokens, Title: "Total generated tokens:", Unit: "tokens", Int: true, Needs: NeedsGeneration},
	{Key: KeyTotalInputSequences, Unit: "sequences", Int: true, Needs: NeedsPooling},
	{Key: KeyRequestThroughput, Title: "Request throughput (req/s):", Short: "req/s", Unit: "req/s", Better: BetterHigher, Headline: true, Compared: true},
	{Key: KeyRequestGoodput, Title: "Request goodput (req/s):", Short: "goodput req/s", Unit: "req/s", Better: BetterHigher, Headline: true, Compared: true, Needs: NeedsGeneration | NeedsGoodput},
	{Key: KeyInputThroughput, Title: "Input throughput (inputs/s):", Unit: "inputs/s", Better: BetterHigher, Headline: true, Compared: true, Needs: NeedsPooling},
	{Key: KeyOutputThroughput, Title: "Output token throughput (tok/s):", Short: "output tok/s", Unit: "tok/s", Better: BetterHigher, Headline: true, Compared: true, Needs: NeedsGeneration},
	{Key: KeyTotalTokenThroughput, Title: "Total token throughput (tok/s):", Short: "total tok/s", Unit: "tok/s", Better: BetterHigher, Headline: true, Compared: true},
	{Key: KeyMaxOutputTokensPerS, Title: "Peak output token throughput (tok/s):", Unit: "tok/s", Better: BetterHigher, Headline: true, Needs: NeedsGeneration},
	// vLLM prints this integer with .2f ("64.00").
	{Key: KeyMaxConcurrentRequests, Title: "Peak concurrent requests:", Unit: "requests", Headline: true, Int: true, Needs: NeedsGeneration},
	{Key: KeyRTFx, Title: "RTFx (Inverse Real-Time Factor):", Needs: NeedsGeneration},
	// The true peak of overlapping requests, beside vLLM's binned count.
	{Key: KeyPeakOverlappingRequests, Path: []string{"vbench", KeyPeakOverlappingRequests}, Short: "peak overlap", Unit: "requests", Int: true},

	{Key: KeyProbeCompleted, Title: "Probe requests completed:", Unit: "requests", Int: true, Needs: NeedsProbes},
	{Key: KeyProbeFailed, Title: "Probe requests failed:", Unit: "requests", Better: BetterLower, Int: true, Needs: NeedsProbes},
	{Key: KeyProbeMedianE2EL, Title: "Median probe E2EL (ms):", Unit: "ms", Better: BetterLower, Needs: NeedsProbes},
	{Key: KeyProbeP99E2EL, Title: "P99 probe E2EL (ms):", Unit: "ms", Better: BetterLower, Needs: NeedsProbes},
	{Key: KeyProbeMaxE2EL, Title: "Max probe E2EL (ms):", Unit: "ms", Better: BetterLower, Needs: NeedsProbes},

	{Key: KeySpecAcceptanceRate, Title: "Acceptance rate (%):", Unit: "%", Headline: true, Source: SourceServer},
	{Key: KeySpecAcceptanceLength, Title: "Acceptance length:", Unit: "tokens", Headline: true, Source: SourceServer},
	{Key: KeySpecNumDrafts, Title: "Drafts:", Unit: "drafts", Int: true, Source: SourceServer},
	{Key: KeySpecDraftTokens, Title: "Draft tokens:", Unit: "tokens", Int: true, Source: SourceServer},
	{Key: KeySpecAcceptedTokens, Title: "Accepted tokens:", Unit: "tokens", Int: true, Source: SourceServer},
	{Key: KeySpecPerPosition, Title: "Per-position acceptance (%):", List: true, Source: SourceServer},

	{Key: KeyDiffusionCommittedThroughput, Title: "Committed throughput (tok/s):", Unit: "tok/s", Source: SourceServer},
	{Key: KeyDiffusionStepsPerCanvas, Title: "Denoising steps per canvas:", Unit: "steps", Source: SourceServer},
	{Key: KeyDiffusionCommittedPerStep, Title: "Committed per denoising step:", Unit: "tokens", Source: SourceServer},
	{Key: KeyDiffusionCommittedTokens, Title: "Committed tokens:", Unit: "tokens", Int: true, Source: SourceServer},
	{Key: KeyDiffusionDenoisingSteps, Title: "Denoising steps:", Unit: "steps", Int: true, Source: SourceServer},
	{Key: KeyDiffusionCanvasPositions, Title: "Canvas positions evaluated:", Unit: "positions", Int: true, Source: SourceServer},

	// The server's prefix-cache hit rate over the run, from vLLM's
	// vllm:prefix_cache_queries and _hits counters (vLLM's client does
	// not report it), in the "vbench" object's "prefix_cache".
	{Key: KeyPrefixCacheHitRate, Path: []string{"vbench", "prefix_cache", "hit_rate"}, Short: "prefix cache hit %", Unit: "%", Better: BetterHigher, Source: SourceServer},

	// The server's load gauges sampled during the run (vLLM's
	// vllm:kv_cache_usage_perc, a fraction, and its running and waiting
	// requests), in the "vbench" object's "server_timeline".
	{Key: KeyServerKVCacheUsageMax, Path: timelinePath("kv_cache_usage", "max"), Short: "server KV cache max", Source: SourceServerSamples},
	{Key: KeyServerKVCacheUsageMean, Path: timelinePath("kv_cache_usage", "mean"), Short: "server KV cache mean", Source: SourceServerSamples},
	{Key: KeyServerRunningMax, Path: timelinePath("running", "max"), Short: "server running max", Unit: "requests", Source: SourceServerSamples},
	{Key: KeyServerRunningMean, Path: timelinePath("running", "mean"), Short: "server running mean", Unit: "requests", Source: SourceServerSamples},
	{Key: KeyServerWaitingMax, Path: timelinePath("waiting", "max"), Short: "server waiting max", Unit: "requests", Better: BetterLower, Source: SourceServerSamples},
	{Key: KeyServerWaitingMean, Path: timelinePath("waiting", "mean"), Short: "server waiting mean", Unit: "requests", Better: BetterLower, Source: SourceServerSamples},
	// The client tokenizer's output counts against the server's
	// usage.completion_tokens (vLLM's client does not compare them), in
	// the "vbench" object's "token_accounting" (see TokenAccounting).
	{Key: KeyTokenDisagreeingShare, Path: tokenPath("disagreeing_share"), Short: "token mismatch %", Unit: "%", Better: BetterLower, Needs: NeedsTokenizer | NeedsGeneration},
	{Key: KeyTokenMeanAbsDiff, Path: tokenPath("mean_abs_diff"), Short: "token mean |diff|", Unit: "tokens", Better: BetterLower, Needs: NeedsTokenizer | NeedsGeneration},
	{Key: KeyTokenNoServerUsage, Path: tokenPath("no_server_usage"), Short: "no server usage", Unit: "requests", Better: BetterLower, Int: true, Needs: NeedsTokenizer | NeedsGeneration},

	{Key: KeyClientSendLagP50, Path: healthPath("send_lag_ms", "p50"), Short: "send lag p50 (ms)", Unit: "ms", Better: BetterLower, Source: SourceHealth},
	{Key: KeyClientSendLagP99, Path: healthPath("send_lag_ms", "p99"), Short: "send lag P99 (ms)", Unit: "ms", Better: BetterLower, Source: SourceHealth},
	{Key: KeyClientSendLagMax, Path: healthPath("send_lag_ms", "max"), Short: "send lag max (ms)", Unit: "ms", Better: BetterLower, Source: SourceHealth},
	{Key: KeyClientCPUFraction, Path: healthPath("cpu_fraction"), Short: "client CPU share", Better: BetterLower, Source: SourceHealth},
	{Key: KeyClientGCPause, Path: healthPath("gc_pause_ms"), Short: "client GC pause (ms)", Unit: "ms", Better: BetterLower, Source: SourceHealth},

	// The steady-state window of a closed-loop run (vllm-bench's
	// steady_state), in the "vbench" object's "steady_state".
	{Key: KeySteadyDuration, Path: steadyPath("window", "duration_s"), Short: "steady window (s)", Unit: "s", Needs: NeedsSteadyState},
	{Key: KeySteadyRequestThroughput, Path: steadyPath("request_throughput"), Short: "steady req/s", Unit: "req/s", Better: BetterHigher, Needs: NeedsSteadyState},
	{Key: KeySteadyInputThroughput, Path: steadyPath("input_throughput"), Short: "steady input tok/s", Unit: "tok/s", Better: BetterHigher, Needs: NeedsSteadyState},
	{Key: KeySteadyOutputThroughput, Path: steadyPath("output_throughput"), Short: "steady output tok/s", Unit: "tok/s", Better: BetterHigher, Needs: NeedsSteadyState},
	{Key: KeySteadyTotalTokenThroughput, Path: steadyPath("total_token_throughput"), Short: "steady total tok/s", Unit: "tok/s", Better: BetterHigher, Needs: NeedsSteadyState},
	{Key: KeySteadyMeanTTFT, Path: steadyPath("mean_ttft_ms"), Short: "steady mean TTFT (ms)", Unit: "ms", Better: BetterLower, Needs: NeedsSteadyState},
	{Key: KeySteadyMedianTTFT, Path: steadyPath("median_ttft_ms"), Short: "steady median TTFT (ms)", Unit: "ms", Better: BetterLower, Needs: NeedsSteadyState},
	{Key: KeySteadyMeanTPOT, Path: steadyPath("mean_tpot_ms"), Short: "steady mean TPOT (ms)", Unit: "ms", Better: BetterLower, Needs: NeedsSteadyState},
	{Key: KeySteadyMedianTPOT, Path: steadyPath("median_tpot_ms"), Short: "steady median TPOT (ms)", Unit: "ms", Better: BetterLower, Needs: NeedsSteadyState},
	{Key: KeySteadyP90TPOT, Path: steadyPath("p90_tpot_ms"), Short: "steady P90 TPOT (ms)", Unit: "ms", Better: BetterLower, Needs: NeedsSteadyState},
	{Key: KeySteadyP99TPOT, Path: steadyPath("p99_tpot_ms"), Short: "steady P99 TPOT (ms)", Unit: "ms", Better: BetterLower, Needs: NeedsSteadyState},
}

func healthPath(keys ...string) []string { return append([]string{"vbench", "client_health"}, keys...) }

func tokenPath(keys ...string) []string {
	return append([]string{"vbench", "token_accounting"}, keys...)
}

func timelinePath(keys ...string) []string {
	return append([]string{"vbench", "server_timeline"}, keys...)
}

func steadyPath(keys ...string) []string { return append([]string{"vbench", "steady_state"}, keys...) }

// defIndex maps a key to its index in defs.
var defIndex = func() map[string]int {
	m := make(map[string]int, len(defs))
	for i := range defs {
		d := &defs[i]
		if d.Source == 0 {
			d.Source = SourceClient
		}
		if d.Path == nil {
			d.Path = []string{d.Key}
		}
		m[d.Key] = i
	}
	return m
}()

// Defs returns the metrics other than the latency statistics, in the
// order of the result JSON, then those nested in its "vbench" object.
// The slice is a copy.
func Defs() []Def {
	out := slices.Clone(defs)
	for i := range out {
		out[i].Path = slices.Clone(out[i].Path)
	}
	return out
}

// Latency is a per-request latency metric (vLLM's --percentile-metrics):
// its mean, median, std and percentiles are reported in milliseconds under
// the keys mean_<name>_ms, median_<name>_ms, std_<name>_ms and
// p<P>_<name>_ms.
type Latency struct {
	// Name is the metric's name in the keys and in metrics.percentile_metrics.
	Name string
	// Console is vLLM's name in the console lines, e.g. "TTFT" in
	// "Mean TTFT (ms):".
	Console string
	// Header is vLLM's section header, e.g. "Time to First Token".
	Header string
	// Short is the name in summary tables and charts, e.g. "queue".
	Short string
	// Needs are the run settings the metric needs (besides being selected).
	Needs Needs
}

// latencies are the latency metrics in MetricOrder.
var latencies = []Latency{
	{Name: TTFT, Console: "TTFT", Header: "Time to First Token", Short: "TTFT", Needs: NeedsTokenizer | NeedsGeneration},
	{Name: TPOT, Console: "TPOT", Header: "Time per Output Token (excl. 1st token)", Short: "TPOT", Needs: NeedsTokenizer | NeedsGeneration},
	{Name: ITL, Console: "ITL", Header: "Inter-token Latency", Short: "ITL", Needs: NeedsTokenizer | NeedsGeneration},
	{Name: E2EL, Console: "E2EL", Header: "End-to-end Latency", Short: "E2EL"},
	{Name: ClientQueueTime, Console: "Client Queue Time", Header: "Client-side Queueing", Short: "queue", Needs: NeedsMaxConcurrency},
	{Name: E2ELIncludingClientQueue, Console: "E2EL incl. Client Queue", Header: "Queue-inclusive End-to-end Latency", Short: "E2EL+queue",
		Needs: NeedsMaxConcurrency | NeedsFiniteRate},
}

// Latencies returns the latency metrics in MetricOrder (a copy).
func Latencies() []Latency { return slices.Clone(latencies) }

// LatencyByName returns the latency metric named name (ttft, tpot, ...).
func LatencyByName(name string) (Latency, bool) {
	for _, l := range latencies {
		if l.Name == name {
			return l, true
		}
	}
	return Latency{}, false
}

// Statistics of a latency metric, as the first word of its keys; a
// percentile's word is "p" followed by PercentileWord.
const (
	StatMean   = "mean"
	StatMedian = "median"
	StatStd    = "std"
)

// statKey matches the latency statistic keys: mean_ttft_ms, p99.9_e2el_ms.
var statKey = regexp.MustCompile(`^(mean|median|std|p[0-9][0-9.e+-]*)_([a-z0-9_]+)_ms$`)

// StatKey is the result key of a statistic of a latency metric:
// StatKey("mean", "ttft") = "mean_ttft_ms", StatKey("p99", "itl") =
// "p99_itl_ms".
func StatKey(stat, metric string) string { return stat + "_" + metric + "_ms" }

// PercentileKey is the result key of percentile p of a latency metric:
// PercentileKey(99.9, "e2el") = "p99.9_e2el_ms".
func PercentileKey(p float64, metric string) string { return StatKey("p"+PercentileWord(p), metric) }

// SplitStatKey splits a latency statistic key into its statistic and
// metric: "p99_ttft_ms" → ("p99", "ttft", true). Any metric name of the
// key's shape is accepted (results of other vLLM versions).
func SplitStatKey(key string) (stat, metric string, ok bool) {
	m := statKey.FindStringSubmatch(key)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// PercentileWord is vLLM's word for a percentile in keys and console
// lines: int(p) when p is integral, else Python's repr of the float
// (99 → "99", 99.9 → "99.9", 1e-05 → "1e-05").
func PercentileWord(p float64) string {
	if p == math.Trunc(p) && !math.IsInf(p, 0) {
		if p == 0 {
			return "0" // int(-0.0) is 0
		}
		return strconv.FormatFloat(p, 'f', 0, 64)
	}
	return py.Repr(p)
}

// Lookup returns the definition of a metric key: one of Defs, or a
// latency statistic (mean_, median_, std_ or p<P>_<metric>_ms; a metric
// name that is not one of Latencies gets its name as its titles).
func Lookup(key string) (Def, bool) {
	if i, ok := defIndex[key]; ok {
		d := defs[i]
		d.Path = slices.Clone(d.Path)
		return d, true
	}
	stat, metric, ok := SplitStatKey(key)
	if !ok {
		return Def{}, false
	}
	l, known := LatencyByName(metric)
	if !known {
		l = Latency{Name: metric, Console: metric, Short: metric}
	}
	d := Def{Key: key, Path: []string{key}, Unit: "ms", Better: BetterLower, Headline: true, Compared: true,
		Source: SourceClient, Needs: l.Needs}
	switch {
	case stat == StatStd:
		d.Better, d.Compared = BetterNone, false
		d.Short = "std " + l.Short + " (ms)"
	case stat == StatMean:
		d.Title = "Mean " + l.Console + " (ms):"
		d.Short = "mean " + l.Short + " (ms)"
	case stat == StatMedian:
		d.Title = "Median " + l.Console + " (ms):"
		d.Short = "median " + l.Short + " (ms)"
	default: // p<P>
		d.Title = "P" + stat[1:] + " " + l.Console + " (ms):"
		d.Short = "P" + stat[1:] + " " + l.Short + " (ms)"
	}
	return d, true
}

// MustLookup is Lookup of a key the code itself names; it panics when the
// key is not in the table.
func MustLookup(key string) Def {
	d, ok := Lookup(key)
	if !ok {
		panic("metrics: no definition of " + strconv.Quote(key))
	}
	return d
}

// Setup is what a run is set to produce: its enabled sources and the
// settings that decide which metrics its result holds. It answers, before
// anything runs, whether a gate's metric will be in the results.
type Setup struct {
	// Sources are the enabled sources (SourceClient is always on).
	Sources Source
	// Generation is true for a generation backend, false for a pooling one.
	Generation bool
	// Tokenizer is true when the run has a client tokenizer.
	Tokenizer bool
	// Goodput is true when service-level objectives are configured.
	Goodput bool
	// MaxConcurrency is true when a concurrency limit is set.
	MaxConcurrency bool
	// FiniteRate is true when the request rate is finite.
	FiniteRate bool
	// Probes is true when probe requests are sent.
	Probes bool
	// SteadyState is true for a closed-loop run with metrics.steady_state
	// on (see NeedsSteadyState).
	SteadyState bool
	// PercentileMetrics are the selected latency metrics.
	PercentileMetrics []string
	// Percentiles are the reported percentiles.
	Percentiles []float64
}

// Meets reports whether the setup meets every one of needs.
func (s Setup) Meets(n Needs) bool {
	for _, c := range []struct {
		bit Needs
		ok  bool
	}{
		{NeedsTokenizer, s.Tokenizer}, {NeedsGoodput, s.Goodput}, {NeedsMaxConcurrency, s.MaxConcurrency},
		{NeedsFiniteRate, s.FiniteRate}, {NeedsProbes, s.Probes}, {NeedsGeneration, s.Generation},
		{NeedsPooling, !s.Generation}, {NeedsSteadyState, s.SteadyState},
	} {
		if n&c.bit != 0 && !c.ok {
			return false
		}
	}
	return true
}

// HasLatency reports whether the run computes the statistics of the
// latency metric named name: it is selected and its needs are met (the
// rules of Compute).
func (s Setup) HasLatency(name string) bool {
	l, ok := LatencyByName(name)
	return ok && slices.Contains(s.PercentileMetrics, name) && s.Meets(l.Needs)
}

// Produces reports whether the run's result will hold the numeric metric
// key: its source is enabled, its needs are met, and for a latency
// statistic, its metric is computed and, for a percentile, that
// percentile is reported.
func (s Setup) Produces(key string) bool {
	d, ok := Lookup(key)
	if !ok || d.List || (s.Sources|SourceClient)&d.Source == 0 || !s.Meets(d.Needs) {
		return false
	}
	if _, fixed := defIndex[key]; fixed {
		return true
	}
	stat, metric, _ := SplitStatKey(key)
	if !s.HasLatency(metric) {
		return false
	}
	if stat == StatMean || stat == StatMedian || stat == StatStd {
		return true
	}
	for _, p := range s.Percentiles {
		if "p"+PercentileWord(p) == stat {
			return true
		}
	}
	return false
}

// Keys lists every metric a gate can name for this run, in the order of
// the result JSON: Defs first, then each computed latency metric's mean,
// median, std and percentiles.
func (s Setup) Keys() []string {
	var out []string
	for _, d := range defs {
		if s.Produces(d.Key) {
			out = append(out, d.Key)
		}
	}
	for _, l := range latencies {
		if !s.HasLatency(l.Name) {
			continue
		}
		out = append(out, StatKey(StatMean, l.Name), StatKey(StatMedian, l.Name), StatKey(StatStd, l.Name))
		for _, p := range s.Percentiles {
			out = append(out, PercentileKey(p, l.Name))
		}
	}
	return out
}

// Suggest returns the candidate key most likely meant (see typo.Suggest:
// p99_ttft_ms for p99_ttft, or the nearest within a third of key's length
// and at most 3 edits), else "".
func Suggest(key string, candidates []string) string {
	return typo.Suggest(key, candidates, min(3, len(key)/3))
}
