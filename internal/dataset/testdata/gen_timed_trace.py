#!/usr/bin/env python3
"""Writes timed_trace_golden.json, the expected requests of the timed_trace
dataset (timedtrace_test.go) on timed_trace/trace.jsonl.

vLLM's Python client cannot run here (no vllm, no Hugging Face tokenizers),
so this script re-states vLLM's TimedTrace (load_data, _sample_token,
_expand_prompt, sample; vllm/benchmarks/datasets/datasets.py at
003cf0297cf6) step for step, with CPython's own json and random modules,
and a tokenizer whose vocabulary is trivial: VOCAB below (ids 0..49, of
which 0, 1 and 2 are special), which the Go test implements identically
(vocabTokenizer).

vbench deviates from vLLM in one documented way, and this script does what
vbench does there: vLLM seeds each block with hash(f"{h}:{size}"), Python's
per-process randomised string hash, so its prompts differ from run to run;
vbench seeds block h with random.Random(h + seed * 2**64), so the same hash
id (and seed) always gives the same block, and a shortened last block is
the full block cut short. vLLM draws from tokenizer.get_vocab() without the
special ids, sorted; VOCAB has no added tokens, so that is range(50)
without 0, 1 and 2, as vbench draws.

Run with Debian's python3:

    /usr/bin/python3 internal/dataset/testdata/gen_timed_trace.py > internal/dataset/testdata/timed_trace_golden.json

The tests only read timed_trace_golden.json; they never run Python.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


class VOCAB:
    vocab_size = 50
    all_special_ids = [0, 1, 2]


def block(h, seed, size, allowed):
    # vbench's seeding; vLLM: random.Random(hash(f"{h}:{size}") & 0xFFFFFFFF)
    return random.Random(h + (abs(seed) << 64)).choices(allowed, k=size)


def timed_trace(path, seed, chunk_size, sec_multiplier, n, tok, prefix):
    allowed = sorted(v for v in range(tok.vocab_size) if v not in tok.all_special_ids)
    with open(path) as f:
        data = f.readlines()
    out = []
    for ind, entry in enumerate(data):
        if len(out) >= n:
            break
        entry = json.loads(entry.strip())
        target = entry["input_length"]
        prompt = []
        for h in entry["hash_ids"]:
            size = chunk_size if target >= chunk_size else target
            prompt.extend(block(h, seed, chunk_size, allowed)[:size])
            target -= size
            if target <= 0:
                break
        out.append({
            "prompt_token_ids": prompt,
            "prompt_len": len(prompt),
            "expected_output_len": entry["output_length"],
            "request_id": prefix + str(ind),
            "timestamp": float(entry["timestamp"]) * sec_multiplier,
        })
    return out


CASES = [
    # name, seed, chunk_hash_size, sec_multiplier, num_prompts, prefix
    ("chunk4_ms", 0, 4, 0.001, 100, "t-"),
    ("chunk4_seed7_first3", 7, 4, 0.001, 3, ""),
    ("chunk16_seconds", 0, 16, 1.0, 100, "bench-"),
]

golden = []
for name, seed, chunk, mult, n, prefix in CASES:
    golden.append({
        "name": name, "seed": seed, "chunk_hash_size": chunk, "sec_multiplier": mult,
        "num_prompts": n, "prefix": prefix,
        "requests": timed_trace(os.path.join(HERE, "timed_trace", "trace.jsonl"), seed, chunk, mult, n, VOCAB(), prefix),
    })
print(json.dumps(golden, indent=1))
