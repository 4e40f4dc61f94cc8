"""Call overhead of compiled array code: the time of one call of small array functions on
10-element float64 arrays, where the arithmetic costs nanoseconds and the call is what is
measured. adlite's `jit` and `grad` against numba's `njit` of the same function where numba
is installed (numba has no gradients: n/a). Prints one table; asserts nothing."""

from __future__ import annotations

import timeit

import numpy as np

from adlite.compiler import wait_optimised

W = np.linspace(-1.0, 1.0, 10)  # read from outside by `Model.loss`


def sum_sq(x):
    return np.sum(x * x)


def fma(a, b, c):
    return a * b + c


class Model:
    def __init__(self) -> None:
        self.scale = 2.0

    def loss(self, x):
        return np.sum(W * x) * self.scale


def per_call(fn, args: tuple) -> float:
    """Seconds per call: the best of several repeats of many calls."""
    fn(*args)
    wait_optimised()  # time the optimised tier
    return min(timeit.repeat(lambda: fn(*args), number=20000, repeat=7)) / 20000


def _numba():
    try:
        import numba
    except ImportError:
        return None
    return numba.njit


def call_overhead_table() -> None:
    from adlite.compiler import grad, jit

    x = np.linspace(0.1, 1.0, 10)
    njit = _numba()
    model = Model()
    cases = [("np.sum(x * x)", sum_sq, (x,), True),
             ("a * b + c (3 arrays in, 1 array out)", fma, (x, x + 1.0, x + 2.0), False),
             ("method reading a module-level array", model.loss, (x,), True)]
    print("## Call overhead: one call on 10-element float64 arrays\n")
    print("| function | adlite jit (us) | adlite grad (us) | numba njit (us) |")
    print("|---|---:|---:|---:|")
    for name, fn, args, differentiable in cases:
        ours = per_call(jit(fn), args)
        gradient = f"{per_call(grad(fn), args) * 1e6:.2f}" if differentiable else "n/a"
        if njit is None:
            peer = "not installed"
        elif fn is model.loss:
            peer = "n/a"  # numba compiles functions, not bound methods
        else:
            peer = f"{per_call(njit(fn), args) * 1e6:.2f}"
        print(f"| {name} | {ours * 1e6:.2f} | {gradient} | {peer} |")
    print()
