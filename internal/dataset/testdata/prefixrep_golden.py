# Golden values for internal/dataset/prefixrep_test.go.
#
# Writes prefixrep_golden.json: the requests vLLM's
# PrefixRepetitionRandomDataset.sample (vllm/benchmarks/datasets) gives for
# several settings, restated step by step: random.seed(seed) and
# np.random.seed(seed); divmod(num_requests, num_prefixes); per prefix,
# np.random.randint(0, vocab_size, size=prefix_len) fixed up by
# gen_prompt_decode_to_target_len (no rng: np.random.randint pads a short
# re-encoding), then prompts_per_prefix + (p < remainder) suffixes drawn and
# fixed up the same way; prompt = decode(prefix + suffix), prompt_len =
# len(prefix + suffix); random.shuffle unless disable_shuffle. It also
# records the next random.random() of Python's global generator, as the
# dataset leaves it.
#
# vLLM uses the model's tokenizer; without Python's tokenizers this uses a
# tokenizer whose behaviour is trivial to compute by hand, the Go test's
# toyTokenizer: ids 0-4 are the letters "a".."e", ids 5-29 every two-letter
# string over them (5 + 5a + b), vocab_size 30; decode concatenates, encode
# is greedy, two letters at a time. A decoded run of single letters
# re-encodes shorter, so the fix-ups pad from np.random and the draw order
# is exercised. Only the selection is compared.
#
# Run with Debian's python3 (python3-numpy) from the repository root:
#   python3 internal/dataset/testdata/prefixrep_golden.py
import json
import os
import random

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
LETTERS = "abcde"
VOCAB = 30


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


def fixup(seq, target, max_retry=10):
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
            seq.extend(np.random.randint(0, VOCAB, size=target - len(seq)).tolist())
        else:
            seq = seq[:target]
        remain -= 1
    return seq, mismatch


def sample(seed, n, prefix_len, suffix_len, num_prefixes, output_len, disable_shuffle):
    random.seed(seed)
    np.random.seed(seed)
    per, rem = divmod(n, num_prefixes)
    assert per > 0
    reqs, mismatch = [], 0

    def exact(target):
        nonlocal mismatch
        toks = np.random.randint(0, VOCAB, size=target).tolist()
        toks, m = fixup(toks, target)
        mismatch += m
        return toks

    for p in range(num_prefixes):
        prefix = exact(prefix_len)
        for _ in range(per + (p < rem)):
            suffix = exact(suffix_len)
            combined = prefix + suffix
            reqs.append({"prompt": decode(combined), "prompt_len": len(combined), "output_len": output_len})
    if not disable_shuffle:
        random.shuffle(reqs)
    return reqs, mismatch


CASES = [
    dict(name="default_seed0", seed=0, n=12, prefix_len=16, suffix_len=8, num_prefixes=3, output_len=128, disable_shuffle=False),
    dict(name="remainder_seed42", seed=42, n=11, prefix_len=10, suffix_len=6, num_prefixes=4, output_len=7, disable_shuffle=False),
    dict(name="no_shuffle", seed=7, n=6, prefix_len=5, suffix_len=5, num_prefixes=2, output_len=3, disable_shuffle=True),
    dict(name="no_prefix", seed=3, n=5, prefix_len=0, suffix_len=9, num_prefixes=1, output_len=1, disable_shuffle=False),
    dict(name="big_seed", seed=4294967295, n=40, prefix_len=64, suffix_len=32, num_prefixes=5, output_len=16, disable_shuffle=False),
]

out = []
for c in CASES:
    reqs, mismatch = sample(c["seed"], c["n"], c["prefix_len"], c["suffix_len"], c["num_prefixes"], c["output_len"], c["disable_shuffle"])
    # Python's global generator as the dataset leaves it: the next draw
    # (LoRA's random assignment draws from it after sampling).
    out.append(dict(c, requests=reqs, mismatch=mismatch, next_random=random.random()))

with open(os.path.join(here, "prefixrep_golden.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
