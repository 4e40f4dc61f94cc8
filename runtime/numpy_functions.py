"""numpy array functions on Tensors built from `adlite.derivatives.array_composites` (the same
composites the compiler emits) and the tape's functions, for `numpy_protocol`'s tables.

Contract: `FUNCTIONS` maps `np.diag`, `np.diagonal`, `np.trace`, `np.diff`, `np.roll`,
`np.cross`, `np.cumsum`, `np.cumprod`, `np.tile`, `np.repeat`, `np.einsum`, `np.kron`,
`np.tensordot`, `np.dot` (beyond 2-D), `np.array_split` / `np.split`, `np.ravel`,
`np.moveaxis`, `np.flip` / `np.fliplr` / `np.flipud`, `np.tril` / `np.triu`,
`np.column_stack`, `np.dstack`, `np.hstack`, `np.vstack`, `np.atleast_1d/2d/3d`,
`np.meshgrid`, `np.pad` (mode 'constant'), `np.linspace` (of numbers), `np.round` (not
differentiated), `np.select` (numpy's checks, dtype and shape; a chain of wheres),
`np.piecewise` (numpy's algorithm: each function called on `x[cond]`, its values written into
zeros at `cond`, so only the elements a piece took carry its gradient), `np.inner`,
`np.rollaxis`, `np.partition` (numpy's values, refused where `np.argpartition` would arrange
ties otherwise), `np.hsplit` / `vsplit` / `dsplit`, `np.append`, `np.fft.fftshift` /
`ifftshift`, `np.rot90`, `np.nan_to_num` (the gradient through the finite elements),
`np.gradient` (uniform spacings given as numbers), `np.real`, `np.imag`, `np.angle`,
`np.real_if_close` (recorded for complex tensors; for real ones the tensor, and constants) to
tensor functions taking numpy's arguments (counts, axes, offsets and shifts as Python ints; `out=`
and `dtype=` are not accepted); the tests `np.iscomplex`, `np.isreal`, `np.iscomplexobj`,
`np.isrealobj`, `np.allclose`, `np.isclose`, `np.array_equal` and `np.result_type` run
numpy's on the arrays (no gradient). `UFUNCS` maps `np.radians` / `np.deg2rad` /
`np.degrees` / `np.rad2deg` and `np.conjugate` (recorded; a copy of a real tensor). Results are
recorded tensors (differentiable to any order).
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


def inner(a: Any, b: Any) -> Any:
    """np.inner: the sum over the last axes (a product when one is a number)."""
    a, b = F.constant(a), F.constant(b)
    if a.ndim == 0 or b.ndim == 0:
        return F.multiply(a, b)
    return ac.tensordot(O, a, b, a.shape, b.shape, ([a.ndim - 1], [b.ndim - 1]))


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """np.rollaxis (numpy's reading of `start`)."""
    a = F.constant(a)
    n = a.ndim
    axis = _axis(axis, n)
    start = start + n if start < 0 else start
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} "
                                      "was passed in")
    start = start - 1 if axis < start else start
    axes = [i for i in range(n) if i != axis]
    axes.insert(start, axis)
    return F.transpose(a, tuple(axes))


def partition(a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect",
              order: Any = None) -> Any:
    """np.partition: numpy's values; each element's gradient goes to the element it is
    (`np.argpartition`'s arrangement, checked equal to numpy's)."""
    a = F.constant(a)
    if order is not None:
        raise TypeError("np.partition(order=...) is for structured arrays, not tensors")
    if axis is None:
        a, axis = _flat(a), 0
    index = np.argpartition(a.data, kth, axis=axis, kind=kind)
    if not np.array_equal(np.partition(a.data, kth, axis=axis, kind=kind),
                          np.take_along_axis(a.data, index, axis=axis), equal_nan=True):
        raise NotImplementedError("np.partition on a tensor: numpy arranged equal values "
                                  "differently from np.argpartition; sort the tensor instead")
    return F.index(a, _along(index, axis))


def _along(index: np.ndarray, axis: int) -> tuple:
    """The fancy index taking `index` along `axis` (np.take_along_axis's)."""
    axis = _axis(axis, index.ndim)
    grids = np.ogrid[tuple(slice(n) for n in index.shape)]
    return tuple(index if i == axis else grids[i] for i in range(index.ndim))


def real(val: Any) -> Any:
    """np.real: the real part of a complex tensor (recorded); a real tensor itself (numpy's
    is a view of the same array)."""
    val = F.constant(val)
    return F.real(val) if F.is_complex(val) else val


def imag(val: Any) -> Any:
    """np.imag: the imaginary part of a complex tensor (recorded); zeros for a real one (no
    gradient)."""
    val = F.constant(val)
    return F.imag(val) if F.is_complex(val) else F.constant(np.zeros_like(val.data))


def angle(z: Any, deg: bool = False) -> Any:
    """np.angle: numpy's `arctan2(imag, real)` (times 180/pi with `deg`), recorded for a
    complex tensor; for a real one 0 or pi (180), a constant."""
    z = F.constant(z)
    if not F.is_complex(z):
        return F.constant(np.angle(z.data, deg))
    out = F.arctan2(F.imag(z), F.real(z))
    return F.multiply(out, 180.0 / math.pi) if deg else out


def real_if_close(a: Any, tol: float = 100) -> Any:
    """np.real_if_close: the real part where every imaginary part is below `tol` machine
    epsilons (numpy's test, `tol` > 1), else the tensor."""
    a = F.constant(a)
    if not F.is_complex(a):
        return a
    if tol > 1:
        tol = np.finfo(a.dtype.type).eps * tol
    return F.real(a) if bool(np.all(np.absolute(a.data.imag) < tol)) else a


def conjugate(x: Any) -> Any:
    """np.conj / np.conjugate: recorded for a complex tensor, a copy of a real one."""
    x = F.constant(x)
    return F.conj(x) if F.is_complex(x) else F.clone(x)


def _constant(fn):
    """numpy's `fn` of the arrays: a value without gradient (tests, dtypes)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*(a.data if isinstance(a, Tensor) else a for a in args), **kwargs)

    return call


def _named_split(axis_of, least: int):
    """np.hsplit / vsplit / dsplit: `np.split` along `axis_of(ndim)`, for at least `least`
    dimensions."""

    def call(ary: Any, indices_or_sections: Any) -> list:
        ary = F.constant(ary)
        if ary.ndim < least:
            raise ValueError(f"{'h' if least == 1 else 'v' if least == 2 else 'd'}split only "
                             f"works on arrays of {least} or more dimensions")
        return _split(True)(ary, indices_or_sections, axis_of(ary.ndim))

    return call


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    arr, values = F.constant(arr), F.constant(values)
    if axis is None:
        return F.concatenate([_flat(arr) if arr.ndim else F.reshape(arr, (1,)),
                              _flat(values) if values.ndim else F.reshape(values, (1,))], 0)
    return F.concatenate([arr, values], axis)


def _shift(sign: int):
    """np.fft.fftshift (sign 1) / ifftshift (-1): a roll by half of each axis."""

    def call(x: Any, axes: Any = None) -> Any:
        x = F.constant(x)
        axes = tuple(range(x.ndim)) if axes is None else (axes,) if isinstance(axes, int) \
            else tuple(axes)
        return roll(x, [sign * (x.shape[_axis(ax, x.ndim)] // 2) for ax in axes], axes)

    return call


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:
    """np.nan_to_num: numpy's values; the gradient flows through the finite elements."""
    x = F.constant(x)
    replaced = np.nan_to_num(x.data, copy=True, nan=nan, posinf=posinf, neginf=neginf)
    return F.where(np.isfinite(x.data), x, replaced)


def rot90(m: Any, k: int = 1, axes: Any = (0, 1)) -> Any:
    """np.rot90 (numpy's algorithm: flips and a transposition)."""
    m = F.constant(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if not all(-m.ndim <= ax < m.ndim for ax in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return F.clone(m)
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    order = list(range(m.ndim))
    first, second = _axis(axes[0], m.ndim), _axis(axes[1], m.ndim)
    order[first], order[second] = order[second], order[first]
    if k == 1:
        return F.transpose(flip(m, axes[1]), tuple(order))
    return flip(F.transpose(m, tuple(order)), axes[1])


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """np.gradient with uniform spacings (numbers; coordinate arrays are refused): central
    differences inside, one-sided ones of order `edge_order` at the ends."""
    f = F.constant(f)
    axes = tuple(range(f.ndim)) if axis is None else (axis,) if isinstance(axis, int) \
        else tuple(axis)
    axes = tuple(_axis(ax, f.ndim) for ax in axes)
    spacings = list(varargs) or [1.0]
    if len(spacings) == 1:
        spacings *= len(axes)
    if len(spacings) != len(axes):
        raise TypeError("invalid number of arguments")
    if any(np.ndim(_raw(h)) for h in spacings):
        raise NotImplementedError("np.gradient with coordinate arrays is not supported on "
                                  "tensors: pass the uniform spacings as numbers")
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    out = [_differences(f, ax, float(_raw(h)), edge_order) for ax, h in
           zip(axes, spacings, strict=True)]
    return out[0] if len(out) == 1 else tuple(out)


def _differences(f: Any, axis: int, h: float, edge_order: int) -> Any:
    n = f.shape[axis]
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least (edge_order + 1) elements are required.")

    def part(start: int, stop: int | None) -> Any:
        return O.slice_along(f, axis, start, n if stop is None else stop)

    inside = (part(2, None) - part(0, n - 2)) / (2.0 * h)
    if edge_order == 1:
        first = (part(1, 2) - part(0, 1)) / h
        last = (part(n - 1, n) - part(n - 2, n - 1)) / h
    else:
        first = (-1.5 * part(0, 1) + 2.0 * part(1, 2) - 0.5 * part(2, 3)) / h
        last = (0.5 * part(n - 3, n - 2) - 2.0 * part(n - 2, n - 1) + 1.5 * part(n - 1, n)) / h
    return F.concatenate([first, inside, last], axis)


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
    np.split: _split(True), np.inner: inner, np.rollaxis: rollaxis, np.partition: partition,
    np.real: real, np.imag: imag, np.angle: angle, np.real_if_close: real_if_close,
    np.iscomplex: _constant(np.iscomplex), np.isreal: _constant(np.isreal),
    np.iscomplexobj: _constant(np.iscomplexobj), np.isrealobj: _constant(np.isrealobj),
    np.result_type: _constant(np.result_type), np.allclose: _constant(np.allclose),
    np.isclose: _constant(np.isclose), np.array_equal: _constant(np.array_equal),
    np.hsplit: _named_split(lambda ndim: 1 if ndim > 1 else 0, 1),
    np.vsplit: _named_split(lambda ndim: 0, 2), np.dsplit: _named_split(lambda ndim: 2, 3),
    np.append: append, np.fft.fftshift: _shift(1), np.fft.ifftshift: _shift(-1),
    np.nan_to_num: nan_to_num, np.rot90: rot90, np.gradient: gradient,
}
UFUNCS = {
    np.conjugate: conjugate,
    np.radians: _times(math.pi / 180.0), np.deg2rad: _times(math.pi / 180.0),
    np.degrees: _times(180.0 / math.pi), np.rad2deg: _times(180.0 / math.pi),
}
