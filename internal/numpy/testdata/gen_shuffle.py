#!/usr/bin/env python3
"""Writes shuffle.json: numpy.random.Generator's shuffle and permutation.

Run with Debian's python3 and python3-numpy:

    /usr/bin/python3 internal/numpy/testdata/gen_shuffle.py > internal/numpy/testdata/shuffle.json

The tests only read shuffle.json; they never run Python.
"""
import json
import sys

import numpy as np

cases = []
for seed in [0, 1, 42, 12345]:
    for n in [0, 1, 2, 5, 17, 1000, 70000]:
        g = np.random.default_rng(seed)
        perm = [int(v) for v in g.permutation(n)]
        # A list takes the untyped path; the draws must be the same.
        lst = list(range(n))
        g2 = np.random.default_rng(seed)
        g2.shuffle(lst)
        assert lst == perm
        # What follows the shuffle: integers in a batch, then another
        # shuffle, as the datasets buffer shuffle interleaves them.
        after = [int(v) for v in g.integers(0, 1000, 5)]
        cases.append({"seed": seed, "n": n, "perm": perm if n <= 1000 else perm[:50] + perm[-50:], "after": after})
json.dump({"numpy_version": np.__version__, "cases": cases}, sys.stdout)
sys.stdout.write("\n")
