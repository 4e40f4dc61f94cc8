"""The run-time shapes rows of `make bench` (issue 25), measured in this run.

- A masked reduction, `np.sum(x[x > 0] ** 2)` as a user writes it: numpy, adlite (`jit`, the
  boolean selection compiled as the whole array and its mask) and JAX (`jit`; JAX cannot trace
  `x[x > 0]`, so its row runs the form JAX users write, `jnp.sum(jnp.where(x > 0, x ** 2,
  0))`), and the gradients of adlite and JAX.
- A list grown in a `while` loop of a data-dependent trip count (issue 25's `grow`) and
  summed: CPython, adlite (`jit`, `grad`: the list in a buffer of the compiled code), the
  eager tape's gradient, and JAX (`jit` of a `lax.while_loop` carrying the running sum, the
  form JAX users write, since a JAX loop cannot grow a list; JAX cannot differentiate it in
  reverse mode).
- One function called with 20 array lengths, each first call in a fresh process with the
  disk cache off: compilations and total seconds for adlite (one compilation per shape by
  default; one for all with `shapes="dynamic"`) and JAX (one trace and compilation per
  shape).
- Steady state of code compiled for every size against code compiled for the shape: the
  same gradients with `shapes="dynamic"` and without (what run-time sizes cost: loops of
  unknown trip count, no thread pool yet).
Nothing here asserts a timing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numpy as np

SIZES = (1_000, 100_000, 1_000_000)
LENGTHS = tuple(range(10, 210, 10))  # 20 lengths


def masked_squares(x):
    return np.sum(x[x > 0] ** 2)


def _jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def squares(x):
        return jnp.sum(jnp.where(x > 0, x ** 2, 0.0))

    def block(f):
        return lambda *a: jax.block_until_ready(f(*a))

    return block(jax.jit(squares)), block(jax.jit(jax.grad(squares)))


def masked_table(best_time, fmt) -> None:
    from adlite.compiler import grad, jit

    peers = _jax()
    print("## Masked reduction: np.sum(x[x > 0] ** 2), d/dx\n")
    print("Times in us; JAX runs `jnp.sum(jnp.where(x > 0, x ** 2, 0))` (it cannot trace "
          "`x[x > 0]`).\n")
    print("| n | numpy | adlite | JAX jit | adlite gradient | JAX jit gradient |")
    print("|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for n in SIZES:
        args = (rng.standard_normal(n),)
        cells = [best_time(masked_squares, args), best_time(jit(masked_squares), args), None,
                 best_time(grad(masked_squares), args), None]
        if peers is not None:
            cells[2], cells[4] = (best_time(f, args) for f in peers)
        print(f"| {n:.0e} | " + " | ".join(
            fmt(t) if t is not None else "not installed" for t in cells) + " |")
    print()


GROWN = (3.0, 300.0, 30_000.0)  # lists of 10, 1,000 and 100,000 items


def grow(x):
    out, t = [], 0.0
    while t < x:
        out.append(t * x)
        t = t + 0.3
    return sum(out)


def _jax_grow():
    try:
        import jax
        from jax import lax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def summed(x):
        def step(state):
            t, total = state
            return t + 0.3, total + t * x
        return lax.while_loop(lambda s: s[0] < x, step, (0.0 * x, 0.0 * x))[1]

    def block(f):
        return lambda *a: jax.block_until_ready(f(*a))

    return block(jax.jit(summed))


def lists_table(best_time, fmt) -> None:
    from adlite.compiler import grad, jit
    from adlite.runtime import tensor

    def tape_gradient(x):
        t = tensor(x, requires_grad=True)
        grow(t).backward()
        return t.grad

    peers = _jax_grow()
    print("## A list grown in a while loop and summed (issue 25's `grow`), d/dx\n")
    print("Times in us; JAX runs a `lax.while_loop` carrying the running sum (a JAX loop "
          "cannot grow a list), and cannot differentiate it in reverse mode.\n")
    print("| items | CPython | adlite | JAX jit | eager tape gradient | adlite gradient |")
    print("|---:|---:|---:|---:|---:|---:|")
    for x in GROWN:
        args = (x,)
        cells = [best_time(grow, args), best_time(jit(grow), args),
                 best_time(peers, args) if peers is not None else None,
                 best_time(tape_gradient, args), best_time(grad(grow), args)]
        print(f"| {len(range(int(np.ceil(x / 0.3)))):,} | " + " | ".join(
            fmt(t) if t is not None else "not installed" for t in cells) + " |")
    print()


_ADLITE = """
import sys, time
import numpy as np
from adlite.compiler import grad
def f(x):
    return np.sum(np.tanh(x) * x)
g = grad(f, shapes=SHAPES)
start = time.perf_counter()
for n in map(int, sys.argv[1:]):
    g(np.linspace(0.0, 1.0, n))
print(time.perf_counter() - start, len(g.cache))
"""

_JAX = """
import sys, time
import numpy as np
import jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
def f(x):
    return jnp.sum(jnp.tanh(x) * x)
g = jax.jit(jax.grad(f))
start = time.perf_counter()
for n in map(int, sys.argv[1:]):
    jax.block_until_ready(g(np.linspace(0.0, 1.0, n)))
print(time.perf_counter() - start, g._cache_size())
"""


def _run(code: str) -> tuple[float, int] | None:
    env = {**os.environ, "ADLITE_CACHE_DIR": "off"}
    with tempfile.TemporaryDirectory() as tmp:  # adlite compiles from the source file
        path = os.path.join(tmp, "lengths.py")
        with open(path, "w") as f:
            f.write(code)
        done = subprocess.run([sys.executable, path, *map(str, LENGTHS)], env=env,
                              capture_output=True, text=True)
    if done.returncode != 0:
        return None
    seconds, compilations = done.stdout.split()
    return float(seconds), int(compilations)


def sizes_table() -> None:
    print("## One gradient function called with 20 array lengths (fresh process, disk cache "
          "off)\n")
    print("| tool | compilations | total seconds of the 20 first calls |")
    print("|---|---:|---:|")
    for tool, code in (("adlite", _ADLITE.replace("SHAPES", '"static"')),
                       ('adlite shapes="dynamic"', _ADLITE.replace("SHAPES", '"dynamic"')),
                       ("JAX jit(grad)", _JAX)):
        result = _run(code)
        if result is None:
            print(f"| {tool} | not installed | |")
        else:
            print(f"| {tool} | {result[1]} | {result[0]:.2f} |")
    print()


def norm_loss(x):
    return np.sum(np.tanh(x) * x)


def batch_loss(w, x):
    return np.mean(np.tanh(x @ w) ** 2)


def steady_table(best_time, fmt) -> None:
    from adlite.compiler import grad

    print("## Compiled for every size vs for the shape: steady-state gradients\n")
    print("Times in us; the same function and arguments, `grad(f)` and "
          "`grad(f, shapes=\"dynamic\")`.\n")
    print("| function | shape | per shape | for every size | ratio |")
    print("|---|---|---:|---:|---:|")
    rng = np.random.default_rng(0)
    cases = [(norm_loss, "sum(tanh(x) * x)", (rng.standard_normal(n),)) for n in SIZES] + [
        (batch_loss, "mean(tanh(x @ w) ** 2), d/dw", (rng.standard_normal((64, 64)),
                                                      rng.standard_normal((b, 64))))
        for b in (256, 4096)]
    for fn, label, args in cases:
        static = best_time(grad(fn), args)
        dynamic = best_time(grad(fn, shapes="dynamic"), args)
        shape = " ".join(str(a.shape) for a in args)
        print(f"| {label} | {shape} | {fmt(static)} | {fmt(dynamic)} | "
              f"{dynamic / static:.2f} |")
    print()
