"""The workloads written for each peer library found installed (JAX, PyTorch, autograd, numba).

Each `make_<peer>()` returns {workload: (primal, gradient)} of callables taking the same
float arguments as the plain Python workload, or raises ImportError when the peer is absent.
A missing entry means the peer cannot run that workload (e.g. JAX cannot reverse-differentiate
a `lax.while_loop`, so W4's gradient uses JAX's eager mode, as a user would have to).
"""

from __future__ import annotations

from .workloads import w2_oscillator, w4_while


def make_jax():
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def w2(k, c):
        def step(_, state):
            x, v = state
            a = -k * x - c * v
            v = v + 0.01 * a
            return (x + 0.01 * v, v)

        return jax.lax.fori_loop(0, 1000, step, (1.0, 0.0))[0]

    def w4(p):
        def cond(state):
            return state[0] < 1000.0

        def body(state):
            x, total = state
            x = x * (1.0 + 0.01 * p) + 0.1
            return (x, total + jnp.sin(x) * p)

        return jax.lax.while_loop(cond, body, (1.0, 0.0))[1]

    w2_jit, w2_grad = jax.jit(w2), jax.jit(jax.grad(w2, argnums=(0, 1)))
    w4_jit = jax.jit(w4)
    w4_eager_grad = jax.grad(lambda p: w4_python_loop(p, jnp))

    def block(f):
        return lambda *a: jax.block_until_ready(f(*a))

    return {"W2": (block(w2_jit), block(w2_grad)),
            "W4": (block(w4_jit), block(w4_eager_grad))}


def w4_python_loop(p, xp):
    """W4 over an array module `xp` (jax.numpy or autograd.numpy): a Python while loop."""
    x = 1.0
    total = 0.0
    while x < 1000.0:
        x = x * (1.0 + 0.01 * p) + 0.1
        total = total + xp.sin(x) * p
    return total


def make_torch():
    import torch

    def grad_of(fn, n):
        def run(*args):
            ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in args]
            out = fn(*ts)
            out.backward()
            return tuple(t.grad.item() for t in ts)

        return run

    def primal(fn):
        def run(*args):
            with torch.no_grad():
                return fn(*(torch.tensor(a, dtype=torch.float64) for a in args)).item()

        return run

    def w4(p):
        x = torch.tensor(1.0, dtype=torch.float64)
        total = torch.tensor(0.0, dtype=torch.float64)
        while x < 1000.0:
            x = x * (1.0 + 0.01 * p) + 0.1
            total = total + torch.sin(x) * p
        return total

    return {"W2": (primal(w2_oscillator), grad_of(w2_oscillator, 2)),
            "W4": (primal(w4), grad_of(w4, 1))}


def make_autograd():
    import autograd
    import autograd.numpy as anp

    def w4(p):
        return w4_python_loop(p, anp)

    return {"W2": (w2_oscillator, autograd.grad(w2_oscillator, argnum=(0, 1))
                   if _supports_tuple_argnum(autograd) else None),
            "W4": (w4, autograd.grad(w4))}


def _supports_tuple_argnum(autograd) -> bool:
    try:
        autograd.grad(lambda a, b: a * b, argnum=(0, 1))(1.0, 2.0)
        return True
    except TypeError:
        return False


def make_numba():
    import numba

    return {"W2": (numba.njit(w2_oscillator), None), "W4": (numba.njit(w4_while), None)}


PEERS = {"JAX": make_jax, "PyTorch (eager)": make_torch, "autograd": make_autograd,
         "numba (primal only)": make_numba}
