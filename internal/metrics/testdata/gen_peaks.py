"""Golden values of vLLM's max_concurrent_requests (vllm bench serve).

Run with Debian's python3 (python3-numpy): /usr/bin/python3 gen_peaks.py > peaks_golden.json

It restates calculate_metrics in vllm/benchmarks/serve.py as of upstream
commit 11dfa3169d16 (and def9ce85): over the successful outputs, with
min_start_time the earliest start, duration_seconds =
int(np.ceil(max_end_time - min_start_time)) + 1 one-second bins, each output
adds 1 to every bin from int(start_time - min_start_time) to
int((start_time + latency) - min_start_time), both included, and the key is
int(np.max(bins)). Beside it, "peak_overlapping" is the true peak of the
half-open intervals [start, start + latency), departures before arrivals at
equal times, which vbench reports in its "vbench" object.

Each case lists outputs as [start_time, latency, success], floats in seconds.
"""
import json
import random

import numpy as np


def vllm_max_concurrent(outputs):
    ok = [(s, l) for s, l, success in outputs if success]
    if not ok:
        return 0
    min_start_time = min(s for s, _ in ok)
    max_end_time = max(s + l for s, l in ok)
    duration_seconds = int(np.ceil(max_end_time - min_start_time)) + 1
    bins = np.zeros(duration_seconds)
    for s, l in ok:
        first = int(s - min_start_time)
        last = int((s + l) - min_start_time)
        for second in range(first, last + 1):
            bins[second] += 1
    return int(np.max(bins))


def peak_overlapping(outputs):
    events = []
    for s, l, success in outputs:
        if success:
            events.append((s, 1))
            events.append((s + l, -1))
    events.sort(key=lambda e: (e[0], e[1]))
    cur = peak = 0
    for _, d in events:
        cur += d
        peak = max(peak, cur)
    return peak


rng = random.Random(29)


def closed_loop(n, conc, lat_lo, lat_hi, fail=0.0):
    # n requests at concurrency conc, each starting when a slot frees.
    slots = [0.0] * conc
    out = []
    for _ in range(n):
        i = min(range(conc), key=lambda k: slots[k])
        start = slots[i] + rng.uniform(0, 0.002)
        lat = rng.uniform(lat_lo, lat_hi)
        slots[i] = start + lat
        out.append([start, lat, rng.random() >= fail])
    return out


cases = {
    "three sequential requests in one second": [[10.0, 0.2, True], [10.2, 0.2, True], [10.4, 0.2, True]],
    "sequential at concurrency 1 across seconds": closed_loop(12, 1, 0.3, 0.45),
    "end exactly on a bin edge": [[0.0, 1.0, True], [1.0, 1.0, True], [2.0, 0.5, True]],
    "touching intervals": [[0.0, 0.5, True], [0.5, 0.5, True]],
    "failures are left out": [[0.0, 3.0, False], [0.1, 0.2, True], [0.5, 0.1, True]],
    "all failed": [[0.0, 1.0, False]],
    "one long and many short": [[0.0, 9.5, True]] + [[0.25 + i, 0.3, True] for i in range(9)],
    "closed loop 8": closed_loop(300, 8, 0.05, 0.9),
    "closed loop 64 with failures": closed_loop(2000, 64, 0.2, 3.0, fail=0.03),
    "open loop poisson": [[t, rng.uniform(0.1, 2.5), rng.random() > 0.02] for t in np.cumsum(np.random.default_rng(3).exponential(0.05, 500)).tolist()],
}
out = []
for name, outputs in cases.items():
    out.append({
        "name": name,
        "outputs": outputs,
        "max_concurrent_requests": vllm_max_concurrent(outputs),
        "peak_overlapping": peak_overlapping(outputs),
    })
print(json.dumps(out, indent=1))
