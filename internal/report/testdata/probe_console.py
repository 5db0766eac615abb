"""Prints the console block of testdata/probe-console.txt with vllm bench serve's
own format strings (vllm/benchmarks/serve.py, benchmark()): the file was written
by hand from the reference's formats, and this script checks it.

    /usr/bin/python3 probe_console.py | cmp - probe-console.txt
"""
import sys

out = []


def line(label, value, fmt="{:<10}"):
    out.append(("{:<40} " + fmt).format(label, value))


def header(text, fill):
    out.append("{s:{c}^{n}}".format(s=text, n=50, c=fill))


header(" Serving Benchmark Result ", "=")
line("Successful requests:", 40)
line("Failed requests:", 0)
line("Maximum request concurrency:", 2)
line("Benchmark duration (s):", 1.2345, "{:<10.2f}")
line("Total input tokens:", 960)
line("Total generated tokens:", 800)
line("Request throughput (req/s):", 32.4, "{:<10.2f}")
line("Output token throughput (tok/s):", 648.0, "{:<10.2f}")
line("Peak output token throughput (tok/s):", 700.0, "{:<10.2f}")
line("Peak concurrent requests:", 2, "{:<10.2f}")
line("Total token throughput (tok/s):", 1425.6, "{:<10.2f}")
header("Probe Requests", "-")
line("Probe requests completed:", 23)
line("Probe requests failed:", 1)
line("Median probe E2EL (ms):", 5.4321, "{:<10.2f}")
line("P99 probe E2EL (ms):", 12.3456, "{:<10.2f}")
line("Max probe E2EL (ms):", 123456789.125, "{:<10.2f}")
for title, name, (mean, median, p99) in [
    ("Time to First Token", "TTFT", (6.5, 6.25, 9.875)),
    ("Time per Output Token (excl. 1st token)", "TPOT", (2.0, 2.0, 2.5)),
    ("Inter-token Latency", "ITL", (2.0, 1.995, 3.0)),
]:
    header(title, "-")
    line(f"Mean {name} (ms):", mean, "{:<10.2f}")
    line(f"Median {name} (ms):", median, "{:<10.2f}")
    line(f"P99 {name} (ms):", p99, "{:<10.2f}")
out.append("=" * 50)
sys.stdout.write("\n".join(out) + "\n")
