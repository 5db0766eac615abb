#!/usr/bin/python3
"""Writes shlex_golden.json: CPython's shlex.split of each line (vLLM's
sweep splits --serve-cmd, --bench-cmd and --after-bench-cmd with it), or
its error. Run with Debian's python3: /usr/bin/python3 gen_shlex.py
"""
import json
import shlex

LINES = [
    "vllm serve meta-llama/Llama-2-7b-chat-hf",
    "vllm bench serve --model m --backend vllm --endpoint /v1/completions",
    "  leading   and\ttabs  ",
    "a 'single quoted $x \\n' b",
    'a "double \\"quoted\\" \\\\ \\$x \\n" b',
    "a\\ b c\\'d",
    "--extra-body '{\"a\": 1}' --x=\"y z\"",
    "joined'quoted'\"parts\"",
    "empty '' \"\" end",
    "a | b; c & d",
    "# not a comment",
    "",
    "unclosed 'quote",
    'unclosed "double',
    "trailing backslash\\",
]

out = []
for line in LINES:
    try:
        out.append({"line": line, "words": shlex.split(line)})
    except ValueError as e:
        out.append({"line": line, "error": str(e)})
with open("shlex_golden.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
