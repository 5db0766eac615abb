"""Writes pooling-console.txt and pooling-result.json: the result block and
the saved result JSON (--save-detailed) of a pooling run of five requests,
computed as vllm bench serve computes them (vllm/benchmarks/serve.py:
calculate_metrics_for_embeddings with numpy, the print statements of
benchmark() for an EmbedBenchmarkMetrics with a tokenizer, its pooling
result dict, process_one_metric, json.dump). The requests' figures are the
OUTPUTS below; the Go test feeds the same ones to vbench.

    /usr/bin/python3 pooling_golden.py   (needs python3-numpy)
"""
import json
import math

import numpy as np

# success, latency (s), prompt_len, num_input_sequences, client_queue_time (s), error
OUTPUTS = [
    (True, 0.0125, 40, 4, 0.0, ""),
    (True, 0.0375, 35, 4, 0.0015, ""),
    (False, 0.0, 0, 1, 0.002, "Internal Server Error"),
    (True, 0.021, 44, 4, 0.0, ""),
    (True, 0.1003, 12, 1, 0.0101, ""),
]
DURATION = 0.4321
MAX_CONCURRENCY = 2
REQUEST_RATE = 10.0
PERCENTILE_METRICS = ["e2el", "client_queue_time", "e2el_including_client_queue"]
PERCENTILES = [50.0, 99.0]

completed = sum(1 for o in OUTPUTS if o[0])
failed = len(OUTPUTS) - completed
total_input = sum(o[2] for o in OUTPUTS if o[0])
total_input_sequences = sum(o[3] for o in OUTPUTS if o[0])
e2els = [o[1] for o in OUTPUTS if o[0]]

out = []


def line(label, value, fmt="{:<10}"):
    out.append(("{:<40} " + fmt).format(label, value))


def header(text, fill):
    out.append("{s:{c}^{n}}".format(s=text, n=50, c=fill))


header(" Serving Benchmark Result ", "=")
line("Successful requests:", completed)
line("Failed requests:", failed)
line("Maximum request concurrency:", MAX_CONCURRENCY)
line("Request rate configured (RPS):", REQUEST_RATE, "{:<10.2f}")
line("Benchmark duration (s):", DURATION, "{:<10.2f}")
line("Total input tokens:", total_input)
line("Request throughput (req/s):", completed / DURATION, "{:<10.2f}")
line("Input throughput (inputs/s):", total_input_sequences / DURATION, "{:<10.2f}")
line("Total token throughput (tok/s):", total_input / DURATION, "{:<10.2f}")

result = {
    "date": "20261204-061500", "endpoint_type": "openai-embeddings", "backend": "openai-embeddings",
    "label": None, "model_id": "org/embed", "tokenizer_id": "org/embed", "num_prompts": 5,
    "request_rate": REQUEST_RATE, "burstiness": 1.0, "max_concurrency": MAX_CONCURRENCY,
    "duration": DURATION,
    "completed": completed,
    "total_input_tokens": total_input,
    "total_input_sequences": total_input_sequences,
    "request_throughput": completed / DURATION,
    "input_sequence_throughput": total_input_sequences / DURATION,
    "total_token_throughput": total_input / DURATION,
    "input_lens": [o[2] for o in OUTPUTS],
    "latencies": [o[1] for o in OUTPUTS],
    "queue_times": [o[4] for o in OUTPUTS],
    "errors": [o[5] for o in OUTPUTS],
}

values = {
    "e2el": e2els,
    "client_queue_time": [o[4] for o in OUTPUTS if o[0]],
    "e2el_including_client_queue": [o[1] + o[4] for o in OUTPUTS if o[0]],
}
for attr, name, head in [
    ("e2el", "E2EL", "End-to-end Latency"),
    ("client_queue_time", "Client Queue Time", "Client-side Queueing"),
    ("e2el_including_client_queue", "E2EL incl. Client Queue", "Queue-inclusive End-to-end Latency"),
]:
    if attr not in PERCENTILE_METRICS:
        continue
    v = values[attr]
    mean = np.mean(v or 0) * 1000
    median = np.median(v or 0) * 1000
    std = np.std(v or 0) * 1000
    header(head, "-")
    line(f"Mean {name} (ms):", mean, "{:<10.2f}")
    line(f"Median {name} (ms):", median, "{:<10.2f}")
    result[f"mean_{attr}_ms"] = mean
    result[f"median_{attr}_ms"] = median
    result[f"std_{attr}_ms"] = std
    for p in PERCENTILES:
        value = np.percentile(v or 0, p) * 1000
        p_word = str(int(p)) if int(p) == p else str(p)
        line(f"P{p_word} {name} (ms):", value, "{:<10.2f}")
        result[f"p{p_word}_{attr}_ms"] = value
out.append("=" * 50)

with open("pooling-console.txt", "w") as f:
    f.write("\n".join(out) + "\n")
with open("pooling-result.json", "w") as f:
    json.dump({k: (float(v) if isinstance(v, np.floating) else v) for k, v in result.items()}, f)
