package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
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

	Target    Target    `json:"target"`
	Tokenizer Tokenizer `json:"tokenizer"`
	Dataset   Dataset   `json:"dataset"`
	Load      Load      `json:"load"`
	Sampling  Sampling  `json:"sampling"`
	Metrics   Metrics   `json:"metrics"`
	Output    Output    `json:"output"`

	// Sweep, Repeat and Compare are the experiment shapes; nil for a single run.
	Sweep   *Sweep   `json:"sweep,omitempty"`
	Repeat  *Repeat  `json:"repeat,omitempty"`
	Compare *Compare `json:"compare,omitempty"`
}

// Target says where requests go and how they are shaped.
type Target struct {
	// BaseURL, if set, is prefixed to Endpoint; otherwise http://Host:Port is.
	BaseURL string `json:"base_url,omitempty"`
	Host    string `json:"host"`
	Port    int    `json:"port"`
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
	// CAFile is an extra PEM CA bundle for TLS verification.
	CAFile string `json:"ca_file,omitempty"`
	// Simulator, when set, makes vbench start its built-in simulated server
	// in-process on loopback and send the run there (BaseURL is then unused).
	Simulator *Simulator `json:"simulator,omitempty"`
	// RequestIDPrefix prefixes each request's x-request-id ("" = vLLM's
	// random bench-<8 hex>- prefix drawn at start).
	RequestIDPrefix string `json:"request_id_prefix,omitempty"`
	// LoraModules, when set, are the per-request model names to choose among.
	LoraModules []string `json:"lora_modules,omitempty"`
	// LoraAssignment is random or round-robin.
	LoraAssignment string `json:"lora_assignment"`
	// Profile posts /start_profile and /stop_profile around the run.
	Profile bool `json:"profile"`
}

// Simulator is the latency model of the built-in simulated server.
type Simulator struct {
	// TTFTMs is the base time to first token in milliseconds.
	TTFTMs float64 `json:"ttft_ms"`
	// ITLMs is the inter-token latency in milliseconds.
	ITLMs float64 `json:"itl_ms"`
	// JitterMs is the standard deviation of a deterministic per-token jitter.
	JitterMs float64 `json:"jitter_ms"`
	// PrefillUsPerToken adds this many microseconds of TTFT per prompt token.
	PrefillUsPerToken float64 `json:"prefill_us_per_token"`
	// OutputLen is the output length used when a request sets no max tokens.
	OutputLen int `json:"output_len"`
	// Model is the model name the simulator serves.
	Model string `json:"model"`
	// Seed seeds the simulator's deterministic jitter and text.
	Seed int64 `json:"seed"`
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

// Dataset is a discriminated union: exactly one field is non-nil.
type Dataset struct {
	Random           *RandomDataset           `json:"random,omitempty"`
	RandomMM         *RandomMMDataset         `json:"random_mm,omitempty"`
	RandomRerank     *RandomRerankDataset     `json:"random_rerank,omitempty"`
	ShareGPT         *ShareGPTDataset         `json:"sharegpt,omitempty"`
	Sonnet           *SonnetDataset           `json:"sonnet,omitempty"`
	BurstGPT         *BurstGPTDataset         `json:"burstgpt,omitempty"`
	Custom           *CustomDataset           `json:"custom,omitempty"`
	CustomImage      *CustomDataset           `json:"custom_image,omitempty"`
	CustomAudio      *CustomDataset           `json:"custom_audio,omitempty"`
	PrefixRepetition *PrefixRepetitionDataset `json:"prefix_repetition,omitempty"`
	HF               *HFDataset               `json:"hf,omitempty"`
	SpecBench        *SpecBenchDataset        `json:"spec_bench,omitempty"`
	SpeedBench       *SpeedBenchDataset       `json:"speed_bench,omitempty"`
	TimedTrace       *TimedTraceDataset       `json:"timed_trace,omitempty"`
}

// Kind returns the name of the dataset kind that is set, in vLLM's
// --dataset-name spelling ("random", "random-mm", "sharegpt", ...), or "".
func (d Dataset) Kind() string {
	switch {
	case d.Random != nil:
		return "random"
	case d.RandomMM != nil:
		return "random-mm"
	case d.RandomRerank != nil:
		return "random-rerank"
	case d.ShareGPT != nil:
		return "sharegpt"
	case d.Sonnet != nil:
		return "sonnet"
	case d.BurstGPT != nil:
		return "burstgpt"
	case d.Custom != nil:
		return "custom"
	case d.CustomImage != nil:
		return "custom_image"
	case d.CustomAudio != nil:
		return "custom_audio"
	case d.PrefixRepetition != nil:
		return "prefix_repetition"
	case d.HF != nil:
		return "hf"
	case d.SpecBench != nil:
		return "spec_bench"
	case d.SpeedBench != nil:
		return "speed_bench"
	case d.TimedTrace != nil:
		return "timed_trace"
	}
	return ""
}

// RangeRatio is vLLM's --random-range-ratio: one ratio for both lengths, or
// separate input and output ratios, each in [0, 1).
type RangeRatio struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// UnmarshalJSON accepts a number (both ratios) or {"input": r, "output": r}.
func (r *RangeRatio) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		r.Input, r.Output = f, f
		return nil
	}
	type plain RangeRatio
	return json.Unmarshal(b, (*plain)(r))
}

// RandomDataset is vLLM's random dataset (reference §4.1).
type RandomDataset struct {
	InputLen   int        `json:"input_len"`
	OutputLen  int        `json:"output_len"`
	RangeRatio RangeRatio `json:"range_ratio"`
	PrefixLen  int        `json:"prefix_len"`
	BatchSize  int        `json:"batch_size"`
}

// RandomMMDataset is vLLM's random-mm dataset.
type RandomMMDataset struct {
	RandomDataset
	BaseItemsPerRequest  int             `json:"base_items_per_request"`
	NumMMItemsRangeRatio float64         `json:"num_mm_items_range_ratio"`
	LimitMMPerPrompt     map[string]int  `json:"limit_mm_per_prompt"`
	BucketConfig         json.RawMessage `json:"bucket_config,omitempty"`
	EnableMultimodalChat bool            `json:"enable_multimodal_chat"`
}

// RandomRerankDataset is vLLM's random-rerank dataset.
type RandomRerankDataset struct {
	RandomDataset
	NoReranker bool `json:"no_reranker"`
}

// FileOptions are the options shared by file-backed datasets.
type FileOptions struct {
	// Path is the dataset file (or directory, or HF dataset id).
	Path string `json:"path"`
	// DisableShuffle keeps file order.
	DisableShuffle bool `json:"disable_shuffle"`
	// NoOversample does not pad the sample list up to num_prompts.
	NoOversample bool `json:"no_oversample"`
}

// ShareGPTDataset is vLLM's sharegpt dataset.
type ShareGPTDataset struct {
	FileOptions
	// OutputLen, if set, fixes every output length.
	OutputLen            *int `json:"output_len,omitempty"`
	EnableMultimodalChat bool `json:"enable_multimodal_chat"`
}

// SonnetDataset is vLLM's (deprecated) sonnet dataset.
type SonnetDataset struct {
	Path      string `json:"path"`
	InputLen  int    `json:"input_len"`
	OutputLen int    `json:"output_len"`
	PrefixLen int    `json:"prefix_len"`
}

// BurstGPTDataset is vLLM's burstgpt dataset.
type BurstGPTDataset struct {
	Path string `json:"path"`
}

// CustomDataset is vLLM's custom JSONL dataset (and its image/audio variants).
type CustomDataset struct {
	FileOptions
	// OutputLen is the output length; -1 uses each line's output_tokens.
	OutputLen            int             `json:"output_len"`
	SkipChatTemplate     bool            `json:"skip_chat_template"`
	ChatTemplateKwargs   json.RawMessage `json:"chat_template_kwargs,omitempty"`
	EnsureClientSideData bool            `json:"ensure_client_side_data"`
	EnableMultimodalChat bool            `json:"enable_multimodal_chat"`
}

// PrefixRepetitionDataset is vLLM's prefix_repetition dataset.
type PrefixRepetitionDataset struct {
	PrefixLen      int  `json:"prefix_len"`
	SuffixLen      int  `json:"suffix_len"`
	NumPrefixes    int  `json:"num_prefixes"`
	OutputLen      int  `json:"output_len"`
	DisableShuffle bool `json:"disable_shuffle"`
}

// HFDataset is vLLM's hf dataset family.
type HFDataset struct {
	FileOptions
	Subset               string   `json:"subset,omitempty"`
	Split                string   `json:"split,omitempty"`
	Name                 string   `json:"name,omitempty"`
	OutputLen            *int     `json:"output_len,omitempty"`
	NoStream             bool     `json:"no_stream"`
	SkipChatTemplate     bool     `json:"skip_chat_template"`
	EnableMultimodalChat bool     `json:"enable_multimodal_chat"`
	BlazeditMinDistance  float64  `json:"blazedit_min_distance"`
	BlazeditMaxDistance  float64  `json:"blazedit_max_distance"`
	ASRMaxAudioLenSec    Float    `json:"asr_max_audio_len_sec"`
	ASRMinAudioLenSec    float64  `json:"asr_min_audio_len_sec"`
	BFCLCategories       []string `json:"bfcl_categories,omitempty"`
}

// SpecBenchDataset is vLLM's spec_bench dataset.
type SpecBenchDataset struct {
	FileOptions
	OutputLen        int    `json:"output_len"`
	Category         string `json:"category,omitempty"`
	SkipChatTemplate bool   `json:"skip_chat_template"`
}

// SpeedBenchDataset is vLLM's speed_bench dataset.
type SpeedBenchDataset struct {
	FileOptions
	Subset             string          `json:"subset"`
	OutputLen          int             `json:"output_len"`
	Category           string          `json:"category,omitempty"`
	SkipChatTemplate   bool            `json:"skip_chat_template"`
	ChatTemplateKwargs json.RawMessage `json:"chat_template_kwargs,omitempty"`
}

// TimedTraceDataset is vLLM's timed_trace dataset.
type TimedTraceDataset struct {
	Path              string  `json:"path"`
	ChunkHashSize     int     `json:"chunk_hash_size"`
	SecMultiplier     float64 `json:"sec_multiplier"`
	LabelTimestamp    string  `json:"label_timestamp"`
	LabelInputLength  string  `json:"label_input_length"`
	LabelOutputLength string  `json:"label_output_length"`
	LabelHashIDs      string  `json:"label_hash_ids"`
	SelfTimed         *bool   `json:"self_timed,omitempty"`
}

// Load is the request count, arrival process and concurrency.
type Load struct {
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
	// ProbeRequestRate sends side-channel 1-token probes (0 = off).
	ProbeRequestRate float64 `json:"probe_request_rate"`
}

// RampUp ramps the request rate from StartRPS to EndRPS over the run.
type RampUp struct {
	// Strategy is linear or exponential.
	Strategy string  `json:"strategy"`
	StartRPS float64 `json:"start_rps"`
	EndRPS   float64 `json:"end_rps"`
}

// Sampling holds the sampling parameters sent with each request. Nil
// pointers are not sent.
type Sampling struct {
	Temperature       *float64 `json:"temperature,omitempty"`
	TopP              *float64 `json:"top_p,omitempty"`
	TopK              *int     `json:"top_k,omitempty"`
	MinP              *float64 `json:"min_p,omitempty"`
	FrequencyPenalty  *float64 `json:"frequency_penalty,omitempty"`
	PresencePenalty   *float64 `json:"presence_penalty,omitempty"`
	RepetitionPenalty *float64 `json:"repetition_penalty,omitempty"`
	// IgnoreEOS sends ignore_eos (forced on for random datasets, as vLLM does).
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
}

// Output says what is written where.
type Output struct {
	SaveResult     bool              `json:"save_result"`
	SaveDetailed   bool              `json:"save_detailed"`
	AppendResult   bool              `json:"append_result"`
	ResultDir      string            `json:"result_dir,omitempty"`
	ResultFilename string            `json:"result_filename,omitempty"`
	Label          string            `json:"label,omitempty"`
	Metadata       map[string]string `json:"metadata,omitempty"`
	// Records writes per-request records as JSONL next to the result.
	Records      bool `json:"records"`
	DisableTqdm  bool `json:"disable_tqdm"`
	PlotTimeline bool `json:"plot_timeline"`
	// TimelineITLThresholds are the two ms thresholds of the timeline plot.
	TimelineITLThresholds []float64 `json:"timeline_itl_thresholds"`
	PlotDatasetStats      bool      `json:"plot_dataset_stats"`
}

// Sweep is a grid over scenario fields: each key is a field path
// ("load.max_concurrency") and each value the list of values it takes.
type Sweep struct {
	Axes map[string][]json.RawMessage `json:"axes"`
	// Mode is grid (Cartesian product) or zip (axes advance together).
	Mode string `json:"mode"`
}

// Repeat runs each point Count times.
type Repeat struct {
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
	Gates    []Gate `json:"gates,omitempty"`
}

// Gate is a CI threshold on a compared metric.
type Gate struct {
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
