"""Golden values of vLLM's probe statistics (vllm bench serve's probe_stats).

Run with Debian's python3 (python3-numpy): /usr/bin/python3 gen_probe.py > probe_golden.json

Each case is a list of probe outcomes: an end-to-end latency in integer
nanoseconds (as vbench's records hold them), or null for a failed probe.
Latencies become seconds as Go's time.Duration.Seconds does, then vLLM's
formulas: float(np.median(lats)) * 1000, float(np.percentile(lats, 99)) * 1000,
float(max(lats)) * 1000, completed = len(lats), failed = len(outcomes) - len(lats).
"""
import json
import random

import numpy as np


def seconds(ns):
    return float(ns // 10**9) + float(ns % 10**9) / 1e9


rng = random.Random(13)
cases = {
    "one": [12_345_678],
    "odd with failures": [30_000_000, None, 10_000_000, 20_000_000, None],
    "even": [7_000_001, 3_999_999, 5_123_457, 11_000_000],
    "long tail": [rng.randrange(2_000_000, 9_000_000) for _ in range(100)] + [1_250_000_000],
    "random 257": [rng.randrange(1_000_000, 3_000_000_000) if rng.random() > 0.05 else None for _ in range(257)],
}
out = []
for name, outcomes in cases.items():
    lats = [seconds(ns) for ns in outcomes if ns is not None]
    out.append({
        "name": name,
        "latencies_ns": outcomes,
        "probe_completed": len(lats),
        "probe_failed": len(outcomes) - len(lats),
        "probe_median_e2el_ms": float(np.median(lats)) * 1000,
        "probe_p99_e2el_ms": float(np.percentile(lats, 99)) * 1000,
        "probe_max_e2el_ms": float(max(lats)) * 1000,
    })
print(json.dumps(out, indent=1))
