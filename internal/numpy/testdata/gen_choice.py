# Writes choice.json: what numpy.random.default_rng(seed) returns for an
# interleaved sequence of random(), integers(0, 256, n, dtype=uint8),
# choice(k, p=p) and integers(lo, hi) calls, the draws random-mm makes (the
# uint8 draws share 32-bit halves of 64-bit outputs with integers()).
#
# Run with Debian's python3 (python3-numpy) from the repository root:
#   python3 internal/numpy/testdata/gen_choice.py
import json
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
OPS = [
    ["integers", 0, 5], ["bytes", 7], ["random"], ["choice", [0.5, 0.3, 0.2]], ["bytes", 1],
    ["integers", 3, 9], ["bytes", 12], ["choice", [0.1, 0.0, 0.6, 0.3]], ["integers", 0, 1000],
    ["bytes", 5], ["bytes", 4], ["random"], ["choice", [1.0]], ["choice", [0.2, 0.8]], ["integers", 0, 3],
]
cases = []
for seed in [0, 42, 4294967295]:
    rng = np.random.default_rng(seed)
    out = []
    for op in OPS:
        if op[0] == "integers":
            out.append(int(rng.integers(op[1], op[2])))
        elif op[0] == "bytes":
            out.append([int(b) for b in rng.integers(0, 256, op[1], dtype=np.uint8)])
        elif op[0] == "random":
            out.append(float(rng.random()))
        else:
            keys = [(i, i + 1, 1) for i in range(len(op[1]))]  # a list of tuples, as random-mm's buckets
            row = rng.choice(keys, p=op[1])
            out.append(int(row[0]))
    cases.append({"seed": seed, "ops": OPS, "out": out})
with open(os.path.join(here, "choice.json"), "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
