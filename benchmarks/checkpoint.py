"""Checkpointed loops (`compiler/ad/checkpoint.py`): peak memory and time of the gradient of a
W2-like loop (the undamped Euler oscillator, a run-time step count) from 1e4 to 1e8 steps,
with the unbounded tape (`checkpoint=False`, 16 B per step) and with a 64 MB budget. Each
cell runs in a fresh process: the peak memory is the growth of its peak resident set
(`ru_maxrss`) over the gradient call, after a warm-up call has compiled the code; the time
is the best of a few calls (one above 1e6 steps). `python -m benchmarks.checkpoint` prints
this table alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

STEPS = (10_000, 100_000, 1_000_000, 10_000_000, 100_000_000)
BUDGET = "64MB"
ROOT = Path(__file__).resolve().parent.parent
CELL = """
import json, resource, sys, time
from adlite.compiler import grad
from benchmarks.tape import w2_steps
n, policy = int(sys.argv[1]), json.loads(sys.argv[2])
g = grad(w2_steps, wrt=(0, 1), checkpoint=policy)
g(1.3, 0.0, 10)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
best = float("inf")
for _ in range(3 if n <= 1_000_000 else 1):
    start = time.perf_counter()
    g(1.3, 0.0, n)
    best = min(best, time.perf_counter() - start)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps([best, grown / 1024]))
"""


def measure(n: int, policy) -> tuple[float, float]:
    """(seconds, peak memory growth in MiB) of one W2 gradient of `n` steps."""
    out = subprocess.run([sys.executable, "-c", CELL, str(n), json.dumps(policy)], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                         text=True, check=True).stdout
    seconds, mib = json.loads(out)
    return seconds, mib


def checkpoint_table(best_time=None, fmt=None) -> None:
    """Print the table (the arguments are those of the other tables, unused: each cell is
    timed in its own process)."""
    print(f"## Checkpointed loops: W2-like gradient, unbounded tape vs checkpoint={BUDGET!r}\n")
    print("| steps | unbounded (ms) | unbounded peak (MiB) | checkpointed (ms) | "
          "checkpointed peak (MiB) | time ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in STEPS:
        t_off, m_off = measure(n, False)
        t_on, m_on = measure(n, BUDGET)
        print(f"| {n:.0e} | {t_off * 1e3:,.1f} | {m_off:.1f} | {t_on * 1e3:,.1f} | {m_on:.1f} | "
              f"{t_on / t_off:.2f} |")
    print()


if __name__ == "__main__":
    checkpoint_table()
