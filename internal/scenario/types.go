package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
)

// Scenario is one benchmark workload, decoded from the CUE schema's
// #Scenario with every default filled in. Field names follow the schema
// (snake_case JSON tags); the schema is the source of truth for defaults,
// which equal `vllm bench serve`'s.
type Scenario struct {
	// Schema is the schema version the scenario was checked against.
	Schema string `json:"schema"`
	// Name is an optional human-readable name.
	Name string `json:"name,omitempty"`
	// Seed seeds every random choice (dataset sampling, arrival times).
	Seed int64 `json:"seed"`

	// Target says where requests go and how they are shaped.
	Target Target `json:"target"`
	// Tokenizer selects the client-side tokenizer used to build prompts and
	// count tokens.
	Tokenizer Tokenizer `json:"tokenizer"`
	// Dataset says where prompts come from (exactly one kind is set).
	Dataset Dataset `json:"dataset"`
	// Load is the request count, arrival process and concurrency.
	Load Load `json:"load"`
	// Sampling holds the sampling parameters sent with each request.
	Sampling Sampling `json:"sampling"`
	// Metrics selects the reported statistics.
	Metrics Metrics `json:"metrics"`
	// Output says what is written where.
	Output Output `json:"output"`

	// Sweep, Repeat and Compare are the experiment shapes; nil for a single run.
	Sweep   *Sweep   `json:"sweep,omitempty"`
	Repeat  *Repeat  `json:"repeat,omitempty"`
	Compare *Compare `json:"compare,omitempty"`
	// Search, when set, makes the scenario a capacity search.
	Search *Search `json:"search,omitempty"`
}

// Target says where requests go and how they are shaped.
type Target struct {
	// BaseURL, if set, is prefixed to Endpoint; otherwise http://Host:Port is.
	BaseURL string `json:"base_url,omitempty"`
	// Host is the server host when BaseURL is not set (--host).
	Host string `json:"host"`
	// Port is the server port when BaseURL is not set (--port).
	Port int `json:"port"`
	// Endpoint is the API path (vLLM default /v1/completions for every backend).
	Endpoint string `json:"endpoint"`
	// Backend is one of vLLM's backend names (openai, vllm, openai-chat, ...).
	Backend string `json:"backend"`
	// Model is the model id (tokenizer default, result model_id). Empty means
	// "ask the server's /v1/models".
	Model string `json:"model,omitempty"`
	// ServedModelName, if set, is sent as the payload's model field.
	ServedModelName string `json:"served_model_name,omitempty"`
	// Headers are extra HTTP headers sent on every benchmark request. Their
	// values are secrets: never logged or written to results.
	Headers map[string]string `json:"headers,omitempty"`
	// Insecure disables TLS certificate verification.
	Insecure bool `json:"insecure"`
	// RequestTimeout bounds one request, in seconds; 0 (unset) is vLLM's
	// six hours (DefaultRequestTimeout).
	RequestTimeout float64 `json:"request_timeout,omitempty"`
	// CAFile is an extra PEM CA bundle for TLS verification.
	CAFile string `json:"ca_file,omitempty"`
	// StreamCounting is how streamed chunks are counted: "" or "vllm"
	// (vLLM's client's rules) or "exact" (see backend.Config.ExactCounting).
	StreamCounting string `json:"stream_counting,omitempty"`
	// Simulator, when set, makes vbench start its built-in simulated server
	// in-process on loopback and send the run there (BaseURL is then unused).
	Simulator *Simulator `json:"simulator,omitempty"`
	// Server, when set, is a server vbench starts, watches and stops.
	Server *Server `json:"server,omitempty"`
	// RequestIDPrefix prefixes each request's x-request-id ("" = vLLM's
	// random bench-<8 hex>- prefix drawn at start).
	RequestIDPrefix string `json:"request_id_prefix,omitempty"`
	// LoraModules, when set, are the per-request model names to choose among.
	LoraModules []string `json:"lora_modules,omitempty"`
	// LoraAssignment is random or round-robin.
	LoraAssignment string `json:"lora_assignment"`
	// Profile posts /start_profile and /stop_profile around the run.
	Profile bool `json:"profile"`
	// ProfileBatchThreshold, with Profile, starts the profiler once the
	// server runs that many requests (0 = at the start, as vLLM does).
	ProfileBatchThreshold int `json:"profile_batch_threshold,omitempty"`
	// ProfileDuration is how long the threshold's profiler runs, in
	// seconds (0 = vllm-bench's 5).
	ProfileDuration float64 `json:"profile_duration,omitempty"`
	// ResetPrefixCache posts /reset_prefix_cache before each run of an
	// experiment.
	ResetPrefixCache bool `json:"reset_prefix_cache,omitempty"`
	// GPUs is the number of GPUs the server runs on (0 = not given).
	GPUs int `json:"gpus,omitempty"`
}

// Server is a server vbench manages (see the schema's #Server).
type Server struct {
	// Command is the server's argv.
	Command []string `json:"command"`
	// Args are server parameters applied to Command as options.
	Args map[string]json.RawMessage `json:"args,omitempty"`
	// Env are environment variables added for the server.
	Env map[string]string `json:"env,omitempty"`
	// Dir is the server's working directory ("" = vbench's).
	Dir string `json:"dir,omitempty"`
	// ReadyURL is polled until it answers 200 ("" = the target's /health).
	ReadyURL string `json:"ready_url,omitempty"`
	// ReadyTimeout bounds the wait for readiness, in seconds.
	ReadyTimeout float64 `json:"ready_timeout"`
	// ResetCaches posts vLLM's cache resets after each run.
	ResetCaches bool `json:"reset_caches"`
	// AfterRun, when set, runs after each run instead of the resets.
	AfterRun []string `json:"after_run,omitempty"`
	// StopGrace is the time between SIGTERM and SIGKILL, in seconds.
	StopGrace float64 `json:"stop_grace"`
	// Log is the server's log file, relative to output.result_dir.
	Log string `json:"log"`
}

// Simulator is the latency model of the built-in simulated server.
type Simulator struct {
	// TTFTMs is the base time to first token in milliseconds.
	TTFTMs float64 `json:"ttft_ms"`
	// ITLMs is the inter-token latency in milliseconds.
	ITLMs float64 `json:"itl_ms"`
	// ITLPerRunningMs adds this many milliseconds to a request's
	// inter-token latency per request running when it was admitted.
	ITLPerRunningMs float64 `json:"itl_per_running_ms,omitempty"`
	// JitterMs is the standard deviation of a deterministic per-token jitter.
	JitterMs float64 `json:"jitter_ms"`
	// PrefillUsPerToken adds this many microseconds of TTFT per prompt token.
	PrefillUsPerToken float64 `json:"prefill_us_per_token"`
	// CachedPrefillUsPerToken, when set, is the prefill time of a prompt
	// token found in the prefix cache instead (sim.Config's
	// CachedPrefillPerToken).
	CachedPrefillUsPerToken *float64 `json:"cached_prefill_us_per_token,omitempty"`
	// OutputLen is the output length used when a request sets no max tokens.
	OutputLen int `json:"output_len"`
	// Model is the model name the simulator serves.
	Model string `json:"model"`
	// Seed seeds the simulator's deterministic jitter and text.
	Seed int64 `json:"seed"`
	// ReasoningTokens makes the simulator a reasoning model: the first
	// ReasoningTokens tokens of chat, Responses and Messages answers are
	// reasoning (sim.Config.ReasoningTokens); 0 has none.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// Faults are the faults the simulator injects, each
	// "KIND:every=N" or "KIND:rate=P" (sim.ParseFault).
	Faults []string `json:"faults,omitempty"`
	// Bare makes the simulator a bare OpenAI-compatible server
	// (sim.Config.Bare).
	Bare bool `json:"bare,omitempty"`
	// MaxConns limits the client connections the simulator holds open
	// (sim.Config.MaxConns); 0 sets no limit.
	MaxConns int `json:"max_conns,omitempty"`
	// SpecDecode, when set, makes the simulator expose vLLM's
	// speculative-decoding counters.
	SpecDecode *SimSpecDecode `json:"spec_decode,omitempty"`
}

// SimSpecDecode is the simulator's speculative decoding: Tokens draft
// tokens per step, accepted at the share Acceptance by a deterministic
// model (sim.SpecAccepted).
type SimSpecDecode struct {
	// Tokens is the number of draft tokens per step.
	Tokens int `json:"tokens"`
	// Acceptance is the share of draft tokens accepted, in [0, 1].
	Acceptance float64 `json:"acceptance"`
}

// Tokenizer selects the client-side tokenizer.
type Tokenizer struct {
	// Name is a built-in encoding (o200k_base, cl100k_base, ...), a local
	// path, or a Hub repo id; "" means the model id.
	Name string `json:"name,omitempty"`
	// Revision is the Hub revision for a repo id.
	Revision string `json:"revision,omitempty"`
	// Mode is vLLM's --tokenizer-mode (auto).
	Mode string `json:"mode"`
	// TrustRemoteCode is accepted for compatibility.
	TrustRemoteCode bool `json:"trust_remote_code"`
	// SkipInit runs without a client tokenizer (vLLM's --skip-tokenizer-init).
	SkipInit bool `json:"skip_init"`
}

// Load is the request count, arrival process and concurrency.
type Load struct {
	// NumPrompts is the number of requests (--num-prompts); 0 uses every
	// row for the dataset kinds that allow it (DatasetKind.AllPrompts).
	NumPrompts int `json:"num_prompts"`
	// RequestRate is requests per second; +Inf (written "inf") sends all at once.
	RequestRate Float `json:"request_rate"`
	// Burstiness is the gamma shape of inter-arrival gaps (1 = Poisson).
	Burstiness Float `json:"burstiness"`
	// MaxConcurrency limits in-flight requests; nil is unlimited.
	MaxConcurrency *int `json:"max_concurrency,omitempty"`
	// RampUp, when set, ramps the request rate (RequestRate must be inf).
	RampUp *RampUp `json:"ramp_up,omitempty"`
	// NumWarmups sends this many copies of request 0 before the run.
	NumWarmups int `json:"num_warmups"`
	// ReadyCheckTimeoutSec waits up to this long for the endpoint (0 skips).
	ReadyCheckTimeoutSec int `json:"ready_check_timeout_sec"`
	// ProbeRequestRate sends side-channel 1-token probes (0 = off, +Inf =
	// back to back).
	ProbeRequestRate Float `json:"probe_request_rate"`
	// EarlyStop, when set, ends a run early once its outcome is settled.
	EarlyStop *EarlyStop `json:"early_stop,omitempty"`
	// MaxModelLen, when positive, drops the requests whose prompt and
	// output are together longer (vllm-bench's --max-model-len).
	MaxModelLen int `json:"max_model_len,omitempty"`
	// Shard, when set, runs one stripe of the plan: the run is split over
	// Shard.Count clients (vbench run --shard I/N), and this one sends
	// every Count-th request from Index (see schedule.Shard).
	Shard *Shard `json:"shard,omitempty"`
}

// Shard is one stripe of a run split over several clients.
type Shard struct {
	// Index is this client's shard, from 0 to Count-1.
	Index int `json:"index"`
	// Count is the number of clients the run is split over.
	Count int `json:"count"`
}

// EarlyStop says when a run ends before all its requests are sent.
type EarlyStop struct {
	// Oversaturation stops a run whose in-flight requests keep growing.
	Oversaturation bool `json:"oversaturation"`
	// WindowS is how many seconds the growth must last.
	WindowS float64 `json:"window_s"`
	// MaxFailureRate, when set, stops the run as soon as more requests
	// have failed than that share of num_prompts (a capacity search sets
	// it from its failure-rate SLO).
	MaxFailureRate *float64 `json:"max_failure_rate,omitempty"`
	// SLOs stop the run once it misses one for good (see the schema's
	// early_stop.slos).
	SLOs []SLO `json:"slos,omitempty"`
}

// RampUp ramps the request rate from StartRPS to EndRPS over the run.
type RampUp struct {
	// Strategy is linear or exponential.
	Strategy string `json:"strategy"`
	// StartRPS is the rate of the first request (--ramp-up-start-rps).
	StartRPS float64 `json:"start_rps"`
	// EndRPS is the rate of the last request (--ramp-up-end-rps).
	EndRPS float64 `json:"end_rps"`
}

// Sampling holds the sampling parameters sent with each request. Nil
// pointers are not sent.
type Sampling struct {
	// Temperature is the sampling temperature (--temperature).
	Temperature *float64 `json:"temperature,omitempty"`
	// TopP is the nucleus sampling probability mass (--top-p).
	TopP *float64 `json:"top_p,omitempty"`
	// TopK is the number of top tokens sampled from (--top-k).
	TopK *int `json:"top_k,omitempty"`
	// MinP is the minimum token probability relative to the top token
	// (--min-p).
	MinP *float64 `json:"min_p,omitempty"`
	// FrequencyPenalty is the frequency penalty (--frequency-penalty).
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	// PresencePenalty is the presence penalty (--presence-penalty).
	PresencePenalty *float64 `json:"presence_penalty,omitempty"`
	// RepetitionPenalty is the repetition penalty (--repetition-penalty).
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
	// IgnoreEOS sends ignore_eos (forced on by the dataset kinds that force it, as vLLM does).
	IgnoreEOS bool `json:"ignore_eos"`
	// Logprobs is the completions payload's logprobs (nil sends null).
	Logprobs *int `json:"logprobs,omitempty"`
	// ExtraBody is merged into every payload, winning over sampling fields.
	ExtraBody map[string]any `json:"extra_body,omitempty"`
}

// Metrics selects the reported statistics.
type Metrics struct {
	// PercentileMetrics are the latency metrics reported (ttft, tpot, itl,
	// e2el, client_queue_time, e2el_including_client_queue).
	PercentileMetrics []string `json:"percentile_metrics"`
	// MetricPercentiles are the percentiles reported, e.g. [99].
	MetricPercentiles []float64 `json:"metric_percentiles"`
	// Goodput holds SLOs in milliseconds keyed by ttft, tpot, e2el.
	Goodput map[string]float64 `json:"goodput,omitempty"`
	// SteadyState, when false, turns off the steady-state window of a
	// closed-loop run; nil means true, the default (see SteadyStateOn).
	// true is left out of the canonical form, so the field does not change
	// the hash of scenarios that leave it at its default.
	SteadyState *bool `json:"steady_state,omitempty"`
	// SteadyStateThreshold and SteadyStateMinWindow tune the window (nil:
	// the defaults, see metrics.SteadyOptions).
	SteadyStateThreshold *float64 `json:"steady_state_threshold,omitempty"`
	SteadyStateMinWindow *float64 `json:"steady_state_min_window,omitempty"`
	// TraceContext sends a W3C traceparent header with every timed request
	// and records its trace id (vbench only). false, the default, is left
	// out of the canonical form, so it keeps existing scenario hashes.
	TraceContext bool `json:"trace_context,omitempty"`
	// ScrapeIntervalSec is how often the server's load gauges are sampled
	// during the timed phase, in seconds (0 = off); nil means the mode's
	// default (see Scenario.ScrapeInterval).
	ScrapeIntervalSec *float64 `json:"scrape_interval,omitempty"`
}

// SteadyStateOn reports whether the steady-state window is asked for
// (metrics.steady_state, default true).
func (m Metrics) SteadyStateOn() bool { return m.SteadyState == nil || *m.SteadyState }

// MarshalJSON encodes m, leaving steady_state out when it is true (the
// default), so that the field keeps existing scenario hashes.
func (m Metrics) MarshalJSON() ([]byte, error) {
	type plain Metrics
	if m.SteadyStateOn() {
		m.SteadyState = nil
	}
	return json.Marshal(plain(m))
}

// Output says what is written where.
type Output struct {
	// SaveResult writes the result JSON (--save-result), SaveDetailed keeps
	// its per-request arrays (--save-detailed), and AppendResult appends to
	// an existing file (--append-result). ResultDir ("" = working directory)
	// and ResultFilename ("" = vLLM's name) say where it goes; Label prefixes
	// the file name and is recorded in the result (--label).
	SaveResult   bool `json:"save_result"`
	SaveDetailed bool `json:"save_detailed"`
	AppendResult bool `json:"append_result"`
	// Overwrite lets a run replace an existing result (vbench only, see
	// the schema's output.overwrite); it is left out of the canonical form
	// when false, so it does not change the hash of other scenarios.
	Overwrite      bool     `json:"overwrite,omitempty"`
	ResultDir      string   `json:"result_dir,omitempty"`
	ResultFilename string   `json:"result_filename,omitempty"`
	Label          string   `json:"label,omitempty"`
	Metadata       Metadata `json:"metadata,omitempty"`
	// Records writes per-request records as JSONL next to the result.
	Records bool `json:"records"`
	// DisableTqdm hides the progress bar (--disable-tqdm).
	DisableTqdm bool `json:"disable_tqdm"`
	// PlotTimeline writes an HTML timeline of the requests (--plot-timeline).
	PlotTimeline bool `json:"plot_timeline"`
	// TimelineITLThresholds are the two ms thresholds of the timeline plot.
	TimelineITLThresholds []float64 `json:"timeline_itl_thresholds"`
	// PlotDatasetStats writes a plot of the prompt and output lengths
	// (--plot-dataset-stats).
	PlotDatasetStats bool `json:"plot_dataset_stats"`
	// Formats are the formats results are written in ("vllm", "llm-d").
	Formats []string `json:"formats,omitempty"`
}

// Sweep is a grid over scenario fields: each key is a field path
// ("load.max_concurrency") and each value the list of values it takes.
type Sweep struct {
	// Axes maps each field path to the values it takes.
	Axes map[string][]json.RawMessage `json:"axes"`
	// Mode is grid (Cartesian product) or zip (axes advance together).
	Mode string `json:"mode"`
	// Link ties pairs of axes: a point runs only when both take equal
	// values (vLLM's --link-vars).
	Link map[string]string `json:"link,omitempty"`
}

// Search finds the largest load that meets every SLO (see the schema's
// #Search).
type Search struct {
	// Variable is the load field searched: load.max_concurrency or
	// load.request_rate.
	Variable string `json:"variable"`
	// Min and Max bound the loads probed; Start is the first (0 = Min).
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Start float64 `json:"start,omitempty"`
	// Step is the search's resolution.
	Step float64 `json:"step"`
	// SLOs are the objectives a probe must meet.
	SLOs []SLO `json:"slos"`
	// MaxRuns is the most runs a probe gets when its verdict is within
	// the noise.
	MaxRuns int `json:"max_runs"`
	// Margin is the relative distance to a bound within which one run is
	// not trusted.
	Margin float64 `json:"margin"`
}

// SLO bounds one result metric from above (Max) or below (Min).
type SLO struct {
	// Metric is a result JSON key, or "failure_rate".
	Metric string `json:"metric"`
	// Max and Min are the bounds; nil when not set.
	Max *float64 `json:"max,omitempty"`
	Min *float64 `json:"min,omitempty"`
}

// Repeat runs each point Count times.
type Repeat struct {
	// Count is the number of runs of each point.
	Count int `json:"count"`
	// FixedSeed keeps the scenario seed for every repeat (identical prompts).
	FixedSeed bool `json:"fixed_seed"`
}

// Compare runs variants of the scenario interleaved and compares them.
type Compare struct {
	// Variants maps a variant name to a partial scenario whose values
	// replace the base's (see Scenario.Merge).
	Variants map[string]json.RawMessage `json:"variants"`
	// Baseline names the variant the others are compared against; empty
	// means the first variant in name order.
	Baseline string `json:"baseline,omitempty"`
	// Gates fail the run when a variant regresses against the baseline by
	// more than allowed.
	Gates []Gate `json:"gates,omitempty"`
}

// Gate is a CI threshold on a compared metric.
type Gate struct {
	// Metric is a result JSON key, e.g. "p99_ttft_ms" or "output_throughput".
	Metric string `json:"metric"`
	// MaxIncrease / MaxDecrease are relative limits such as "5%".
	MaxIncrease string `json:"max_increase,omitempty"`
	MaxDecrease string `json:"max_decrease,omitempty"`
}

// Float is a float64 that reads and writes +Inf as the string "inf", as
// vLLM's request_rate does.
type Float float64

// Inf is the Float +Inf.
var Inf = Float(math.Inf(1))

// IsInf reports whether f is +Inf.
func (f Float) IsInf() bool { return math.IsInf(float64(f), 1) }

// MarshalJSON writes +Inf as "inf" and other values as numbers.
func (f Float) MarshalJSON() ([]byte, error) {
	if f.IsInf() {
		return []byte(`"inf"`), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON reads a number or the string "inf".
func (f *Float) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !math.IsInf(v, 1) {
			return fmt.Errorf("invalid number %q: want a number or \"inf\"", s)
		}
		*f = Inf
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// DefaultRequestTimeout is target.request_timeout when it is unset: vLLM's
// client total timeout (aiohttp.ClientTimeout(total=6*60*60)).
const DefaultRequestTimeout = 6 * 60 * 60

// ServerURL is the base URL of a server target, without a trailing
// slash: BaseURL, or http://Host:Port.
func (t Target) ServerURL() string {
	if t.BaseURL != "" {
		return strings.TrimSuffix(t.BaseURL, "/")
	}
	return "http://" + net.JoinHostPort(t.Host, strconv.Itoa(t.Port))
}

// RequestTimeoutSeconds is target.request_timeout, or its default.
func (t Target) RequestTimeoutSeconds() float64 {
	if t.RequestTimeout > 0 {
		return t.RequestTimeout
	}
	return DefaultRequestTimeout
}
