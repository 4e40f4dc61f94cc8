"""`python -m benchmarks`: adlite against the peers installed here, measured in the same run.

Prints, per workload, the primal and gradient times (best of several repeats), the
gradient/primal ratio, the first-call latency (compilation included, measured in a fresh
process with the compiled-code cache disabled) and each peer's gradient time relative to
adlite's. Peers that are not installed are listed as such; nothing here asserts a timing.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
import timeit

from .peers import PEERS
from .workloads import w2_oscillator, w4_while

ARGS = {"W2": (1.3, 0.2), "W4": (0.7,)}
DESCRIPTIONS = {"W2": "1000-step Euler oscillator, d/d(k, c)",
                "W4": "while loop, data-dependent trip count, d/dp"}


def best_time(fn, args, budget: float = 0.4) -> float:
    fn(*args)
    start = time.perf_counter()
    fn(*args)
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(budget / 5 / once))
    return min(timeit.repeat(lambda: fn(*args), number=number, repeat=5)) / number


def first_call_ms(workload: str, function: str) -> float:
    args = ARGS[workload]
    code = (
        "import time\n"
        "from adlite.compiler import grad\n"
        f"from benchmarks.workloads import {function}\n"
        "start = time.perf_counter()\n"
        f"grad({function}, wrt=tuple(range({len(args)})))(*{args!r})\n"
        "print((time.perf_counter() - start) * 1e3)\n")
    env = {**os.environ, "ADLITE_CACHE_DIR": "off"}
    runs = [float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, check=True).stdout) for _ in range(3)]
    return min(runs)


def adlite_entries():
    from adlite.compiler import grad, jit

    out = {}
    for name, fn, function in (("W2", w2_oscillator, "w2_oscillator"),
                               ("W4", w4_while, "w4_while")):
        wrt = tuple(range(len(ARGS[name])))
        out[name] = (jit(fn), grad(fn, wrt=wrt), first_call_ms(name, function))
    return out


def fmt(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds * 1e6:,.1f}"


def main() -> None:
    print(f"# adlite benchmarks ({platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, {os.cpu_count()} cores)\n")
    ours = adlite_entries()
    peers = {}
    for peer, make in PEERS.items():
        try:
            peers[peer] = make()
        except ImportError:
            peers[peer] = None
    for workload in ("W2", "W4"):
        args = ARGS[workload]
        primal, gradient, first = ours[workload]
        tp, tg = best_time(primal, args), best_time(gradient, args)
        print(f"## {workload}: {DESCRIPTIONS[workload]}\n")
        print("| tool | primal (us) | gradient (us) | gradient/primal | first gradient call "
              "(ms) | gradient time vs adlite |")
        print("|---|---:|---:|---:|---:|---:|")
        print(f"| adlite (LLVM) | {fmt(tp)} | {fmt(tg)} | {tg / tp:.2f} | {first:.0f} | 1.00 |")
        for peer, entries in peers.items():
            if entries is None:
                print(f"| {peer} | not installed | | | | |")
                continue
            p_fn, g_fn = entries[workload]
            p_time = best_time(p_fn, args) if p_fn else None
            g_time = best_time(g_fn, args) if g_fn else None
            ratio = f"{g_time / p_time:.2f}" if p_time and g_time else "n/a"
            vs = f"{g_time / tg:.2f}" if g_time else "n/a"
            print(f"| {peer} | {fmt(p_time)} | {fmt(g_time)} | {ratio} | | {vs} |")
        print()
    print("JAX's W4 gradient runs in eager mode: reverse-mode differentiation of "
          "`lax.while_loop` is not supported by JAX.")


if __name__ == "__main__":
    main()
