#!/usr/bin/env python3
"""Writes hf_shuffle_golden.json: the row order vLLM's HuggingFaceDataset
leaves a split in after load_data's shuffle(seed) (hf_test.go).

The datasets library is not installed here, so this script re-states its
shuffles (datasets 5.0.1, src/datasets/arrow_dataset.py Dataset.shuffle,
src/datasets/iterable_dataset.py IterableDataset.shuffle with
BufferShuffledExamplesIterable and CyclingMultiSourcesExamplesIterable,
src/datasets/utils/sharding.py _shuffle_gen_kwargs) step for step with
NumPy's own Generator:

- not streaming: np.random.default_rng(seed).permutation(len(rows)) over
  the rows of all the files, in file order;
- streaming: a copy of default_rng(seed) shuffles the list of file
  indices; min(files, 10) contiguous groups of the shuffled files feed a
  1000-row buffer one row each in turn; another copy of default_rng(seed)
  picks the buffer slot of each yielded row with integers(0, 1000) drawn
  1000 at a time, and shuffles what is left in the buffer at the end.

Rows are named "file:row". Run with Debian's python3 and python3-numpy:

    /usr/bin/python3 internal/dataset/testdata/gen_hf_shuffle.py > internal/dataset/testdata/hf_shuffle_golden.json

The tests only read hf_shuffle_golden.json; they never run Python.
"""
import copy
import json
import sys

import numpy as np


def rows_of(sizes, files):
    return [f"{f}:{r}" for f in files for r in range(sizes[f])]


def non_streaming(sizes, seed):
    rows = rows_of(sizes, range(len(sizes)))
    perm = np.random.default_rng(seed).permutation(len(rows))
    return [rows[i] for i in perm]


def streaming(sizes, seed, buffer_size=1000, max_shards=10):
    generator = np.random.default_rng(seed)
    # _shuffle_gen_kwargs(deepcopy(generator), ...): one shuffle per list size
    shard_rng = copy.deepcopy(generator)
    idx = list(range(len(sizes)))
    shard_rng.shuffle(idx)
    n = len(idx)
    k = min(n, max_shards)
    groups = []
    for g in range(k):
        div, mod = n // k, n % k
        start = div * g + min(g, mod)
        end = start + div + (1 if g < mod else 0)
        groups.append(iter(rows_of(sizes, idx[start:end])))
    # CyclingMultiSourcesExamplesIterable, all_exhausted_without_replacement
    src = []
    done = [False] * k
    g = 0
    while not all(done):
        if not done[g]:
            x = next(groups[g], None)
            if x is None:
                done[g] = True
            else:
                src.append(x)
        g = (g + 1) % k
    # BufferShuffledExamplesIterable
    rng = copy.deepcopy(generator)

    def indices():
        while True:
            yield from (int(i) for i in rng.integers(0, buffer_size, size=1000))

    it = indices()
    out, buf = [], []
    for x in src:
        if len(buf) == buffer_size:
            i = next(it)
            out.append(buf[i])
            buf[i] = x
        else:
            buf.append(x)
    rng.shuffle(buf)
    out.extend(buf)
    return out


cases = []
for sizes in [[5], [2500], [300, 1200, 50, 700], [1, 40, 1100], [30 * (i % 4) + 7 for i in range(13)]]:
    for seed in [0, 42]:
        cases.append({
            "sizes": sizes,
            "seed": seed,
            "no_stream": non_streaming(sizes, seed),
            "stream": streaming(sizes, seed),
        })
json.dump({"numpy_version": np.__version__, "cases": cases}, sys.stdout)
sys.stdout.write("\n")
