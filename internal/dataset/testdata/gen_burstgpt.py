#!/usr/bin/env python3
"""Writes burstgpt_golden.json, the expected requests of the burstgpt dataset
(burstgpt_test.go) on burstgpt/trace.csv.

vLLM's Python client cannot run here (no vllm, no Hugging Face tokenizers),
so this script re-states vLLM's BurstGPTDataset (load_data,
_sample_loaded_data, sample; vllm/benchmarks/datasets/datasets.py at
003cf0297cf6) step for step, with pandas' own read_csv and
DataFrame.sample(random_state=seed), and a tokenizer whose decode is
trivial: IDS below (vocab_size 11, decode joins the ids with spaces), which
the Go test implements identically (idsTokenizer). Given the same
tokenizer, vLLM's class makes the same calls in the same order, so the
prompts, lengths, ids and order below are vLLM's.

Run with Debian's python3, python3-numpy and python3-pandas:

    /usr/bin/python3 internal/dataset/testdata/gen_burstgpt.py > internal/dataset/testdata/burstgpt_golden.json

The tests only read burstgpt_golden.json; they never run Python.
"""
import json
import os

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))


class IDS:
    vocab_size = 11

    def decode(self, ids):
        return " ".join(str(t) for t in ids)


def burstgpt(path, seed, n, tok, prefix=""):
    # load_data
    df = pd.read_csv(path)
    gpt4 = df[df["Model"] == "GPT-4"]
    gpt4 = gpt4[gpt4["Response tokens"] > 0]
    # _sample_loaded_data
    if n <= len(gpt4):
        data = gpt4.sample(n=n, random_state=seed)
    else:
        data = gpt4.sample(n=n, random_state=seed, replace=True)
    data = data.values.tolist()
    # sample
    out = []
    for i in range(n):
        input_len = int(data[i][2])
        output_len = int(data[i][3])
        token_ids = [(i + j) % tok.vocab_size for j in range(input_len)]
        out.append({
            "prompt": tok.decode(token_ids),
            "prompt_len": input_len,
            "expected_output_len": output_len,
            "request_id": prefix + str(i),
        })
    return out


def main():
    path = os.path.join(HERE, "burstgpt", "trace.csv")
    cases = [
        ("seed 0, 5 of 11 rows", 0, 5, ""),
        ("seed 42, every row", 42, 11, "bench-"),
        ("seed 7, 25 rows with replacement", 7, 25, ""),
        ("seed 4294967295, 3 rows", 4294967295, 3, "x"),
    ]
    golden = []
    for name, seed, n, prefix in cases:
        golden.append({"name": name, "seed": seed, "n": n, "prefix": prefix,
                       "requests": burstgpt(path, seed, n, IDS(), prefix)})
    json.dump(golden, fp=__import__("sys").stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
