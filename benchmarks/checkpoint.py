"""Checkpointed loops (`compiler/ad/checkpoint.py`): peak memory and time of the gradient of a
W2-like loop (the undamped Euler oscillator, a run-time step count) from 1e4 to 1e8 steps,
with the unbounded tape (`checkpoint=False`, 16 B per step) and with a 64 MB budget. Each
cell runs in a fresh process (Linux): the peak memory is the growth of its peak resident set
(`VmHWM`, reset first) over the resident set before the gradient call, after a warm-up call
has compiled the code; the time is the best of a few calls (one above 1e6 steps).
`python -m benchmarks.checkpoint` prints this table alone."""

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
import json, sys
from adlite.compiler import grad
from benchmarks.checkpoint import peak
from benchmarks.tape import w2_steps
n, policy, repeat = int(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
g = grad(w2_steps, wrt=(0, 1), checkpoint=policy)
g(1.3, 0.0, 10)
print(json.dumps(peak(lambda: g(1.3, 0.0, n), repeat)))
"""


def _status(key: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))


def peak(run, repeat: int = 1) -> tuple[float, float, object]:
    """(best time in seconds, growth of the peak resident set over the resident set before
    the first call in MiB, result) of `repeat` calls of `run` (Linux: the peak is reset
    through /proc/self/clear_refs, so earlier peaks, compilation's, do not hide it)."""
    import time

    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status("VmRSS")
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, (_status("VmHWM") - before) / 1024, result


def measure(n: int, policy, repeat: int = 1) -> tuple[float, float, object]:
    """`peak` of the W2 gradient of `n` steps with `checkpoint=policy`, in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ADLITE_OPT": "full"}  # timed: O3 code
    out = subprocess.run([sys.executable, "-c", CELL, str(n), json.dumps(policy), str(repeat)],
                         cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout
    return tuple(json.loads(out))


def checkpoint_table(best_time=None, fmt=None) -> None:
    """Print the table (the arguments are those of the other tables, unused: each cell is
    timed in its own process)."""
    print(f"## Checkpointed loops: W2-like gradient, unbounded tape vs checkpoint={BUDGET!r}\n")
    print("| steps | unbounded (ms) | unbounded peak (MiB) | checkpointed (ms) | "
          "checkpointed peak (MiB) | time ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in STEPS:
        repeat = 3 if n <= 1_000_000 else 1
        t_off, m_off, _ = measure(n, False, repeat)
        t_on, m_on, _ = measure(n, BUDGET, repeat)
        print(f"| {n:.0e} | {t_off * 1e3:,.1f} | {m_off:.1f} | {t_on * 1e3:,.1f} | {m_on:.1f} | "
              f"{t_on / t_off:.2f} |")
    print()


if __name__ == "__main__":
    checkpoint_table()
