"""numpy array functions on Tensors built from `adlite.derivatives.array_composites` (the same
composites the compiler emits), for `numpy_protocol`'s tables.

Contract: `FUNCTIONS` maps `np.diag`, `np.diagonal`, `np.trace`, `np.diff`, `np.roll`,
`np.cross`, `np.cumsum`, `np.cumprod`, `np.tile`, `np.repeat`, `np.einsum` to tensor
functions taking numpy's arguments (counts, axes, offsets and shifts as Python ints; `out=`
and `dtype=` are not accepted); `UFUNCS` maps `np.radians` / `np.deg2rad` / `np.degrees` /
`np.rad2deg`. Results are recorded tensors (differentiable to any order).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from adlite.derivatives import array_composites as ac

from . import functional as F
from .vocabulary import TENSOR_OPS as O


def _axis(axis: int, ndim: int) -> int:
    return F.normalize_axis(axis, ndim)[0]


def _flat(a: Any) -> Any:
    return F.reshape(a, (a.size,)) if a.ndim != 1 else a


def diag(v: Any, k: int = 0) -> Any:
    v = F.constant(v)
    if v.ndim == 1:
        return ac.diag_matrix(O, v, v.shape[0], k)
    if v.ndim == 2:
        return ac.diagonal(O, v, v.shape, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    a = F.constant(a)
    a1, a2 = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = tuple(i for i in range(a.ndim) if i not in (a1, a2))
    a = F.transpose(a, rest + (a1, a2))
    return ac.diagonal(O, a, a.shape, offset)


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    return F.sum(diagonal(a, offset, axis1, axis2), axis=-1)


def diff(a: Any, n: int = 1, axis: int = -1) -> Any:
    a = F.constant(a)
    return ac.diff(O, a, a.shape, n, _axis(axis, a.ndim))


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    a = F.constant(a)
    if axis is None:
        return F.reshape(roll(_flat(a), shift, 0), a.shape)
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    total: dict[int, int] = {}
    for s, ax in zip(shifts.ravel().tolist(), axes.ravel().tolist(), strict=True):
        ax = _axis(ax, a.ndim)
        total[ax] = total.get(ax, 0) + s
    return ac.roll(O, a, a.shape, total)


def cross(a: Any, b: Any) -> Any:
    a, b = F.constant(a), F.constant(b)
    return ac.cross(O, a, b, a.shape, b.shape)


def _cumulative(op):
    def call(a: Any, axis: int | None = None) -> Any:
        a = F.constant(a)
        if axis is None:
            a, axis = _flat(a) if a.ndim else F.reshape(a, (1,)), 0
        return ac.cumulative(O, a, a.shape, _axis(axis, a.ndim), op)

    return call


def tile(A: Any, reps: Any) -> Any:  # noqa: N803 - numpy's name
    A = F.constant(A)  # noqa: N806
    reps = tuple(reps) if isinstance(reps, tuple | list) else (reps,)
    return ac.tile(O, A, A.shape, reps)


def repeat(a: Any, repeats: int, axis: int | None = None) -> Any:
    a = F.constant(a)
    if axis is None:
        a, axis = _flat(a), 0
    return ac.repeat(O, a, a.shape, repeats, _axis(axis, a.ndim))


def einsum(subscripts: str, *operands: Any, optimize: Any = False) -> Any:
    operands = [F.constant(x) for x in operands]
    return ac.einsum(O, subscripts, operands, [x.shape for x in operands])


def _times(factor: float):
    return lambda x: F.multiply(x, factor)


FUNCTIONS = {
    np.diag: diag, np.diagonal: diagonal, np.trace: trace, np.diff: diff, np.roll: roll,
    np.cross: cross, np.cumsum: _cumulative(O.add), np.cumprod: _cumulative(O.mul),
    np.tile: tile, np.repeat: repeat, np.einsum: einsum,
}
UFUNCS = {
    np.radians: _times(math.pi / 180.0), np.deg2rad: _times(math.pi / 180.0),
    np.degrees: _times(180.0 / math.pi), np.rad2deg: _times(180.0 / math.pi),
}
