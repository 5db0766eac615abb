#!/usr/bin/python3
"""Writes linspace_golden.json: vLLM's serve_workload inner levels,
sorted(set(map(round, np.linspace(lo, hi, n)[1:-1]))), for each case.
Run with Debian's python3 and python3-numpy: /usr/bin/python3 gen_linspace.py
"""
import json

import numpy as np

CASES = [(1, 100, 10), (1, 10, 10), (1, 3, 10), (2, 2, 5), (5, 1000, 2), (1, 1000, 3),
         (3, 8, 4), (1, 12, 5), (1, 4, 8), (7, 93, 7), (1, 2, 3), (0, 5, 11)]
out = []
for lo, hi, n in CASES:
    out.append({"lo": lo, "hi": hi, "n": n,
                "levels": sorted(set(map(round, np.linspace(lo, hi, n)[1:-1])))})
with open("linspace_golden.json", "w") as f:
    json.dump(out, f)
    f.write("\n")
