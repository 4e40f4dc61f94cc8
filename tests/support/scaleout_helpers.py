"""Module-level functions that worker processes import by name
(tests/backends/test_processes.py)."""

import numpy as np

from adlite.compiler import grad


def spin(n):
    """A loop long enough to watch another thread run meanwhile (native code, no GIL)."""
    total = 0.0
    for i in range(n):
        total = total + np.sin(i * 1e-3) * 1e-3
    return total


def squared_error(w, x, y):
    r = x @ w - y
    return np.sum(r * r)


def scaled_gradient(k):
    """A closure: another process cannot import it by name."""
    def loss(w, x, y):
        return k * squared_error(w, x, y)
    return grad(loss)


def call(f, *args):
    return f(*args)
