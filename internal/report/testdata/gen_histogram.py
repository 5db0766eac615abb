#!/usr/bin/env python3
"""Writes histogram_golden.json: numpy.histogram(x, bins) of a few length
lists (what matplotlib's hist counts in vLLM's --plot-dataset-stats
figure), for report.NewHistogram (datasetstats_test.go).

Run with Debian's python3 and python3-numpy:

    /usr/bin/python3 internal/report/testdata/gen_histogram.py > internal/report/testdata/histogram_golden.json

The tests only read histogram_golden.json; they never run Python.
"""
import json
import sys

import numpy as np

CASES = {
    "lengths": [5, 17, 17, 230, 4096, 12, 999, 1000, 1001, 64, 64, 64, 3000],
    "all_equal": [256, 256, 256],
    "one": [7],
    "two": [0, 1],
    "edges": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30],
    "tenths": [round(0.1 * i, 10) for i in range(0, 61)],
    "thirds": [1 / 3 * i for i in range(0, 91)],
    "large": [10**9 + i * 7 for i in range(50)],
}


def main():
    out = []
    for name, x in CASES.items():
        for bins in (30, 40, 7):
            counts, edges = np.histogram(np.asarray(x, dtype=float), bins=bins)
            out.append({"name": name, "bins": bins, "x": x, "counts": counts.tolist(),
                        "lo": float(edges[0]), "hi": float(edges[-1])})
    json.dump({"numpy": np.__version__, "cases": out}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
