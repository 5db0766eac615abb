#!/usr/bin/env python3
"""Writes pychoice.json, the reference values of pychoice_test.go.

Run with Debian's python3 (CPython 3.11):

    /usr/bin/python3 internal/numpy/testdata/pychoice_gen.py > internal/numpy/testdata/pychoice.json

For each seed, random.seed(seed) and then random.choice over range(n) (which
is range(n)[_randbelow(n)], i.e. the drawn index) 40 times per n, the
n in turn on one generator; and the round-robin-free LoRA case vLLM's
--lora-assignment random draws: random.choice(names) per request. The tests
only read pychoice.json; they never run Python.
"""
import json
import random
import sys

SEEDS = [0, 1, 42, 12345, 2**32 - 1, 2**32 + 5]
NS = [1, 2, 3, 4, 5, 7, 8, 10, 33, 1000, 2**31 + 11, 2**32, 2**33 + 1, 2**62 + 3]

cases = []
for seed in SEEDS:
    random.seed(seed)
    draws = []
    for n in NS:
        draws.append({"n": str(n), "values": [str(random.choice(range(n))) for _ in range(40)]})
    cases.append({"seed": seed, "draws": draws})

lora = []
for seed in [0, 7]:
    random.seed(seed)
    names = ["sql-lora", "chat-lora", "code-lora"]
    lora.append({"seed": seed, "modules": names, "chosen": [random.choice(names) for _ in range(50)]})

json.dump({"python": sys.version.split()[0], "cases": cases, "lora": lora}, sys.stdout)
sys.stdout.write("\n")
