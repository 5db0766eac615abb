#!/usr/bin/env python3
"""Writes golden.json, the reference values of the py package's tests.

Run with Debian's python3:

    /usr/bin/python3 internal/py/testdata/gen.py > internal/py/testdata/golden.json

The tests only read golden.json; they never run Python. Floats travel as
the hex of their IEEE 754 bits, so nothing is rounded on the way.
"""
import datetime
import json
import math
import random
import struct
import sys


def bits(f):
    return struct.pack(">d", f).hex()


def float_cases():
    rng = random.Random(20261202)
    fs = [0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 2.5, 865.0, 1e-4, 1e-5, 9.999e-5, 1e15, 1e16, 1e17,
          9999999999999998.0, 1.5e16, 123456789.5, 1234567.0, 1e22, 1e100, 5e-324, 2.2250738585072014e-308,
          sys.float_info.max, 1 / 3, 2 / 3, 0.125, 0.375, 2.675, 1.005, 29.42614664850979,
          math.inf, -math.inf, math.nan]
    for _ in range(300):
        fs.append(rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30))
    for _ in range(200):
        # Arbitrary bit patterns, finite ones only.
        f = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
        if math.isfinite(f):
            fs.append(f)
    out = []
    for f in fs:
        out.append({
            "bits": bits(f),
            "repr": repr(f),
            "str": str(f),
            "json": json.dumps(f),
            "fixed2": "{:.2f}".format(f),
            "fixed3": format(f, ".3f"),
        })
    return out


def string_cases():
    ss = ["", "hello world", 'a"b\\c', "it's", "it's \"quoted\"", "\n\r\t\b\f\v\x00\x01\x1f\x7f",
          "\x80\x9f\xa0\xad\xe9", "é", "’“”", "😀", "\U0010ffff", "ключ", "<&>/", "~ ", "\u2028\u2029",
          "\ufeff", "\ue000", "tab\there", "日本語", "a\u0300", "\U0001f600\U0001f3fd"]
    return [{"s": s, "dumps": json.dumps(s), "repr": repr(s)} for s in ss]


def dumps_cases():
    docs = [
        {"b": 2, "a": [1.0, 0.5, math.inf, -math.inf], "n": None, "t": True, "f": False},
        {"nested": {"k": [[], {}, [1, 2.0, "x"]]}, "big": 123456789012345678901234567890},
        [1e-05, 1e16, 0.1, -0.0, "é", {"ключ": "😀"}],
    ]
    return [{"text": json.dumps(d), "dumps": json.dumps(json.loads(json.dumps(d)))} for d in docs]


def isoformat_cases():
    out = []
    for args in [(2026, 12, 2, 17, 5, 0, 0), (2026, 12, 2, 17, 5, 0, 1), (1999, 1, 31, 0, 0, 59, 999999),
                 (2000, 2, 29, 23, 59, 59, 120000), (1, 1, 1, 0, 0, 0, 0)]:
        d = datetime.datetime(*args)
        out.append({"fields": list(args), "isoformat": d.isoformat()})
    return out


json.dump({
    "python_version": sys.version.split()[0],
    "floats": float_cases(),
    "strings": string_cases(),
    "dumps": dumps_cases(),
    "isoformat": isoformat_cases(),
}, sys.stdout, indent=0)
sys.stdout.write("\n")
