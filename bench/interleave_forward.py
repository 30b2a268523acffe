#!/usr/bin/python3
"""Whole untraced forward (Small config, T = 256, 1 thread) against PyTorch, in interleaved rounds.

    /usr/bin/python3 bench/interleave_forward.py ROUNDS DUMP_DIR BENCH_FORWARD [BENCH_FORWARD ...]

Each round runs every given bench_forward binary once (Google Benchmark, --benchmark_min_time=1) and then
bench/pytorch_forward.py DUMP_DIR --time --threads 1 --repeat 15 once, so a noisy neighbour hits every side alike.
Prints each round, then per side the median over rounds of wall and CPU ms and the ratio to PyTorch. On a shared
machine compare CPU times. OPENBLAS_CORETYPE in the environment reaches both sides (same OpenBLAS library).
DUMP_DIR: `transformer-workbench dump --config small.json --tokens <256 ids> --out DUMP_DIR` (docs/performance.md).
"""
import json
import os
import re
import statistics
import subprocess
import sys

if len(sys.argv) < 4:
    sys.exit(__doc__)
rounds, dump, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytorch_forward.py")
res = {b: ([], []) for b in bins}
res["pytorch"] = ([], [])
for r in range(rounds):
    for b in bins:
        out = subprocess.run([b, "--benchmark_filter=BM_ForwardSmall/trace:0/threads:1", "--benchmark_min_time=1",
                              "--benchmark_format=json"], capture_output=True, text=True, check=True).stdout
        j = json.loads(out)["benchmarks"][0]
        res[b][0].append(j["real_time"])
        res[b][1].append(j["cpu_time"])
    out = subprocess.run(["/usr/bin/python3", script, dump, "--time", "--threads", "1", "--repeat", "15"],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"median ([\d.]+) ms wall.*median ([\d.]+) ms CPU", out)
    res["pytorch"][0].append(float(m.group(1)))
    res["pytorch"][1].append(float(m.group(2)))
    print(f"round {r}: " + "  ".join(f"{k} {v[0][-1]:.1f}/{v[1][-1]:.1f}" for k, v in res.items()), flush=True)
pw, pc = statistics.median(res["pytorch"][0]), statistics.median(res["pytorch"][1])
for k, (w, c) in res.items():
    mw, mc = statistics.median(w), statistics.median(c)
    print(f"{k}: median wall {mw:.2f} ms, CPU {mc:.2f} ms; ratio to PyTorch wall {mw / pw:.3f}, CPU {mc / pc:.3f} "
          f"(n={len(w)})")
