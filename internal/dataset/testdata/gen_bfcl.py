#!/usr/bin/env python3
"""Writes the BFCL fixture (testdata/bfcl/BFCL_v3_<category>.json, three
categories in BFCL's JSON-lines layout) and bfcl_golden.json, the requests
vLLM's BFCLDataset makes of it (hf_bfcl_test.go).

vLLM's Python client cannot run here (no vllm, no huggingface_hub, no
tokenizers), so this script re-states BFCLDataset's _resolve_categories,
_load_category (reading the local files), _translate_schema,
_to_openai_tools and sample() (vllm/benchmarks/datasets/datasets.py),
step for step, with CPython's own random module and the WS tokenizer of
gen_files.py, which the Go tests implement identically (wsTokenizer; its
chat template ignores tools, as it does here). Tools and tool_choice are
written as the request payload carries them: json.dumps compact, key order
kept, non-ASCII as is.

Run with Debian's python3:

    /usr/bin/python3 internal/dataset/testdata/gen_bfcl.py > internal/dataset/testdata/bfcl_golden.json

The tests only read the fixture and bfcl_golden.json; they never run Python.
"""
import json
import os
import random
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_files import WS  # noqa: E402
from gen_hf_classes import oversample  # noqa: E402

@dataclass
class Req:
    prompt: str
    prompt_len: int
    expected_output_len: int
    request_id: str
    messages: list = None
    overrides: dict = None


DEFAULT_OUTPUT_LEN = 512
DEFAULT_CATEGORIES = ("simple", "live_simple", "multiple")
TYPE_REMAP = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}


def fn(name, desc, props, required):
    return {"name": name, "description": desc,
            "parameters": {"type": "dict", "properties": props, "required": required}}


ROWS = {
    "simple": [
        {"id": "simple_0", "question": [[{"role": "user", "content": "Find the area of a triangle with base 10 and height 5."}]],
         "function": [fn("calc_area", "Area of a triangle.", {"base": {"type": "integer", "description": "The base."},
                                                              "height": {"type": "float", "description": "The height."}}, ["base", "height"])]},
        {"id": "simple_1", "question": [[{"role": "user", "content": "Wie spät ist es in Zürich?"}]],
         "function": fn("get_time", "Die Uhrzeit einer Stadt.", {"city": {"type": "string", "description": "Stadt"}}, ["city"])},
        {"id": "simple_2", "question": [[{"role": "system", "content": "You are terse."},
                                         {"role": "user", "content": "Sum the pairs (1, 2) and (3, 4)."}]],
         "function": [fn("sum_pairs", "Sums pairs.", {"pairs": {"type": "array", "items": {"type": "tuple", "items": {"type": "float"}}},
                                                      "opts": {"type": "dict", "properties": {"round": {"type": "any"}}}}, ["pairs"])]},
    ],
    "live_simple": [
        {"id": "live_simple_0", "question": [[{"role": "user", "content": "Book a table for two at 7pm."}]],
         "function": [fn("book", "Book a table.", {"people": {"type": "integer"}, "time": {"type": "string", "enum": ["7pm", "8pm"]}}, ["people"])]},
        {"id": "live_simple_1", "question": [], "function": [fn("noop", "Nothing.", {}, [])]},
        {"id": "live_simple_2", "question": [[{"role": "user", "content": "Convert 3 miles to km."}]], "function": []},
        {"id": "live_simple_3", "question": [[]], "function": [fn("noop", "Nothing.", {}, [])]},
        {"id": "live_simple_4", "question": [[{"role": "user", "content": "What's the weather like in Boston, MA?"}],
                                             [{"role": "user", "content": "And tomorrow?"}]],
         "function": [fn("weather", "Weather at a place.", {"location": {"type": "string", "description": "City, state"},
                                                            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, ["location"])]},
    ],
    "multiple": [
        {"id": "multiple_0", "question": [[{"role": "user", "content": "Get the stock price of NVDA."}]],
         "function": [fn("stock_price", "Stock price.", {"ticker": {"type": "string"}}, ["ticker"]),
                      fn("stock_news", "Stock news.", {"ticker": {"type": "string"}, "days": {"type": "integer", "default": 7}}, ["ticker"])]},
        {"id": "multiple_1", "question": [[{"role": "user", "content": "Translate 'hello' into French and Spanish."}]],
         "function": [fn("translate", "Translate text.", {"text": {"type": "string"}, "langs": {"type": "array", "items": {"type": "string"}}}, ["text", "langs"])]},
    ],
}


def resolve_categories(categories):
    if not categories:
        return list(DEFAULT_CATEGORIES)
    resolved = []
    for c in categories:
        c = c.strip()
        if not c:
            continue
        resolved.append(c)
    return resolved or list(DEFAULT_CATEGORIES)


def load_category(category):
    path = os.path.join(HERE, "bfcl", "BFCL_v3_%s.json" % category)
    if not os.path.exists(path):
        raise ValueError("BFCL category '%s' not found" % category)
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            rows.append(json.loads(line))
    return rows


def translate_schema(node):
    if isinstance(node, dict):
        translated = {k: translate_schema(v) for k, v in node.items()}
        t = translated.get("type")
        if isinstance(t, str) and t in TYPE_REMAP:
            translated["type"] = TYPE_REMAP[t]
        return translated
    if isinstance(node, list):
        return [translate_schema(v) for v in node]
    return node


def to_openai_tools(functions):
    return [{"type": "function", "function": translate_schema(f)} for f in functions]


def sample(tok, n, seed, prefix="", no_oversample=False, output_len=None, categories=None, disable_shuffle=False):
    output_len = output_len if output_len is not None else DEFAULT_OUTPUT_LEN
    categories = resolve_categories(categories)
    per = [load_category(c) for c in categories]
    interleaved = []
    max_len = max((len(rows) for rows in per), default=0)
    for i in range(max_len):
        for rows in per:
            if i < len(rows):
                interleaved.append(rows[i])
    if not disable_shuffle:
        rng = random.Random(seed)
        rng.shuffle(interleaved)
    reqs = []
    for row in interleaved:
        if len(reqs) >= n:
            break
        question = row.get("question")
        functions = row.get("function")
        if not question or not functions:
            continue
        if not isinstance(question, list) or not question:
            continue
        first_turn = question[0]
        if not isinstance(first_turn, list) or not first_turn:
            continue
        messages = first_turn
        if not isinstance(functions, list):
            functions = [functions]
        tools = to_openai_tools(functions)
        rendered = tok.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=True)
        prompt_len = len(tok(rendered).input_ids)
        prompt_text = messages[-1].get("content", "") if messages else ""
        reqs.append(Req(prompt=prompt_text, prompt_len=prompt_len, expected_output_len=output_len,
                        request_id=prefix + str(len(reqs)), messages=messages,
                        overrides={"tools": tools, "tool_choice": "auto"}))
    oversample(reqs, n, seed, prefix, no_oversample)
    return reqs


CASES = [
    dict(name="defaults", n=5, seed=0),
    dict(name="seed7_prefix", n=4, seed=7, prefix="bfcl-"),
    dict(name="no_shuffle_categories", n=6, seed=0, disable_shuffle=True, categories=["multiple", " simple ", ""]),
    dict(name="oversample_output_len", n=9, seed=3, output_len=64, categories=["live_simple"]),
    dict(name="blank_categories_default", n=2, seed=1, categories=[" ", ""]),
]


def main():
    os.makedirs(os.path.join(HERE, "bfcl"), exist_ok=True)
    for cat, rows in ROWS.items():
        with open(os.path.join(HERE, "bfcl", "BFCL_v3_%s.json" % cat), "w") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    tok = WS()
    out = {"python": sys.version.split()[0], "cases": []}
    for c in CASES:
        kw = {k: v for k, v in c.items() if k != "name"}
        reqs = sample(tok, **kw)
        case = dict(c)
        case["requests"] = [{"request_id": r.request_id, "prompt": r.prompt, "prompt_len": r.prompt_len,
                             "expected_output_len": r.expected_output_len, "messages": r.messages,
                             "overrides": json.dumps(r.overrides, separators=(",", ":"), ensure_ascii=False)}
                            for r in reqs]
        out["cases"].append(case)
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
