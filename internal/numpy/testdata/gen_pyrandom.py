#!/usr/bin/env python3
"""Writes pyrandom.json, the reference values of pyrandom_test.go and
randomstate_test.go: CPython's random module and NumPy's legacy
RandomState (and pandas' DataFrame.sample, which is RandomState.choice).

Run with Debian's python3, python3-numpy and python3-pandas:

    /usr/bin/python3 internal/numpy/testdata/gen_pyrandom.py > internal/numpy/testdata/pyrandom.json

The tests only read pyrandom.json; they never run Python.
"""
import json
import random
import sys

import numpy as np
import pandas as pd

SEEDS = [0, 1, 42, 12345, -7, 2**32 + 5, 2**63 - 1]


def cpython():
    out = []
    for seed in SEEDS:
        c = {"seed": seed}
        r = random.Random(seed)
        c["getrandbits"] = [[k, r.getrandbits(k)] for k in [1, 5, 31, 32, 33, 48, 63, 64, 17]]
        r = random.Random(seed)
        c["random"] = [r.random() for _ in range(5)]
        r = random.Random(seed)
        c["randbelow"] = [[n, r._randbelow(n)] for n in [1, 2, 3, 7, 10, 100, 1000, 2**31, 2**31 + 1, 2**40 + 3, 5]]
        r = random.Random(seed)
        c["randint"] = [r.randint(1, 8) for _ in range(10)]
        r = random.Random(seed)
        xs = list(range(20))
        r.shuffle(xs)
        c["shuffle20"] = xs
        xs = list(range(1000))
        r.shuffle(xs)
        c["shuffle1000_then_head"] = xs[:10]
        c["choice_after"] = [r.choice(range(37)) for _ in range(10)]
        r = random.Random(seed)
        c["choices"] = r.choices(range(13), k=12)
        r = random.Random(seed)
        w = [0.5, 2.0, 0.0, 1.25, 3.0]
        c["weights"] = w
        c["choices_weighted"] = r.choices(range(5), weights=w, k=12)
        r = random.Random(seed)
        c["sample"] = [[n, k, r.sample(range(n), k)] for n, k in [(10, 3), (10, 10), (30, 6), (100, 5), (100, 20), (1000, 50)]]
        out.append(c)
    return out


def legacy():
    out = []
    for seed in [0, 1, 42, 2**32 - 1]:
        c = {"seed": seed}
        rs = np.random.RandomState(seed)
        c["randint"] = [[lo, hi, [int(v) for v in rs.randint(lo, hi, 8)]] for lo, hi in [(0, 10), (-5, 5), (0, 2**32), (0, 2**32 + 1), (3, 4), (0, 2**40), (0, 1000)]]
        rs = np.random.RandomState(seed)
        c["permutation"] = [[n, [int(v) for v in rs.permutation(n)]] for n in [1, 2, 10, 33]]
        rs = np.random.RandomState(seed)
        p = [0.1, 0.2, 0.0, 0.3, 0.4]
        c["p"] = p
        c["choice"] = [
            [20, 8, True, None, [int(v) for v in rs.choice(20, 8, replace=True)]],
            [20, 8, False, None, [int(v) for v in rs.choice(20, 8, replace=False)]],
            [5, 8, True, p, [int(v) for v in rs.choice(5, 8, replace=True, p=p)]],
            [5, 4, False, p, [int(v) for v in rs.choice(5, 4, replace=False, p=p)]],
        ]
        df = pd.DataFrame({"i": list(range(25))})
        c["pandas_sample"] = [
            [25, 10, False, [int(v) for v in df.sample(n=10, random_state=seed)["i"]]],
            [25, 40, True, [int(v) for v in df.sample(n=40, random_state=seed, replace=True)["i"]]],
        ]
        out.append(c)
    return out


json.dump({"python": sys.version.split()[0], "numpy": np.__version__, "pandas": pd.__version__,
           "cpython": cpython(), "legacy": legacy()}, sys.stdout, indent=1)
sys.stdout.write("\n")
