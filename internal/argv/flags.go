package argv

import (
	"bufio"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
)

// arity is how many values a flag takes, in argparse's terms.
type arity int

const (
	// arityZero is a store_true flag: no value.
	arityZero arity = iota
	// arityOne takes exactly one value.
	arityOne
	// arityStar is nargs="*": zero or more values.
	arityStar
	// arityPlus is nargs="+": one or more values.
	arityPlus
)

// flagDef is one implemented flag: how it parses (vLLM's type, default and
// choices) and which scenario fields it sets.
type flagDef struct {
	// name is the long option, e.g. "--num-prompts".
	name  string
	arity arity
	// metavar names the value in help: INT, FLOAT, STR, JSON, KEY=VALUE...
	metavar string
	// def is vLLM's default as help shows it.
	def string
	// choices are vLLM's choices; supported is the subset vbench runs
	// (nil: all of them).
	choices, supported []string
	// paths are the scenario fields the flag sets, as CUE paths.
	paths []string
	help  string
	// vbenchOnly marks a flag that vllm bench serve does not have.
	vbenchOnly bool
	// rust marks a flag of vLLM's Rust client (vllm-bench) that the
	// Python vllm bench serve does not have.
	rust bool
	// set stores the flag's values (none for arityZero) into n.
	set func(n *namespace, vals []string) error
}

// namespace is vLLM's parsed argparse namespace for the implemented flags,
// holding vLLM's defaults until a flag sets a value.
type namespace struct {
	backend, baseURL, host, endpoint string
	port                             int64
	headers                          map[string]string
	model, servedModelName           string
	requestIDPrefix                  *string
	insecure, profile                bool
	loraModules                      []string
	loraAssignment                   string

	tokenizer, tokenizerMode           string
	trustRemoteCode, skipTokenizerInit bool

	seed                                             int64
	datasetName                                      string
	randomInputLen, randomOutputLen, randomPrefixLen int64
	randomBatchSize                                  int64
	noReranker                                       bool
	bfclCategories                                   []string
	ensureClientSide                                 bool
	mmBaseItems                                      int64
	mmItemsRatio                                     float64
	mmLimits                                         dataset.MMLimits
	mmBuckets                                        dataset.MMBuckets
	rangeRatio                                       dataset.RangeRatio
	inputLen, outputLen                              *int64

	// The file-backed datasets' flags (custom, sonnet, sharegpt).
	datasetPath                                      string
	noOversample, disableShuffle, skipChatTemplate   bool
	multimodalChat                                   bool
	sharegptOutputLen                                *int64
	chatTemplateKwargs                               map[string]any
	customOutputLen                                  int64
	sonnetInputLen, sonnetOutputLen, sonnetPrefixLen int64
	specBenchOutputLen                               int64
	specBenchCategory                                string
	speedBenchSubset, speedBenchCategory             string
	speedBenchOutputLen                              int64

	// The hf blazedit dataset's flags.
	blazeditMinDistance, blazeditMaxDistance float64
	asrMinAudioLenSec, asrMaxAudioLenSec     float64

	// The hf dataset's flags.
	hfSubset, hfSplit, hfName string
	hfOutputLen               *int64
	noStream                  bool

	// The prefix_repetition dataset's flags.
	prefixRepPrefixLen, prefixRepSuffixLen, prefixRepNumPrefixes, prefixRepOutputLen int64

	// The timed_trace dataset's flags; selfTimed is nil when neither
	// --self-timed nor --no-self-timed is given.
	traceChunkHashSize                                                    int64
	traceSecMultiplier                                                    float64
	traceLabelTimestamp, traceLabelInput, traceLabelOutput, traceLabelIDs string
	selfTimed                                                             *bool

	numPrompts              int64
	requestRate, burstiness float64
	probeRate               float64
	maxConcurrency          *int64
	rampUpStrategy          string
	rampUpStart, rampUpEnd  *int64
	numWarmups, readyCheck  int64

	temperature, topP, minP, frequencyPenalty, presencePenalty, repetitionPenalty *float64
	topK, logprobs                                                                *int64
	ignoreEOS                                                                     bool
	extraBody                                                                     map[string]any

	percentileMetrics []string
	// percentileMetricsEmpty: --percentile-metrics was given as "", which
	// vLLM treats as not given.
	percentileMetricsEmpty bool
	metricPercentiles      []float64
	goodput                map[string]float64

	saveResult, saveDetailed, appendResult, disableTqdm bool
	plotDatasetStats                                    bool
	overwrite                                           bool
	resultDir, resultFilename, label                    string
	metadata                                            scenario.Metadata

	// streamCounting is vbench's --stream-counting ("" when not given).
	streamCounting string
	// scrapeInterval is vbench's --scrape-interval (nil: not given).
	scrapeInterval *float64
	// plotTimeline is --plot-timeline; itlThresholds is the text of
	// --timeline-itl-thresholds, read only with it (see timeline.go).
	plotTimeline  bool
	itlThresholds string

	extras bool

	// vllm-bench's (the Rust client's) own flags: see rustflags.go.
	rust rustNamespace
}

// newNamespace returns vLLM's defaults.
func newNamespace() *namespace {
	return &namespace{
		backend: "openai", host: "127.0.0.1", port: 8000, endpoint: "/v1/completions", loraAssignment: "random",
		tokenizerMode: "auto", datasetName: "random",
		randomInputLen: 1024, randomOutputLen: 128, randomBatchSize: 1,
		mmBaseItems: 1, mmLimits: dataset.MMLimits{{Modality: "image", Max: 255}, {Modality: "video", Max: 1}},
		mmBuckets: dataset.MMBuckets{{Height: 256, Width: 256, Frames: 1, Prob: 0.5}, {Height: 720, Width: 1280, Frames: 1, Prob: 0.5},
			{Height: 720, Width: 1280, Frames: 16, Prob: 0}},
		customOutputLen: 256, sonnetInputLen: 550, sonnetOutputLen: 150, sonnetPrefixLen: 200, specBenchOutputLen: 256,
		speedBenchSubset: "qualitative", speedBenchOutputLen: 4096,
		prefixRepPrefixLen: 256, prefixRepSuffixLen: 256, prefixRepNumPrefixes: 10, prefixRepOutputLen: 128, blazeditMaxDistance: 1, asrMaxAudioLenSec: math.Inf(1),
		traceChunkHashSize: 16, traceSecMultiplier: 1, traceLabelTimestamp: "timestamp", traceLabelInput: "input_length",
		traceLabelOutput: "output_length", traceLabelIDs: "hash_ids",
		numPrompts: 1000, requestRate: math.Inf(1), burstiness: 1,
		percentileMetrics: []string{"ttft", "tpot", "itl"}, metricPercentiles: []float64{99},
		itlThresholds: "25,50",
	}
}

// backends are vLLM's --backend choices in registration order (a test
// checks them against the backend registry). Which of them vbench
// implements is the registry's to say: see SetImplementedBackends.
var backends = []string{"vllm", "openai", "openai-chat", "openai-audio", "openai-embeddings",
	"openai-embeddings-chat", "openai-embeddings-clip", "openai-embeddings-vlm2vec",
	"infinity-embeddings", "infinity-embeddings-clip", "vllm-pooling", "vllm-rerank",
	"openai-responses", "anthropic-messages"}

// SetImplementedBackends tells the parser which --backend choices vbench
// implements, in choice order: the others are refused as "not supported
// yet", and help and Format name these. The backend registry knows them
// (backend.SupportedNames), but this package is part of the configuration
// layer, which must not import the stages, so the program passes them in
// at start-up, before anything parses (package cli does, in an init
// function). Until then every choice counts as implemented here, and the
// run's checks (experiment.Check) refuse what vbench cannot run.
func SetImplementedBackends(names []string) {
	flagByName["--backend"].supported = slices.Clone(names)
}

// datasetNames are vLLM's --dataset-name choices in registration order.
var datasetNames = []string{"sharegpt", "burstgpt", "sonnet", "random", "random-mm", "random-rerank",
	"hf", "custom", "custom_audio", "custom_image", "prefix_repetition", "spec_bench", "speed_bench", "timed_trace"}

// speedBenchSubsets are vLLM's --speed-bench-dataset-subset choices.
var speedBenchSubsets = []string{"qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k"}

// percentileMetricNames are the metrics --percentile-metrics accepts, in
// the order vLLM reports them.
var percentileMetricNames = []string{"ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue"}

// flags are the implemented flags, in the order help lists them and
// Format writes them.
var pythonFlags = []*flagDef{
	{name: "--backend", arity: arityOne, metavar: "STR", def: "openai", choices: backends, supported: backends, // until SetImplementedBackends
		paths: []string{"target.backend"}, help: "request function: the payload and response format",
		set: func(n *namespace, v []string) error { n.backend = v[0]; return nil }},
	{name: "--base-url", arity: arityOne, metavar: "URL", def: "None", paths: []string{"target.base_url"},
		help: "server base URL, prefixed to --endpoint (else http://HOST:PORT)",
		set:  func(n *namespace, v []string) error { n.baseURL = v[0]; return nil }},
	{name: "--host", arity: arityOne, metavar: "STR", def: "127.0.0.1", paths: []string{"target.host"},
		help: "server host when --base-url is not set",
		set:  func(n *namespace, v []string) error { n.host = v[0]; return nil }},
	{name: "--port", arity: arityOne, metavar: "INT", def: "8000", paths: []string{"target.port"},
		help: "server port when --base-url is not set", set: setInt(func(n *namespace) *int64 { return &n.port })},
	{name: "--endpoint", arity: arityOne, metavar: "STR", def: "/v1/completions", paths: []string{"target.endpoint"},
		help: "API path (not chosen per backend: openai-chat needs /v1/chat/completions)",
		set:  func(n *namespace, v []string) error { n.endpoint = v[0]; return nil }},
	{name: "--header", arity: arityStar, metavar: "KEY=VALUE", def: "None", paths: []string{"target.headers"},
		help: "extra HTTP headers on every request (values are never printed or saved)", set: setHeaders},
	{name: "--model", arity: arityOne, metavar: "STR", def: "None", paths: []string{"target.model"},
		help: "model id (default: the first model of GET /v1/models)",
		set:  func(n *namespace, v []string) error { n.model = v[0]; return nil }},
	{name: "--served-model-name", arity: arityOne, metavar: "STR", def: "None", paths: []string{"target.served_model_name"},
		help: "model name sent in the payload (the tokenizer still uses --model)",
		set:  func(n *namespace, v []string) error { n.servedModelName = v[0]; return nil }},
	{name: "--request-id-prefix", arity: arityOne, metavar: "STR", def: "bench-<8 hex>-", paths: []string{"target.request_id_prefix"},
		help: "x-request-id prefix (default drawn at random for each run)", set: setRequestIDPrefix},
	{name: "--insecure", arity: arityZero, def: "False", paths: []string{"target.insecure"},
		help: "disable TLS certificate verification",
		set:  func(n *namespace, _ []string) error { n.insecure = true; return nil }},
	{name: "--profile", arity: arityZero, def: "False", paths: []string{"target.profile"},
		help: "POST /start_profile before the timed run and /stop_profile after it (the server needs a profiler configured)",
		set:  func(n *namespace, _ []string) error { n.profile = true; return nil }},
	{name: "--lora-modules", arity: arityPlus, metavar: "STR", def: "None", paths: []string{"target.lora_modules"},
		help: "LoRA module names: each request's payload model is one of them (see --lora-assignment)",
		set:  func(n *namespace, v []string) error { n.loraModules = slices.Clone(v); return nil }},
	{name: "--lora-assignment", arity: arityOne, metavar: "STR", def: "random", choices: []string{"random", "round-robin"},
		paths: []string{"target.lora_assignment"},
		help:  "how requests choose among --lora-modules: random (Python's random.choice after random.seed(--seed)) or round-robin",
		set:   func(n *namespace, v []string) error { n.loraAssignment = v[0]; return nil }},

	{name: "--tokenizer", arity: arityOne, metavar: "STR", def: "None", paths: []string{"tokenizer.name"},
		help: "tokenizer name or path (default: --model); vbench has o200k_base, cl100k_base, p50k_base, r50k_base built in",
		set:  func(n *namespace, v []string) error { n.tokenizer = v[0]; return nil }},
	{name: "--tokenizer-mode", arity: arityOne, metavar: "STR", def: "auto", paths: []string{"tokenizer.mode"},
		help: "tokenizer mode", set: func(n *namespace, v []string) error { n.tokenizerMode = v[0]; return nil }},
	{name: "--trust-remote-code", arity: arityZero, def: "False", paths: []string{"tokenizer.trust_remote_code"},
		help: "accepted for compatibility (vbench never runs tokenizer code)",
		set:  func(n *namespace, _ []string) error { n.trustRemoteCode = true; return nil }},
	{name: "--skip-tokenizer-init", arity: arityZero, def: "False", paths: []string{"tokenizer.skip_init"},
		help: "run without a client tokenizer (token-based report lines are then missing)",
		set:  func(n *namespace, _ []string) error { n.skipTokenizerInit = true; return nil }},

	{name: "--seed", arity: arityOne, metavar: "INT", def: "0", paths: []string{"seed"},
		help: "seed of the dataset sampling and the arrival times", set: setInt(func(n *namespace) *int64 { return &n.seed })},
	{name: "--dataset-name", arity: arityOne, metavar: "STR", def: "random", choices: datasetNames, supported: argvDatasetNames(),
		paths: []string{"dataset"}, help: "dataset",
		set: func(n *namespace, v []string) error { n.datasetName = v[0]; return nil }},
	{name: "--dataset-path", arity: arityOne, metavar: "STR", def: "None", paths: []string{"dataset.custom.path", "dataset.custom_audio.path", "dataset.custom_image.path", "dataset.sonnet.path", "dataset.sharegpt.path", "dataset.burstgpt.path", "dataset.spec_bench.path", "dataset.speed_bench.path", "dataset.timed_trace.path", "dataset.hf.path"},
		help: "dataset file (custom: JSONL; sonnet: poem lines, default vLLM's sonnet.txt, embedded; sharegpt: JSON, or a Hub dataset file org/name/file.json, or its id alone for the usual file; burstgpt: the BurstGPT CSV; spec_bench: SpecBench's question.jsonl; speed_bench: the SPEED-Bench directory of <subset>.jsonl files; timed_trace: the JSONL trace)",
		set:  func(n *namespace, v []string) error { n.datasetPath = v[0]; return nil }},
	{name: "--no-oversample", arity: arityZero, def: "False", paths: []string{"dataset.custom.no_oversample", "dataset.custom_audio.no_oversample", "dataset.custom_image.no_oversample", "dataset.sharegpt.no_oversample", "dataset.spec_bench.no_oversample", "dataset.speed_bench.no_oversample", "dataset.hf.no_oversample"},
		help: "do not pad the sampled requests up to --num-prompts (custom, sharegpt, spec_bench, speed_bench, hf)",
		set:  func(n *namespace, _ []string) error { n.noOversample = true; return nil }},
	{name: "--skip-chat-template", arity: arityZero, def: "False", paths: []string{"dataset.custom.skip_chat_template", "dataset.custom_audio.skip_chat_template", "dataset.speed_bench.skip_chat_template", "dataset.hf.skip_chat_template"},
		help: "send prompts without the tokenizer's chat template (custom, speed_bench, the hf classes that template)",
		set:  func(n *namespace, _ []string) error { n.skipChatTemplate = true; return nil }},
	{name: "--disable-shuffle", arity: arityZero, def: "False", paths: []string{"dataset.custom.disable_shuffle", "dataset.custom_audio.disable_shuffle", "dataset.custom_image.disable_shuffle", "dataset.sharegpt.disable_shuffle", "dataset.spec_bench.disable_shuffle", "dataset.speed_bench.disable_shuffle", "dataset.prefix_repetition.disable_shuffle", "dataset.hf.disable_shuffle"},
		help: "keep the file's order (custom, sharegpt, spec_bench, speed_bench, hf), or the requests grouped by prefix (prefix_repetition)",
		set:  func(n *namespace, _ []string) error { n.disableShuffle = true; return nil }},
	{name: "--custom-ensure-client-side-data", arity: arityZero, def: "False", paths: []string{"dataset.custom_image.ensure_client_side_data"},
		help: "custom_image: read local and http(s) images and send them inline as data URLs",
		set:  func(n *namespace, _ []string) error { n.ensureClientSide = true; return nil }},
	{name: "--custom-output-len", arity: arityOne, metavar: "INT", def: "256", paths: []string{"dataset.custom.output_len", "dataset.custom_audio.output_len", "dataset.custom_image.output_len"},
		help: "custom dataset: output length in tokens; -1 takes each line's output_tokens",
		set:  setInt(func(n *namespace) *int64 { return &n.customOutputLen })},
	{name: "--sonnet-input-len", arity: arityOne, metavar: "INT", def: "550", paths: []string{"dataset.sonnet.input_len"},
		help: "sonnet dataset: most prompt tokens", set: setInt(func(n *namespace) *int64 { return &n.sonnetInputLen })},
	{name: "--sonnet-output-len", arity: arityOne, metavar: "INT", def: "150", paths: []string{"dataset.sonnet.output_len"},
		help: "sonnet dataset: output length in tokens", set: setInt(func(n *namespace) *int64 { return &n.sonnetOutputLen })},
	{name: "--sonnet-prefix-len", arity: arityOne, metavar: "INT", def: "200", paths: []string{"dataset.sonnet.prefix_len"},
		help: "sonnet dataset: shared prefix length in tokens", set: setInt(func(n *namespace) *int64 { return &n.sonnetPrefixLen })},
	{name: "--random-input-len", arity: arityOne, metavar: "INT", def: "1024", paths: []string{"dataset.random.input_len", "dataset.random_rerank.input_len", "dataset.random_mm.input_len"},
		help: "random dataset: prompt length in tokens", set: setInt(func(n *namespace) *int64 { return &n.randomInputLen })},
	{name: "--random-output-len", arity: arityOne, metavar: "INT", def: "128", paths: []string{"dataset.random.output_len", "dataset.random_mm.output_len"},
		help: "random dataset: output length in tokens", set: setInt(func(n *namespace) *int64 { return &n.randomOutputLen })},
	{name: "--random-range-ratio", arity: arityOne, metavar: "STR", def: "0.0", paths: []string{"dataset.random.range_ratio", "dataset.random_rerank.range_ratio", "dataset.random_mm.range_ratio"},
		help: `random dataset: length jitter in [0, 1), or '{"input": r, "output": r}'`, set: setRangeRatio},
	{name: "--random-prefix-len", arity: arityOne, metavar: "INT", def: "0", paths: []string{"dataset.random.prefix_len", "dataset.random_mm.prefix_len"},
		help: "random dataset: shared prefix length in tokens", set: setInt(func(n *namespace) *int64 { return &n.randomPrefixLen })},
	{name: "--random-batch-size", arity: arityOne, metavar: "INT", def: "1", paths: []string{"dataset.random.batch_size", "dataset.random_rerank.batch_size"},
		help: "random: prompts per request (embedding batches); random-rerank: documents per request", set: setRandomBatchSize},
	{name: "--no-reranker", arity: arityZero, def: "False", paths: []string{"dataset.random_rerank.no_reranker"},
		help: "random-rerank: the model is not a reranker (no separator token; the first prompt is the query of a batch)",
		set:  func(n *namespace, _ []string) error { n.noReranker = true; return nil }},
	{name: "--random-mm-base-items-per-request", arity: arityOne, metavar: "INT", def: "1", paths: []string{"dataset.random_mm.base_items_per_request"},
		help: "random-mm: mean media items per request", set: setInt(func(n *namespace) *int64 { return &n.mmBaseItems })},
	{name: "--random-mm-num-mm-items-range-ratio", arity: arityOne, metavar: "FLOAT", def: "0.0", paths: []string{"dataset.random_mm.num_mm_items_range_ratio"},
		help: "random-mm: item count jitter in [0, 1]", set: setMMItemsRatio},
	{name: "--random-mm-limit-mm-per-prompt", arity: arityOne, metavar: "JSON", def: `{"image": 255, "video": 1}`, paths: []string{"dataset.random_mm.limit_mm_per_prompt"},
		help: "random-mm: most items per modality in a request", set: setMMLimits},
	{name: "--random-mm-bucket-config", arity: arityOne, metavar: "DICT", def: "{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}",
		paths: []string{"dataset.random_mm.bucket_config"},
		help:  "random-mm: (height, width, frames) item shapes and their probabilities; frames 1 is an image, more a video", set: setMMBuckets},
	{name: "--input-len", arity: arityOne, metavar: "INT", def: "None", paths: []string{"dataset.random.input_len", "dataset.random_rerank.input_len", "dataset.random_mm.input_len"},
		help: "overrides --random-input-len", set: setIntPtr(func(n *namespace) **int64 { return &n.inputLen })},
	{name: "--output-len", arity: arityOne, metavar: "INT", def: "None", paths: []string{"dataset.random.output_len", "dataset.random_mm.output_len", "dataset.custom.output_len", "dataset.custom_audio.output_len", "dataset.custom_image.output_len", "dataset.sharegpt.output_len", "dataset.spec_bench.output_len", "dataset.prefix_repetition.output_len", "dataset.hf.output_len"},
		help: "overrides --random-output-len, --custom-output-len, --sharegpt-output-len, --hf-output-len, --spec-bench-output-len and --prefix-repetition-output-len (not --sonnet-output-len or --speed-bench-output-len, as in vLLM)", set: setIntPtr(func(n *namespace) **int64 { return &n.outputLen })},
	{name: "--enable-multimodal-chat", arity: arityZero, def: "False", paths: []string{"dataset.sharegpt.enable_multimodal_chat", "dataset.custom_audio.enable_multimodal_chat", "dataset.custom_image.enable_multimodal_chat", "dataset.hf.enable_multimodal_chat", "dataset.random_mm.enable_multimodal_chat"},
		help: "sharegpt, random-mm, custom_image, custom_audio and the hf conversation classes: send the prompt as vLLM's multimodal chat message",
		set:  func(n *namespace, _ []string) error { n.multimodalChat = true; return nil }},
	{name: "--sharegpt-output-len", arity: arityOne, metavar: "INT", def: "None", paths: []string{"dataset.sharegpt.output_len"},
		help: "sharegpt: fixed output length (default: the reply's length, at least 4 tokens)",
		set:  setIntPtr(func(n *namespace) **int64 { return &n.sharegptOutputLen })},
	{name: "--spec-bench-output-len", arity: arityOne, metavar: "INT", def: "256", paths: []string{"dataset.spec_bench.output_len"},
		help: "spec_bench: output length in tokens", set: setInt(func(n *namespace) *int64 { return &n.specBenchOutputLen })},
	{name: "--spec-bench-category", arity: arityOne, metavar: "STR", def: "None", paths: []string{"dataset.spec_bench.category"},
		help: "spec_bench: keep only this category (default: all)",
		set:  func(n *namespace, v []string) error { n.specBenchCategory = v[0]; return nil }},
	{name: "--speed-bench-dataset-subset", arity: arityOne, metavar: "STR", def: "qualitative", choices: speedBenchSubsets,
		paths: []string{"dataset.speed_bench.subset"},
		help:  "speed_bench: the subset, the file <subset>.jsonl of --dataset-path (also spelt --speed-bench-config, as vLLM's Rust client does)",
		set:   func(n *namespace, v []string) error { n.speedBenchSubset = v[0]; return nil }},
	{name: "--speed-bench-output-len", arity: arityOne, metavar: "INT", def: "4096", paths: []string{"dataset.speed_bench.output_len"},
		help: "speed_bench: output length in tokens (--output-len does not change it, as in vLLM)", set: setInt(func(n *namespace) *int64 { return &n.speedBenchOutputLen })},
	{name: "--speed-bench-category", arity: arityOne, metavar: "STR", def: "None", paths: []string{"dataset.speed_bench.category"},
		help: "speed_bench: keep only this category (default: all)",
		set:  func(n *namespace, v []string) error { n.speedBenchCategory = v[0]; return nil }},
	{name: "--blazedit-min-distance", arity: arityOne, metavar: "FLOAT", def: "0.0", paths: []string{"dataset.hf.blazedit_min_distance"},
		help: "hf blazedit: keep the rows whose normalized edit distance is at least this (0 to 1)",
		set:  setFloat(func(n *namespace) *float64 { return &n.blazeditMinDistance })},
	{name: "--blazedit-max-distance", arity: arityOne, metavar: "FLOAT", def: "1.0", paths: []string{"dataset.hf.blazedit_max_distance"},
		help: "hf blazedit: keep the rows whose normalized edit distance is at most this (0 to 1)",
		set:  setFloat(func(n *namespace) *float64 { return &n.blazeditMaxDistance })},

	{name: "--asr-max-audio-len-sec", arity: arityOne, metavar: "FLOAT", def: "inf", paths: []string{"dataset.hf.asr_max_audio_len_sec"},
		help: "hf ASR datasets: drop the clips longer than this many seconds",
		set:  setFloat(func(n *namespace) *float64 { return &n.asrMaxAudioLenSec })},
	{name: "--asr-min-audio-len-sec", arity: arityOne, metavar: "FLOAT", def: "0.0", paths: []string{"dataset.hf.asr_min_audio_len_sec"},
		help: "hf ASR datasets: drop the clips shorter than this many seconds",
		set:  setFloat(func(n *namespace) *float64 { return &n.asrMinAudioLenSec })},
	{name: "--bfcl-categories", arity: arityOne, metavar: "STR", def: "None", paths: []string{"dataset.hf.bfcl_categories"},
		help: "hf BFCL: comma-separated categories, each the file BFCL_v3_<category>.json (default: simple,live_simple,multiple)",
		set:  func(n *namespace, v []string) error { n.bfclCategories = strings.Split(v[0], ","); return nil }},

	{name: "--hf-subset", arity: arityOne, metavar: "STR", def: "None", paths: []string{"dataset.hf.subset"},
		help: "hf: the dataset's subset (config)", set: func(n *namespace, v []string) error { n.hfSubset = v[0]; return nil }},
	{name: "--hf-split", arity: arityOne, metavar: "STR", def: "None", paths: []string{"dataset.hf.split"},
		help: "hf: the split (default: the dataset's; train when it has one)", set: func(n *namespace, v []string) error { n.hfSplit = v[0]; return nil }},
	{name: "--hf-name", arity: arityOne, metavar: "STR", def: "None", paths: []string{"dataset.hf.name"},
		help: "hf: the Hub id of a dataset whose --dataset-path is a local copy", set: func(n *namespace, v []string) error { n.hfName = v[0]; return nil }},
	{name: "--hf-output-len", arity: arityOne, metavar: "INT", def: "None", paths: []string{"dataset.hf.output_len"},
		help: "hf: fixed output length", set: setIntPtr(func(n *namespace) **int64 { return &n.hfOutputLen })},
	{name: "--no-stream", arity: arityZero, def: "False", paths: []string{"dataset.hf.no_stream"},
		help: "hf: load the dataset whole, not streamed (shuffles all the rows, not through a buffer)",
		set:  func(n *namespace, _ []string) error { n.noStream = true; return nil }},

	{name: "--prefix-repetition-prefix-len", arity: arityOne, metavar: "INT", def: "256", paths: []string{"dataset.prefix_repetition.prefix_len"},
		help: "prefix_repetition dataset: shared prefix length in tokens", set: setInt(func(n *namespace) *int64 { return &n.prefixRepPrefixLen })},
	{name: "--prefix-repetition-suffix-len", arity: arityOne, metavar: "INT", def: "256", paths: []string{"dataset.prefix_repetition.suffix_len"},
		help: "prefix_repetition dataset: per-request suffix length in tokens", set: setInt(func(n *namespace) *int64 { return &n.prefixRepSuffixLen })},
	{name: "--prefix-repetition-num-prefixes", arity: arityOne, metavar: "INT", def: "10", paths: []string{"dataset.prefix_repetition.num_prefixes"},
		help: "prefix_repetition dataset: number of distinct prefixes", set: setInt(func(n *namespace) *int64 { return &n.prefixRepNumPrefixes })},
	{name: "--prefix-repetition-output-len", arity: arityOne, metavar: "INT", def: "128", paths: []string{"dataset.prefix_repetition.output_len"},
		help: "prefix_repetition dataset: output length in tokens", set: setInt(func(n *namespace) *int64 { return &n.prefixRepOutputLen })},

	{name: "--timed-trace-chunk-hash-size", arity: arityOne, metavar: "INT", def: "16", paths: []string{"dataset.timed_trace.chunk_hash_size"},
		help: "timed_trace: tokens each hash id stands for (512 in Mooncake's traces)", set: setInt(func(n *namespace) *int64 { return &n.traceChunkHashSize })},
	{name: "--timed-trace-sec-multiplier", arity: arityOne, metavar: "FLOAT", def: "1", paths: []string{"dataset.timed_trace.sec_multiplier"},
		help: "timed_trace: seconds per trace time unit (0.001 for Mooncake's milliseconds)", set: setFloat(func(n *namespace) *float64 { return &n.traceSecMultiplier })},
	{name: "--timed-trace-label-timestamp", arity: arityOne, metavar: "STR", def: "timestamp", paths: []string{"dataset.timed_trace.label_timestamp"},
		help: "timed_trace: JSON key of each line's timestamp", set: func(n *namespace, v []string) error { n.traceLabelTimestamp = v[0]; return nil }},
	{name: "--timed-trace-label-input-length", arity: arityOne, metavar: "STR", def: "input_length", paths: []string{"dataset.timed_trace.label_input_length"},
		help: "timed_trace: JSON key of each line's prompt length", set: func(n *namespace, v []string) error { n.traceLabelInput = v[0]; return nil }},
	{name: "--timed-trace-label-output-length", arity: arityOne, metavar: "STR", def: "output_length", paths: []string{"dataset.timed_trace.label_output_length"},
		help: "timed_trace: JSON key of each line's output length", set: func(n *namespace, v []string) error { n.traceLabelOutput = v[0]; return nil }},
	{name: "--timed-trace-label-hash-ids", arity: arityOne, metavar: "STR", def: "hash_ids", paths: []string{"dataset.timed_trace.label_hash_ids"},
		help: "timed_trace: JSON key of each line's prompt block hash ids", set: func(n *namespace, v []string) error { n.traceLabelIDs = v[0]; return nil }},
	{name: "--self-timed", arity: arityZero, def: "None", paths: []string{"dataset.timed_trace.self_timed"},
		help: "timed_trace: send each request at its trace time from the run start (the default for timed_trace)",
		set:  func(n *namespace, _ []string) error { on := true; n.selfTimed = &on; return nil }},
	{name: "--no-self-timed", arity: arityZero, def: "None", paths: []string{"dataset.timed_trace.self_timed"},
		help: "timed_trace: ignore the trace times and draw arrivals from --request-rate and --burstiness",
		set:  func(n *namespace, _ []string) error { off := false; n.selfTimed = &off; return nil }},

	{name: "--num-prompts", arity: arityOne, metavar: "INT", def: "1000", paths: []string{"load.num_prompts"},
		help: "number of requests", set: setInt(func(n *namespace) *int64 { return &n.numPrompts })},
	{name: "--request-rate", arity: arityOne, metavar: "FLOAT", def: "inf", paths: []string{"load.request_rate"},
		help: "requests per second; inf sends them all at once", set: setFloat(func(n *namespace) *float64 { return &n.requestRate })},
	{name: "--burstiness", arity: arityOne, metavar: "FLOAT", def: "1.0", paths: []string{"load.burstiness"},
		help: "gamma shape of the arrival gaps (1 = Poisson)", set: setFloat(func(n *namespace) *float64 { return &n.burstiness })},
	{name: "--probe-request-rate", arity: arityOne, metavar: "FLOAT", def: "0.0", paths: []string{"load.probe_request_rate"},
		help: "send one-token probes one at a time beside the run, pausing 1/rate after each; 0 is off",
		set:  setFloat(func(n *namespace) *float64 { return &n.probeRate })},
	{name: "--max-concurrency", arity: arityOne, metavar: "INT", def: "None", paths: []string{"load.max_concurrency"},
		help: "most requests in flight (default: no limit)", set: setIntPtr(func(n *namespace) **int64 { return &n.maxConcurrency })},
	{name: "--ramp-up-strategy", arity: arityOne, metavar: "STR", def: "None", choices: []string{"linear", "exponential"},
		paths: []string{"load.ramp_up.strategy"}, help: "ramp the request rate from --ramp-up-start-rps to --ramp-up-end-rps",
		set: func(n *namespace, v []string) error { n.rampUpStrategy = v[0]; return nil }},
	{name: "--ramp-up-start-rps", arity: arityOne, metavar: "INT", def: "None", paths: []string{"load.ramp_up.start_rps"},
		help: "ramp-up: rate of the first request", set: setIntPtr(func(n *namespace) **int64 { return &n.rampUpStart })},
	{name: "--ramp-up-end-rps", arity: arityOne, metavar: "INT", def: "None", paths: []string{"load.ramp_up.end_rps"},
		help: "ramp-up: rate of the last request", set: setIntPtr(func(n *namespace) **int64 { return &n.rampUpEnd })},
	{name: "--num-warmups", arity: arityOne, metavar: "INT", def: "0", paths: []string{"load.num_warmups"},
		help: "warmup requests (copies of the first) before the run", set: setInt(func(n *namespace) *int64 { return &n.numWarmups })},
	{name: "--ready-check-timeout-sec", arity: arityOne, metavar: "INT", def: "0", paths: []string{"load.ready_check_timeout_sec"},
		help: "wait up to this long for the endpoint; 0 skips the check", set: setInt(func(n *namespace) *int64 { return &n.readyCheck })},

	{name: "--temperature", arity: arityOne, metavar: "FLOAT", def: "None", paths: []string{"sampling.temperature"},
		help: "sampling temperature", set: setFloatPtr(func(n *namespace) **float64 { return &n.temperature })},
	{name: "--top-p", arity: arityOne, metavar: "FLOAT", def: "None", paths: []string{"sampling.top_p"},
		help: "top-p sampling", set: setFloatPtr(func(n *namespace) **float64 { return &n.topP })},
	{name: "--top-k", arity: arityOne, metavar: "INT", def: "None", paths: []string{"sampling.top_k"},
		help: "top-k sampling", set: setIntPtr(func(n *namespace) **int64 { return &n.topK })},
	{name: "--min-p", arity: arityOne, metavar: "FLOAT", def: "None", paths: []string{"sampling.min_p"},
		help: "min-p sampling", set: setFloatPtr(func(n *namespace) **float64 { return &n.minP })},
	{name: "--frequency-penalty", arity: arityOne, metavar: "FLOAT", def: "None", paths: []string{"sampling.frequency_penalty"},
		help: "frequency penalty", set: setFloatPtr(func(n *namespace) **float64 { return &n.frequencyPenalty })},
	{name: "--presence-penalty", arity: arityOne, metavar: "FLOAT", def: "None", paths: []string{"sampling.presence_penalty"},
		help: "presence penalty", set: setFloatPtr(func(n *namespace) **float64 { return &n.presencePenalty })},
	{name: "--repetition-penalty", arity: arityOne, metavar: "FLOAT", def: "None", paths: []string{"sampling.repetition_penalty"},
		help: "repetition penalty", set: setFloatPtr(func(n *namespace) **float64 { return &n.repetitionPenalty })},
	{name: "--ignore-eos", arity: arityZero, def: "False", paths: []string{"sampling.ignore_eos"},
		help: "send ignore_eos (forced on for the random and timed_trace datasets, as vLLM does)",
		set:  func(n *namespace, _ []string) error { n.ignoreEOS = true; return nil }},
	{name: "--logprobs", arity: arityOne, metavar: "INT", def: "None", paths: []string{"sampling.logprobs"},
		help: "completions payload logprobs", set: setIntPtr(func(n *namespace) **int64 { return &n.logprobs })},
	{name: "--extra-body", arity: arityOne, metavar: "JSON", def: "None", paths: []string{"sampling.extra_body"},
		help: "JSON object merged into every payload, over the sampling flags", set: setExtraBody},
	{name: "--chat-template-kwargs", arity: arityOne, metavar: "JSON", def: "None", paths: []string{"dataset.custom.chat_template_kwargs", "dataset.speed_bench.chat_template_kwargs"},
		help: "JSON object of variables for the client-side chat template (custom, speed_bench)", set: setChatTemplateKwargs},

	{name: "--percentile-metrics", arity: arityOne, metavar: "STR", def: "ttft,tpot,itl",
		paths: []string{"metrics.percentile_metrics"}, help: "comma-separated metrics to report: " + strings.Join(percentileMetricNames, ", "),
		set: setPercentileMetrics},
	{name: "--metric-percentiles", arity: arityOne, metavar: "STR", def: "99", paths: []string{"metrics.metric_percentiles"},
		help: "comma-separated percentiles to report", set: setMetricPercentiles},
	{name: "--goodput", arity: arityPlus, metavar: "KEY:VALUE", def: "None", paths: []string{"metrics.goodput"},
		help: "service-level objectives in ms for goodput; keys ttft, tpot, e2el", set: setGoodput},

	{name: "--save-result", arity: arityZero, def: "False", paths: []string{"output.save_result"},
		help: "write the result JSON", set: func(n *namespace, _ []string) error { n.saveResult = true; return nil }},
	{name: "--save-detailed", arity: arityZero, def: "False", paths: []string{"output.save_detailed"},
		help: "keep the per-request arrays in the result JSON",
		set:  func(n *namespace, _ []string) error { n.saveDetailed = true; return nil }},
	{name: "--append-result", arity: arityZero, def: "False", paths: []string{"output.append_result"},
		help: "append the result JSON as a new line of an existing file",
		set:  func(n *namespace, _ []string) error { n.appendResult = true; return nil }},
	{name: "--result-dir", arity: arityOne, metavar: "STR", def: "None", paths: []string{"output.result_dir"},
		help: "directory of the result JSON (created if missing)",
		set:  func(n *namespace, v []string) error { n.resultDir = v[0]; return nil }},
	{name: "--result-filename", arity: arityOne, metavar: "STR", def: "None", paths: []string{"output.result_filename"},
		help: "result JSON file name (default: vLLM's label-rate-model-date name)",
		set:  func(n *namespace, v []string) error { n.resultFilename = v[0]; return nil }},
	{name: "--label", arity: arityOne, metavar: "STR", def: "None", paths: []string{"output.label"},
		help: "result label and file name prefix (default: --backend)",
		set:  func(n *namespace, v []string) error { n.label = v[0]; return nil }},
	{name: "--metadata", arity: arityStar, metavar: "KEY=VALUE", def: "None", paths: []string{"output.metadata"},
		help: "extra top-level string keys of the result JSON, in the order given", set: setMetadata},
	{name: "--disable-tqdm", arity: arityZero, def: "False", paths: []string{"output.disable_tqdm"},
		help: "hide the progress bar", set: func(n *namespace, _ []string) error { n.disableTqdm = true; return nil }},
	{name: "--plot-timeline", arity: arityZero, def: "False", paths: []string{"output.plot_timeline"},
		help: "write a self-contained HTML timeline of the requests next to the result (<result>.timeline.html), with the server's sampled KV usage and queue depth",
		set:  func(n *namespace, _ []string) error { n.plotTimeline = true; return nil }},
	{name: "--timeline-itl-thresholds", arity: arityOne, metavar: "STR", def: "25,50", paths: []string{"output.timeline_itl_thresholds"},
		help: "two comma-separated ITL thresholds in ms colouring the timeline's decode: below the first, between, from the second on",
		set:  func(n *namespace, v []string) error { n.itlThresholds = v[0]; return nil }},
	{name: "--plot-dataset-stats", arity: arityZero, def: "False", paths: []string{"output.plot_dataset_stats"},
		help: "write <result>.dataset_stats.png next to the result: histograms of the prompt, output and total lengths, and each request's stacked lengths (needs --save-result, --append-result or --plot-timeline to name the result)",
		set:  func(n *namespace, _ []string) error { n.plotDatasetStats = true; return nil }},

	{name: "--overwrite", arity: arityZero, def: "False", vbenchOnly: true, paths: []string{"output.overwrite"},
		help: "vbench only: replace an existing --result-filename (vbench otherwise refuses it, and gives a computed name that exists a -2 suffix)",
		set:  func(n *namespace, _ []string) error { n.overwrite = true; return nil }},
	{name: "--scrape-interval", arity: arityOne, metavar: "SECONDS", def: "None", vbenchOnly: true, paths: []string{"metrics.scrape_interval"},
		help: "vbench only: sample the server's KV-cache usage and running and waiting requests from /metrics every SECONDS during the run, into the records and the \"vbench\" object (0 = off; default: off, every 1 s with --plot-timeline)",
		set:  setFloatPtr(func(n *namespace) **float64 { return &n.scrapeInterval })},
	{name: "--stream-counting", arity: arityOne, metavar: "STR", def: "vllm", choices: []string{"vllm", "exact"}, vbenchOnly: true, paths: []string{"target.stream_counting"},
		help: "vbench only: how streamed chunks count. vllm: as vLLM's client, every chunk with choices is a token arrival and usage is read only from a chunk without choices; exact: only chunks with text are arrivals and usage is read wherever the server puts it",
		set:  func(n *namespace, v []string) error { n.streamCounting = v[0]; return nil }},
	{name: "--vbench-extras", arity: arityZero, def: "False", vbenchOnly: true,
		help: `vbench only: add the "vbench" object (version, scenario hash, scenario) to the result JSON and write the per-request records JSONL next to it`,
		set:  func(n *namespace, _ []string) error { n.extras = true; return nil }},
}

// flags are every flag vbench serve implements: vllm bench serve's and
// vbench's own (pythonFlags), then vllm-bench's (rustFlags).
var flags = slices.Concat(pythonFlags, rustFlags)

// flagByName indexes flags by name.
var flagByName = func() map[string]*flagDef {
	m := make(map[string]*flagDef, len(flags))
	for _, f := range flags {
		m[f.name] = f
	}
	return m
}()

// aliases are other spellings of implemented flags, each mapped to the
// flag: vLLM's Rust client spells --speed-bench-dataset-subset
// --speed-bench-config. An alias is matched exactly (with or without
// =VALUE), never as an abbreviation, so that the prefixes of vLLM's own
// flags (--speed-bench-c for --speed-bench-category) mean what they mean
// to vLLM's argparse; errors and Format use the flag's own name.
var aliases = map[string]string{
	"--speed-bench-config": "--speed-bench-dataset-subset",
}

//go:embed testdata/unsupported.txt
var unsupportedFile string

// unsupported maps each flag of vllm bench serve that vbench does not
// implement yet to the reason, from testdata/unsupported.txt.
var unsupported = parseUnsupported(unsupportedFile)

// parseUnsupported reads "--flag reason" lines; blank lines and lines
// starting with # are skipped. It panics on a malformed line: the file is
// embedded, and its test keeps it well formed.
func parseUnsupported(text string) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, ok := strings.Cut(line, " ")
		reason = strings.TrimSpace(reason)
		if !ok || !strings.HasPrefix(name, "--") || reason == "" {
			panic(fmt.Sprintf("internal error: testdata/unsupported.txt: want \"--flag reason\", got %q", line))
		}
		m[name] = reason
	}
	return m
}

// helpOptions are argparse's -h/--help.
var helpOptions = []string{"-h", "--help"}

// optionNames are every option string the parser knows: implemented,
// unsupported, vbench-only and help, sorted.
var optionNames = func() []string {
	var names []string
	for _, f := range flags {
		names = append(names, f.name)
	}
	for name := range unsupported {
		names = append(names, name)
	}
	for name := range rustUnsupported {
		names = append(names, name)
	}
	names = append(names, helpOptions...)
	slices.Sort(names)
	return names
}()

// isOption reports whether name is a known option string.
func isOption(name string) bool {
	_, ok := slices.BinarySearch(optionNames, name)
	return ok
}

// Flags returns the names of the implemented vllm bench serve flags, in
// help order (vbench-only flags excluded).
func Flags() []string {
	var out []string
	for _, f := range flags {
		if !f.vbenchOnly && !f.rust {
			out = append(out, f.name)
		}
	}
	return out
}

// Unsupported returns the vllm bench serve flags vbench does not implement
// yet, each with the reason, sorted by flag.
func Unsupported() [][2]string {
	out := make([][2]string, 0, len(unsupported))
	for name, reason := range unsupported {
		out = append(out, [2]string{name, reason})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}
