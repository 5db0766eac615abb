#!/usr/bin/python3
"""Writes pandas_golden.json: for each case, the records (JSON text), the
CSV pandas writes for pd.DataFrame.from_records(records).to_csv() (what
vLLM's sweep does for summary.csv), and json.dumps(records, indent=4).

Run with Debian's python3 and python3-pandas: /usr/bin/python3 gen_pandas.py
"""
import io
import json

import pandas as pd

CASES = {
    "sweep runs": [
        {"date": "20261204-140000", "endpoint_type": "openai", "label": None, "model_id": "m",
         "num_prompts": 8, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": None,
         "duration": 1.2345678901, "completed": 8, "failed": 0, "request_goodput": None,
         "ttfts": [0.1, 0.2, 0.30000000000000004], "errors": ["", ""],
         "run_number": 0, "_benchmark_name": "a", "max_num_seqs": 32, "enforce_eager": True},
        {"date": "20261204-140010", "endpoint_type": "openai", "label": None, "model_id": "m",
         "num_prompts": 8, "request_rate": 5.0, "burstiness": 1.0, "max_concurrency": 4,
         "duration": 2.0, "completed": 7, "failed": 1, "request_goodput": None,
         "ttfts": [], "errors": ["", "Bad, \"quoted\"\nline"],
         "run_number": 1, "_benchmark_name": "b", "max_num_seqs": 64, "enforce_eager": False,
         "compilation_config": {"mode": 3, "cudagraph": [1, 2], "name": "it's"}},
    ],
    "dtypes": [
        {"i": 1, "f": 0.1, "mixed": 1, "b": True, "bm": True, "s": "x", "none": None, "big": 123456789012345678, "tiny": 1e-05},
        {"i": 2, "f": 1e16, "mixed": 2.5, "b": False, "s": "a,b", "none": None, "big": -3, "tiny": -0.0},
        {"i": 3, "f": 123456789.123, "mixed": None, "b": True, "bm": False, "s": "ünïcode €", "none": None, "big": 0, "tiny": 1.5e300, "late": "only here"},
    ],
}

out = []
for name, records in CASES.items():
    text = json.dumps(records)
    buf = io.StringIO()
    pd.DataFrame.from_records(json.loads(text)).to_csv(buf)
    out.append({"name": name, "records": text, "csv": buf.getvalue(),
                "indent4": json.dumps(json.loads(text), indent=4)})

with open("pandas_golden.json", "w") as f:
    json.dump({"pandas": pd.__version__, "cases": out}, f, indent=1)
    f.write("\n")
