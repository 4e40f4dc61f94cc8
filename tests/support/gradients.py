"""Reference gradients for the compiler tests: the eager tape and central differences."""

import numpy as np
import pytest

from adlite import compiler
from adlite.runtime import Tensor


def sample(kind: str, rng):
    if kind == "f":
        return float(rng.uniform(-2.0, 2.0))
    if kind == "p":
        return float(rng.uniform(0.5, 2.0))
    if kind == "s":
        return float(rng.uniform(-0.9, 0.9))
    lo, hi = map(int, kind[1:].split("-"))
    return int(rng.integers(lo, hi + 1))


def float_positions(kinds) -> tuple[int, ...]:
    return tuple(i for i, k in enumerate(kinds) if not k.startswith("i"))


def eager_gradient(fn, args, wrt):
    """Gradient by the eager tape: Tensors for the differentiated arguments."""
    inputs = [Tensor(a, requires_grad=True) if i in wrt else a for i, a in enumerate(args)]
    out = fn(*inputs)
    if not isinstance(out, Tensor) or not out.requires_grad:
        return [0.0] * len(wrt)
    out.backward()
    return [0.0 if inputs[i].grad is None else float(inputs[i].grad.item()) for i in wrt]


def finite_difference_gradient(fn, args, wrt, eps=1e-6):
    grads = []
    for i in wrt:
        hi, lo = list(args), list(args)
        hi[i] = np.float64(args[i]) + eps
        lo[i] = np.float64(args[i]) - eps
        with np.errstate(all="ignore"):
            grads.append(float((fn(*hi) - fn(*lo)) / (2 * eps)))
    return grads


def assert_close(actual, expected, rtol, atol, what):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)


def central_differences(fn, args, eps=1e-6) -> list:
    """Central finite differences of a float-valued fn w.r.t. each of `args` (numbers or
    arrays, taken as float arrays): one gradient per argument, of its shape."""
    args = [np.asarray(a, dtype=float) for a in args]
    grads = []
    for k, a in enumerate(args):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            step = np.zeros_like(a)
            step[i] = eps
            up = [a + step if j == k else v for j, v in enumerate(args)]
            down = [a - step if j == k else v for j, v in enumerate(args)]
            g[i] = (fn(*up) - fn(*down)) / (2 * eps)
        grads.append(g)
    return grads


def central_difference_in(fn, args, wrt: int, eps=1e-6) -> np.ndarray | float:
    """Central finite differences of a float-valued fn w.r.t. argument `wrt` (a float or an
    array); array arguments are copied for every evaluation (fn may write into them)."""
    x = np.array(args[wrt], dtype=float)
    g = np.zeros(x.shape)
    for k in np.ndindex(*x.shape):
        shifted = []
        for sign in (1.0, -1.0):
            y = x.copy()
            y[k] += sign * eps
            a = [np.array(v) if isinstance(v, np.ndarray) else v for v in args]
            a[wrt] = y if x.ndim else float(y)
            shifted.append(fn(*a))
        g[k] = (shifted[0] - shifted[1]) / (2 * eps)
    return g if x.ndim else float(g)


def check_value_and_gradient(fn, x, rest, backend: str) -> None:
    """`jit(fn)(x, *rest)` equals Python's value and `grad(fn)` (w.r.t. x) equals central
    differences."""
    assert compiler.jit(fn, backend=backend)(x, *rest) == pytest.approx(fn(x, *rest),
                                                                        rel=1e-13)
    g = compiler.grad(fn, backend=backend)(x, *rest)
    np.testing.assert_allclose(g, central_difference_in(fn, (x, *rest), 0), rtol=1e-6,
                               atol=1e-7)


def fd_grad(f, x, h=1e-6):
    """Central finite differences of a float-valued f at x (a float or an array)."""
    if np.ndim(x) == 0:
        return (f(x + h) - f(x - h)) / (2 * h)
    x = np.array(x, dtype=float)
    g = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = h
        g.flat[k] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def fd_hessian(f, x, h=1e-4):
    """Finite differences of finite-difference gradients (columns: the moved component)."""
    x = np.array(x, dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = h
        cols.append((fd_grad(f, x + e) - fd_grad(f, x - e)) / (2 * h))
    return np.stack(cols, axis=-1).reshape(x.shape + x.shape)


def check_modes(fn, args, backend: str, tape: bool = True, rng=None) -> None:
    """`fn(*args)` (a float-valued function of a float or float array `args[0]`) compiled
    against Python's value, `grad` against central differences and the eager tape (when
    `tape`), `jvp` along a random direction against directional differences."""
    rng = rng or np.random.default_rng(0)
    x, rest = args[0], tuple(args[1:])
    assert compiler.jit(fn, backend=backend)(*args) == pytest.approx(fn(*args), rel=1e-12)
    g = compiler.grad(fn, backend=backend)(*args)
    expected = central_difference_in(fn, args, 0)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-7)
    if tape:
        t = Tensor(np.asarray(x, dtype=float), requires_grad=True)
        fn(t, *rest).backward()
        np.testing.assert_allclose(np.reshape(g, np.shape(x)), t.grad.numpy(), rtol=1e-12,
                                   atol=1e-14)
    d = rng.standard_normal(np.shape(x)) if np.ndim(x) else 1.0
    value, tangent = compiler.jvp(fn, args, (d,))
    eps = 1e-6
    directional = (fn(x + eps * d, *rest) - fn(x - eps * d, *rest)) / (2 * eps)
    assert value == pytest.approx(fn(*args), rel=1e-12)
    assert tangent == pytest.approx(directional, rel=1e-6, abs=1e-7)


def second_differences(f, x, eps=1e-4):
    """The Hessian of float-valued `f` at array `x`, flattened to (x.size, x.size), by
    central second differences."""
    basis = np.eye(x.size).reshape((x.size, *x.shape)) * eps
    return np.array([[(f(x + u + v) - f(x + u - v) - f(x - u + v) + f(x - u - v)) / (4 * eps ** 2)
                      for v in basis] for u in basis])
