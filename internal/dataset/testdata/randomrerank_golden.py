# Golden values for internal/dataset/randomrerank_test.go.
#
# Writes randomrerank_golden.json: the requests vLLM's
# RandomDatasetForReranking.sample (vllm/benchmarks/datasets/datasets.py,
# with get_sampling_params from vllm/benchmarks/datasets/utils.py) gives for
# several settings, restated step by step: rng = np.random.default_rng(seed);
# the query's length, output length and offset drawn for one request from
# query_len_param = input_len // 2 - 1 (input_len without --no-reranker);
# then the documents' for num_requests (num_requests - 1 without a
# reranker) from input_len - query_len - 1 (input_len); each length interval
# takes the tokenizer's special tokens off first; allowed = the vocabulary
# without the special ids; the query (index 0) and document i (index i + 1)
# are allowed[(offset + index + k) % len(allowed)] for k < length, fixed up
# by gen_prompt_decode_to_target_len with rng; batches of batch_size
# documents (one less without a reranker) become [query] + documents, with
# prompt_len = (query_len + 1) * len(batch) + their lengths (query_len +
# their lengths without a reranker).
#
# The toy tokenizer is the Go test's toyTokenizer (see prefixrep_golden.py):
# vocab_size 30, special id 0, num_special_tokens_to_add 1.
#
# Run with Debian's python3 (python3-numpy) from the repository root:
#   python3 internal/dataset/testdata/randomrerank_golden.py
import json
import math
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
LETTERS = "abcde"
VOCAB = 30
SPECIAL = [0]
NUM_SPECIAL = 1


def decode(ids):
    out = []
    for i in ids:
        if i < 5:
            out.append(LETTERS[i])
        else:
            j = i - 5
            out.append(LETTERS[j // 5] + LETTERS[j % 5])
    return "".join(out)


def encode(text):
    ids, i = [], 0
    while i < len(text):
        a = LETTERS.index(text[i])
        if i + 1 < len(text):
            b = LETTERS.index(text[i + 1])
            ids.append(5 + 5 * a + b)
            i += 2
            continue
        ids.append(a)
        i += 1
    return ids


def fixup(rng, seq, target, max_retry=10):
    remain, mismatch = max_retry, 0
    while True:
        prompt = decode(seq)
        seq = encode(prompt)
        if remain <= 0:
            if len(seq) != target:
                mismatch = len(seq) - target
            break
        if len(seq) == target:
            break
        elif len(seq) < target:
            seq.extend(rng.integers(0, VOCAB, size=target - len(seq)).tolist())
        else:
            seq = seq[:target]
        remain -= 1
    return prompt, seq, mismatch


def sampling_params(rng, n, rr, input_len, output_len):
    real = max(0, int(input_len) - NUM_SPECIAL)
    lo, hi = math.floor(real * (1 - rr)), math.ceil(real * (1 + rr))
    olo = max(math.floor(output_len * (1 - rr)), 1)
    ohi = max(math.ceil(output_len * (1 + rr)), 1)
    info = [lo, hi, olo, ohi]
    return rng.integers(lo, hi + 1, size=n), rng.integers(olo, ohi + 1, size=n), rng.integers(0, VOCAB, size=n), info


def sample(seed, n, input_len, rr, batchsize, reranker):
    rng = np.random.default_rng(seed)
    sep = int(reranker)
    qparam = (input_len // 2) - sep if reranker else input_len
    qlens, _, qoffs, qinfo = sampling_params(rng, 1, rr, qparam, 0)
    qlen = int(qlens[0])
    if not reranker:
        assert n > 1 and batchsize > 1
        n -= 1
        batchsize -= 1
        dparam = input_len
    else:
        dparam = input_len - qlen - sep
    dlens, _, doffs, dinfo = sampling_params(rng, n, rr, dparam, 0)
    allowed = np.array(sorted(set(range(VOCAB)) - set(SPECIAL)))

    def gen(length, offset, index):
        seq = allowed[(offset + index + np.arange(length)) % len(allowed)].tolist()
        prompt, adj, m = fixup(rng, seq, length)
        return prompt, len(adj), m

    qprompt, qin, mismatch = gen(qlen, int(qoffs[0]), 0)
    docs = []
    for i in range(n):
        p, l, m = gen(int(dlens[i]), int(doffs[i]), i + 1)
        mismatch += m
        docs.append((p, l))
    reqs = []
    for i in range(0, n, batchsize):
        batch = docs[i:i + batchsize]
        q = (qin + sep) * len(batch) if reranker else qin
        reqs.append({"prompts": [qprompt] + [d[0] for d in batch], "prompt_len": q + sum(d[1] for d in batch),
                     "id": "p-" + str(i // batchsize)})
    return reqs, mismatch, qinfo, dinfo


CASES = [
    dict(name="default_seed0", seed=0, n=10, input_len=24, range_ratio=0.0, batch_size=1, reranker=True),
    dict(name="batched_ratio", seed=42, n=11, input_len=40, range_ratio=0.3, batch_size=4, reranker=True),
    dict(name="no_reranker", seed=7, n=9, input_len=16, range_ratio=0.2, batch_size=3, reranker=False),
    dict(name="big_seed", seed=4294967295, n=25, input_len=64, range_ratio=0.5, batch_size=8, reranker=True),
]

out = []
for c in CASES:
    reqs, mismatch, qinfo, dinfo = sample(c["seed"], c["n"], c["input_len"], c["range_ratio"], c["batch_size"], c["reranker"])
    out.append(dict(c, requests=reqs, mismatch=mismatch, query_interval=qinfo, doc_interval=dinfo))

with open(os.path.join(here, "randomrerank_golden.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
