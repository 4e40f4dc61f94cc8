"""numpy functions that rearrange, join or contract arrays, composed of shape primitives.

Contract: registers `np.rot90(m, k=1, axes=(0, 1))` (flips and a transpose, as numpy),
`np.rollaxis(a, axis, start=0)` (a transpose), `np.vsplit` / `np.hsplit` / `np.dsplit` (the
`np.split` rule along axis 0 / 1 (0 for vectors) / 2, numpy's ValueError for too few
dimensions), `np.append(arr, values, axis=None)` (both flattened without an axis, then
`np.concatenate`'s rule), `np.fft.fftshift` / `np.fft.ifftshift` (`np.roll` by half of each
named axis, all by default; a number is itself), `np.inner(a, b)` (positional, as numpy's;
a product with a number, else the contraction of the last axes, numpy's ValueError when
their lengths differ; float arrays) and `np.nan_to_num(x, copy=True, nan=0.0, posinf=None,
neginf=None)` (selects: the largest finite numbers of x's dtype by default; the gradient
flows where x is finite, autograd's rule; ints and bools are themselves; copy=False, which
replaces in place, is refused). Axes, counts and keyword values must be known when
compiling; numpy's errors for bad ones are raised at the user's line (`AxisError` as
`AdliteAxisError`).
"""

from __future__ import annotations

import numpy as np

from adlite.derivatives import array_composites as ac

from ...errors import AdliteAxisError, AdliteValueError
from ...ir.builder import const
from ..context import CallContext
from . import arrays
from .building import one_axis
from .registry import REQUIRED, bind_params, lookup, param, register


def _flip(cx: CallContext, x, axis: int, node):
    return arrays.run_composite(cx, node, ac.flip, x, (axis,))


def _rot90(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "rot90", args, kwargs, {"m": REQUIRED, "k": 1,
                                             "axes": (const(0), const(1))}, node)
    m = cx.array(p["m"], node)
    k, axes = param(cx, p, "k", node), param(cx, p, "axes", node)
    ndim = len(m.type.shape)
    if not isinstance(k, int) or not isinstance(axes, tuple | list) or \
            not all(isinstance(a, int) for a in axes):
        raise cx.source.error(node, "np.rot90: k must be an integer and axes two integers")
    if len(axes) != 2:
        raise cx.source.error(node, "len(axes) must be 2.", kind=AdliteValueError)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == ndim:
        raise cx.source.error(node, "Axes must be different.", kind=AdliteValueError)
    if not all(-ndim <= a < ndim for a in axes):
        raise cx.source.error(node, f"Axes={tuple(axes)} out of range for array of "
                              f"ndim={ndim}.", kind=AdliteValueError)
    first, second = (a % ndim for a in axes)
    order = list(range(ndim))
    order[first], order[second] = second, first
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return _flip(cx, _flip(cx, m, first, node), second, node)
    if k == 1:
        return cx.b.transpose(_flip(cx, m, second, node), axes=tuple(order))
    return _flip(cx, cx.b.transpose(m, axes=tuple(order)), second, node)


def _rollaxis(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "rollaxis", args, kwargs, {"a": REQUIRED, "axis": REQUIRED,
                                                   "start": 0}, node)
    a = cx.array(p["a"], node)
    n = len(a.type.shape)
    axis = one_axis(cx, p["axis"], n, node)
    start = param(cx, p, "start", node)
    if not isinstance(start, int):
        raise cx.source.error(node, f"start must be an integer, got {start!r}")
    start += n if start < 0 else 0
    if not 0 <= start < n + 1:
        raise cx.source.error(node, f"'start' arg requires {-n} <= start < {n + 1}, but "
                              f"{start} was passed in", kind=AdliteAxisError)
    start -= 1 if axis < start else 0
    if axis == start:
        return a
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return cx.b.transpose(a, axes=tuple(order))


def _named_split(name: str, least: int, axis_of):
    """np.vsplit / np.hsplit / np.dsplit: np.split along `axis_of(ndim)` of an array of at
    least `least` dimensions."""

    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, {"ary": REQUIRED,
                                                 "indices_or_sections": REQUIRED}, node)
        x = cx.value(p["ary"], node)
        ndim = len(x.type.shape or ())
        if ndim < least:
            raise cx.source.error(node, f"{name} only works on arrays of {least} or more "
                                  "dimensions", kind=AdliteValueError)
        return lookup(np.split)(cx, [x, p["indices_or_sections"]],
                                {"axis": const(axis_of(ndim))}, node)

    return lower


def _append(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "append", args, kwargs, {"arr": REQUIRED, "values": REQUIRED,
                                                 "axis": None}, node)
    arr, values = cx.value(p["arr"], node), cx.value(p["values"], node)
    axis = param(cx, p, "axis", node)
    if axis is None:
        arr, values = arrays.ravel(cx, arr, node), arrays.ravel(cx, values, node)
        axis = 0
    return lookup(np.concatenate)(cx, [(arr, values), const(axis)], {}, node)


def _fftshift(sign: int):
    """np.fft.fftshift (`sign` -1: ifftshift): each named axis rolled by half its length."""

    def lower(cx: CallContext, args, kwargs, node):
        name = "fftshift" if sign < 0 else "ifftshift"
        p = bind_params(cx, name, args, kwargs, {"x": REQUIRED, "axes": None}, node)
        x = cx.value(p["x"], node)
        shape = x.type.shape or ()
        given = param(cx, p, "axes", node)
        named = range(len(shape)) if given is None else \
            given if isinstance(given, tuple | list) else (given,)
        shifts: dict[int, int] = {}
        if not all(isinstance(a, int) for a in named):
            raise cx.source.error(node, f"np.fft.{name}: axes must be integers, got {given!r}")
        for a in named:
            axis = one_axis(cx, const(a), len(shape), node)
            shifts[axis] = shifts.get(axis, 0) - sign * (shape[axis] // 2)
        if not shape:
            return x
        return arrays.run_composite(cx, node, ac.roll, x, shape, shifts)

    return lower


def _inner(cx: CallContext, args, node):
    a, b = cx.exactly(args, 2, node)  # positional only
    if not (cx.value(a, node).type.is_array and cx.value(b, node).type.is_array):
        return cx.b.mul(*cx.promote(a, b, node))
    (a, b), common = arrays.product_operands(cx, [a, b], node)
    if a.type.shape[-1] != b.type.shape[-1]:  # numpy reports b with its last two axes swapped
        sa, sb = a.type.shape, b.type.shape
        shown = sb[:-2] + (sb[-1], sb[-2]) if len(sb) > 1 else sb
        raise cx.source.error(node, f"shapes {ac._text(sa)} and {ac._text(shown)} not "
                              f"aligned: {sa[-1]} (dim {len(sa) - 1}) != {sb[-1]} (dim "
                              f"{max(len(sb) - 2, 0)})", kind=AdliteValueError)
    return arrays.boolean_product(cx, arrays.run_composite(
        cx, node, ac.tensordot, a, b, a.type.shape, b.type.shape, ([-1], [-1])), common)


def _nan_to_num(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "nan_to_num", args, kwargs, {"x": REQUIRED, "copy": True, "nan": 0.0,
                                                     "posinf": None, "neginf": None}, node)
    if not param(cx, p, "copy", node):
        raise cx.source.error(node, "np.nan_to_num(copy=False) replaces in place",
                              "assign the result: x = np.nan_to_num(x)")
    x = cx.value(p["x"], node)
    if not x.type.is_float:
        return x
    t = x.type.scalar
    largest = float(np.finfo(t.dtype.numpy).max)
    fills = {k: param(cx, p, k, node) for k in ("nan", "posinf", "neginf")}
    b, inf = cx.b, const(float("inf"), t)
    out = x
    for test, key, default in ((b.ne(x, x), "nan", 0.0), (b.eq(x, inf), "posinf", largest),
                               (b.eq(x, b.neg(inf)), "neginf", -largest)):
        fill = default if fills[key] is None else fills[key]
        out = b.select(test, b.full(const(float(fill), t), shape=x.type.shape, dtype=t)
                       if x.type.is_array else const(float(fill), t), out)
    return out


register([np.rot90], _rot90)
register([np.rollaxis], _rollaxis)
register([np.vsplit], _named_split("vsplit", 2, lambda ndim: 0))
register([np.hsplit], _named_split("hsplit", 1, lambda ndim: 1 if ndim > 1 else 0))
register([np.dsplit], _named_split("dsplit", 3, lambda ndim: 2))
register([np.append], _append)
register([np.fft.fftshift], _fftshift(-1))
register([np.fft.ifftshift], _fftshift(1))
register([np.inner], _inner, keywords=False)
register([np.nan_to_num], _nan_to_num)
