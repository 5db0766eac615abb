# Golden values for internal/dataset/randommm_test.go.
#
# Writes randommm_golden.json: the requests vLLM's RandomMultiModalDataset
# .sample (vllm/benchmarks/datasets/datasets.py) gives for several
# settings, restated step by step with the same NumPy generator: the
# lengths and offsets (get_sampling_params), the prefix, then per request
# its prompt (generate_token_sequence, padding from the generator), its
# item count (integers(min, max + 1)) and per item its bucket
# (choice(buckets, p=...), a modality at its cap removed and the rest
# renormalised) and its pixels (integers(0, 256, (frames,) h, w, 3,
# dtype=uint8)), recorded as a SHA-256 of the raw bytes; and the logged
# settled sampling.
#
# The toy tokenizer is the Go test's toyTokenizer (see prefixrep_golden.py):
# vocab_size 30, special id 0 (its only added special token), one special
# token added. Buckets are tiny so the pixels are cheap.
#
# Run with Debian's python3 (python3-numpy) from the repository root:
#   python3 internal/dataset/testdata/randommm_golden.py
import hashlib
import json
import math
import os

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


def modality(cfg):
    return "image" if cfg[-1] == 1 else "video"


def normalize(bc):
    bc = {k: v for k, v in bc.items() if v > 0}
    total = sum(bc.values())
    return {k: v / total for k, v in bc.items()}


def sample(seed, n, input_len, output_len, rr, prefix_len, base, ratio, limits, buckets):
    rng = np.random.default_rng(seed)
    real = max(0, input_len - 1)
    lo, hi = math.floor(real * (1 - rr)), math.ceil(real * (1 + rr))
    olo, ohi = max(math.floor(output_len * (1 - rr)), 1), max(math.ceil(output_len * (1 + rr)), 1)
    in_lens = rng.integers(lo, hi + 1, size=n)
    out_lens = rng.integers(olo, ohi + 1, size=n)
    offsets = rng.integers(0, VOCAB, size=n)
    bc = normalize(buckets)
    allowed_mod = {modality(c) for c in bc}
    lim = {k: v for k, v in limits.items() if k in allowed_mod}
    max_items = min(sum(lim.values()), math.ceil(base * (1 + ratio)))
    min_items = max(0, math.floor(base * (1 - ratio)))
    allowed = np.array(sorted(set(range(VOCAB)) - {0}))
    prefix = []
    if prefix_len > 0:
        toks = allowed[rng.integers(0, len(allowed), size=prefix_len)].tolist()
        _, prefix, _ = fixup(rng, toks, prefix_len)
    reqs = []
    for i in range(n):
        inner = allowed[(int(offsets[i]) + i + np.arange(int(in_lens[i]))) % len(allowed)].tolist()
        prompt, adj, _ = fixup(rng, prefix + inner, prefix_len + int(in_lens[i]))
        count = int(rng.integers(min_items, max_items + 1))
        items = []
        if count > 0:
            counter = {modality(k): 0 for k in bc}
            cfgs = dict(bc)
            while sum(counter.values()) < count:
                cfg = rng.choice(list(cfgs.keys()), p=list(cfgs.values()))
                m = modality(cfg)
                if counter[m] < lim[m]:
                    counter[m] += 1
                    h, w, f = int(cfg[0]), int(cfg[1]), int(cfg[2])
                    if f == 1:
                        px = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
                    else:
                        px = rng.integers(0, 256, (f, h, w, 3), dtype=np.uint8)
                    items.append({"bucket": [h, w, f], "sha256": hashlib.sha256(px.tobytes()).hexdigest()})
                else:
                    for k in cfgs:
                        if modality(k) == m:
                            cfgs[k] = 0
                    if all(v == 0 for v in cfgs.values()):
                        break
                    cfgs = normalize(cfgs)
        reqs.append({"prompt": prompt, "prompt_len": len(adj), "output_len": int(out_lens[i]), "items": items})
    settled = {"buckets": [[k[0], k[1], k[2], v] for k, v in bc.items()], "limits": [[k, v] for k, v in lim.items()],
               "min_items": min_items, "max_items": max_items}
    return reqs, settled


CASES = [
    dict(name="images_and_video", seed=0, n=12, input_len=10, output_len=4, range_ratio=0.2, prefix_len=0, base=2, ratio=0.5,
         limits={"image": 2, "video": 1}, buckets={(2, 3, 1): 0.5, (1, 2, 2): 0.3, (3, 1, 1): 0.2, (4, 4, 1): 0.0}),
    dict(name="capped_video", seed=42, n=10, input_len=8, output_len=2, range_ratio=0.0, prefix_len=3, base=3, ratio=1.0,
         limits={"video": 1, "image": 5}, buckets={(1, 1, 3): 0.9, (2, 2, 1): 0.1}),
    dict(name="images_only", seed=7, n=8, input_len=12, output_len=3, range_ratio=0.0, prefix_len=0, base=1, ratio=0.0,
         limits={"image": 255, "video": 1}, buckets={(5, 4, 1): 1.0, (2, 2, 4): 0.0}),
]
out = []
for c in CASES:
    reqs, settled = sample(c["seed"], c["n"], c["input_len"], c["output_len"], c["range_ratio"], c["prefix_len"], c["base"],
                           c["ratio"], c["limits"], c["buckets"])
    c = dict(c)
    c["limits"] = [[k, v] for k, v in c["limits"].items()]
    c["buckets"] = [[k[0], k[1], k[2], v] for k, v in c["buckets"].items()]
    out.append(dict(c, requests=reqs, settled=settled))
with open(os.path.join(here, "randommm_golden.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
