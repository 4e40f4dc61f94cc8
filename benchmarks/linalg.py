"""The linear-algebra rows of `make bench`: value and gradient of `sum(solve(A, b))` (w.r.t. A
and b) and `sum(log(diag(cholesky(A))))` (w.r.t. A) at n = 16, 128, 512, for numpy (value
only), adlite calling LAPACK (numpy's OpenBLAS), adlite's own loops (the fallback without
OpenBLAS, as before LAPACK was called; matrix products still call BLAS), and JAX (jit) when
installed, all measured in this run. Nothing here asserts a timing.
"""

from __future__ import annotations

import contextlib
import os
import types

import numpy as np

SIZES = (16, 128, 512)


def solve_sum(a, b):
    return np.sum(np.linalg.solve(a, b))


def cholesky_logdet(a):
    return np.sum(np.log(np.diag(np.linalg.cholesky(a))))


def _arguments(n: int) -> dict:
    rng = np.random.default_rng(n)
    m = rng.standard_normal((n, n))
    return {"solve": (rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n),
                      rng.standard_normal(n)),
            "cholesky": (m @ m.T + n * np.eye(n),)}


FUNCTIONS = {"solve": (solve_sum, (0, 1)), "cholesky": (cholesky_logdet, (0,))}


@contextlib.contextmanager
def _loops():
    """Code compiled inside calls the linear-algebra loops, not LAPACK (nothing cached)."""
    from adlite.compiler.backends.llvm import linalg

    saved, cache = linalg.arrays, os.environ.get("ADLITE_CACHE_DIR")
    linalg.arrays = types.SimpleNamespace(blas=lambda: None)
    os.environ["ADLITE_CACHE_DIR"] = "off"
    try:
        yield
    finally:
        linalg.arrays = saved
        if cache is None:
            del os.environ["ADLITE_CACHE_DIR"]
        else:
            os.environ["ADLITE_CACHE_DIR"] = cache


def _compiled(transform, fn, wrt, args, loops: bool):
    compiled = transform(fn, wrt=wrt) if wrt else transform(fn)
    with _loops() if loops else contextlib.nullcontext():
        compiled(*args)  # compiled now
    return compiled


def _jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def block(f):
        return lambda *a: jax.block_until_ready(f(*a))

    solve = jax.jit(lambda a, b: jnp.sum(jnp.linalg.solve(a, b)))
    chol = jax.jit(lambda a: jnp.sum(jnp.log(jnp.diag(jnp.linalg.cholesky(a)))))
    return {"solve": (block(solve), block(jax.jit(jax.grad(solve, argnums=(0, 1))))),
            "cholesky": (block(chol), block(jax.jit(jax.grad(chol))))}


def linalg_table(best_time, fmt) -> None:
    from adlite.compiler import grad, jit

    jax_fns = _jax()
    print("## Linear algebra: sum(solve(A, b)) d/d(A, b), sum(log(diag(cholesky(A)))) d/dA\n")
    print("Times in us. LAPACK: adlite calling numpy's OpenBLAS; loops: adlite's own (the "
          "fallback without OpenBLAS).\n")
    print("| function | n | numpy | adlite LAPACK | adlite loops | JAX jit | "
          "adlite LAPACK gradient | adlite loops gradient | JAX jit gradient |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in SIZES:
        arguments = _arguments(n)
        for name, (fn, wrt) in FUNCTIONS.items():
            args = arguments[name]
            times = [best_time(fn, args)]
            for transform, w in ((jit, None), (grad, wrt)):
                times += [best_time(_compiled(transform, fn, w, args, loops), args)
                          for loops in (False, True)]
                if jax_fns is not None:
                    times.append(best_time(jax_fns[name][w is not None], args))
                else:
                    times.append(None)
            numpy_time, lapack, loops, jax_value, lapack_g, loops_g, jax_g = times
            cells = [numpy_time, lapack, loops, jax_value, lapack_g, loops_g, jax_g]
            print(f"| {name} | {n} | " + " | ".join(
                fmt(t) if t is not None else "not installed" for t in cells) + " |")
    print()
