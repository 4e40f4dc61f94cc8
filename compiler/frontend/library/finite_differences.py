"""`np.gradient` in compiled code, composed from slices, arithmetic and one concatenation per
axis (so both AD modes and both backends come with it).

Contract: `np.gradient(f, *varargs, axis=None, edge_order=1)` with numpy's semantics: `f` an
array of at least one dimension (int arrays become float64, float32 stays float32); `axis`
None (every axis), an int or a tuple of ints, known when compiling (numpy's AxisError and
'repeated axis'); `varargs` none (spacing 1), one spacing for every axis, or one per axis,
each a number (run-time values allowed, differentiated) or a 1-D array of coordinates of the
axis's length (run-time values, differentiated); `edge_order` 1 or 2. Interior points are
central differences ((f[2:] - f[:-2]) / 2h for a spacing h, the second-order formula of
unequal steps for coordinates), edge points one-sided differences of first or second order,
numpy's formulas (coordinates with equal steps take the unequal-step formulas: numpy's values
up to rounding). The result is an array for one axis, else a tuple of arrays (numpy 2's).
numpy's errors (too few points for `edge_order`, distances of the wrong shape, a wrong number
of spacings) are raised at the call's line with numpy's type and message.
"""

from __future__ import annotations

import numpy as np

from ...errors import AdliteAxisError, AdliteTypeError, AdliteValueError
from ...ir.builder import const
from ...ir.core import Atom
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from .registry import refuse_keywords, register


def _axes(cx: CallContext, value, ndim: int, node) -> tuple[int, ...]:
    axis = cx.static(value, node, "its `axis`", "option")
    axes = tuple(range(ndim)) if axis is None else \
        tuple(axis) if isinstance(axis, tuple | list) else (axis,)
    for a in axes:
        if not isinstance(a, int) or isinstance(a, bool):
            raise cx.source.error(node, f"'{type(a).__name__}' object cannot be interpreted "
                                  "as an integer", kind=AdliteTypeError)
        if not -ndim <= a < ndim:
            raise cx.source.error(node, f"axis {a} is out of bounds for array of dimension "
                                  f"{ndim}", kind=AdliteAxisError)
    axes = tuple(a % ndim for a in axes)
    if len(set(axes)) != len(axes):
        raise cx.source.error(node, "repeated axis", kind=AdliteValueError)
    return axes


def _spacings(cx: CallContext, varargs, f, axes, node) -> list[Atom]:
    """One spacing per axis: a float scalar, or a float 1-D array of coordinates."""
    values = [cx.to_type(cx.as_float(v, node), f.type.scalar) for v in varargs]
    if not values:
        return [const(1.0, f.type.scalar)] * len(axes)
    if len(values) == 1 and not values[0].type.is_array:
        return values * len(axes)
    if len(values) != len(axes):
        raise cx.source.error(node, "invalid number of arguments", kind=AdliteTypeError)
    for v, axis in zip(values, axes, strict=True):
        if v.type.is_array and len(v.type.shape) != 1:
            raise cx.source.error(node, "distances must be either scalars or 1d",
                                  kind=AdliteValueError)
        if v.type.is_array and v.type.shape[0] != f.type.shape[axis]:
            raise cx.source.error(node, "when 1d, distances must match the length of the "
                                  "corresponding dimension", kind=AdliteValueError)
    return values


def _along(o: BuilderOps, v, axis: int, ndim: int):
    """A 1-D `v` shaped to broadcast along `axis` of an `ndim`-dimensional array."""
    return o.reshape(v, (1,) * axis + v.type.shape + (1,) * (ndim - axis - 1))


def _combination(o: BuilderOps, coefficients, parts):
    total = None
    for c, p in zip(coefficients, parts, strict=True):
        term = o.mul(c, p)
        total = term if total is None else o.add(total, term)
    return total


def _uniform(o: BuilderOps, part, n: int, h, edge_order: int) -> list:
    inner = o.div(o.sub(part(2, n), part(0, n - 2)), o.mul(o.constant(2.0, h), h)) \
        if n > 2 else None
    if edge_order == 1:
        first = o.div(o.sub(part(1, 2), part(0, 1)), h)
        last = o.div(o.sub(part(n - 1, n), part(n - 2, n - 1)), h)
    else:
        first = _combination(o, [o.div(o.constant(c, h), h) for c in (-1.5, 2.0, -0.5)],
                             [part(k, k + 1) for k in range(3)])
        last = _combination(o, [o.div(o.constant(c, h), h) for c in (0.5, -2.0, 1.5)],
                            [part(k, k + 1) for k in range(n - 3, n)])
    return [first, inner, last]


def _three_point(o: BuilderOps, d1, d2, where: str) -> list:
    """The weights of f at three points with steps d1, d2 for the derivative at the first
    ('first'), middle ('inner') or last ('last') of them (exact for quadratics)."""
    total = o.add(d1, d2)
    if where == "inner":
        return [o.neg(o.div(d2, o.mul(d1, total))), o.div(o.sub(d2, d1), o.mul(d1, d2)),
                o.div(d1, o.mul(d2, total))]
    if where == "first":
        return [o.neg(o.div(o.add(o.add(d1, d1), d2), o.mul(d1, total))),
                o.div(total, o.mul(d1, d2)), o.neg(o.div(d1, o.mul(d2, total)))]
    return [o.div(d2, o.mul(d1, total)), o.neg(o.div(total, o.mul(d1, d2))),
            o.div(o.add(o.add(d2, d2), d1), o.mul(d2, total))]


def _coordinates(o: BuilderOps, part, n: int, x, axis: int, ndim: int, edge_order: int):
    dx = _along(o, o.sub(o.slice_along(x, 0, 1, n), o.slice_along(x, 0, 0, n - 1)), axis,
                ndim)

    def step(start: int, stop: int):
        return o.slice_along(dx, axis, start, stop)

    inner = _combination(o, _three_point(o, step(0, n - 2), step(1, n - 1), "inner"),
                         [part(k, n - 2 + k) for k in range(3)]) if n > 2 else None
    if edge_order == 1:
        first = o.div(o.sub(part(1, 2), part(0, 1)), step(0, 1))
        last = o.div(o.sub(part(n - 1, n), part(n - 2, n - 1)), step(n - 2, n - 1))
    else:
        first = _combination(o, _three_point(o, step(0, 1), step(1, 2), "first"),
                             [part(k, k + 1) for k in range(3)])
        last = _combination(o, _three_point(o, step(n - 3, n - 2), step(n - 2, n - 1), "last"),
                            [part(k, k + 1) for k in range(n - 3, n)])
    return [first, inner, last]


def _gradient(cx: CallContext, args, kwargs, node):
    refuse_keywords(cx, kwargs, node, ("axis", "edge_order"))
    if not args:
        raise cx.source.error(node, "gradient() missing 1 required positional argument: 'f'",
                              kind=AdliteTypeError)
    f = cx.as_float(cx.array(args[0], node), node)
    shape = f.type.shape
    axes = _axes(cx, kwargs["axis"], len(shape), node) if "axis" in kwargs else \
        tuple(range(len(shape)))
    edge_order = cx.static(kwargs["edge_order"], node, "its `edge_order`", "option") \
        if "edge_order" in kwargs else 1
    if edge_order > 2:
        raise cx.source.error(node, "'edge_order' greater than 2 not supported",
                              kind=AdliteValueError)
    if edge_order not in (1, 2):
        raise cx.source.error(node, f"np.gradient(edge_order={edge_order!r}) is not "
                              "supported", "use edge_order=1 or 2", kind=AdliteValueError)
    spacings = _spacings(cx, args[1:], f, axes, node)
    o = BuilderOps(cx.b)
    results = []
    for axis, h in zip(axes, spacings, strict=True):
        n = shape[axis]
        if n < edge_order + 1:
            raise cx.source.error(node, "Shape of array too small to calculate a numerical "
                                  "gradient, at least (edge_order + 1) elements are "
                                  "required.", kind=AdliteValueError)

        def part(start: int, stop: int, axis=axis):
            return o.slice_along(f, axis, start, stop)

        pieces = _coordinates(o, part, n, h, axis, len(shape), edge_order) \
            if h.type.is_array else _uniform(o, part, n, h, edge_order)
        out = o.concatenate([p for p in pieces if p is not None], axis)
        results.append(cx.to_type(out, f.type.scalar))
    return results[0] if len(results) == 1 else tuple(results)


register([np.gradient], _gradient)
