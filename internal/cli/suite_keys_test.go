package cli

import (
	"strings"
	"testing"
)

func TestMatchVLLMKeys(t *testing.T) {
	head := "date endpoint_type backend label model_id tokenizer_id num_prompts "
	load := "request_rate burstiness max_concurrency "
	gen := "duration completed failed total_input_tokens total_output_tokens request_throughput request_goodput output_throughput total_token_throughput "
	genEnd := "latencies queue_times max_output_tokens_per_s max_concurrent_requests rtfx "
	genDetailed := "input_lens output_lens ttfts itls latencies start_times queue_times generated_texts errors max_output_tokens_per_s max_concurrent_requests rtfx "
	stats := "mean_ttft_ms median_ttft_ms std_ttft_ms p99_ttft_ms mean_e2el_ms median_e2el_ms std_e2el_ms p50_e2el_ms p99.9_e2el_ms"
	pool := "duration completed total_input_tokens total_input_sequences request_throughput input_sequence_throughput total_token_throughput latencies queue_times "
	spec := "spec_decode_acceptance_rate spec_decode_acceptance_length spec_decode_num_drafts spec_decode_draft_tokens spec_decode_accepted_tokens spec_decode_per_position_acceptance_rates "
	for _, tt := range []struct {
		name, keys, err string
	}{
		{"generation", head + load + gen + genEnd + stats, ""},
		{"generation, detailed", head + load + gen + genDetailed + stats, ""},
		{"metadata and ramp-up", head + "team run_id " + load + "ramp_up_strategy ramp_up_start_rps ramp_up_end_rps " + gen + genEnd + stats, ""},
		{"spec decode", head + load + gen + genEnd + spec + stats, ""},
		{"pooling", head + load + pool + "mean_e2el_ms median_e2el_ms std_e2el_ms p99_e2el_ms", ""},
		{"vbench object", head + load + gen + genEnd + stats + " vbench", `key 33 is "vbench"`},
		{"vbench object among the metadata", head + "vbench " + load, `"vbench" object`},
		{"a missing key", head + load + strings.Replace(gen, "request_goodput ", "", 1) + genEnd + stats, `where vLLM writes "request_goodput"`},
		{"some detailed keys", head + load + gen + "input_lens " + genEnd + stats, `is "latencies" where vLLM writes "output_lens"`},
		{"a half spec-decode group", head + load + gen + genEnd + "spec_decode_acceptance_rate " + stats, `where vLLM writes "spec_decode_acceptance_length"`},
		{"a metric without its median", head + load + gen + genEnd + "mean_ttft_ms std_ttft_ms", `where vLLM writes "median_ttft_ms"`},
		{"short", "date endpoint_type", `the keys end where "backend" is due`},
	} {
		err := matchVLLMKeys(strings.Fields(tt.keys))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
}
