"""The AD tape of a W2-like loop: the bytes its reverse mode stores per step (read from the
adjoint IR, `compiler.ad.storage.tape_bytes_per_iteration`) and the gradient/primal time
ratio at 1e3, 1e5 and 1e7 steps (the trip count a run-time argument, so one compiled code
serves every length), with the page faults of one gradient call (a tape of 160 MB is written
to fresh pages: the first touch of each 4 KiB page faults). `python -m benchmarks.tape`
prints this table alone."""

from __future__ import annotations

import resource

STEPS = (1_000, 100_000, 10_000_000)


def w2_steps(k, c, n):
    """W2 (examples/oscillator.py) with `n` steps."""
    x = 1.0
    v = 0.0
    dt = 0.01
    for _ in range(n):
        a = -k * x - c * v
        v = v + dt * a
        x = x + dt * v
    return x


def tape_table(best_time, fmt) -> None:
    """Print the table; `best_time(fn, args)` and `fmt(seconds)` as in `benchmarks`."""
    from adlite.compiler import grad, jit
    from adlite.compiler.ad.storage import tape_bytes_per_iteration
    from adlite.compiler.ir.core import F64, I64

    from .workloads import w2_oscillator

    w2_bytes = tape_bytes_per_iteration(grad(w2_oscillator, wrt=(0, 1)).ir_for([F64, F64])[0])
    steps_bytes = tape_bytes_per_iteration(grad(w2_steps, wrt=(0, 1)).ir_for([F64, F64, I64])[0])
    print("## AD tape of a W2-like loop (Euler oscillator, run-time step count), d/d(k, c)\n")
    print(f"Tape bytes per step: W2 {sum(w2_bytes)}, with a run-time step count "
          f"{sum(steps_bytes)} (JAX: 16, measured for issue 12).\n")
    print("| steps | primal (us) | gradient (us) | gradient/primal | page faults per gradient |")
    print("|---:|---:|---:|---:|---:|")
    primal, gradient = jit(w2_steps), grad(w2_steps, wrt=(0, 1))
    for n in STEPS:
        args = (1.3, 0.2, n)
        tp, tg = best_time(primal, args), best_time(gradient, args)
        print(f"| {n:.0e} | {fmt(tp)} | {fmt(tg)} | {tg / tp:.2f} | {_faults(gradient, args)} |")
    print()


def _faults(fn, args) -> int:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    fn(*args)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


if __name__ == "__main__":
    from .__main__ import best_time, fmt

    tape_table(best_time, fmt)
