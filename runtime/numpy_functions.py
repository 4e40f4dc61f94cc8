"""numpy array functions on Tensors built from `adlite.derivatives.array_composites` (the same
composites the compiler emits), for `numpy_protocol`'s tables.

Contract: `FUNCTIONS` maps `np.diag`, `np.diagonal`, `np.trace`, `np.diff`, `np.roll`,
`np.cross`, `np.cumsum`, `np.cumprod`, `np.tile`, `np.repeat`, `np.einsum`, `np.kron`,
`np.tensordot`, `np.dot` (beyond 2-D), `np.array_split` / `np.split`, `np.ravel`,
`np.moveaxis`, `np.flip` / `np.fliplr` / `np.flipud`, `np.tril` / `np.triu`,
`np.column_stack`, `np.dstack`, `np.hstack`, `np.vstack`, `np.atleast_1d/2d/3d`,
`np.meshgrid`, `np.pad` (mode 'constant'), `np.linspace` (of numbers), `np.round` (not
differentiated), `np.select` (numpy's checks, dtype and shape; a chain of wheres),
`np.piecewise` (numpy's algorithm: each function called on `x[cond]`, its values written into
zeros at `cond`, so only the elements a piece took carry its gradient) to tensor
functions taking numpy's arguments (counts, axes, offsets and shifts as Python ints; `out=`
and `dtype=` are not accepted); `UFUNCS` maps `np.radians` / `np.deg2rad` / `np.degrees` /
`np.rad2deg`. Results are recorded tensors (differentiable to any order).
"""

from __future__ import annotations

import math
import string
from typing import Any

import numpy as np

from adlite.derivatives import array_composites as ac

from . import functional as F
from .tensor import Tensor
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


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:
    a, b = F.constant(a), F.constant(b)
    return ac.cross(O, a, b, a.shape, b.shape, axisa, axisb, axisc, axis)


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


def einsum(subscripts: Any, *operands: Any, optimize: Any = False) -> Any:
    """`einsum("ij,jk->ik", a, b)`, or the sublist form `einsum(a, [0, 1], b, [1, 2], [0, 2])`
    (written as the string form: axis numbers become letters)."""
    if not isinstance(subscripts, str):
        subscripts, operands = _sublists_as_subscripts((subscripts,) + operands)
    operands = [F.constant(x) for x in operands]
    return ac.einsum(O, subscripts, operands, [x.shape for x in operands])


def _sublists_as_subscripts(args: tuple) -> tuple[str, tuple]:
    """(subscripts, operands) of einsum's sublist form `(op, sublist, op, sublist, ...
    [, output sublist])`."""
    def letters(sublist) -> str:
        return "".join("..." if k is Ellipsis else string.ascii_letters[k] for k in sublist)

    pairs = len(args) // 2
    subscripts = ",".join(letters(args[2 * k + 1]) for k in range(pairs))
    if len(args) % 2:
        subscripts += "->" + letters(args[-1])
    return subscripts, tuple(args[2 * k] for k in range(pairs))


def kron(a: Any, b: Any) -> Any:
    a, b = F.constant(a), F.constant(b)
    return ac.kron(O, a, b, a.shape, b.shape)


def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    a, b = F.constant(a), F.constant(b)
    return ac.tensordot(O, a, b, a.shape, b.shape, axes)


def dot(a: Any, b: Any) -> Any:
    """numpy's dot: `F.dot` up to 2-D, `array_composites.dot` beyond."""
    a, b = F.constant(a), F.constant(b)
    if a.ndim and b.ndim and max(a.ndim, b.ndim) > 2:
        return ac.dot(O, a, b, a.shape, b.shape)
    return F.dot(a, b)


def _split(equal: bool):
    def call(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
        ary = F.constant(ary)
        return ac.array_split(O, ary, ary.shape, indices_or_sections, axis, equal)

    return call


def ravel(a: Any) -> Any:
    return _flat(F.constant(a))


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    a = F.constant(a)
    source, destination = ((v,) if isinstance(v, int) else tuple(v)
                           for v in (source, destination))
    return F.transpose(a, ac.moved_axes(a.ndim, source, destination))


def flip(m: Any, axis: Any = None) -> Any:
    m = F.constant(m)
    axes = range(m.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    return ac.flip(O, m, ac._axes(tuple(axes), m.ndim, "axis"))


def _fixed_flip(axis: int):
    def call(m: Any) -> Any:
        m = F.constant(m)
        if m.ndim <= axis:
            raise ValueError(f"Input must be >= {axis + 1}-d.")
        return ac.flip(O, m, (axis,))

    return call


def _triangle(lower: bool):
    def call(m: Any, k: int = 0) -> Any:
        m = F.constant(m)
        if m.ndim == 1:
            m = F.broadcast_to(m, (m.shape[0],) * 2)
        n, c = m.shape[-2:]
        kept = np.tri(n, c, k, dtype=bool) if lower else ~np.tri(n, c, k - 1, dtype=bool)
        mask = np.broadcast_to(kept, m.shape)
        return ac.triangle(O, m, m.shape, mask)

    return call


def _stacked(composite):
    def call(tup: Any) -> Any:
        xs = [F.constant(x) for x in tup]
        return composite(O, xs, [x.shape for x in xs])

    return call


def _atleast(ndim: int):
    def call(*arys: Any) -> Any:
        out = [ac.atleast(O, x, x.shape, ndim) for x in map(F.constant, arys)]
        return out[0] if len(out) == 1 else tuple(out)

    return call


def hstack(tup: Any) -> Any:
    xs = [ac.atleast(O, x, x.shape, 1) for x in map(F.constant, tup)]
    return F.concatenate(xs, 0 if xs[0].ndim == 1 else 1)


def vstack(tup: Any) -> Any:
    return F.concatenate([ac.atleast(O, x, x.shape, 2) for x in map(F.constant, tup)], 0)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True) -> Any:
    """numpy's algorithm for number `start` and `stop`: `arange(num) * step + start`, the last
    element set to `stop` when `endpoint`."""
    start, stop = F.constant(start), F.constant(stop)
    if start.ndim or stop.ndim:
        raise ValueError("np.linspace on tensors takes numbers for start and stop")
    div = num - 1 if endpoint else num
    y = np.arange(num, dtype=np.float64)
    delta = stop - start
    if div > 0:
        step = delta / float(div)
        y = F.where(step.data == 0, y / float(div) * delta, y * step)
    else:
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y = F.concatenate([y[:-1], F.reshape(stop, (1,))], 0)
    return y


def meshgrid(*xi: Any, indexing: str = "xy") -> tuple:
    xs = [_flat(x) if x.ndim != 1 else x for x in map(F.constant, xi)]
    return ac.meshgrid(O, xs, [x.shape[0] for x in xs], indexing)


def pad(array: Any, pad_width: Any, mode: str = "constant", constant_values: Any = 0) -> Any:
    if mode != "constant":
        raise ValueError(f"np.pad(mode={mode!r}) is not supported on tensors")
    x = F.constant(array)
    widths = ac.pad_widths(pad_width, x.ndim)
    return ac.pad(O, x, x.shape, widths, constant_values)


def _raw(value: Any) -> Any:
    """A Tensor's array (a numpy scalar for a 0-d one, as numpy's indexing gives); anything
    else as numpy would take it."""
    return value.data[()] if isinstance(value, Tensor) else value


def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """np.select: numpy's own call on the arrays gives its checks, the result's dtype and
    shape; the value is a chain of wheres (`array_composites.select`), so that each element's
    gradient is that of the choice it took."""
    layout = np.select([_raw(c) for c in condlist], [_raw(c) for c in choicelist],
                       _raw(default))
    out = ac.select(O, [_raw(c) for c in condlist], list(choicelist), default)
    return F.broadcast_to(F.astype(out, layout.dtype), layout.shape)


def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Any:
    """np.piecewise, numpy's algorithm on tensors: `func(x[cond], *args, **kw)` (or the
    number `func`) written into zeros of `x`'s shape and dtype at `cond`, piece after piece,
    so that only the elements a piece took carry its gradient."""
    x = F.constant(x)
    y = F.zeros_like(x)
    for cond, func in zip(_piece_conditions(x, _raw(condlist), len(funclist)), funclist,
                          strict=True):
        if not callable(func):
            y[cond] = func
        elif cond.any():
            y[cond] = func(x[cond], *args, **kw)
    return y


def _piece_conditions(x: Any, condlist: Any, count: int) -> np.ndarray:
    """numpy's reading of np.piecewise's `condlist` for `count` functions (one more: the
    last is taken where no condition holds)."""
    if np.isscalar(condlist) or \
            not isinstance(_raw(condlist[0]), list | np.ndarray) and x.ndim != 0:
        condlist = [condlist]
    conds = np.asarray([_raw(c) for c in condlist], dtype=bool)
    if len(conds) == count - 1:
        conds = np.concatenate([conds, ~np.any(conds, axis=0, keepdims=True)], axis=0)
    elif len(conds) != count:
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or "
                         f"{len(conds) + 1} functions are expected")
    return conds


def _times(factor: float):
    return lambda x: F.multiply(x, factor)


FUNCTIONS = {
    np.diag: diag, np.diagonal: diagonal, np.trace: trace, np.diff: diff, np.roll: roll,
    np.cross: cross, np.cumsum: _cumulative(O.add), np.cumprod: _cumulative(O.mul),
    np.tile: tile, np.repeat: repeat, np.einsum: einsum, np.ravel: ravel,
    np.moveaxis: moveaxis, np.flip: flip, np.flipud: _fixed_flip(0), np.fliplr: _fixed_flip(1),
    np.tril: _triangle(True), np.triu: _triangle(False),
    np.column_stack: _stacked(ac.column_stack), np.dstack: _stacked(ac.dstack),
    np.atleast_1d: _atleast(1), np.atleast_2d: _atleast(2), np.atleast_3d: _atleast(3),
    np.meshgrid: meshgrid, np.pad: pad, np.hstack: hstack, np.vstack: vstack,
    **({np.row_stack: vstack} if hasattr(np, "row_stack") else {}),
    np.linspace: linspace, np.round: F.round, np.select: select, np.piecewise: piecewise,
    np.kron: kron, np.tensordot: tensordot, np.dot: dot, np.array_split: _split(False),
    np.split: _split(True),
}
UFUNCS = {
    np.radians: _times(math.pi / 180.0), np.deg2rad: _times(math.pi / 180.0),
    np.degrees: _times(180.0 / math.pi), np.rad2deg: _times(180.0 / math.pi),
}
