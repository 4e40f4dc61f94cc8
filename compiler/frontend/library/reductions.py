"""numpy's reductions in compiled code: sums, moments, extrema, truth and arg-extrema.

Contract: registers the rules of
- `np.sum / mean / prod / var / std / max / min / amax / amin` (`reduce`; also the array
  methods of these names): a reduction primitive, or, for mean, var and std, the composites
  of `adlite.derivatives.composites`, which the eager tape builds too; `axis`, `keepdims`
  and `ddof` are compile-time constants (`normalized_axes`); sums and products of bools are
  ints; a max/min over no element raises numpy's ValueError when executed
  (`empty_extremum`), not at compile time;
- `np.any(x, axis=None, keepdims=False)` / `np.all(...)`: whether some (every) element along
  `axis` is true (nonzero; NaN is true): the count of true (false) elements compared with 0,
  so a reduction over no element gives numpy's False (True);
- `np.argmax(x, axis=None, keepdims=False)` / `np.argmin(...)`: the int64 index of the
  first extremum along `axis` (of the flattened array when None), numpy's NaN rule included
  (the first NaN wins): the smallest position where `x` equals the reduction's max (min), or
  is NaN where that is NaN. An empty axis or an axis out of range is refused when compiling,
  as numpy raises.
`reduce_selection` is the reduction of a boolean selection (SELECTION_REDUCTIONS, their
methods and np.count_nonzero) and `dot_of_selections` the product of two (`selection_calls`).
"""

from __future__ import annotations

import math

import numpy as np

from adlite.derivatives import composites

from ...ir.builder import const
from ...ir.core import F64, I64, Atom, Const, Var
from ...primitives.shapes import reduces_nothing
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from ..selection_values import Selection, count, elementwise, escape, involved, spread
from ..static_values import ListTuple
from .registry import options, refuse_keywords, register


def normalized_axes(cx: CallContext, value, ndim, node):
    """The axes `value` names (an int, a tuple of them or None: all), normalized and
    sorted; an axis out of bounds is numpy's error, at compile time."""
    if value is None:
        return None
    if isinstance(value, ListTuple):  # numpy takes an int or a tuple of ints only
        raise cx.source.error(node, "TypeError: 'list' object cannot be interpreted as an "
                              "integer", "give several axes as a tuple: axis=(0, 1)")
    axes = value if isinstance(value, tuple) else (value,)
    out = []
    for a in axes:
        if not isinstance(a, int) or not -ndim <= a < ndim:
            raise cx.source.error(node, f"axis {a} is out of bounds for an array of "
                                  f"dimension {ndim}")
        out.append(a % ndim)
    return tuple(sorted(set(out)))


MOMENTS = ("mean", "var", "std")


def reduce(cx: CallContext, prim, x, axis, keepdims, node, **options):
    """`np.<prim>(x, axis, keepdims, **options)`: a reduction primitive, or one of the
    `MOMENTS` (composites of `adlite.derivatives`, on floats; `options` is their ddof)."""
    if isinstance(x, Var | Const) and x.type.is_complex and (x.type.is_array or
                                                             prim in ("var", "std")):
        axis = normalized_axes(cx, axis, len(x.type.shape or ()), node)
        return complex_reduce(cx, prim, x, axis, bool(keepdims), node, **options)
    if prim in MOMENTS:
        x = cx.as_float(x, node)
        shape = x.type.shape or ()
        axis = normalized_axes(cx, axis, len(shape), node)
        return getattr(composites, prim)(BuilderOps(cx.b), x, shape, axis, bool(keepdims),
                                         **options)
    if not cx.value(x, node).type.is_array:  # numpy: a number's sum (max, ...) is itself
        try:  # ... along the axes a number has (none, 0 or -1), or numpy's AxisError
            np.sum(np.float64(0.0), axis=axis)
        except (ValueError, TypeError) as e:
            raise cx.source.error(node, str(e)) from None
        return x
    x = cx.array(x, node)
    axis = normalized_axes(cx, axis, len(x.type.shape), node)
    if prim in ("max", "min") and reduces_nothing(x.type.shape, axis):
        cx.b.emit("empty_extremum", [x], kind=prim, axis=axis, keepdims=bool(keepdims))
    if x.type.name == "bool":  # numpy: sums/products of bools are ints; max/min stay bools
        result = cx.b.op(prim, cx.to_type(x, I64), axis=axis, keepdims=bool(keepdims))
        return result if prim in ("sum", "prod") else cx.to_type(result, x.type.scalar)
    return cx.b.op(prim, x, axis=axis, keepdims=bool(keepdims))


def complex_reduce(cx: CallContext, prim: str, z: Atom, axis, keepdims: bool, node,
                   **options):
    """numpy's reductions of a complex array: sums and means of the parts; var / std of the
    magnitude of the deviations (var(real) + var(imag), real); max / min in numpy's
    lexicographic order (the real parts decide, then the imaginary parts of the elements
    whose real part is the extremum); prod by halving (pairs multiplied as complex numbers,
    numpy's values up to rounding)."""
    b = cx.b
    if prim in ("var", "std"):
        parts = [reduce(cx, "var", b.op(part, z), axis, keepdims, node, **options)
                 for part in ("real", "imag")]
        var = b.add(*parts)
        return b.sqrt(var) if prim == "std" else var
    if prim in ("sum", "mean"):
        parts = [reduce(cx, prim, b.op(part, z), axis, keepdims, node) for part in
                 ("real", "imag")]
        return b.complex(*parts)
    if prim in ("max", "min"):
        re, im = b.real(z), b.imag(z)
        best_re = reduce(cx, prim, re, axis, True, node)
        other = const(-math.inf if prim == "max" else math.inf, im.type.scalar)
        best_im = reduce(cx, prim, b.select(b.eq(re, best_re), im, other), axis, keepdims,
                         node)
        if not keepdims:
            best_re = reduce(cx, prim, best_re, axis, False, node)
        return b.complex(best_re, best_im)
    if prim == "prod":
        return _complex_product(cx, z, axis, keepdims, node)
    raise cx.source.error(node, f"np.{prim} of complex values is not supported in compiled "
                          "code", "reduce the real and imaginary parts (z.real, z.imag)")


def _complex_product(cx: CallContext, z: Atom, axis, keepdims: bool, node) -> Atom:
    """The product along `axis` (all axes for None): the reduced axes moved to the front
    and flattened, then halved until one row is left (an odd row multiplies the first)."""
    b, shape = cx.b, z.type.shape
    axes = tuple(range(len(shape))) if axis is None else tuple(axis)
    rest = tuple(d for d in range(len(shape)) if d not in axes)
    n = math.prod(shape[d] for d in axes)
    if not isinstance(n, int):
        raise cx.source.error(node, "np.prod of complex values over a run-time size",
                              "compile per shape (shapes='static')")
    x = b.reshape(b.transpose(z, axes=axes + rest), shape=(n,) + tuple(shape[d] for d in rest))
    if n == 0:
        one = const(1.0 + 0j, z.type.scalar)
        x = b.full(one, shape=(1,) + x.type.shape[1:], dtype=z.type.scalar)
    o = BuilderOps(b)
    while x.type.shape[0] > 1:
        m = x.type.shape[0]
        half = b.mul(o.slice_along(x, 0, 0, m // 2), o.slice_along(x, 0, m // 2, 2 * (m // 2)))
        if m % 2:
            first = b.mul(o.slice_along(half, 0, 0, 1), o.slice_along(x, 0, m - 1, m))
            half = o.concatenate([first, o.slice_along(half, 0, 1, m // 2)], 0) \
                if m // 2 > 1 else first
        x = half
    kept = tuple(1 if d in axes else shape[d] for d in range(len(shape)))
    out_shape = kept if keepdims else tuple(shape[d] for d in rest)
    return b.reshape(x, shape=out_shape or None)


def reduction(prim):
    def lower(cx: CallContext, args, kwargs, node):
        allowed = ("axis", "keepdims", "ddof") if prim in ("var", "std") else ("axis", "keepdims")
        opts = options(cx, kwargs, allowed, node)
        axis = cx.static(args[1], node) if len(args) > 1 else opts.pop("axis", None)
        keepdims = opts.pop("keepdims", False)
        return reduce(cx, prim, args[0], axis, keepdims, node, **opts)

    return lower


def _option(cx: CallContext, args, kwargs, key, default, node):
    """The second positional argument (axis) or keyword `key`, known when compiling."""
    if key == "axis" and len(args) == 2:
        return cx.static(args[1], node)
    return cx.static(kwargs[key], node) if key in kwargs else default


def _truth(cx: CallContext, x):
    return x if x.type.name == "bool" else cx.b.ne(x, const(0, x.type.scalar))


def _truth_reduction(name):
    def lower(cx: CallContext, args, kwargs, node):
        refuse_keywords(cx, kwargs, node, ("axis", "keepdims"))
        if not 1 <= len(args) <= 2:
            raise cx.source.error(node, f"np.{name}() takes x and axis, got {len(args)} "
                                  "arguments")
        axis = _option(cx, args, kwargs, "axis", None, node)
        keepdims = _option(cx, args, kwargs, "keepdims", False, node)
        return truth_reduce(cx, name, cx.numeric(args[0], node), axis, keepdims, node)

    return lower


def truth_reduce(cx: CallContext, name: str, x, axis, keepdims, node):
    """`np.any` / `np.all` (`name`) of the number or array `x` along `axis`."""
    truth = _truth(cx, x)
    if name == "all":
        truth = cx.b.not_(truth)
    if not truth.type.is_array:
        return truth if name == "any" else cx.b.not_(truth)
    count = reduce(cx, "sum", truth, axis, keepdims, node)
    zero = const(0, count.type.scalar)
    return cx.b.gt(count, zero) if name == "any" else cx.b.eq(count, zero)


def _arg_extremum(name, prim):
    def lower(cx: CallContext, args, kwargs, node):
        refuse_keywords(cx, kwargs, node, ("axis", "keepdims"))
        keepdims = bool(_option(cx, args, kwargs, "keepdims", False, node))
        if not 1 <= len(args) <= 2:
            raise cx.source.error(node, f"np.{name}() takes x and axis, got {len(args)} "
                                  "arguments")
        axis = _option(cx, args, kwargs, "axis", None, node)
        b, x = cx.b, cx.numeric(args[0], node)
        if not x.type.is_array:
            return const(0)
        kept = tuple(1 for _ in x.type.shape)
        if axis is None:
            x, axis = b.reshape(x, shape=(math.prod(x.type.shape),)), 0
        shape = x.type.shape
        if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
            raise cx.source.error(node, f"axis {axis} is out of bounds for array of "
                                  f"dimension {len(shape)}")
        axis %= len(shape)
        n = shape[axis]
        if n == 0:
            raise cx.source.error(node, f"attempt to get {name} of an empty sequence")
        best = reduce(cx, prim, x, axis, True, node)
        hit = b.eq(x, best)
        if x.type.is_float:
            hit = b.or_(hit, b.and_(b.ne(x, x), b.ne(best, best)))
        position = b.reshape(b.op("arange", n=n, dtype=F64),
                             shape=tuple(n if d == axis else 1 for d in range(len(shape))))
        first = b.min(b.select(hit, position, const(math.inf)), axis=(axis,), keepdims=keepdims)
        if keepdims and first.type.shape != kept and len(shape) == 1:  # axis None
            first = b.reshape(first, shape=kept)
        return cx.to_type(first, I64.with_shape(first.type.shape) if first.type.is_array
                          else I64)

    return lower


# ---- boolean selections (`x[mask]`, see selection_values): the whole array, masked ---------

SELECTION_REDUCTIONS = {np.sum: "sum", np.prod: "prod", np.mean: "mean", np.var: "var",
                        np.std: "std", np.max: "max", np.amax: "max", np.min: "min",
                        np.amin: "min", np.any: "any", np.all: "all",
                        np.count_nonzero: "count_nonzero"}
IDENTITIES = {"sum": 0, "prod": 1, "any": False, "all": True}


def reduce_selection(cx: CallContext, name: str, selection: Selection, args, kwargs, node):
    """`np.<name>(selection, axis, keepdims, ddof)` (`name` a value of SELECTION_REDUCTIONS)
    over the selection's shape `(k,) + rest`: over the selected axis, the reduction of
    `np.where(mask, array, identity)` (mean, var and std divide by the number selected);
    over `rest` axes only, a selection by the same mask."""
    if len(args) > 1:
        raise cx.source.error(node, f"np.{name} of a boolean selection with more than an "
                                    "axis argument", "pass axis= and keepdims= only")
    allowed = ("axis", "keepdims", "ddof") if name in ("var", "std") else ("axis", "keepdims")
    opts = options(cx, {k: v for k, v in kwargs.items() if v is not None}, allowed, node)
    axis = cx.static(args[0], node) if args else opts.get("axis")
    keepdims, ddof = bool(opts.get("keepdims", False)), opts.get("ddof", 0)
    ndim = 1 + len(selection.rest)
    normal = set(range(ndim) if axis is None else normalized_axes(cx, axis, ndim, node))
    x, mask, b = selection.array, selection.mask, cx.b
    shift = len(mask.type.shape) - 1
    rest_axes = tuple(sorted(a + shift for a in normal if a))
    if name == "count_nonzero":
        x, name = b.ne(x, const(0, x.type.scalar)), "sum"
    moments = {"ddof": ddof} if name in ("var", "std") else {}
    whole = truth_reduce if name in ("any", "all") else reduce  # over the whole array
    if 0 not in normal:  # rows stay rows: the result is a selection by the same mask
        return Selection(whole(cx, name, x, rest_axes, keepdims, node, **moments), mask,
                         selection.node)
    axes = tuple(range(len(mask.type.shape))) + rest_axes
    kept = (1,) + tuple(1 if i in normal else n for i, n in enumerate(selection.rest, 1))
    n = b.mul(count(cx, selection), const(math.prod(x.type.shape[a] for a in rest_axes)))
    if name in ("mean", "var", "std"):
        value = _selection_moment(cx, name, selection, axes, n, ddof, node)
    elif name in IDENTITIES:
        filled = b.select(spread(cx, mask, x), x, const(IDENTITIES[name], x.type.scalar))
        value = whole(cx, name, filled, axes, False, node)
    else:
        value = _selection_extremum(cx, name, x, mask, axes, n, node)
    return b.reshape(value, shape=kept) if keepdims else value


def _selection_extremum(cx: CallContext, name: str, x: Atom, mask: Atom, axes: tuple, n: Atom,
                        node) -> Atom:
    """np.max or np.min over `axes` of the selected values; numpy's ValueError when none is."""
    b = cx.b
    if x.type.is_float:
        fill = -np.inf if name == "max" else np.inf
    elif x.type.name == "bool":
        fill = name == "min"
    else:
        fill = -2 ** 63 if name == "max" else 2 ** 63 - 1
    filled = b.select(spread(cx, mask, x), x, const(fill, x.type.scalar))
    b.emit("check", [b.gt(n, const(0))], error="ValueError",
           args=(("str", (f"zero-size array to reduction operation "
                          f"{'maximum' if name == 'max' else 'minimum'} which has no "
                          f"identity",)),))
    return reduce(cx, name, filled, axes, False, node)


def _selection_moment(cx: CallContext, name: str, selection: Selection, axes: tuple, n: Atom,
                      ddof: int, node) -> Atom:
    """mean, var or std over `axes` (the selected one among them) of the selection: sums of
    the selected values divided by their number `n` (less `ddof`), numpy's definitions."""
    b = cx.b
    x = cx.as_float(selection.array, node)
    mask = spread(cx, selection.mask, x)
    zero = const(0, x.type.scalar)
    kept = tuple(d for a, d in enumerate(x.type.shape) if a not in axes)
    partial = bool(kept)  # some axes remain: keep the reduced ones to broadcast back

    def total(v: Atom) -> Atom:
        return b.sum(b.select(mask, v, zero), axis=axes, keepdims=partial)

    mean = b.div(total(x), cx.to_type(n, x.type.scalar))
    value = mean
    if name != "mean":
        deviation = b.sub(x, mean)
        value = b.div(total(b.mul(deviation, deviation)),
                      cx.to_type(b.sub(n, const(ddof)), x.type.scalar))
        value = b.sqrt(value) if name == "std" else value
    return b.reshape(value, shape=kept) if partial else value


def dot_of_selections(cx: CallContext, x, y, node) -> Atom:
    """`np.dot(x, y)` / `x @ y` of one-dimensional selections by the same mask."""
    first = involved((x, y))
    if not all(isinstance(v, Selection) and not v.rest for v in (x, y)):
        raise escape(cx, first, node, "a matrix product with anything but another "
                                      "one-dimensional selection")
    product = elementwise(cx, [x, y], lambda v: cx.b.mul(*cx.promote(*v, node)), node)
    return reduce_selection(cx, "sum", product, [], {}, node)


register([np.sum], reduction("sum"))
register([np.mean], reduction("mean"))
register([np.prod], reduction("prod"))
register([np.var], reduction("var"))
register([np.std], reduction("std"))
register([np.max, np.amax], reduction("max"))
register([np.min, np.amin], reduction("min"))
register([np.any], _truth_reduction("any"))
register([np.all], _truth_reduction("all"))
register([np.argmax], _arg_extremum("argmax", "max"))
register([np.argmin], _arg_extremum("argmin", "min"))
