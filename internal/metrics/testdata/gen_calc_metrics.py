"""Golden values of vLLM's calculate_metrics over 3000 synthetic outcomes.

Run with Debian's python3 (python3-numpy):
    /usr/bin/python3 gen_calc_metrics.py | gzip -9n > calc_metrics_golden.json.gz

It restates calculate_metrics of upstream vllm/benchmarks/serve.py
(11dfa3169d16; def9ce85 for the one-second bins) over outcomes drawn from a
seeded numpy generator: per success, output_len is the server's count;
tpot = (latency - ttft) / (output_len - 1) when output_len > 1; itls,
ttfts and e2els are pooled; the statistics are np.mean, np.std, np.median
and np.percentile of each list (0 when empty), times 1000; goodput counts
the successes within every SLO (ms / 1000, inclusive); the peak output
tokens/s and vLLM's max_concurrent_requests count one-second bins from the
earliest start. The Go test feeds the same outcomes to metrics and wants
every value equal, bit for bit.
"""
import json

import numpy as np

rng = np.random.default_rng(19)
N = 3000
PERCENTILES = [50.0, 90.0, 99.0, 99.9]
GOODPUT = {"ttft": 120.0, "tpot": 9.5, "e2el": 400.0}

outputs = []
t = 0.0
for i in range(N):
    t += float(rng.exponential(0.004))
    if rng.random() < 0.03:
        outputs.append({"success": False, "start": t, "ttft": 0.0, "itl": [], "latency": 0.0,
                        "prompt_len": int(rng.integers(8, 512)), "output_tokens": 0})
        continue
    n = int(rng.integers(1, 12))
    ttft = float(rng.gamma(2.0, 0.04))
    itl = [float(x) for x in rng.gamma(4.0, 0.002, size=n - 1)]
    latency = ttft + sum(itl)
    outputs.append({"success": True, "start": t, "ttft": ttft, "itl": itl, "latency": latency,
                    "prompt_len": int(rng.integers(8, 512)), "output_tokens": n})
duration = max(o["start"] + o["latency"] for o in outputs) + 0.01


def calculate_metrics(outputs, dur_s):
    actual_output_lens, total_input, completed, good = [], 0, 0, 0
    itls, tpots, all_tpots, ttfts, e2els = [], [], [], [], []
    for o in outputs:
        if o["success"]:
            output_len = o["output_tokens"]
            actual_output_lens.append(output_len)
            total_input += o["prompt_len"]
            tpot = 0
            if output_len > 1:
                tpot = (o["latency"] - o["ttft"]) / (output_len - 1)
                tpots.append(tpot)
            all_tpots.append(tpot)
            itls += o["itl"]
            ttfts.append(o["ttft"])
            e2els.append(o["latency"])
            completed += 1
        else:
            actual_output_lens.append(0)
    valid, slos = [], []
    for key, values in (("ttft", ttfts), ("tpot", all_tpots), ("e2el", e2els)):
        if key in GOODPUT:
            valid.append(values)
            slos.append(GOODPUT[key] / 1000)
    for req in zip(*valid):
        if all(s >= r for s, r in zip(slos, req)):
            good += 1
    ok = [o for o in outputs if o["success"]]
    t0 = min(o["start"] for o in ok)
    end = max(o["start"] + o["latency"] for o in ok)
    nbins = int(np.ceil(end - t0)) + 1
    tokens = np.zeros(nbins)
    conc = np.zeros(nbins)
    for o in ok:
        times = [o["start"] + o["ttft"]]
        cur = times[0]
        for v in o["itl"]:
            cur += v
            times.append(cur)
        for tt in times:
            b = int(tt - t0)
            if 0 <= b < nbins:
                tokens[b] += 1
        for s in range(int(o["start"] - t0), int((o["start"] + o["latency"]) - t0) + 1):
            conc[s] += 1
    res = {
        "completed": completed,
        "failed": len(outputs) - completed,
        "total_input_tokens": total_input,
        "total_output_tokens": sum(actual_output_lens),
        "request_throughput": completed / dur_s,
        "request_goodput": good / dur_s,
        "output_throughput": sum(actual_output_lens) / dur_s,
        "total_token_throughput": (total_input + sum(actual_output_lens)) / dur_s,
        "max_output_tokens_per_s": float(np.max(tokens)),
        "max_concurrent_requests": int(np.max(conc)),
    }
    for name, values in (("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)):
        res["mean_%s_ms" % name] = float(np.mean(values or 0) * 1000)
        res["median_%s_ms" % name] = float(np.median(values or 0) * 1000)
        res["std_%s_ms" % name] = float(np.std(values or 0) * 1000)
        for p in PERCENTILES:
            word = str(int(p)) if int(p) == p else str(p)
            res["p%s_%s_ms" % (word, name)] = float(np.percentile(values or 0, p) * 1000)
    return res


print(json.dumps({
    "duration": duration,
    "percentiles": PERCENTILES,
    "goodput": GOODPUT,
    "outputs": outputs,
    "expected": calculate_metrics(outputs, duration),
}))
