package scenario

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue"
)

// schemaLeaves returns the path of every leaf field of v: a field whose
// value is not a struct with fields of its own (a scalar, a list, a map
// such as target.headers, or a disjunction such as range_ratio).
func schemaLeaves(v cue.Value, prefix string) []string {
	var out []string
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	for it.Next() {
		path := it.Selector().Unquoted()
		if prefix != "" {
			path = prefix + "." + path
		}
		f := it.Value()
		isMap := f.LookupPath(cue.MakePath(cue.AnyString)).Exists()
		if f.IncompleteKind() == cue.StructKind && !isMap {
			if sub := schemaLeaves(f, path); len(sub) > 0 {
				out = append(out, sub...)
				continue
			}
		}
		out = append(out, path)
	}
	return out
}

// implemented lists every leaf field of #Scenario that vbench implements,
// with where it takes effect and the test that shows it changes something
// observable: the files and Test functions named must exist
// (TestImplementedEvidence), and "no test yet" fails.
var implemented = map[string]string{
	"schema": "version check at load; load_test.go (wrong version)",
	"name":   "result file name and report; testdata/script/run_sim.txtar, report_dir.txtar",
	"seed":   "dataset sampling and arrival times; testdata/script/repeat_stats.txtar, compare_ab.txtar",

	"target.base_url":          "request URL; testdata/script/run_sim.txtar",
	"target.host":              "request URL without base_url; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"target.port":              "request URL without base_url; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"target.endpoint":          "request URL path; testdata/script/vet_errors.txtar (openai-chat needs /v1/chat/completions), run_sim.txtar",
	"target.backend":           "payload and decoder; backend/backend_test.go, testdata/script/vet_errors.txtar",
	"target.model":             "payload model and result model_id; testdata/script/run_sim.txtar",
	"target.served_model_name": "payload model and /tokenize model; pipeline/tokenizer_test.go (TestLoadTokenizerEnv)",
	"target.headers":           "sent on every request; backend/h1_test.go, testdata/script/export_hash.txtar",
	"target.insecure":          "TLS verification; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"target.ca_file":           "TLS roots; backend/server_test.go",
	"target.request_timeout":   "bounds each request; testdata/script/request_timeout.txtar",
	"target.request_id_prefix": "x-request-id header; testdata/script/serve_outputs.txtar",
	"target.profile":           "profiler calls around the run; testdata/script/profile.txtar",
	"target.lora_modules":      "per-request payload model; pipeline/lora_test.go, testdata/script/lora.txtar",
	"target.lora_assignment":   "random or round-robin choice of lora_modules; pipeline/lora_test.go, testdata/script/lora.txtar",

	"target.simulator.ttft_ms":                "simulated latency; testdata/script/report_dir.txtar, compare_ab.txtar",
	"target.simulator.itl_ms":                 "simulated latency; testdata/script/compare_ab.txtar",
	"target.simulator.jitter_ms":              "simulated jitter; sim/stream_test.go (Config.Jitter), testdata/script/compare_aa.txtar",
	"target.simulator.prefill_us_per_token":   "simulated prefill; sim/stream_test.go (Config.PrefillPerToken)",
	"target.simulator.output_len":             "output length without max tokens; sim/generate_test.go (Config.DefaultOutputLen)",
	"target.simulator.model":                  "served model name and result model_id; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"target.simulator.seed":                   "simulator jitter and text; sim/schedule_test.go (Config.Seed)",
	"target.simulator.spec_decode.tokens":     "simulated spec-decode counters; testdata/script/run_spec_decode.txtar",
	"target.simulator.spec_decode.acceptance": "simulated acceptance; testdata/script/run_spec_decode.txtar",

	"tokenizer.name":      "client tokenizer; testdata/script/tokenize_builtin.txtar, run_sim.txtar",
	"tokenizer.revision":  "Hub revision; testdata/script/tokenize_hub.txtar, hub/hub_test.go",
	"tokenizer.mode":      "accepted, with one warning that vbench uses its own tokenizer; pipeline/tokenizer_test.go (TestLoadTokenizerEnv mode warns once)",
	"tokenizer.skip_init": "no client tokenizer; pipeline/tokenizer_test.go (TestLoadTokenizerEnv), testdata/script/token_accounting.txtar",
	// vbench never runs a tokenizer's Python code, so there is nothing to
	// trust; the field exists so that vLLM command lines (Kimi needs
	// --trust-remote-code) import and run unchanged.
	"tokenizer.trust_remote_code": "accepted for vLLM compatibility, no effect by design (vbench runs no remote code)",

	"dataset.random.input_len":   "prompt lengths; dataset/random_test.go, testdata/script/run_sim.txtar",
	"dataset.random.output_len":  "max tokens; testdata/script/run_sim.txtar (total generated tokens)",
	"dataset.random.range_ratio": "length jitter; dataset/random_test.go",
	"dataset.random.prefix_len":  "shared prefix; dataset/random_test.go, tokenizer/dataset_test.go",

	"dataset.custom.path":                 "dataset/files_test.go (TestCustomMatchesVLLM), testdata/script/dataset_custom.txtar",
	"dataset.custom.disable_shuffle":      "file order; dataset/files_test.go (no_shuffle_no_oversample)",
	"dataset.custom.no_oversample":        "no padding; dataset/files_test.go (no_shuffle_no_oversample), testdata/script/dataset_custom.txtar",
	"dataset.custom.output_len":           "max tokens, -1 per line; dataset/files_test.go, testdata/script/dataset_custom.txtar",
	"dataset.custom.skip_chat_template":   "raw prompts; dataset/files_test.go (seed3_oversample_skip_template), testdata/script/dataset_custom.txtar",
	"dataset.custom.chat_template_kwargs": "template variables; dataset/files_test.go (seed7_all_per_line_kwargs)",
	// The text custom kind refuses these (custom_image's and multimodal
	// chat's), where vLLM ignores them: dataset/files_test.go.
	"dataset.custom.ensure_client_side_data":   "refused by the custom source; dataset/files_test.go (TestCustomFileErrors)",
	"dataset.custom.enable_multimodal_chat":    "refused by the custom source; dataset/files_test.go (TestCustomFileErrors)",
	"dataset.sonnet.path":                      "poem lines, embedded by default; dataset/files_test.go (TestSonnetMatchesVLLM), testdata/script/dataset_sonnet.txtar",
	"dataset.sonnet.input_len":                 "dataset/files_test.go (TestSonnetMatchesVLLM)",
	"dataset.sonnet.output_len":                "max tokens; dataset/files_test.go, testdata/script/dataset_sonnet.txtar",
	"dataset.sonnet.prefix_len":                "shared prefix lines; dataset/files_test.go (TestSonnetMatchesVLLM)",
	"dataset.burstgpt.path":                    "the BurstGPT CSV; dataset/burstgpt_test.go (golden), testdata/script/dataset_burstgpt.txtar",
	"dataset.spec_bench.path":                  "the SpecBench JSONL; dataset/spec_bench_test.go (golden), testdata/script/dataset_spec_bench.txtar",
	"dataset.spec_bench.disable_shuffle":       "file order; dataset/spec_bench_test.go (golden writing_no_shuffle_no_oversample)",
	"dataset.spec_bench.no_oversample":         "no padding to num_prompts; dataset/spec_bench_test.go (golden writing_no_shuffle_no_oversample), testdata/script/dataset_spec_bench.txtar",
	"dataset.spec_bench.output_len":            "output length; dataset/spec_bench_test.go (golden), testdata/script/dataset_spec_bench.txtar",
	"dataset.spec_bench.category":              "category filter; dataset/spec_bench_test.go (golden math_oversampled), testdata/script/dataset_spec_bench.txtar",
	"dataset.spec_bench.skip_chat_template":    "raw first turns (a scenario field; vLLM's serve always templates); dataset/spec_bench_test.go (TestSpecBenchSkipChatTemplate)",
	"dataset.speed_bench.path":                 "the SPEED-Bench directory; dataset/speed_bench_test.go (golden, TestSpeedBenchDirErrors), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.subset":               "the <subset>.jsonl file; dataset/speed_bench_test.go (golden throughput_1k_oversampled), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.disable_shuffle":      "file order; dataset/speed_bench_test.go (golden math_no_shuffle_no_oversample)",
	"dataset.speed_bench.no_oversample":        "no padding to num_prompts; dataset/speed_bench_test.go (golden math_no_shuffle_no_oversample), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.output_len":           "output length; dataset/speed_bench_test.go (golden), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.category":             "category filter; dataset/speed_bench_test.go (golden coding_oversampled), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.skip_chat_template":   "raw first messages; dataset/speed_bench_test.go (golden skip_chat_template), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.chat_template_kwargs": "template variables; dataset/speed_bench_test.go (golden chat_template_kwargs)",
	"dataset.sharegpt.path":                    "the file or Hub dataset; dataset/sharegpt_test.go (TestShareGPTFromHub), testdata/script/sharegpt_sim.txtar",
	"dataset.sharegpt.disable_shuffle":         "file order; dataset/sharegpt_test.go (golden no_shuffle)",
	"dataset.sharegpt.no_oversample":           "no padding to num_prompts; dataset/sharegpt_test.go (golden no_oversample), testdata/script/sharegpt_sim.txtar",
	"dataset.sharegpt.output_len":              "fixed output length; dataset/sharegpt_test.go (golden fixed_output), testdata/script/sharegpt_sim.txtar",
	"dataset.sharegpt.enable_multimodal_chat":  "chat messages with content parts; dataset/sharegpt_test.go (TestShareGPTMultimodalChat)",
	"dataset.hf.path":                          "the Hub dataset or local directory or file; dataset/hfauto_test.go (TestHFFromHub, TestHFErrors), testdata/script/dataset_hf.txtar",
	"dataset.hf.disable_shuffle":               "file order; dataset/hfauto_test.go (TestHFFromHub), dataset/hf_test.go",
	"dataset.hf.no_oversample":                 "no padding to num_prompts; dataset/hfauto_test.go (TestHFFromHub), testdata/script/dataset_hf.txtar",
	"dataset.hf.subset":                        "the subset's files; dataset/hffiles_test.go (TestResolveHFSplit), testdata/script/dataset_hf.txtar",
	"dataset.hf.split":                         "the split's files; dataset/hffiles_test.go (TestResolveHFSplit), dataset/hfauto_test.go (TestHFFromHub)",
	"dataset.hf.name":                          "the dataset id that picks vLLM's class for a local copy; dataset/hfauto_test.go (TestHFClass)",
	"dataset.hf.output_len":                    "fixed output length; dataset/hfauto_test.go (TestHFFromHub), testdata/script/dataset_hf.txtar",
	"dataset.hf.no_stream":                     "the non-streaming shuffle; dataset/hf_test.go (TestHFShuffleMatchesDatasets), testdata/script/dataset_hf.txtar",
	"dataset.hf.skip_chat_template":            "the prompt without the chat template; dataset/hfclasses_test.go (golden cases with skip, TestHFClassesErrors mlperf always templates)",
	"dataset.hf.enable_multimodal_chat":        "chat messages with content parts; dataset/hfclasses_test.go (golden cases with mm_chat, TestHFConversationImage)",

	"dataset.prefix_repetition.prefix_len":      "shared prefixes; dataset/prefixrep_test.go (TestPrefixRepetitionMatchesVLLM), testdata/script/dataset_prefix_repetition.txtar",
	"dataset.prefix_repetition.suffix_len":      "per-request suffixes; dataset/prefixrep_test.go (TestPrefixRepetitionMatchesVLLM), testdata/script/dataset_prefix_repetition.txtar",
	"dataset.prefix_repetition.num_prefixes":    "prompts per prefix; dataset/prefixrep_test.go (golden remainder_seed42), testdata/script/dataset_prefix_repetition.txtar",
	"dataset.prefix_repetition.output_len":      "max tokens; testdata/script/dataset_prefix_repetition.txtar (total generated tokens)",
	"dataset.prefix_repetition.disable_shuffle": "grouped by prefix; dataset/prefixrep_test.go (golden no_shuffle)",
	"dataset.hf.blazedit_min_distance":          "blazedit's distance window; dataset/hfclasses_test.go (golden BlazeditDataset/distance_window), argv/format_test.go (TestFormat), argv/hf_blazedit_test.go",
	"dataset.hf.blazedit_max_distance":          "blazedit's distance window; dataset/hfclasses_test.go (golden BlazeditDataset/distance_window), argv/format_test.go (TestFormat), argv/hf_blazedit_test.go",

	"dataset.timed_trace.path":                "the JSONL trace; dataset/timedtrace_test.go (golden), testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.chunk_hash_size":     "tokens per hash id; dataset/timedtrace_test.go (golden chunk4_ms, chunk16_seconds)",
	"dataset.timed_trace.sec_multiplier":      "trace times in seconds; dataset/timedtrace_test.go (golden chunk4_ms), testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.label_timestamp":     "JSON key; dataset/timedtrace_test.go (TestTimedTraceErrors), testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.label_input_length":  "JSON key; dataset/timedtrace_test.go (TestTimedTraceErrors relabelled key missing)",
	"dataset.timed_trace.label_output_length": "JSON key; testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.label_hash_ids":      "JSON key; testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.self_timed":          "trace-time schedule or the arrival process; pipeline/selftimed_test.go, testdata/script/dataset_timed_trace.txtar",

	"load.num_prompts":             "request count; testdata/script/run_sim.txtar",
	"load.request_rate":            "arrival rate; schedule/schedule_test.go, testdata/script/repeat_stats.txtar",
	"load.burstiness":              "arrival gaps; schedule/schedule_test.go",
	"load.max_concurrency":         "in-flight limit; testdata/script/run_sim.txtar",
	"load.ramp_up.strategy":        "ramp-up; schedule/schedule_test.go (TestSecondsRampUpGamma), pipeline/rampup_test.go",
	"load.ramp_up.start_rps":       "ramp-up; schedule/schedule_test.go (TestSecondsRampUpGamma), pipeline/rampup_test.go",
	"load.ramp_up.end_rps":         "ramp-up; schedule/schedule_test.go (TestSecondsRampUpGamma), pipeline/rampup_test.go",
	"load.num_warmups":             "warmup requests before the run; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"load.ready_check_timeout_sec": "ready check before the run; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"load.probe_request_rate":      "probe requests next to the run; run/probe_test.go, pipeline/probe_test.go, testdata/script/probe_requests.txtar",

	"sampling.temperature":        "payload; backend/backend_test.go, testdata/script/temperature_warning.txtar",
	"sampling.top_p":              "payload; testdata/script/serve_dialect.txtar",
	"sampling.top_k":              "payload; testdata/script/serve_dialect.txtar",
	"sampling.min_p":              "payload; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"sampling.frequency_penalty":  "payload; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"sampling.presence_penalty":   "payload; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"sampling.repetition_penalty": "payload; backend/backend_test.go",
	"sampling.ignore_eos":         "payload; backend/backend_test.go",
	"sampling.logprobs":           "payload; backend/backend_test.go",
	"sampling.extra_body":         "payload; testdata/script/serve_dialect.txtar",

	"metrics.percentile_metrics": "reported percentiles; testdata/script/serve_outputs.txtar",
	"metrics.metric_percentiles": "reported percentiles; pipeline/run_test.go, testdata/script/serve_outputs.txtar",
	"metrics.goodput.ttft":       "goodput; metrics/metrics_test.go, testdata/script/serve_outputs.txtar",
	"metrics.goodput.tpot":       "goodput; metrics/metrics_test.go",
	"metrics.goodput.e2el":       "goodput; metrics/metrics_test.go",
	"metrics.steady_state":       "steady-state window of a closed loop; metrics/steady_test.go, testdata/script/steady_state.txtar",
	"metrics.trace_context":      "W3C traceparent per timed request, trace_id in the records; backend/traceparent_test.go, testdata/script/trace_context.txtar",

	"metrics.scrape_interval": "server gauge sampling during the timed phase (pipeline/serversamples.go); pipeline/serversamples_test.go, testdata/script/server_samples.txtar",

	"output.save_result":        "result JSON; testdata/script/run_sim.txtar",
	"output.save_detailed":      "per-request arrays; report/result_test.go",
	"output.append_result":      "append to the result file; testdata/script/serve_outputs.txtar",
	"output.result_dir":         "result directory; testdata/script/report_dir.txtar",
	"output.result_filename":    "result file name; testdata/script/run_sim.txtar",
	"output.label":              "file name and result label; report/filename_test.go",
	"output.metadata":           "result keys; report/result_test.go",
	"output.records":            "per-request JSONL; testdata/script/run_sim.txtar",
	"output.disable_tqdm":       "progress bar; testdata/script/serve_run.txtar",
	"output.overwrite":          "replace an existing result; testdata/script/output_no_overwrite.txtar",
	"output.plot_dataset_stats": "<result>.dataset_stats.png; report/datasetstats_test.go (TestDatasetStatsPNG), testdata/script/plot_dataset_stats.txtar",

	"output.plot_timeline":           "HTML request timeline; timeline/timeline_test.go, timeline/chromium_test.go, testdata/script/serve_timeline.txtar",
	"output.timeline_itl_thresholds": "timeline ITL colours; timeline/timeline_test.go, argv/dialect_test.go, testdata/script/serve_timeline.txtar",

	"sweep.axes":        "testdata/script/sweep_concurrency.txtar",
	"sweep.mode":        "experiment/plan_test.go",
	"repeat.count":      "testdata/script/repeat_stats.txtar",
	"repeat.fixed_seed": "experiment/plan_test.go",
	"compare.variants":  "testdata/script/compare_ab.txtar",
	"compare.baseline":  "testdata/script/compare_ab.txtar",
	"compare.gates":     "testdata/script/compare_ab.txtar",
}

// refusedKinds are the dataset kinds vbench cannot run yet: experiment.Check
// refuses a scenario that sets one, with exit 2 (testdata/script/vet_errors.txtar),
// so none of their fields is ever ignored.
var refusedKinds = []string{
	"random_mm", "random_rerank",
	"custom_image", "custom_audio",
}

// Every leaf field of the schema is accounted for: implemented (listed
// above, with its evidence), refused at load (unimplemented, whose refusal
// TestUnimplementedRefused checks), or under a dataset kind that is refused
// as a whole. A new schema field fails this test until it is classified.
func TestSchemaFieldsAccounted(t *testing.T) {
	cs, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	leaves := schemaLeaves(cs.def, "")
	if len(leaves) < 50 {
		t.Fatalf("found only %d schema fields: the walk is broken", len(leaves))
	}
	refused := map[string]bool{}
	for _, u := range unimplemented {
		refused[u.Path] = true
		if _, ok := implemented[u.Path]; ok {
			t.Errorf("%s is both implemented and refused", u.Path)
		}
	}
	for _, path := range leaves {
		kind, _, _ := strings.Cut(strings.TrimPrefix(path, "dataset."), ".")
		switch {
		case implemented[path] != "", refused[path]:
		case strings.HasPrefix(path, "dataset.") && slices.Contains(refusedKinds, kind):
		default:
			t.Errorf("schema field %s is neither implemented (the implemented list, with a test) nor refused (scenario.unimplemented)", path)
		}
	}
	for path := range implemented {
		if !slices.Contains(leaves, path) {
			t.Errorf("implemented lists %s, which is not a schema field", path)
		}
	}
	for path := range refused {
		if !slices.Contains(leaves, path) {
			t.Errorf("unimplemented lists %s, which is not a schema field", path)
		}
	}
}

// Each unimplemented field is refused at its file:line:col with its reason
// when set to something else than its default, and accepted at its default.
func TestUnimplementedRefused(t *testing.T) {
	values := map[string][2]string{ // path: {a non-default value, the default}
		"dataset.random.batch_size":        {`4`, `1`},
		"dataset.hf.asr_max_audio_len_sec": {`30`, `"inf"`},
		"dataset.hf.asr_min_audio_len_sec": {`1`, `0`},
		"dataset.hf.bfcl_categories":       {`["simple"]`, ""},
	}
	// rest completes a scenario that sets the field (an hf dataset needs
	// its path).
	rest := func(path string) string {
		if strings.HasPrefix(path, "dataset.hf.") {
			return "dataset: hf: path: \"org/data\"\n"
		}
		return ""
	}
	for _, u := range unimplemented {
		v, ok := values[u.Path]
		if !ok {
			t.Errorf("%s: no test value", u.Path)
			continue
		}
		field := strings.ReplaceAll(u.Path, ".", ": ")
		src := "name: \"x\"\n" + field + ": " + v[0] + "\n" + rest(u.Path)
		_, err := LoadBytes("x.cue", []byte(src), Options{Dir: "."})
		want := "x.cue:2:" // the field's line, with a column
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), u.Path+": not supported yet: "+u.Reason) {
			t.Errorf("%s: %s: err = %v, want %s...%s: not supported yet: %s", u.Path, v[0], err, want, u.Path, u.Reason)
		}
		if v[1] != "" {
			src := field + ": " + v[1] + "\n" + rest(u.Path)
			if _, err := LoadBytes("x.cue", []byte(src), Options{}); err != nil {
				t.Errorf("%s at its default %s: %v", u.Path, v[1], err)
			}
		}
	}
}

// evidenceRef finds the files an evidence string names: "pkg/file.go"
// (under internal/), "testdata/script/x.txtar" or a bare "x.txtar" (a
// script), a bare "file.go" (this package); and the Test and Fuzz
// functions it names.
var (
	evidenceFile = regexp.MustCompile(`(?:\b[a-z_]+/)*[a-zA-Z0-9_]+\.(?:go|txtar)\b`)
	evidenceFunc = regexp.MustCompile(`\b(?:Test|Fuzz)[A-Za-z0-9_]+`)
)

// TestImplementedEvidence checks that the evidence of every implemented
// field names files that exist, that every Test or Fuzz function it names
// is in one of them, and that no implemented field is left without a
// test.
func TestImplementedEvidence(t *testing.T) {
	for path, evidence := range implemented {
		if strings.Contains(evidence, "no test yet") {
			t.Errorf("%s: implemented without a test (%s)", path, evidence)
		}
		if strings.HasPrefix(evidence, "accepted for vLLM compatibility, no effect by design") {
			continue
		}
		files := evidenceFile.FindAllString(evidence, -1)
		if len(files) == 0 {
			t.Errorf("%s: the evidence names no file: %s", path, evidence)
			continue
		}
		var texts []string
		for _, f := range files {
			var p string
			switch {
			case strings.HasPrefix(f, "testdata/"):
				p = filepath.Join("..", "..", f)
			case strings.HasSuffix(f, ".txtar"):
				p = filepath.Join("..", "..", "testdata", "script", f)
			case strings.Contains(f, "/"):
				p = filepath.Join("..", f)
			default:
				p = f
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Errorf("%s: the evidence names %s, which does not exist (%v)", path, f, err)
				continue
			}
			texts = append(texts, string(b))
		}
		for _, fn := range evidenceFunc.FindAllString(evidence, -1) {
			if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "func "+fn+"(") }) {
				t.Errorf("%s: the evidence names %s, which is in none of %v", path, fn, files)
			}
		}
	}
}
