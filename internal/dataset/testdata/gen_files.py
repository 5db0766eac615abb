#!/usr/bin/env python3
"""Writes files_golden.json, the expected requests of the custom and sonnet
datasets (custom_test.go, sonnet_test.go).

vLLM's Python client cannot run here (no vllm, no Hugging Face tokenizers),
so this script re-states the selection logic of vLLM's CustomDataset
(load_data, sample, maybe_oversample_requests) and SonnetDataset.sample
(vllm/benchmarks/datasets/datasets.py at 003cf0297cf6) step for step, with
CPython's own random module, pandas' own read_json, and a tokenizer whose
counts are trivial: WS below, which the Go tests implement identically
(wsTokenizer). Given the same tokenizer, vLLM's classes make the same calls
in the same order, so the prompts, lengths, ids and order below are vLLM's.

Run with Debian's python3 and python3-pandas:

    /usr/bin/python3 internal/dataset/testdata/gen_files.py > internal/dataset/testdata/files_golden.json

The tests only read files_golden.json; they never run Python.
"""
import json
import os
import random
import sys
from dataclasses import dataclass, replace

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))


class Encoding:
    def __init__(self, ids):
        self.input_ids = ids


class WS:
    """Whitespace tokenizer: one token per str.split() word, plus a BOS
    token (id 1) when special tokens are added. Its chat template wraps
    each message in role markers and, with enable_thinking=False, closes an
    empty think block after the generation prompt."""

    chat_template = "ws"

    def __call__(self, text):
        return Encoding([1] + [2] * len(text.split()))

    def apply_chat_template(self, messages, add_generation_prompt=False, tokenize=False, **kwargs):
        assert not tokenize
        out = ""
        for m in messages:
            out += "<|" + m["role"] + "|>\n" + m["content"] + "\n"
        if add_generation_prompt:
            out += "<|assistant|>\n"
            if kwargs.get("enable_thinking") is False:
                out += "<think></think>\n"
        return out


@dataclass
class Req:
    prompt: str
    prompt_len: int
    expected_output_len: int
    request_id: str


def oversample(reqs, n, seed, prefix, no_oversample):
    if no_oversample:
        return
    if len(reqs) < n:
        random.seed(seed)
        extra = [replace(random.choice(reqs), request_id=prefix + str(len(reqs) + i)) for i in range(n - len(reqs))]
        reqs.extend(extra)
    ids = [r.request_id for r in reqs]
    assert len(ids) == len(set(ids))


def custom(path, seed, n, output_len, tok, skip_chat_template=False, kwargs=None,
           disable_shuffle=False, no_oversample=False, prefix=""):
    # load_data
    df = pd.read_json(path_or_buf=path, lines=True)
    assert "prompt" in df.columns
    data = [row.to_dict() for _, row in df.iterrows()]
    return custom_sample(data, seed, n, output_len, tok, skip_chat_template, kwargs,
                         disable_shuffle, no_oversample, prefix)


def custom_sample(data, seed, n, output_len, tok, skip_chat_template=False, kwargs=None,
                  disable_shuffle=False, no_oversample=False, prefix=""):
    """The end of CustomDataset.load_data (the shuffle) and its sample,
    which SpecBench and SpeedBench inherit: data is the list of
    {"prompt": ...} (and "output_tokens") dicts load_data built."""
    random.seed(seed)
    if not disable_shuffle:
        random.shuffle(data)
    # sample
    if n <= 0:
        n = len(data)
    reqs = []
    for i, item in enumerate(data):
        if len(reqs) >= n:
            break
        prompt = item["prompt"]
        if tok is None:
            out_len = 1
        elif output_len is None or output_len == -1:
            out_len = int(item["output_tokens"])
        else:
            out_len = output_len
        if tok is None:
            plen = 1
        else:
            if not skip_chat_template:
                prompt = tok.apply_chat_template([{"role": "user", "content": prompt}],
                                                 add_generation_prompt=True, tokenize=False, **(kwargs or {}))
            plen = len(tok(prompt).input_ids)
        reqs.append(Req(prompt, plen, out_len, prefix + str(i)))
    oversample(reqs, n, seed, prefix, no_oversample)
    return reqs


def sonnet(path, seed, n, input_len, output_len, prefix_len, formatted, tok, prefix=""):
    # serve.py seeds the global random with --seed at start; SonnetDataset
    # never reseeds it.
    random.seed(seed)
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    avg = sum(len(tok(l).input_ids) for l in lines) / len(lines)
    base = "Pick as many lines as you can from these poem lines:\n"
    base_fmt = tok.apply_chat_template([{"role": "user", "content": base}], add_generation_prompt=True, tokenize=False)
    base_off = len(tok(base_fmt).input_ids)
    assert input_len > base_off
    n_in = max(round((input_len - base_off) / avg), 1)
    n_pre = max(round((prefix_len - base_off) / avg), 0)
    pre = lines[:n_pre]
    reqs, ind, tries = [], 0, 0
    while len(reqs) < n:
        tries += 1
        extra = random.choices(lines, k=n_in - n_pre)
        prompt = base + "".join(pre + extra)
        fmt = tok.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False)
        plen = len(tok(fmt).input_ids)
        if plen <= input_len:
            reqs.append(Req(fmt if formatted else prompt, plen, output_len, prefix + str(ind)))
            ind += 1
    return reqs, tries


def dump(reqs):
    return [{"id": r.request_id, "prompt": r.prompt, "prompt_len": r.prompt_len, "output_len": r.expected_output_len} for r in reqs]


def main():
    tok = WS()
    path = os.path.join(HERE, "custom", "prompts.jsonl")
    cases = []
    for c in [
        dict(name="seed0_n5", seed=0, n=5, output_len=256),
        dict(name="seed7_all_per_line_kwargs", seed=7, n=0, output_len=-1, kwargs={"enable_thinking": False}),
        dict(name="seed3_oversample_skip_template", seed=3, n=20, output_len=-1, skip_chat_template=True, prefix="r-"),
        dict(name="no_shuffle_no_oversample", seed=0, n=20, output_len=64, disable_shuffle=True, no_oversample=True),
        dict(name="negative_n_seed11", seed=11, n=-1, output_len=-1),
        dict(name="no_tokenizer", seed=1, n=4, output_len=256, tokenizer=False),
    ]:
        kw = {k: v for k, v in c.items() if k not in ("name", "tokenizer")}
        reqs = custom(path, tok=tok if c.get("tokenizer", True) else None, **kw)
        cases.append({**c, "requests": dump(reqs)})
    sonnet_path = os.path.join(HERE, "..", "sonnet.txt")
    sonnets = []
    for c in [
        dict(name="defaults_formatted", seed=0, n=4, input_len=550, output_len=150, prefix_len=200, formatted=True),
        dict(name="short_raw_seed5", seed=5, n=6, input_len=120, output_len=32, prefix_len=40, formatted=False),
        dict(name="no_prefix_seed42", seed=42, n=3, input_len=90, output_len=10, prefix_len=0, formatted=True),
        dict(name="ragged_rejections_seed1", path="sonnet/poem.txt", seed=1, n=8, input_len=60, output_len=20, prefix_len=25, formatted=True),
    ]:
        kw = {k: v for k, v in c.items() if k not in ("name", "path")}
        p = os.path.join(HERE, c["path"]) if "path" in c else sonnet_path
        reqs, tries = sonnet(p, tok=tok, **kw)
        sonnets.append({**c, "tries": tries, "requests": dump(reqs)})
    json.dump({"python": sys.version.split()[0], "pandas": pd.__version__, "custom": cases, "sonnet": sonnets},
              sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
