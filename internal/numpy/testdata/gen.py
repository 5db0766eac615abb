#!/usr/bin/env python3
"""Writes golden.json, the reference values of the numpy package's tests.

Run with Debian's python3 and python3-numpy (NumPy 1.24):

    /usr/bin/python3 internal/numpy/testdata/gen.py > internal/numpy/testdata/golden.json

The tests only read golden.json; they never run Python.
"""
import json
import random
import sys

import numpy as np


def floats(a):
    return [float(v) for v in a]


def stats_cases():
    rng = np.random.default_rng(20261202)
    cases = []
    for n in [1, 2, 3, 7, 8, 9, 16, 17, 127, 128, 129, 136, 257, 1000, 1001]:
        # Latency-like values with a heavy tail, and a wide-range variant
        # that makes summation order visible in the last bits.
        for kind in ["latency", "wide"]:
            if kind == "latency":
                x = 0.02 + 0.005 * rng.standard_exponential(n)
            else:
                x = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 12, n)
            ps = [0, 1, 25, 50, 90, 94.6, 99, 99.9, 100]
            cases.append({
                "name": f"{kind} n={n}",
                "x": floats(x),
                "sum": float(np.add.reduce(x)),
                "mean": float(np.mean(x)),
                "std0": float(np.std(x)),
                "std1": float(np.std(x, ddof=1)) if n > 1 else None,
                "var1": float(np.var(x, ddof=1)) if n > 1 else None,
                "median": float(np.median(x)),
                "percentiles": [[p, float(np.percentile(x, p))] for p in ps],
            })
    return cases


def pcg64_cases():
    cases = []
    for seed in [0, 1, 42, 12345, 2**32 + 7, 2**63 - 1]:
        g = np.random.default_rng(seed)
        raw = [int(v) for v in np.random.PCG64(seed).random_raw(5)]
        ints = []
        for low, high, size in [(0, 10, 7), (0, 199998, 5), (-5, 5, 3), (100, 101, 2), (0, 2**32, 3), (0, 2**40, 3), (10, 1000, 1)]:
            ints.append({"low": low, "high": high, "values": [int(v) for v in g.integers(low, high, size)]})
        cases.append({"seed": seed, "raw": raw, "integers": ints})
    return cases


def mt_cases():
    out = {"legacy": [], "python": []}
    for seed in [0, 1, 42, 2**32 - 1]:
        np.random.seed(seed)
        raw = [int(v) for v in np.random.randint(0, 2**32, 3, dtype=np.uint64)]
        np.random.seed(seed)
        rand = floats(np.random.random_sample(4))
        randn = floats(np.random.standard_normal(5))
        gammas = []
        for shape in [0.3, 1.0, 2.5]:
            np.random.seed(seed)
            g = floats(np.random.gamma(shape, 3.0, 50))
            after = float(np.random.random_sample())
            gammas.append({"shape": shape, "scale": 3.0, "values": g, "next_random": after})
        out["legacy"].append({"seed": seed, "raw32": raw, "random": rand, "standard_normal": randn, "gamma": gammas})
    for seed in [0, 1, 42, 2**32 - 1, 2**32, 2**64 - 1]:
        r = random.Random(seed)
        bits = [r.getrandbits(32) for _ in range(3)]
        r = random.Random(seed)
        out["python"].append({"seed": seed, "getrandbits32": bits, "random": [r.random() for _ in range(4)]})
    return out


json.dump({
    "numpy_version": np.__version__,
    "python_version": sys.version.split()[0],
    "stats": stats_cases(),
    "pcg64": pcg64_cases(),
    "mt19937": mt_cases(),
}, sys.stdout)
sys.stdout.write("\n")
