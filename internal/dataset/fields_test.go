package dataset

import (
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/evidence"
	"github.com/vbench/vbench/internal/scenario"
)

// implemented lists every field of the schema's dataset kinds that vbench
// implements, with where it takes effect and the test that shows it
// changes something observable (evidence.Check checks that the files and
// Test functions named exist). A kind's fields are listed here with the
// kind's file.
var implemented = map[string]string{
	"dataset.random.input_len":                     "prompt lengths; dataset/random_test.go, testdata/script/run_sim.txtar",
	"dataset.random.output_len":                    "max tokens; testdata/script/run_sim.txtar (total generated tokens)",
	"dataset.random.range_ratio":                   "length jitter; dataset/random_test.go",
	"dataset.random.prefix_len":                    "shared prefix; dataset/random_test.go, tokenizer/dataset_test.go",
	"dataset.random.batch_size":                    "embedding batches; dataset/random_test.go (TestRandomBatch), testdata/script/pooling_sim.txtar",
	"dataset.random_rerank.input_len":              "query and document lengths; dataset/randomrerank_test.go (TestRandomRerankMatchesVLLM)",
	"dataset.random_rerank.range_ratio":            "length jitter; dataset/randomrerank_test.go (golden batched_ratio)",
	"dataset.random_rerank.batch_size":             "documents per request; dataset/randomrerank_test.go (golden batched_ratio), testdata/script/pooling_sim.txtar",
	"dataset.random_rerank.no_reranker":            "no separator, query counted once; dataset/randomrerank_test.go (golden no_reranker)",
	"dataset.random_rerank.prefix_len":             "refused unless 0 (vLLM ignores it); dataset/randomrerank_test.go (TestRandomRerankKind)",
	"dataset.random_mm.input_len":                  "prompt lengths, as random's; dataset/randommm_test.go (TestRandomMMMatchesVLLM)",
	"dataset.random_mm.output_len":                 "max tokens; dataset/randommm_test.go (golden output_len)",
	"dataset.random_mm.range_ratio":                "length jitter; dataset/randommm_test.go (golden images_and_video)",
	"dataset.random_mm.prefix_len":                 "shared prefix; dataset/randommm_test.go (golden capped_video)",
	"dataset.random_mm.batch_size":                 "refused unless 1 (vLLM raises NotImplementedError); dataset/randommm.go checkRandomMM, testdata/script/multimodal_sim.txtar",
	"dataset.random_mm.base_items_per_request":     "item counts; dataset/randommm_test.go (TestRandomMMItemStatistics, golden)",
	"dataset.random_mm.num_mm_items_range_ratio":   "item count range; dataset/randommm_test.go (TestRandomMMItemStatistics)",
	"dataset.random_mm.limit_mm_per_prompt":        "caps per modality; dataset/randommm_test.go (golden capped_video, TestRandomMMItemStatistics)",
	"dataset.random_mm.bucket_config.256,256,1":    "the default buckets; testdata/script/multimodal_sim.txtar",
	"dataset.random_mm.bucket_config.720,1280,1":   "the default buckets; testdata/script/multimodal_sim.txtar",
	"dataset.random_mm.bucket_config.720,1280,16":  "the default buckets (probability 0: no video); testdata/script/multimodal_sim.txtar",
	"dataset.random_mm.enable_multimodal_chat":     "vLLM's transformed chat message; dataset/randommm_test.go (TestRandomMMJPEGs), backend/apis_test.go (TestChatContentParts)",
	"dataset.custom_audio.path":                    "the JSONL file of audio paths; dataset/customaudio_test.go (TestCustomAudio), testdata/script/audio_sim.txtar",
	"dataset.custom_audio.output_len":              "max tokens, -1 per line; dataset/customaudio_test.go (TestCustomAudio)",
	"dataset.custom_audio.disable_shuffle":         "file order; dataset/customaudio_test.go (TestCustomAudio)",
	"dataset.custom_audio.no_oversample":           "no padding to num_prompts; as custom's, dataset/customaudio_test.go (TestCustomAudio oversamples)",
	"dataset.custom_audio.skip_chat_template":      "the prompt without the chat template; dataset/customaudio_test.go (TestCustomAudio)",
	"dataset.custom_audio.enable_multimodal_chat":  "an input_audio chat part; dataset/customaudio_test.go (TestCustomAudio), backend/apis_test.go",
	"dataset.custom_audio.ensure_client_side_data": "refused (custom_image's); dataset/customaudio.go newCustomAudioSource",
	"dataset.custom_audio.chat_template_kwargs":    evidence.NoEffect + " (vLLM's custom_audio templates without kwargs)",
	"dataset.custom_image.path":                    "the JSONL file of prompts and images; dataset/customimage_test.go (TestCustomImage), testdata/script/multimodal_sim.txtar",
	"dataset.custom_image.output_len":              "max tokens; dataset/customimage_test.go (TestCustomImage)",
	"dataset.custom_image.disable_shuffle":         "file order; dataset/customimage_test.go (TestCustomImage)",
	"dataset.custom_image.no_oversample":           "no padding to num_prompts; dataset/customimage_test.go (TestCustomImage)",
	"dataset.custom_image.skip_chat_template":      evidence.NoEffect + " (vLLM's custom_image applies no chat template)",
	"dataset.custom_image.chat_template_kwargs":    evidence.NoEffect + " (vLLM's custom_image applies no chat template)",
	"dataset.custom_image.ensure_client_side_data": "images inlined as data URLs; dataset/customimage_test.go (TestCustomImage)",
	"dataset.custom_image.enable_multimodal_chat":  "vLLM's transformed chat message; dataset/customimage_test.go (TestCustomImage)",
	"dataset.random_rerank.output_len":             evidence.NoEffect + " (vLLM's random-rerank requests carry no output length: a reranker generates nothing)",
	"dataset.custom.path":                          "dataset/files_test.go (TestCustomMatchesVLLM), testdata/script/dataset_custom.txtar",
	"dataset.custom.disable_shuffle":               "file order; dataset/files_test.go (no_shuffle_no_oversample)",
	"dataset.custom.no_oversample":                 "no padding; dataset/files_test.go (no_shuffle_no_oversample), testdata/script/dataset_custom.txtar",
	"dataset.custom.output_len":                    "max tokens, -1 per line; dataset/files_test.go, testdata/script/dataset_custom.txtar",
	"dataset.custom.skip_chat_template":            "raw prompts; dataset/files_test.go (seed3_oversample_skip_template), testdata/script/dataset_custom.txtar",
	"dataset.custom.chat_template_kwargs":          "template variables; dataset/files_test.go (seed7_all_per_line_kwargs)",
	// The text custom kind refuses these (custom_image's and multimodal
	// chat's), where vLLM ignores them: dataset/files_test.go.
	"dataset.custom.ensure_client_side_data":    "refused by the custom source; dataset/files_test.go (TestCustomFileErrors)",
	"dataset.custom.enable_multimodal_chat":     "refused by the custom source; dataset/files_test.go (TestCustomFileErrors)",
	"dataset.sonnet.path":                       "poem lines, embedded by default; dataset/files_test.go (TestSonnetMatchesVLLM), testdata/script/dataset_sonnet.txtar",
	"dataset.sonnet.input_len":                  "dataset/files_test.go (TestSonnetMatchesVLLM)",
	"dataset.sonnet.output_len":                 "max tokens; dataset/files_test.go, testdata/script/dataset_sonnet.txtar",
	"dataset.sonnet.prefix_len":                 "shared prefix lines; dataset/files_test.go (TestSonnetMatchesVLLM)",
	"dataset.burstgpt.path":                     "the BurstGPT CSV; dataset/burstgpt_test.go (golden), testdata/script/dataset_burstgpt.txtar",
	"dataset.spec_bench.path":                   "the SpecBench JSONL; dataset/spec_bench_test.go (golden), testdata/script/dataset_spec_bench.txtar",
	"dataset.spec_bench.disable_shuffle":        "file order; dataset/spec_bench_test.go (golden writing_no_shuffle_no_oversample)",
	"dataset.spec_bench.no_oversample":          "no padding to num_prompts; dataset/spec_bench_test.go (golden writing_no_shuffle_no_oversample), testdata/script/dataset_spec_bench.txtar",
	"dataset.spec_bench.output_len":             "output length; dataset/spec_bench_test.go (golden), testdata/script/dataset_spec_bench.txtar",
	"dataset.spec_bench.category":               "category filter; dataset/spec_bench_test.go (golden math_oversampled), testdata/script/dataset_spec_bench.txtar",
	"dataset.spec_bench.skip_chat_template":     "raw first turns (a scenario field; vLLM's serve always templates); dataset/spec_bench_test.go (TestSpecBenchSkipChatTemplate)",
	"dataset.speed_bench.path":                  "the SPEED-Bench directory; dataset/speed_bench_test.go (golden, TestSpeedBenchDirErrors), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.subset":                "the <subset>.jsonl file; dataset/speed_bench_test.go (golden throughput_1k_oversampled), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.disable_shuffle":       "file order; dataset/speed_bench_test.go (golden math_no_shuffle_no_oversample)",
	"dataset.speed_bench.no_oversample":         "no padding to num_prompts; dataset/speed_bench_test.go (golden math_no_shuffle_no_oversample), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.output_len":            "output length; dataset/speed_bench_test.go (golden), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.category":              "category filter; dataset/speed_bench_test.go (golden coding_oversampled), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.skip_chat_template":    "raw first messages; dataset/speed_bench_test.go (golden skip_chat_template), testdata/script/dataset_speed_bench.txtar",
	"dataset.speed_bench.chat_template_kwargs":  "template variables; dataset/speed_bench_test.go (golden chat_template_kwargs)",
	"dataset.sharegpt.path":                     "the file or Hub dataset; dataset/sharegpt_test.go (TestShareGPTFromHub), testdata/script/sharegpt_sim.txtar",
	"dataset.sharegpt.disable_shuffle":          "file order; dataset/sharegpt_test.go (golden no_shuffle)",
	"dataset.sharegpt.no_oversample":            "no padding to num_prompts; dataset/sharegpt_test.go (golden no_oversample), testdata/script/sharegpt_sim.txtar",
	"dataset.sharegpt.output_len":               "fixed output length; dataset/sharegpt_test.go (golden fixed_output), testdata/script/sharegpt_sim.txtar",
	"dataset.sharegpt.enable_multimodal_chat":   "chat messages with content parts; dataset/sharegpt_test.go (TestShareGPTMultimodalChat)",
	"dataset.hf.path":                           "the Hub dataset or local directory or file; dataset/hfauto_test.go (TestHFFromHub, TestHFErrors), testdata/script/dataset_hf.txtar",
	"dataset.hf.disable_shuffle":                "file order; dataset/hfauto_test.go (TestHFFromHub), dataset/hf_test.go",
	"dataset.hf.no_oversample":                  "no padding to num_prompts; dataset/hfauto_test.go (TestHFFromHub), testdata/script/dataset_hf.txtar",
	"dataset.hf.subset":                         "the subset's files; dataset/hffiles_test.go (TestResolveHFSplit), testdata/script/dataset_hf.txtar",
	"dataset.hf.split":                          "the split's files; dataset/hffiles_test.go (TestResolveHFSplit), dataset/hfauto_test.go (TestHFFromHub)",
	"dataset.speed_bench.max_input_len":         "longer prompts cut; dataset/speed_bench_test.go (TestCutPrompts), argv/rust_test.go (TestRustFlagsMap)",
	"dataset.random.prompt_token_ids":           "token-id prompts as drawn; dataset/random_test.go (TestRandomPromptTokenIDs), testdata/script/serve_rust_flags.txtar",
	"dataset.random.cache_hit_fraction":         "the bimodal cache mode's warm share; dataset/random_test.go (TestRandomBimodal), testdata/script/serve_rust_flags.txtar",
	"dataset.random.cache_ratio":                "the bimodal cache mode's base share; dataset/random_test.go (TestRandomBimodal), testdata/script/serve_rust_flags.txtar",
	"dataset.hf.text_column":                    "the generic sampler's prompt column; dataset/hfauto_test.go (TestHFTextColumn), argv/rust_test.go (TestRustFlagsMap)",
	"dataset.hf.bfcl_categories":                "BFCL_v3_<category>.json files, stripped, defaults when empty; dataset/hf_bfcl_test.go (TestBFCLGolden, TestBFCLErrors), testdata/script/bfcl_sim.txtar",
	"dataset.hf.asr_min_audio_len_sec":          "drops shorter clips; dataset/hfclasses_test.go (TestHFClassesGolden ASRDataset), testdata/script/dataset_hf.txtar",
	"dataset.hf.asr_max_audio_len_sec":          "drops longer clips, 0 or inf none; dataset/hfclasses_test.go (TestHFClassesGolden ASRDataset), testdata/script/dataset_hf.txtar",
	"dataset.hf.name":                           "the dataset id that picks vLLM's class for a local copy; dataset/hfauto_test.go (TestHFClass)",
	"dataset.hf.output_len":                     "fixed output length; dataset/hfauto_test.go (TestHFFromHub), testdata/script/dataset_hf.txtar",
	"dataset.hf.no_stream":                      "the non-streaming shuffle; dataset/hf_test.go (TestHFShuffleMatchesDatasets), testdata/script/dataset_hf.txtar",
	"dataset.hf.skip_chat_template":             "the prompt without the chat template; dataset/hfclasses_test.go (golden cases with skip, TestHFClassesErrors mlperf always templates)",
	"dataset.hf.enable_multimodal_chat":         "chat messages with content parts; dataset/hfclasses_test.go (golden cases with mm_chat, TestHFConversationImage)",
	"dataset.prefix_repetition.prefix_len":      "shared prefixes; dataset/prefixrep_test.go (TestPrefixRepetitionMatchesVLLM), testdata/script/dataset_prefix_repetition.txtar",
	"dataset.prefix_repetition.suffix_len":      "per-request suffixes; dataset/prefixrep_test.go (TestPrefixRepetitionMatchesVLLM), testdata/script/dataset_prefix_repetition.txtar",
	"dataset.prefix_repetition.num_prefixes":    "prompts per prefix; dataset/prefixrep_test.go (golden remainder_seed42), testdata/script/dataset_prefix_repetition.txtar",
	"dataset.prefix_repetition.output_len":      "max tokens; testdata/script/dataset_prefix_repetition.txtar (total generated tokens)",
	"dataset.prefix_repetition.disable_shuffle": "grouped by prefix; dataset/prefixrep_test.go (golden no_shuffle)",
	"dataset.hf.blazedit_min_distance":          "blazedit's distance window; dataset/hfclasses_test.go (golden BlazeditDataset/distance_window), argv/format_test.go (TestFormat), argv/hf_blazedit_test.go",
	"dataset.hf.blazedit_max_distance":          "blazedit's distance window; dataset/hfclasses_test.go (golden BlazeditDataset/distance_window), argv/format_test.go (TestFormat), argv/hf_blazedit_test.go",
	"dataset.conversations.conversations":       "number of conversations; dataset/conversations_test.go (TestPlanConversations), testdata/script/conversations_sim.txtar",
	"dataset.conversations.turns":               "turns per conversation; dataset/conversations_test.go (TestDistDraw, TestPlanConversations), testdata/script/conversations_sim.txtar (checkturns)",
	"dataset.conversations.input_len":           "user message length; dataset/conversations_test.go (TestPlanConversations), testdata/script/conversations_sim.txtar (dataset plan)",
	"dataset.conversations.output_len":          "answer length; dataset/conversations_test.go (TestPlanConversations), testdata/script/conversations_sim.txtar (dataset plan)",
	"dataset.conversations.shared_prefix.scope": "system prompt scope; testdata/script/conversations_sim.txtar (dataset plan: global)",
	"dataset.conversations.shared_prefix.len":   "system prompt length; testdata/script/conversations_sim.txtar (dataset plan)",
	"dataset.conversations.think_time_ms":       "pause between turns; dataset/conversations_test.go (TestConvEngineOrder), testdata/script/conversations_sim.txtar (checkturns)",
	"dataset.conversations.path":                "a ShareGPT-style conversations file; testdata/script/conversations_sim.txtar (file.cue, bad.json)",
	"dataset.conversations.max_active":          "a cap on conversations under way; testdata/script/conversations_sim.txtar (checkturns -max-active=2)",
	"dataset.conversations.on_failed_turn":      "end or continue a conversation after a failed turn; testdata/script/conversations_sim.txtar (continue.json)",
	"dataset.conversations.history":             "server's or file's answers in the history; testdata/script/conversations_sim.txtar (filehist.log)",
	"dataset.conversations.session_header":      "sticky-routing header; testdata/script/conversations_sim.txtar (checkturns)",
	"dataset.timed_trace.path":                  "the JSONL trace; dataset/timedtrace_test.go (golden), testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.chunk_hash_size":       "tokens per hash id; dataset/timedtrace_test.go (golden chunk4_ms, chunk16_seconds)",
	"dataset.timed_trace.sec_multiplier":        "trace times in seconds; dataset/timedtrace_test.go (golden chunk4_ms), testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.label_timestamp":       "JSON key; dataset/timedtrace_test.go (TestTimedTraceErrors), testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.label_input_length":    "JSON key; dataset/timedtrace_test.go (TestTimedTraceErrors relabelled key missing)",
	"dataset.timed_trace.label_output_length":   "JSON key; testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.label_hash_ids":        "JSON key; testdata/script/dataset_timed_trace.txtar",
	"dataset.timed_trace.self_timed":            "trace-time schedule or the arrival process; pipeline/selftimed_test.go, testdata/script/dataset_timed_trace.txtar",
}

// Every leaf field of the schema's dataset kinds is accounted for:
// implemented (listed above, with its evidence), or under a kind the
// schema knows and no file here implements, which Check refuses as a
// whole. A new field fails this test until it is implemented.
func TestDatasetFieldsAccounted(t *testing.T) {
	leaves, err := scenario.SchemaFields()
	if err != nil {
		t.Fatal(err)
	}
	var seen int
	for _, path := range leaves {
		rest, ok := strings.CutPrefix(path, "dataset.")
		if !ok {
			continue
		}
		seen++
		kind, _, _ := strings.Cut(rest, ".")
		if _, registered := Lookup(kind); !registered {
			if err := Check(scenario.Dataset{Name: kind}); err == nil {
				t.Errorf("%s: kind %s is not registered, but Check accepts it", path, kind)
			}
			continue
		}
		if implemented[path] == "" {
			t.Errorf("schema field %s is not implemented (the implemented list, with a test)", path)
		}
	}
	if seen < 40 {
		t.Fatalf("found only %d dataset fields: the walk is broken", seen)
	}
}

// TestImplementedEvidence checks that every implemented field is a
// schema field with its evidence.
func TestImplementedEvidence(t *testing.T) {
	leaves, err := scenario.SchemaFields()
	if err != nil {
		t.Fatal(err)
	}
	evidence.Check(t, implemented, leaves)
}
