#!/usr/bin/env python3
"""Writes spec_bench_golden.json, the expected requests of the spec_bench
dataset (spec_bench_test.go), and the fixture they come from: the Go test
writes the fixture text below to a file and compares its requests.

vLLM's Python client cannot run here (no vllm, no Hugging Face tokenizers),
so this script re-states vLLM's SpecBench (load_data) and the
CustomDataset.sample and maybe_oversample_requests it inherits
(vllm/benchmarks/datasets/datasets.py at 003cf0297cf6), with serve's call
(get_samples): no random_seed (the default, 0), no skip_chat_template and
no chat_template_kwargs. It uses CPython's own random module, pandas' own
read_json, and a tokenizer whose counts are trivial: the WS of
gen_files.py, which the Go tests implement identically (wsTokenizer).
Given the same tokenizer, vLLM's classes make the same calls in the same
order, so the prompts, lengths, ids and order below are vLLM's.

Run with Debian's python3 and python3-pandas:

    /usr/bin/python3 internal/dataset/testdata/gen_spec_bench.py > internal/dataset/testdata/spec_bench_golden.json

The tests only read spec_bench_golden.json; they never run Python.
"""
import io
import json
import sys
import os

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_files import WS, custom_sample  # noqa: E402  (the same whitespace tokenizer and chat template)

FIXTURE = """\
{"question_id": 81, "category": "writing", "turns": ["Compose an engaging travel blog post about a recent trip to Hawaii.", "Rewrite your previous response."]}
{"question_id": 82, "category": "writing", "turns": ["Draft a professional email seeking feedback on a report."]}
{"question_id": 101, "category": "math", "turns": ["What is 17 times 23?"]}

{"question_id": 102, "category": "math", "turns": ["Solve x + 4 = 10 for x, then explain each step briefly."]}
{"question_id": 201, "category": "translation", "turns": ["Translate German to English: Guten Morgen, wie geht es dir heute?"]}
{"question_id": 301, "category": "summarization", "turns": ["Summarize: The quick brown fox jumps over the lazy dog near the river bank at dawn."]}
{"question_id": 401, "category": "qa", "turns": ["Who wrote the novel Moby Dick?"]}
{"question_id": 501, "category": "rag", "turns": ["Using the passage, answer: when was the bridge completed?"]}
{"question_id": 103, "category": "math", "turns": ["Is 91 a prime number?"]}
"""


def spec_bench(n, output_len, category=None, disable_shuffle=False, no_oversample=False, prefix=""):
    seed = 0  # BenchmarkDataset.DEFAULT_SEED: serve passes no random_seed
    # SpecBench.load_data
    df = pd.read_json(path_or_buf=io.StringIO(FIXTURE), lines=True)
    assert "turns" in df.columns
    data = []
    for _, row in df.iterrows():
        if (not category) or (category == row["category"]):
            data.append({"prompt": row["turns"][0]})
    # the shuffle and CustomDataset.sample (skip_chat_template False, no kwargs)
    return custom_sample(data, seed, n, output_len, WS(), disable_shuffle=disable_shuffle,
                         no_oversample=no_oversample, prefix=prefix)


def main():
    cases = []
    for c in [
        dict(name="all_5", n=5, output_len=256),
        dict(name="every_line", n=0, output_len=32, prefix="sb-"),
        dict(name="math_oversampled", n=7, output_len=16, category="math"),
        dict(name="writing_no_shuffle_no_oversample", n=9, output_len=8, category="writing",
             disable_shuffle=True, no_oversample=True),
    ]:
        kw = {k: v for k, v in c.items() if k != "name"}
        reqs = spec_bench(**kw)
        cases.append({**c, "requests": [r.__dict__ for r in reqs]})
    json.dump({"pandas": pd.__version__, "fixture": FIXTURE, "cases": cases}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
