#!/usr/bin/env python3
"""Writes speed_bench_golden.json, the expected requests of the speed_bench
dataset (speed_bench_test.go), and the fixture directory they come from:
the Go test writes each fixture text below to <subset>.jsonl in a
directory and compares its requests.

vLLM's Python client cannot run here (no vllm, no Hugging Face tokenizers),
so this script re-states vLLM's SpeedBench (load_data) and the
CustomDataset.sample and maybe_oversample_requests it inherits
(vllm/benchmarks/datasets/datasets.py at 003cf0297cf6), with serve's call
(get_samples): no random_seed (the default, 0), the subset, the category,
skip_chat_template and chat_template_kwargs. The prompt is
row["messages"][0]["content"], whatever that message's role. It uses
CPython's own random module, pandas' own read_json, and a tokenizer whose
counts are trivial: the WS of gen_files.py, which the Go tests implement
identically (wsTokenizer). Given the same tokenizer, vLLM's classes make
the same calls in the same order, so the prompts, lengths, ids and order
below are vLLM's.

Run with Debian's python3 and python3-pandas:

    /usr/bin/python3 internal/dataset/testdata/gen_speed_bench.py > internal/dataset/testdata/speed_bench_golden.json

The tests only read speed_bench_golden.json; they never run Python.
"""
import io
import json
import os
import sys

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_files import WS, custom_sample  # noqa: E402  (the same whitespace tokenizer and chat template)

FIXTURES = {
    "qualitative": """\
{"question_id": "q1", "category": "coding", "messages": [{"role": "user", "content": "Write a Python function that reverses a linked list in place."}]}
{"question_id": "q2", "category": "math", "messages": [{"role": "user", "content": "What is the sum of the first 100 positive integers?"}]}
{"question_id": "q3", "category": "writing", "messages": [{"role": "user", "content": "Write a haiku about autumn rain on a tin roof."}, {"role": "assistant", "content": "Drip, drip."}, {"role": "user", "content": "Another one."}]}

{"question_id": "q4", "category": "coding", "messages": [{"role": "system", "content": "You are a terse senior engineer."}, {"role": "user", "content": "Explain Go channels."}]}
{"question_id": "q5", "category": "multilingual", "messages": [{"role": "user", "content": "Traduis en français : le chat dort sur le canapé."}]}
{"question_id": "q6", "category": "math", "messages": [{"role": "user", "content": "Prove that the square root of 2 is irrational, step by step."}]}
{"question_id": "q7", "category": "rag", "messages": [{"role": "user", "content": "Context: the bridge opened in 1937. Question: when did the bridge open?"}]}
{"question_id": "q8", "category": "coding", "messages": [{"role": "user", "content": "Fix the off-by-one error: for i in range(1, len(xs)): print(xs[i])"}]}
{"question_id": "q9", "category": "summarization", "messages": [{"role": "user", "content": "Summarize: a fox, a dog, a river, a dawn."}]}
{"question_id": "q10", "category": "math", "messages": [{"role": "user", "content": "Is 221 prime?"}]}
""",
    "throughput_1k": """\
{"question_id": "t1", "category": "low_entropy", "messages": [{"role": "user", "content": "one two three four five six seven eight nine ten eleven twelve"}]}
{"question_id": "t2", "category": "high_entropy", "messages": [{"role": "user", "content": "zx qv wj kp yb fm"}]}
{"question_id": "t3", "category": "low_entropy", "messages": [{"role": "user", "content": "a a a a a a a a"}]}
{"question_id": "t4", "category": "high_entropy", "messages": [{"role": "user", "content": "lorem ipsum dolor"}]}
""",
}


def speed_bench(subset, n, output_len, category=None, disable_shuffle=False, no_oversample=False,
                skip_chat_template=False, chat_template_kwargs=None, prefix=""):
    seed = 0  # BenchmarkDataset.DEFAULT_SEED: serve passes no random_seed
    # SpeedBench.load_data (the directory check and the file name are the Go
    # side's: here the subset's text stands for <dir>/<subset>.jsonl)
    df = pd.read_json(path_or_buf=io.StringIO(FIXTURES[subset]), lines=True)
    assert "messages" in df.columns
    data = []
    for _, row in df.iterrows():
        if (not category) or (category == row["category"]):
            data.append({"prompt": row["messages"][0]["content"]})
    # the shuffle and CustomDataset.sample
    return custom_sample(data, seed, n, output_len, WS(), skip_chat_template, chat_template_kwargs,
                         disable_shuffle, no_oversample, prefix)


def main():
    cases = []
    for c in [
        dict(name="qualitative_5", subset="qualitative", n=5, output_len=4096),
        dict(name="every_line", subset="qualitative", n=0, output_len=32, prefix="sp-"),
        dict(name="coding_oversampled", subset="qualitative", n=7, output_len=16, category="coding"),
        dict(name="skip_chat_template", subset="qualitative", n=4, output_len=8, skip_chat_template=True),
        dict(name="chat_template_kwargs", subset="qualitative", n=3, output_len=8,
             chat_template_kwargs={"enable_thinking": False}),
        dict(name="math_no_shuffle_no_oversample", subset="qualitative", n=9, output_len=8, category="math",
             disable_shuffle=True, no_oversample=True),
        dict(name="throughput_1k_oversampled", subset="throughput_1k", n=6, output_len=64),
    ]:
        kw = {k: v for k, v in c.items() if k != "name"}
        reqs = speed_bench(**kw)
        cases.append({**c, "requests": [r.__dict__ for r in reqs]})
    json.dump({"pandas": pd.__version__, "fixtures": FIXTURES, "cases": cases}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
