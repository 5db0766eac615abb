"""Prints the result JSON of testdata/probe-result.json as vllm bench serve
builds and saves it (vllm/benchmarks/serve.py: the header keys, the body,
result.update(probe_stats), rps_change_events, spec_decode_*, the per-metric
statistics; json.dump with its default separators): the file was written by
hand from the reference's key order, and this script checks it.

    /usr/bin/python3 probe_result.py | cmp - probe-result.json
"""
import json
import sys

result_json = {
    "date": "20260723-101500", "endpoint_type": "openai", "backend": "openai", "label": None,
    "model_id": "org/model", "tokenizer_id": "org/model", "num_prompts": 2,
    "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 2,
    "ramp_up_strategy": "linear", "ramp_up_start_rps": 1, "ramp_up_end_rps": 4,
}
result = {
    "duration": 2.0, "completed": 1, "failed": 1, "total_input_tokens": 8, "total_output_tokens": 3,
    "request_throughput": 0.5, "request_goodput": None, "output_throughput": 1.5,
    "total_token_throughput": 5.5, "latencies": [0.5, 0.0], "queue_times": [0.25, 0.0],
    "max_output_tokens_per_s": 3.0, "max_concurrent_requests": 1, "rtfx": 0.0,
}
result.update({
    "probe_completed": 2, "probe_failed": 1, "probe_median_e2el_ms": 5.25,
    "probe_p99_e2el_ms": 7.4475, "probe_max_e2el_ms": 7.5,
})
result["rps_change_events"] = [{"rps": 1, "timestamp": "2026-07-23T10:14:58.000001"}]
result["spec_decode_acceptance_rate"] = 50.0
result["spec_decode_acceptance_length"] = 1.5
result["spec_decode_num_drafts"] = 2
result["spec_decode_draft_tokens"] = 4
result["spec_decode_accepted_tokens"] = 2
result["spec_decode_per_position_acceptance_rates"] = [0.5]
result.update({"mean_e2el_ms": 500.0, "median_e2el_ms": 500.0, "std_e2el_ms": 0.0, "p99_e2el_ms": 500.0})
json.dump({**result_json, **result}, sys.stdout)
