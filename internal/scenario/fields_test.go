package scenario

import (
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/evidence"
)

// implemented lists every leaf field of #Scenario that vbench implements,
// with where it takes effect and the test that shows it changes something
// observable: the files and Test functions named must exist
// (TestImplementedEvidence), and "no test yet" fails.
var implemented = map[string]string{
	"schema": "version check at load; load_test.go (wrong version)",
	"name":   "result file name and report; testdata/script/run_sim.txtar, report_dir.txtar",
	"seed":   "dataset sampling and arrival times; testdata/script/repeat_stats.txtar, compare_ab.txtar",

	"target.base_url":                "request URL; testdata/script/run_sim.txtar",
	"target.host":                    "request URL without base_url; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"target.port":                    "request URL without base_url; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"target.endpoint":                "request URL path; testdata/script/vet_errors.txtar (openai-chat needs /v1/chat/completions), run_sim.txtar",
	"target.backend":                 "payload and decoder; backend/backend_test.go, testdata/script/vet_errors.txtar",
	"target.model":                   "payload model and result model_id; testdata/script/run_sim.txtar",
	"target.served_model_name":       "payload model and /tokenize model; pipeline/tokenizer_test.go (TestLoadTokenizerEnv)",
	"target.headers":                 "sent on every request; backend/h1_test.go, testdata/script/export_hash.txtar",
	"target.insecure":                "TLS verification; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"target.ca_file":                 "TLS roots; backend/server_test.go",
	"target.request_timeout":         "bounds each request; testdata/script/request_timeout.txtar",
	"target.stream_counting":         "vLLM's chunk counting or exact; backend/backend_test.go (TestSend), testdata/script/faults_sse.txtar",
	"target.request_id_prefix":       "x-request-id header; testdata/script/serve_outputs.txtar",
	"target.profile":                 "profiler calls around the run; testdata/script/profile.txtar",
	"target.profile_batch_threshold": "the profiler starts once the server runs N requests; testdata/script/profile_threshold.txtar",
	"target.profile_duration":        "how long the threshold's profiler runs; testdata/script/profile_threshold.txtar",
	"target.reset_prefix_cache":      "a prefix-cache reset before each run of an experiment; testdata/script/serve_rust_flags.txtar",
	"target.gpus":                    "the Pareto chart's tokens/s per GPU; experiment/pareto_test.go (TestParetoPoint), testdata/script/pareto_report.txtar",
	"target.lora_modules":            "per-request payload model; pipeline/lora_test.go, testdata/script/lora.txtar",
	"target.lora_assignment":         "random or round-robin choice of lora_modules; pipeline/lora_test.go, testdata/script/lora.txtar",

	"target.simulator.ttft_ms":                     "simulated latency; testdata/script/report_dir.txtar, compare_ab.txtar",
	"target.simulator.itl_ms":                      "simulated latency; testdata/script/compare_ab.txtar",
	"target.simulator.jitter_ms":                   "simulated jitter; sim/stream_test.go (Config.Jitter), testdata/script/compare_aa.txtar",
	"target.simulator.prefill_us_per_token":        "simulated prefill; sim/stream_test.go (Config.PrefillPerToken)",
	"target.simulator.output_len":                  "output length without max tokens; sim/generate_test.go (Config.DefaultOutputLen)",
	"target.simulator.model":                       "served model name and result model_id; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"target.simulator.seed":                        "simulator jitter and text; sim/schedule_test.go (Config.Seed)",
	"target.simulator.reasoning_tokens":            "simulated reasoning deltas; sim/apis_test.go (TestAPIStreamFraming), testdata/script/apis_sim.txtar",
	"target.simulator.bare":                        "a bare OpenAI-compatible server; sim/fault_test.go (TestBareServer), testdata/script/bare_server.txtar",
	"target.simulator.faults":                      "injected server faults; sim/fault_test.go (TestFaultsInjected), testdata/script/faults_http.txtar",
	"target.simulator.max_conns":                   "connections reset beyond a limit; sim/fault_test.go (TestMaxConns), testdata/script/faults_conns.txtar",
	"target.simulator.cached_prefill_us_per_token": "cached prompt tokens prefill faster; testdata/script/conversations_sim.txtar",
	"target.simulator.itl_per_running_ms":          "latency that grows with load; sim/loadlatency_test.go (TestITLPerRunning), testdata/script/capacity_search.txtar",
	"target.simulator.spec_decode.tokens":          "simulated spec-decode counters; testdata/script/run_spec_decode.txtar",
	"target.simulator.spec_decode.acceptance":      "simulated acceptance; testdata/script/run_spec_decode.txtar",

	"target.server.command":       "the managed server's argv; server/config_test.go (TestConfigOf), testdata/script/server_sweep.txtar",
	"target.server.args":          "options applied to the command, swept with restarts; server/config_test.go (TestConfigOf), testdata/script/server_sweep.txtar",
	"target.server.env":           "the server's environment; server/config_test.go (TestConfigKey), testdata/script/server_options.txtar",
	"target.server.dir":           "the server's working directory; server/config_test.go (TestConfigKey), testdata/script/server_options.txtar",
	"target.server.ready_url":     "polled until ready; server/config_test.go (TestConfigOf)",
	"target.server.ready_timeout": "bounds the wait for readiness; server/config_test.go (TestConfigOf)",
	"target.server.reset_caches":  "cache resets after each run; testdata/script/server_sweep.txtar, server_options.txtar",
	"target.server.after_run":     "a command after each run; testdata/script/server_options.txtar",
	"target.server.stop_grace":    "SIGTERM then SIGKILL; server/config_test.go (TestConfigOf)",
	"target.server.log":           "the server's output beside the results; testdata/script/server_sweep.txtar",

	"tokenizer.name":      "client tokenizer; testdata/script/tokenize_builtin.txtar, run_sim.txtar",
	"tokenizer.revision":  "Hub revision; testdata/script/tokenize_hub.txtar, hub/hub_test.go",
	"tokenizer.mode":      "accepted, with one warning that vbench uses its own tokenizer; pipeline/tokenizer_test.go (TestLoadTokenizerEnv mode warns once)",
	"tokenizer.skip_init": "no client tokenizer; pipeline/tokenizer_test.go (TestLoadTokenizerEnv), testdata/script/token_accounting.txtar",
	// vbench never runs a tokenizer's Python code, so there is nothing to
	// trust; the field exists so that vLLM command lines (Kimi needs
	// --trust-remote-code) import and run unchanged.
	"tokenizer.trust_remote_code": evidence.NoEffect + " (vbench runs no remote code)",

	"load.num_prompts":                 "request count; testdata/script/run_sim.txtar",
	"load.request_rate":                "arrival rate; schedule/schedule_test.go, testdata/script/repeat_stats.txtar",
	"load.burstiness":                  "arrival gaps; schedule/schedule_test.go",
	"load.max_concurrency":             "in-flight limit; testdata/script/run_sim.txtar",
	"load.ramp_up.strategy":            "ramp-up; schedule/schedule_test.go (TestSecondsRampUpGamma), pipeline/rampup_test.go",
	"load.ramp_up.start_rps":           "ramp-up; schedule/schedule_test.go (TestSecondsRampUpGamma), pipeline/rampup_test.go",
	"load.ramp_up.end_rps":             "ramp-up; schedule/schedule_test.go (TestSecondsRampUpGamma), pipeline/rampup_test.go",
	"load.num_warmups":                 "warmup requests before the run; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"load.ready_check_timeout_sec":     "ready check before the run; pipeline/fields_effect_test.go (TestScenarioFieldEffects)",
	"load.probe_request_rate":          "probe requests next to the run; run/probe_test.go, pipeline/probe_test.go, testdata/script/probe_requests.txtar",
	"load.max_model_len":               "longer requests dropped; testdata/script/serve_rust_flags.txtar, argv/rust_test.go (TestRustFlagsMap)",
	"load.early_stop.oversaturation":   "an over-saturated run stops early; pipeline/earlystop_test.go (TestEarlyStopTick), testdata/script/early_stop.txtar",
	"load.early_stop.max_failure_rate": "a run past a failure-rate bound stops; pipeline/earlystop_test.go (TestEarlyStopFailures)",
	"load.early_stop.slos":             "a run past a latency bound for good stops; pipeline/earlystop_test.go (TestEarlyStopSLOs), testdata/script/capacity_search.txtar",
	"load.shard.index":                 "the stripe a client sends; schedule/shard_test.go (TestStripeUnion), testdata/script/shard_merge.txtar",
	"load.shard.count":                 "the clients a run is split over; schedule/shard_test.go (TestStripeOffsets), testdata/script/shard_merge.txtar",
	"load.early_stop.window_s":         "the growth window; pipeline/earlystop_test.go (TestEarlyStopTick), testdata/script/early_stop.txtar",

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

	"metrics.percentile_metrics":      "reported percentiles; testdata/script/serve_outputs.txtar",
	"metrics.metric_percentiles":      "reported percentiles; pipeline/run_test.go, testdata/script/serve_outputs.txtar",
	"metrics.goodput.ttft":            "goodput; metrics/metrics_test.go, testdata/script/serve_outputs.txtar",
	"metrics.goodput.tpot":            "goodput; metrics/metrics_test.go",
	"metrics.goodput.e2el":            "goodput; metrics/metrics_test.go",
	"metrics.steady_state":            "steady-state window of a closed loop; metrics/steady_test.go, testdata/script/steady_state.txtar",
	"metrics.steady_state_threshold":  "the window's in-flight share; argv/rust_test.go (TestRustFlagsMap), testdata/script/serve_rust_flags.txtar",
	"metrics.steady_state_min_window": "the window's warning length; argv/rust_test.go (TestRustFlagsMap), metrics/steady_test.go",
	"metrics.trace_context":           "W3C traceparent per timed request, trace_id in the records; backend/traceparent_test.go, testdata/script/trace_context.txtar",

	"metrics.scrape_interval": "server gauge sampling during the timed phase (pipeline/serversamples.go); pipeline/serversamples_test.go, testdata/script/server_samples.txtar",

	"output.save_result":        "result JSON; testdata/script/run_sim.txtar",
	"output.save_detailed":      "per-request arrays; report/result_test.go",
	"output.append_result":      "append to the result file; testdata/script/serve_outputs.txtar",
	"output.result_dir":         "result directory; testdata/script/report_dir.txtar",
	"output.result_filename":    "result file name; testdata/script/run_sim.txtar",
	"output.label":              "file name and result label; report/filename_test.go",
	"output.metadata":           "result keys; report/result_test.go",
	"output.records":            "per-request JSONL; testdata/script/run_sim.txtar",
	"output.formats":            "the llm-d Benchmark Report beside the result; llmd/llmd_test.go (TestBuildValidates), testdata/script/llmd_report.txtar",
	"output.disable_tqdm":       "progress bar; testdata/script/serve_run.txtar",
	"output.overwrite":          "replace an existing result; testdata/script/output_no_overwrite.txtar",
	"output.plot_dataset_stats": "<result>.dataset_stats.png; report/datasetstats_test.go (TestDatasetStatsPNG), testdata/script/plot_dataset_stats.txtar",

	"output.plot_timeline":           "HTML request timeline; timeline/timeline_test.go, timeline/chromium_test.go, testdata/script/serve_timeline.txtar",
	"output.timeline_itl_thresholds": "timeline ITL colours; timeline/timeline_test.go, argv/dialect_test.go, testdata/script/serve_timeline.txtar",

	"sweep.axes":        "testdata/script/sweep_concurrency.txtar",
	"sweep.mode":        "experiment/plan_test.go",
	"sweep.link":        "linked axes (vLLM's --link-vars); experiment/plan_test.go (TestSweepLink)",
	"repeat.count":      "testdata/script/repeat_stats.txtar",
	"repeat.fixed_seed": "experiment/plan_test.go",
	"compare.variants":  "testdata/script/compare_ab.txtar",
	"compare.baseline":  "testdata/script/compare_ab.txtar",
	"compare.gates":     "testdata/script/compare_ab.txtar",

	"search.variable": "testdata/script/capacity_search.txtar, experiment/search_test.go (TestFindCapacity)",
	"search.min":      "experiment/search_test.go (TestFindCapacity)",
	"search.max":      "testdata/script/capacity_search.txtar",
	"search.start":    "experiment/search_test.go (TestFindCapacity)",
	"search.step":     "testdata/script/capacity_search.txtar, experiment/search_test.go (TestFindCapacity)",
	"search.slos":     "testdata/script/capacity_search.txtar, experiment/search_test.go (TestAssess)",
	"search.max_runs": "testdata/script/capacity_search.txtar",
	"search.margin":   "experiment/search_test.go (TestAssess)",
}

// Every leaf field of the schema outside dataset is implemented (listed
// above, with its evidence); package dataset accounts for the fields of
// the dataset kinds (its TestDatasetFieldsAccounted). A new schema field
// fails this test until it is classified.
func TestSchemaFieldsAccounted(t *testing.T) {
	leaves, err := SchemaFields()
	if err != nil {
		t.Fatal(err)
	}
	if len(leaves) < 50 {
		t.Fatalf("found only %d schema fields: the walk is broken", len(leaves))
	}
	for _, path := range leaves {
		if implemented[path] == "" && !strings.HasPrefix(path, "dataset.") {
			t.Errorf("schema field %s is not implemented (the implemented list, with a test)", path)
		}
	}
}

// TestImplementedEvidence checks that every implemented field is a
// schema field with its evidence.
func TestImplementedEvidence(t *testing.T) {
	leaves, err := SchemaFields()
	if err != nil {
		t.Fatal(err)
	}
	evidence.Check(t, implemented, leaves)
}
