"""What the op-table checks share: the scalar loss of a row's result, its compiled gradient
(compiled once per row and reused by the checks), references by numpy (central and second
differences) and by the eager tape, and the ulp comparison of values.

The loss of a result y is sum(w * y + y * y / 4) with fixed, distinct weights w: its gradient
sees every element of y and its Hessian is not zero for linear functions (reshapes, stacks)."""

from __future__ import annotations

import functools

import numpy as np

from adlite.compiler import grad
from adlite.runtime import Tensor

from .gradients import central_difference_in
from .op_table import Row, arguments, float_positions


def weights(shape: tuple) -> np.ndarray:
    return np.cos(np.arange(int(np.prod(shape))) * 0.7 + 0.3).reshape(shape)


def loss_of(fn, scalar: bool, arity: int):
    """sum(w * y + y * y / 4) of y = fn(...), as plain numpy code (y * (1 + y / 4) for a number
    y), for `arity` operands."""
    if scalar:
        def loss1(x):
            y = fn(x)
            return y + y * y * 0.25

        def loss2(x, a):
            y = fn(x, a)
            return y + y * y * 0.25

        def loss3(x, a, b):
            y = fn(x, a, b)
            return y + y * y * 0.25
    else:
        def loss1(x):
            y = fn(x)
            w = np.cos(np.arange(y.size) * 0.7 + 0.3).reshape(y.shape)
            return np.sum(w * y + y * y * 0.25)

        def loss2(x, a):
            y = fn(x, a)
            w = np.cos(np.arange(y.size) * 0.7 + 0.3).reshape(y.shape)
            return np.sum(w * y + y * y * 0.25)

        def loss3(x, a, b):
            y = fn(x, a, b)
            w = np.cos(np.arange(y.size) * 0.7 + 0.3).reshape(y.shape)
            return np.sum(w * y + y * y * 0.25)
    return (loss1, loss2, loss3)[arity - 1]


@functools.cache
def loss(row: Row):
    """The row's scalar loss: plain numpy code, compiled by the checks."""
    scalar = np.ndim(row.fn(*arguments(row))) == 0
    return loss_of(row.fn, scalar, len(row.inputs))


@functools.cache
def tape_loss(row: Row):
    """The row's loss as the tape runs it (of `row.tape_fn` where the row has one)."""
    if row.tape_fn is None:
        return loss(row)
    scalar = np.ndim(row.fn(*arguments(row))) == 0
    return loss_of(row.tape_fn, scalar, len(row.inputs))


@functools.cache
def compiled_gradient(row: Row):
    """`grad(loss)` w.r.t. the row's float arguments, compiled once (LLVM)."""
    return grad(loss(row), wrt=float_positions(row))


def gradient(row: Row, args: tuple) -> list:
    got = compiled_gradient(row)(*copies(args))
    return list(got) if isinstance(got, tuple) else [got]


def copies(args: tuple) -> tuple:
    return tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args)


def central_differences(row: Row, args: tuple) -> list:
    f = loss(row)
    return [central_difference_in(f, args, k) for k in float_positions(row)]


def tape_gradient(row: Row, args: tuple) -> list:
    floats = float_positions(row)
    inputs = [Tensor(np.array(a, dtype=float), requires_grad=True) if k in floats else a
              for k, a in enumerate(copies(args))]
    out = tape_loss(row)(*inputs)
    if not out.requires_grad:  # the tape does not record sign, round, ... (zero gradients)
        return [np.zeros(np.shape(args[k])) for k in floats]
    out.backward()
    return [inputs[k].grad.numpy() if np.ndim(args[k]) else float(inputs[k].grad.item())
            for k in floats]


def second_differences(f, args: tuple, wrt: int, h: float = 1e-4) -> np.ndarray:
    """The Hessian of a float-valued f w.r.t. argument `wrt` by central second differences of
    f itself (no derivative code involved): error O(h^2) + O(eps |f| / h^2)."""
    x = np.array(args[wrt], dtype=float)
    n = x.size
    out = np.zeros((n, n))

    def at(dx):
        a = list(copies(args))
        y = x + dx.reshape(x.shape)
        a[wrt] = y if x.ndim else float(y)
        return f(*a)

    for i in range(n):
        for j in range(i, n):
            ei, ej = np.eye(n)[i] * h, np.eye(n)[j] * h
            out[i, j] = out[j, i] = (at(ei + ej) - at(ei - ej) - at(ej - ei) + at(-ei - ej)) \
                / (4 * h * h)
    return out.reshape(x.shape + x.shape)


def assert_within_ulps(got, want, ulps: int, what: str) -> None:
    """`got` equals numpy's `want` within `ulps` units in the last place of max(|want|, 1)
    (bit for bit when 0; NaNs in the same places), with numpy's dtype and shape."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, numpy's {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, numpy's {want.shape}"
    if ulps == 0 or want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    tolerance = ulps * np.spacing(np.maximum(np.abs(want), 1).astype(want.dtype))
    np.testing.assert_array_less(np.abs(got.astype(float) - want.astype(float)),
                                 tolerance.astype(float) * (1 + 1e-9) + 1e-300, err_msg=what)
