package argv

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// snapshotFlags reads testdata/python-serve-flags.txt: the long option
// strings of the Python `vllm bench serve` parser (vLLM's own snapshot).
func snapshotFlags(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/python-serve-flags.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSnapshotHas105Flags(t *testing.T) {
	if got := len(snapshotFlags(t)); got != 105 {
		t.Errorf("snapshot has %d flags, want 105", got)
	}
}

// (a) Every flag of the Python parser is implemented or allowlisted.
func TestSnapshotFlagsImplementedOrAllowlisted(t *testing.T) {
	for _, flag := range snapshotFlags(t) {
		_, implemented := flagByName[flag]
		_, allowlisted := unsupported[flag]
		if !implemented && !allowlisted {
			t.Errorf("%s is neither implemented (flags.go) nor in testdata/unsupported.txt", flag)
		}
	}
}

// (b) No allowlist entry is implemented too (stale) ...
func TestAllowlistNotStale(t *testing.T) {
	for flag := range unsupported {
		if _, ok := flagByName[flag]; ok {
			t.Errorf("%s is implemented: remove it from testdata/unsupported.txt", flag)
		}
	}
}

// ... or missing from the snapshot (dangling).
func TestAllowlistEntriesInSnapshot(t *testing.T) {
	snap := snapshotFlags(t)
	for flag := range unsupported {
		if !slices.Contains(snap, flag) {
			t.Errorf("%s is in testdata/unsupported.txt but vllm bench serve has no such flag", flag)
		}
	}
}

// Every implemented flag not marked vbench-only is a real vLLM flag.
func TestImplementedFlagsInSnapshot(t *testing.T) {
	snap := snapshotFlags(t)
	for _, f := range flags {
		if f.rust {
			continue // TestRustSnapshot
		}
		if in := slices.Contains(snap, f.name); in == f.vbenchOnly {
			t.Errorf("%s: vbenchOnly is %v but the snapshot says %v", f.name, f.vbenchOnly, in)
		}
	}
	if n := len(Flags()) + len(Unsupported()); n != len(snap) {
		t.Errorf("%d implemented + allowlisted flags, snapshot has %d", n, len(snap))
	}
}

// flagRows has, for each implemented flag, a command line setting it and
// the value it must give the scenario field at path (JSON).
var flagRows = []struct {
	flag string
	args []string
	path string
	want string
}{
	{"--backend", []string{"--backend", "vllm"}, "target.backend", `"vllm"`},
	{"--backend", []string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions"}, "target.backend", `"openai-chat"`},
	{"--base-url", []string{"--base-url", "http://gpu:9000"}, "target.base_url", `"http://gpu:9000"`},
	{"--host", []string{"--host", "::1"}, "target.host", `"::1"`},
	{"--port", []string{"--port", "9001"}, "target.port", `9001`},
	{"--endpoint", []string{"--endpoint", "/v1/chat/completions"}, "target.endpoint", `"/v1/chat/completions"`},
	{"--header", []string{"--header", "X-A=1", " Y = two=2 "}, "target.headers", `{"X-A":"1","Y":"two=2"}`},
	{"--model", []string{"--model", "Qwen/Qwen3-8B"}, "target.model", `"Qwen/Qwen3-8B"`},
	{"--served-model-name", []string{"--served-model-name", "qwen"}, "target.served_model_name", `"qwen"`},
	{"--request-id-prefix", []string{"--request-id-prefix", "run7-"}, "target.request_id_prefix", `"run7-"`},
	{"--insecure", []string{"--insecure"}, "target.insecure", `true`},
	{"--profile", []string{"--profile"}, "target.profile", `true`},
	{"--lora-modules", []string{"--lora-modules", "sql-lora", "chat-lora"}, "target.lora_modules", `["sql-lora","chat-lora"]`},
	{"--lora-assignment", []string{"--lora-assignment", "round-robin"}, "target.lora_assignment", `"round-robin"`},
	{"--tokenizer", []string{"--tokenizer", "cl100k_base"}, "tokenizer.name", `"cl100k_base"`},
	{"--tokenizer-mode", []string{"--tokenizer-mode", "slow"}, "tokenizer.mode", `"slow"`},
	{"--trust-remote-code", []string{"--trust-remote-code"}, "tokenizer.trust_remote_code", `true`},
	{"--skip-tokenizer-init", []string{"--skip-tokenizer-init"}, "tokenizer.skip_init", `true`},
	{"--seed", []string{"--seed", "42"}, "seed", `42`},
	{"--dataset-name", []string{"--dataset-name", "random", "--random-input-len", "9"}, "dataset", `{"random":{"batch_size":1,"input_len":9,"output_len":128,"prefix_len":0,"range_ratio":{"input":0,"output":0}}}`},
	{"--random-input-len", []string{"--random-input-len", "64"}, "dataset.random.input_len", `64`},
	{"--random-output-len", []string{"--random-output-len", "32"}, "dataset.random.output_len", `32`},
	{"--random-range-ratio", []string{"--random-range-ratio", "0.25"}, "dataset.random.range_ratio", `{"input":0.25,"output":0.25}`},
	{"--random-range-ratio", []string{"--random-range-ratio", `{"input": 0.1, "output": 0.5}`}, "dataset.random.range_ratio", `{"input":0.1,"output":0.5}`},
	{"--random-prefix-len", []string{"--random-prefix-len", "16"}, "dataset.random.prefix_len", `16`},
	{"--random-batch-size", []string{"--random-batch-size", "4"}, "dataset.random.batch_size", `4`},
	{"--custom-ensure-client-side-data", []string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--dataset-name", "custom_image", "--dataset-path", "i.jsonl", "--custom-ensure-client-side-data"}, "dataset.custom_image.ensure_client_side_data", `true`},
	{"--random-mm-base-items-per-request", []string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--dataset-name", "random-mm", "--random-mm-base-items-per-request", "3"}, "dataset.random_mm.base_items_per_request", `3`},
	{"--random-mm-num-mm-items-range-ratio", []string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--dataset-name", "random-mm", "--random-mm-num-mm-items-range-ratio", "0.5"}, "dataset.random_mm.num_mm_items_range_ratio", `0.5`},
	{"--random-mm-limit-mm-per-prompt", []string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--dataset-name", "random-mm", "--random-mm-limit-mm-per-prompt", `{"video": 2, "image": 4}`}, "dataset.random_mm.limit_mm_per_prompt", `{"video":2,"image":4}`},
	{"--random-mm-bucket-config", []string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--dataset-name", "random-mm", "--random-mm-bucket-config", `{(64, 32, 1): 0.25, '(8, 8, 4)': 0.75, (64, 32, 1): 0.5}`}, "dataset.random_mm.bucket_config", `{"64,32,1":0.5,"8,8,4":0.75}`},
	{"--enable-multimodal-chat", []string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--dataset-name", "random-mm", "--enable-multimodal-chat"}, "dataset.random_mm.enable_multimodal_chat", `true`},
	{"--random-batch-size", []string{"--dataset-name", "random-rerank", "--random-batch-size", "3"}, "dataset.random_rerank.batch_size", `3`},
	{"--no-reranker", []string{"--dataset-name", "random-rerank", "--no-reranker", "--random-batch-size", "3"}, "dataset.random_rerank.no_reranker", `true`},
	{"--input-len", []string{"--dataset-name", "random-rerank", "--input-len", "40"}, "dataset.random_rerank.input_len", `40`},
	{"--input-len", []string{"--input-len", "7", "--random-input-len", "9"}, "dataset.random.input_len", `7`},
	{"--output-len", []string{"--random-output-len", "9", "--output-len", "3"}, "dataset.random.output_len", `3`},
	{"--dataset-path", []string{"--dataset-name", "custom", "--dataset-path", "p.jsonl"}, "dataset.custom.path", `"p.jsonl"`},
	{"--dataset-path", []string{"--dataset-name", "sonnet", "--dataset-path", "s.txt"}, "dataset.sonnet.path", `"s.txt"`},
	{"--no-oversample", []string{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--no-oversample"}, "dataset.custom.no_oversample", `true`},
	{"--skip-chat-template", []string{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--skip-chat-template"}, "dataset.custom.skip_chat_template", `true`},
	{"--disable-shuffle", []string{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--disable-shuffle"}, "dataset.custom.disable_shuffle", `true`},
	{"--custom-output-len", []string{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--custom-output-len", "-1"}, "dataset.custom.output_len", `-1`},
	{"--output-len", []string{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--custom-output-len", "9", "--output-len", "3"}, "dataset.custom.output_len", `3`},
	{"--chat-template-kwargs", []string{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--chat-template-kwargs", `{"enable_thinking": false}`}, "dataset.custom.chat_template_kwargs", `{"enable_thinking":false}`},
	{"--dataset-path", []string{"--dataset-name", "burstgpt", "--dataset-path", "t.csv"}, "dataset.burstgpt.path", `"t.csv"`},
	{"--dataset-path", []string{"--dataset-name", "spec_bench", "--dataset-path", "q.jsonl"}, "dataset.spec_bench.path", `"q.jsonl"`},
	{"--no-oversample", []string{"--dataset-name", "spec_bench", "--dataset-path", "q.jsonl", "--no-oversample"}, "dataset.spec_bench.no_oversample", `true`},
	{"--disable-shuffle", []string{"--dataset-name", "spec_bench", "--dataset-path", "q.jsonl", "--disable-shuffle"}, "dataset.spec_bench.disable_shuffle", `true`},
	{"--spec-bench-output-len", []string{"--dataset-name", "spec_bench", "--dataset-path", "q.jsonl", "--spec-bench-output-len", "64"}, "dataset.spec_bench.output_len", `64`},
	{"--output-len", []string{"--dataset-name", "spec_bench", "--dataset-path", "q.jsonl", "--spec-bench-output-len", "9", "--output-len", "3"}, "dataset.spec_bench.output_len", `3`},
	{"--spec-bench-category", []string{"--dataset-name", "spec_bench", "--dataset-path", "q.jsonl", "--spec-bench-category", "math"}, "dataset.spec_bench.category", `"math"`},
	{"--dataset-path", []string{"--dataset-name", "speed_bench", "--dataset-path", "sb"}, "dataset.speed_bench.path", `"sb"`},
	{"--no-oversample", []string{"--dataset-name", "speed_bench", "--dataset-path", "sb", "--no-oversample"}, "dataset.speed_bench.no_oversample", `true`},
	{"--disable-shuffle", []string{"--dataset-name", "speed_bench", "--dataset-path", "sb", "--disable-shuffle"}, "dataset.speed_bench.disable_shuffle", `true`},
	{"--skip-chat-template", []string{"--dataset-name", "speed_bench", "--dataset-path", "sb", "--skip-chat-template"}, "dataset.speed_bench.skip_chat_template", `true`},
	{"--chat-template-kwargs", []string{"--dataset-name", "speed_bench", "--dataset-path", "sb", "--chat-template-kwargs", `{"enable_thinking": false}`}, "dataset.speed_bench.chat_template_kwargs", `{"enable_thinking":false}`},
	{"--speed-bench-dataset-subset", []string{"--dataset-name", "speed_bench", "--dataset-path", "sb", "--speed-bench-dataset-subset", "throughput_8k"}, "dataset.speed_bench.subset", `"throughput_8k"`},
	{"--speed-bench-output-len", []string{"--dataset-name", "speed_bench", "--dataset-path", "sb", "--speed-bench-output-len", "64"}, "dataset.speed_bench.output_len", `64`},
	{"--speed-bench-category", []string{"--dataset-name", "speed_bench", "--dataset-path", "sb", "--speed-bench-category", "coding"}, "dataset.speed_bench.category", `"coding"`},
	{"--sonnet-input-len", []string{"--dataset-name", "sonnet", "--sonnet-input-len", "300"}, "dataset.sonnet.input_len", `300`},
	{"--sonnet-output-len", []string{"--dataset-name", "sonnet", "--sonnet-output-len", "20"}, "dataset.sonnet.output_len", `20`},
	{"--sonnet-prefix-len", []string{"--dataset-name", "sonnet", "--sonnet-prefix-len", "0"}, "dataset.sonnet.prefix_len", `0`},
	{"--dataset-path", []string{"--dataset-name", "sharegpt", "--dataset-path", "sg.json"}, "dataset.sharegpt.path", `"sg.json"`},
	{"--no-oversample", []string{"--dataset-name", "sharegpt", "--dataset-path", "x.json", "--no-oversample"}, "dataset.sharegpt.no_oversample", `true`},
	{"--disable-shuffle", []string{"--dataset-name", "sharegpt", "--dataset-path", "x.json", "--disable-shuffle"}, "dataset.sharegpt.disable_shuffle", `true`},
	{"--enable-multimodal-chat", []string{"--dataset-name", "sharegpt", "--dataset-path", "x.json", "--enable-multimodal-chat"}, "dataset.sharegpt.enable_multimodal_chat", `true`},
	{"--sharegpt-output-len", []string{"--dataset-name", "sharegpt", "--dataset-path", "x.json", "--sharegpt-output-len", "64"}, "dataset.sharegpt.output_len", `64`},
	{"--output-len", []string{"--dataset-name", "sharegpt", "--dataset-path", "x.json", "--sharegpt-output-len", "9", "--output-len", "3"}, "dataset.sharegpt.output_len", `3`},
	{"--prefix-repetition-prefix-len", []string{"--dataset-name", "prefix_repetition", "--prefix-repetition-prefix-len", "32"}, "dataset.prefix_repetition.prefix_len", `32`},
	{"--prefix-repetition-suffix-len", []string{"--dataset-name", "prefix_repetition", "--prefix-repetition-suffix-len", "0"}, "dataset.prefix_repetition.suffix_len", `0`},
	{"--prefix-repetition-num-prefixes", []string{"--dataset-name", "prefix_repetition", "--prefix-repetition-num-prefixes", "3"}, "dataset.prefix_repetition.num_prefixes", `3`},
	{"--prefix-repetition-output-len", []string{"--dataset-name", "prefix_repetition", "--prefix-repetition-output-len", "12"}, "dataset.prefix_repetition.output_len", `12`},
	{"--output-len", []string{"--dataset-name", "prefix_repetition", "--prefix-repetition-output-len", "9", "--output-len", "3"}, "dataset.prefix_repetition.output_len", `3`},
	{"--disable-shuffle", []string{"--dataset-name", "prefix_repetition", "--disable-shuffle"}, "dataset.prefix_repetition.disable_shuffle", `true`},
	{"--dataset-path", []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl"}, "dataset.timed_trace.path", `"t.jsonl"`},
	{"--timed-trace-chunk-hash-size", []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--timed-trace-chunk-hash-size", "512"}, "dataset.timed_trace.chunk_hash_size", `512`},
	{"--timed-trace-sec-multiplier", []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--timed-trace-sec-multiplier", "0.001"}, "dataset.timed_trace.sec_multiplier", `0.001`},
	{"--timed-trace-label-timestamp", []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--timed-trace-label-timestamp", "ts"}, "dataset.timed_trace.label_timestamp", `"ts"`},
	{"--timed-trace-label-input-length", []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--timed-trace-label-input-length", "isl"}, "dataset.timed_trace.label_input_length", `"isl"`},
	{"--timed-trace-label-output-length", []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--timed-trace-label-output-length", "osl"}, "dataset.timed_trace.label_output_length", `"osl"`},
	{"--timed-trace-label-hash-ids", []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--timed-trace-label-hash-ids", "blocks"}, "dataset.timed_trace.label_hash_ids", `"blocks"`},
	{"--self-timed", []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--self-timed"}, "dataset.timed_trace.self_timed", `true`},
	{"--no-self-timed", []string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--no-self-timed"}, "dataset.timed_trace.self_timed", `false`},
	{"--blazedit-min-distance", []string{"--dataset-name", "hf", "--dataset-path", "vdaita/edit_5k_char", "--blazedit-min-distance", "0.25"}, "dataset.hf.blazedit_min_distance", `0.25`},
	{"--blazedit-max-distance", []string{"--dataset-name", "hf", "--dataset-path", "vdaita/edit_5k_char", "--blazedit-max-distance", "0.5"}, "dataset.hf.blazedit_max_distance", `0.5`},
	{"--asr-max-audio-len-sec", []string{"--dataset-name", "hf", "--dataset-path", "openslr/librispeech_asr", "--backend", "openai-audio", "--endpoint", "/v1/audio/transcriptions", "--asr-max-audio-len-sec", "30"}, "dataset.hf.asr_max_audio_len_sec", `30`},
	{"--asr-min-audio-len-sec", []string{"--dataset-name", "hf", "--dataset-path", "openslr/librispeech_asr", "--backend", "openai-audio", "--endpoint", "/v1/audio/transcriptions", "--asr-min-audio-len-sec", "0.5"}, "dataset.hf.asr_min_audio_len_sec", `0.5`},
	{"--bfcl-categories", []string{"--dataset-name", "hf", "--dataset-path", "gorilla-llm/Berkeley-Function-Calling-Leaderboard", "--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--bfcl-categories", "simple, multiple"}, "dataset.hf.bfcl_categories", `["simple"," multiple"]`},
	{"--dataset-path", []string{"--dataset-name", "hf", "--dataset-path", "org/data"}, "dataset.hf.path", `"org/data"`},
	{"--no-oversample", []string{"--dataset-name", "hf", "--dataset-path", "org/data", "--no-oversample"}, "dataset.hf.no_oversample", `true`},
	{"--disable-shuffle", []string{"--dataset-name", "hf", "--dataset-path", "org/data", "--disable-shuffle"}, "dataset.hf.disable_shuffle", `true`},
	{"--hf-subset", []string{"--dataset-name", "hf", "--dataset-path", "org/data", "--hf-subset", "main"}, "dataset.hf.subset", `"main"`},
	{"--hf-split", []string{"--dataset-name", "hf", "--dataset-path", "org/data", "--hf-split", "test"}, "dataset.hf.split", `"test"`},
	{"--hf-name", []string{"--dataset-name", "hf", "--dataset-path", "./copy", "--hf-name", "org/data"}, "dataset.hf.name", `"org/data"`},
	{"--hf-output-len", []string{"--dataset-name", "hf", "--dataset-path", "org/data", "--hf-output-len", "64"}, "dataset.hf.output_len", `64`},
	{"--output-len", []string{"--dataset-name", "hf", "--dataset-path", "org/data", "--hf-output-len", "9", "--output-len", "3"}, "dataset.hf.output_len", `3`},
	{"--no-stream", []string{"--dataset-name", "hf", "--dataset-path", "org/data", "--no-stream"}, "dataset.hf.no_stream", `true`},
	{"--num-prompts", []string{"--num-prompts", "50"}, "load.num_prompts", `50`},
	{"--request-rate", []string{"--request-rate", "2.5"}, "load.request_rate", `2.5`},
	{"--burstiness", []string{"--burstiness", "0.5"}, "load.burstiness", `0.5`},
	{"--probe-request-rate", []string{"--probe-request-rate", "20"}, "load.probe_request_rate", `20`},
	{"--probe-request-rate", []string{"--probe-request-rate", "inf"}, "load.probe_request_rate", `"inf"`},
	{"--max-concurrency", []string{"--max-concurrency", "8"}, "load.max_concurrency", `8`},
	{"--ramp-up-strategy", []string{"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5"}, "load.ramp_up.strategy", `"exponential"`},
	{"--ramp-up-start-rps", []string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "2", "--ramp-up-end-rps", "5"}, "load.ramp_up.start_rps", `2`},
	{"--ramp-up-end-rps", []string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "2", "--ramp-up-end-rps", "7"}, "load.ramp_up.end_rps", `7`},
	{"--num-warmups", []string{"--num-warmups", "3"}, "load.num_warmups", `3`},
	{"--ready-check-timeout-sec", []string{"--ready-check-timeout-sec", "60"}, "load.ready_check_timeout_sec", `60`},
	{"--temperature", []string{"--temperature", "0"}, "sampling.temperature", `0`},
	{"--top-p", []string{"--top-p", "0.9"}, "sampling.top_p", `0.9`},
	{"--top-k", []string{"--top-k", "-1"}, "sampling.top_k", `-1`},
	{"--min-p", []string{"--min-p", "0.05"}, "sampling.min_p", `0.05`},
	{"--frequency-penalty", []string{"--frequency-penalty", "0.5"}, "sampling.frequency_penalty", `0.5`},
	{"--presence-penalty", []string{"--presence-penalty", "-0.5"}, "sampling.presence_penalty", `-0.5`},
	{"--repetition-penalty", []string{"--repetition-penalty", "1.1"}, "sampling.repetition_penalty", `1.1`},
	{"--ignore-eos", []string{"--ignore-eos"}, "sampling.ignore_eos", `true`},
	{"--logprobs", []string{"--logprobs", "5"}, "sampling.logprobs", `5`},
	{"--extra-body", []string{"--extra-body", `{"chat_template_kwargs": {"enable_thinking": false}}`}, "sampling.extra_body", `{"chat_template_kwargs":{"enable_thinking":false}}`},
	{"--percentile-metrics", []string{"--percentile-metrics", "ttft,e2el"}, "metrics.percentile_metrics", `["ttft","e2el"]`},
	{"--metric-percentiles", []string{"--metric-percentiles", "0,50,99.9"}, "metrics.metric_percentiles", `[0,50,99.9]`},
	{"--goodput", []string{"--goodput", "ttft:200", "e2el:2000"}, "metrics.goodput", `{"e2el":2000,"ttft":200}`},
	{"--save-result", []string{"--save-result"}, "output.save_result", `true`},
	{"--save-detailed", []string{"--save-detailed"}, "output.save_detailed", `true`},
	{"--append-result", []string{"--append-result"}, "output.append_result", `true`},
	{"--result-dir", []string{"--result-dir", "out"}, "output.result_dir", `"out"`},
	{"--result-filename", []string{"--result-filename", "r.json"}, "output.result_filename", `"r.json"`},
	{"--label", []string{"--label", "nightly"}, "output.label", `"nightly"`},
	{"--metadata", []string{"--metadata", "tp=8", "gpu = H100 "}, "output.metadata", `{"gpu":"H100","tp":"8"}`},
	{"--disable-tqdm", []string{"--disable-tqdm"}, "output.disable_tqdm", `true`},
	{"--plot-timeline", []string{"--plot-timeline"}, "output.plot_timeline", `true`},
	{"--timeline-itl-thresholds", []string{"--plot-timeline", "--timeline-itl-thresholds", " 10 , 2.5e1"}, "output.timeline_itl_thresholds", `[10,25]`},
	{"--timeline-itl-thresholds", []string{"--timeline-itl-thresholds", "5,1_0"}, "output.timeline_itl_thresholds", `[5,10]`},
	{"--plot-dataset-stats", []string{"--plot-dataset-stats", "--save-result"}, "output.plot_dataset_stats", `true`},
}

// fieldJSON returns the compact JSON of the field at a dotted path of s.
func fieldJSON(t *testing.T, s *scenario.Scenario, path string) string {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "<missing>"
		}
		if v, ok = m[k]; !ok {
			return "<missing>"
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// (c) Every implemented flag parses a value into its scenario field.
func TestFlagRows(t *testing.T) {
	def := scenario.Default()
	for _, row := range flagRows {
		t.Run(strings.Join(row.args, " "), func(t *testing.T) {
			s, err := Parse(row.args, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := normJSON(t, row.want)
			if got := fieldJSON(t, s, row.path); got != want {
				t.Errorf("%s = %s, want %s", row.path, got, want)
			}
			if row.flag == "--dataset-name" {
				return // the only runnable value is the default
			}
			if fieldJSON(t, def, row.path) == want {
				t.Errorf("row for %s uses the default value, so it cannot fail", row.flag)
			}
		})
	}
}

func normJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad want %s: %v", s, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// (c) Every implemented flag has a row.
func TestEveryImplementedFlagHasARow(t *testing.T) {
	covered := map[string]bool{}
	for _, row := range flagRows {
		if !slices.Contains(row.args, row.flag) {
			t.Errorf("row for %s does not give it: %q", row.flag, row.args)
		}
		covered[row.flag] = true
	}
	for _, name := range Flags() {
		if !covered[name] {
			t.Errorf("implemented flag %s has no row in flagRows", name)
		}
	}
}

// The vbench-only flag sets Command.Extras, not a scenario field.
func TestVbenchExtras(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"--vbench-extras"}, true}, {[]string{"--vbench_extras"}, true}} {
		cmd, err := ParseCommand(tc.args, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if cmd.Extras != tc.want {
			t.Errorf("%q: Extras = %v, want %v", tc.args, cmd.Extras, tc.want)
		}
		if cmd.Scenario.Hash() != argvDefault().Hash() {
			t.Errorf("%q changed the scenario", tc.args)
		}
	}
}

// The unsupported.txt file is well formed: every line names one flag once.
func TestUnsupportedFileWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, line := range strings.Split(unsupportedFile, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, " ")
		if seen[name] {
			t.Errorf("%s is listed twice", name)
		}
		seen[name] = true
	}
	if len(seen) != len(unsupported) {
		t.Errorf("parsed %d entries, file has %d", len(unsupported), len(seen))
	}
}
