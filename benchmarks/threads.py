"""Thread scaling (issue 12 item 1): W1 (Rosenbrock) gradient at n = 1e7 and W3 (MLP) gradient
at batch 4096 with 1, 2 and all cores (`threads.set_num_threads`; matrix products use the
BLAS's own threads throughout), with JAX and PyTorch where installed; then the W1 gradient at
n = 1e5..1e8 against the memory-bandwidth bound: the bytes a one-pass gradient must move (read
x, write the gradient: 16 n) divided by a measured copy bandwidth (numpy copying a 512 MiB
array, one thread, bytes read + written per second). Rows for 1, 2, all cores are measured
back to back, interleaved over the repeats, and report wall time (best) and process CPU time
per call. Sizes that do not fit in half the available memory are skipped. Nothing here asserts
a timing. `python -m benchmarks.threads` prints these tables alone."""

from __future__ import annotations

import os
import time

import numpy as np

from adlite.compiler import wait_optimised

from .array_peers import ARRAY_PEERS
from .workloads import w1_rosenbrock, w3_mlp

REPEATS = 7


def all_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def available_bytes() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 8 << 30


def w3_batch_args(batch: int):
    rng = np.random.default_rng(0)
    y = np.zeros((batch, 10))
    y[np.arange(batch), rng.integers(0, 10, batch)] = 1.0
    return (rng.standard_normal((784, 128)) * 0.05, np.zeros(128),
            rng.standard_normal((128, 10)) * 0.1, np.zeros(10),
            rng.standard_normal((batch, 784)), y)


def _timed(fn, args) -> tuple[float, float]:
    """(wall, CPU) seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


def interleaved(fn, args, counts) -> dict:
    """{thread count: (best wall, CPU of that call)}, the counts taking turns per repeat."""
    from adlite.compiler.backends.llvm import threads

    best: dict = {}
    for n in counts:  # warm up (compilation, pool start, page faults)
        threads.set_num_threads(n)
        fn(*args)
    wait_optimised()  # time the optimised tier
    for _ in range(REPEATS):
        for n in counts:
            threads.set_num_threads(n)
            t = _timed(fn, args)
            if n not in best or t[0] < best[n][0]:
                best[n] = t
    return best


def peer_gradients(name: str, args) -> dict:
    """{peer: best wall seconds} of the installed JAX and PyTorch gradients (all cores)."""
    out = {}
    for peer in ("JAX", "PyTorch (eager)"):
        try:
            entries = ARRAY_PEERS[peer]()
        except ImportError:
            continue
        g = entries[name][1]
        g(*args)
        out[peer] = min(_timed(g, args)[0] for _ in range(REPEATS))
    return out


def scaling_table() -> None:
    from adlite.compiler import grad
    from adlite.compiler.backends.llvm import threads

    cores = all_cores()
    counts = sorted({1, 2, cores})
    before = threads.num_threads()
    print(f"## Thread scaling ({cores} cores here; ADLITE_NUM_THREADS="
          f"{os.environ.get('ADLITE_NUM_THREADS', 'unset')}; BLAS threads unchanged)\n")
    head = " | ".join(f"{n} thread{'s' if n > 1 else ''}: wall / CPU (ms)" for n in counts)
    print(f"| gradient | {head} | speedup {counts[-1]} vs 1 | peers, all cores (ms) |")
    print("|---|" + "---:|" * (len(counts) + 2))
    cases = (("W1", "Rosenbrock, n = 1e7", grad(w1_rosenbrock),
              (np.random.default_rng(0).uniform(-1.0, 1.0, 10_000_000),)),
             ("W3", "MLP 784-128-10, batch 4096", grad(w3_mlp, wrt=(0, 1, 2, 3)),
              w3_batch_args(4096)))
    try:
        for name, what, fn, args in cases:
            best = interleaved(fn, args, counts)
            cells = " | ".join(f"{best[n][0] * 1e3:.1f} / {best[n][1] * 1e3:.1f}"
                               for n in counts)
            peers = ", ".join(f"{p} {t * 1e3:.1f}" for p, t in
                              peer_gradients(name, args).items()) or "none installed"
            print(f"| {name} {what} | {cells} | {best[1][0] / best[counts[-1]][0]:.2f} | "
                  f"{peers} |")
    finally:
        threads.set_num_threads(before)
    print()


def copy_bandwidth() -> float:
    """Bytes read + written per second by numpy copying a 512 MiB array (one thread)."""
    src = np.ones(1 << 26)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    best = min(_timed(np.copyto, (dst, src))[0] for _ in range(5))
    return 2 * src.nbytes / best


def bandwidth_table() -> None:
    from adlite.compiler import grad

    bandwidth = copy_bandwidth()
    fn = grad(w1_rosenbrock)
    print(f"## W1 gradient vs the memory-bandwidth bound ({all_cores()} threads; copy "
          f"bandwidth {bandwidth / 1e9:.1f} GB/s, numpy, one thread)\n")
    print("| n | gradient (ms) | bound: 16 n bytes / bandwidth (ms) | gradient / bound |")
    print("|---:|---:|---:|---:|")
    for n in (10**5, 10**6, 10**7, 10**8):
        if 8 * 8 * n > available_bytes() // 2:  # x, gradient, scratch and the peers' copies
            print(f"| {n:.0e} | skipped: not enough memory | | |")
            continue
        x = np.random.default_rng(0).uniform(-1.0, 1.0, n)
        fn(x)
        wait_optimised()
        t = min(_timed(fn, (x,))[0] for _ in range(REPEATS))
        bound = 16 * n / bandwidth
        print(f"| {n:.0e} | {t * 1e3:.3f} | {bound * 1e3:.3f} | {t / bound:.2f} |")
    print()


def threads_tables() -> None:
    scaling_table()
    bandwidth_table()


if __name__ == "__main__":
    threads_tables()
