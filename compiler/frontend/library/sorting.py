"""Sorting in compiled code: `np.sort`, `np.argsort`, `np.take_along_axis`, `x.sort()`,
`x.argsort()`.

Contract: each lane along `axis` (an int known when compiling, default -1; None sorts the
flattened array) is ordered with the `argsort` primitive (`primitives/sorting.py`): ascending,
NaN last, and *stable* whatever `kind` says ('quicksort', 'mergesort', 'heapsort', 'stable'
and None are accepted). numpy's default kind leaves the order of equal elements unspecified;
here sorted values are always numpy's, and `np.argsort` gives numpy's indices whenever a lane
has no ties (with ties, those of `kind='stable'`). `np.argsort` is an int64 array.
`np.sort(x)` is `take_along_axis(x, argsort(x))`, and `take_along_axis` is one `take` from the
flattened array at `lane * n + index`, so the gradient of a sort scatters the cotangent back
through the permutation (`take_add`) and its tangent is gathered (`take`), to any order.
`np.take_along_axis(arr, indices, axis)` takes int64 indices of `arr`'s rank, broadcast with
`arr` on the other axes as numpy does; negative indices wrap, out-of-range ones raise numpy's
IndexError at run time (`fancy.py`'s check). `x.sort(axis=-1, kind=None)` sorts the local
array `x` in place (a write into `x`, seen through its views as an assignment `x[...] = ...`
is). `order=` (structured arrays) is refused. `np.median(a, axis=None, keepdims=False)` (an
int axis or None) is numpy's: the middle element of each sorted lane or the mean of the two
middle ones, NaN for a lane holding a NaN; its gradient flows to those elements.
`np.quantile(a, q, axis=None, keepdims=False, method='linear')` and `np.percentile` (q / 100)
are numpy's linear interpolation between the two sorted elements around the virtual index
`(n - 1) * q`, computed with numpy's own steps (so the values are numpy's to the bit for
float64 data); `q` is a number or a sequence of numbers known when compiling (the result's
leading axes), each checked in range as numpy does; NaN for a lane holding a NaN; gradients
flow to the two elements with weights `1 - gamma` and `gamma`. Other methods are refused.
"""

from __future__ import annotations

import math

import gast
import numpy as np

from ...errors import AdliteValueError
from ...ir.builder import const
from ...ir.core import F64, I64, Atom
from ...ir.index import WHOLE
from ...primitives.shapes import broadcast_shapes
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from ..fancy import checked_index
from .building import one_axis
from .registry import REQUIRED, bind_params, lookup, param, register

KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _lanes(cx: CallContext, x: Atom, axis_value, node) -> tuple[Atom, int]:
    """(x, axis): `x` flattened when `axis` is None; a number is refused."""
    x = cx.numeric(cx.array(x, node), node)
    if cx.static(axis_value, node, "its `axis`", "option") is None:
        return cx.b.reshape(x, shape=(math.prod(x.type.shape),)), 0
    return x, one_axis(cx, axis_value, len(x.type.shape), node)


def _to_last(cx: CallContext, x: Atom, axis: int) -> Atom:
    ndim = len(x.type.shape)
    if axis == ndim - 1:
        return x
    return cx.b.transpose(x, axes=tuple(d for d in range(ndim) if d != axis) + (axis,))


def _from_last(cx: CallContext, x: Atom, axis: int) -> Atom:
    ndim = len(x.type.shape)
    if axis == ndim - 1:
        return x
    order = tuple(d for d in range(ndim) if d != axis) + (axis,)
    return cx.b.transpose(x, axes=tuple(order.index(d) for d in range(ndim)))


def _check_kind(cx: CallContext, p, node) -> None:
    kind = param(cx, p, "kind", node)
    if kind not in KINDS:
        raise cx.source.error(node, f"sort kind must be one of 'quick', 'heap', or 'stable' "
                              f"(got {kind!r})")
    if param(cx, p, "order", node) is not None:
        raise cx.source.error(node, "sorting with order= (structured arrays) is not "
                              "supported", "sort a plain array")


def argsort(cx: CallContext, x: Atom, axis: int) -> Atom:
    """The int64 positions that sort `x` along `axis` (stable, NaN last)."""
    return _from_last(cx, cx.b.argsort(_to_last(cx, x, axis)), axis)


def take_along(cx: CallContext, x: Atom, idx: Atom, axis: int) -> Atom:
    """`np.take_along_axis(x, idx, axis)` for `idx` already in [0, n): one `take` from the
    flattened `x` (both broadcast on the other axes first)."""
    b = cx.b
    x, idx = _to_last(cx, x, axis), _to_last(cx, idx, axis)
    n, m = x.type.shape[-1], idx.type.shape[-1]
    lead = broadcast_shapes(x.type.shape[:-1], idx.type.shape[:-1])
    if x.type.shape[:-1] != lead:
        x = b.broadcast_to(x, shape=lead + (n,))
    if idx.type.shape[:-1] != lead:
        idx = b.broadcast_to(idx, shape=lead + (m,))
    lanes = math.prod(lead)
    flat = idx
    if lanes > 1:
        starts = b.mul(b.op("arange", n=lanes, dtype=I64), const(n))
        flat = b.add(idx, b.reshape(starts, shape=lead + (1,)))
    taken = b.take(b.reshape(x, shape=(lanes * n,)), flat, axis=0)
    return _from_last(cx, taken, axis)


def sort(cx: CallContext, x: Atom, axis: int) -> Atom:
    return take_along(cx, x, argsort(cx, x, axis), axis)


_SORT = {"a": REQUIRED, "axis": -1, "kind": None, "order": None, "stable": None}


def _np_sort(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "sort", args, kwargs, _SORT, node)
    _check_kind(cx, p, node)
    x, axis = _lanes(cx, p["a"], p["axis"], node)
    return sort(cx, x, axis)


def _np_argsort(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "argsort", args, kwargs, _SORT, node)
    _check_kind(cx, p, node)
    x, axis = _lanes(cx, p["a"], p["axis"], node)
    return argsort(cx, x, axis)


def _take_along_axis(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "take_along_axis", args, kwargs,
                    {"arr": REQUIRED, "indices": REQUIRED, "axis": -1}, node)
    x = cx.array(p["arr"], node)
    idx = cx.array(p["indices"], node)
    if idx.type.name != "i64":
        raise cx.source.error(node, "`indices` must be an integer array",
                              "use np.argsort's result or an int64 array")
    if param(cx, p, "axis", node) is None:
        if len(idx.type.shape) != 1:
            raise cx.source.error(node, "when axis=None, `indices` must have a single "
                                  "dimension.")
        x, axis = cx.b.reshape(x, shape=(math.prod(x.type.shape),)), 0
    else:
        if len(idx.type.shape) != len(x.type.shape):
            raise cx.source.error(node, "`indices` and `arr` must have the same number of "
                                  "dimensions")
        axis = one_axis(cx, p["axis"], len(x.type.shape), node)
    try:
        broadcast_shapes(*(s[:axis] + s[axis + 1:] for s in (x.type.shape, idx.type.shape)))
    except ValueError as e:
        raise cx.source.error(node, str(e)) from None
    idx = checked_index(cx, idx, axis, x.type.shape[axis])
    return take_along(cx, x, idx, axis)


def _median(cx: CallContext, args, kwargs, node):
    """numpy's median: the middle element of each sorted lane, or the mean (a + b) / 2 of
    the two middle ones; NaN where the lane holds a NaN (it sorts last)."""
    p = bind_params(cx, "median", args, kwargs, {"a": REQUIRED, "axis": None, "out": None,
                                                 "overwrite_input": False, "keepdims": False},
                    node)
    if param(cx, p, "out", node) is not None:
        raise cx.source.error(node, "np.median(out=...) is not supported",
                              "assign the result")
    x = cx.as_float(cx.array(p["a"], node), node)
    shape, keepdims = x.type.shape, bool(param(cx, p, "keepdims", node))
    x, axis = _lanes(cx, x, p["axis"], node)
    n = x.type.shape[axis]
    if n == 0:
        raise cx.source.error(node, "np.median over an empty axis (numpy returns nan with a "
                              "RuntimeWarning)", "check the length first")
    b, o = cx.b, BuilderOps(cx.b)
    s = _to_last(cx, sort(cx, x, axis), axis)
    last = len(s.type.shape) - 1
    middle = o.slice_along(s, last, n // 2, n // 2 + 1)
    if n % 2 == 0:
        below = o.slice_along(s, last, n // 2 - 1, n // 2)
        middle = b.div(b.add(below, middle), const(2.0, x.type.scalar))
    largest = o.slice_along(s, last, n - 1, n)
    middle = b.select(b.ne(largest, largest), largest, middle)
    if keepdims:
        out = tuple(1 if param(cx, p, "axis", node) is None or d == axis else size
                    for d, size in enumerate(shape))
    else:
        out = s.type.shape[:-1] if param(cx, p, "axis", node) is not None else ()
    return o.reshape(middle, out or None)


def _quantile(name: str, scale: float):
    """np.quantile (`scale` 1) and np.percentile (`scale` 100)."""
    bounds = "Quantiles must be in the range [0, 1]" if scale == 1 else \
        "Percentiles must be in the range [0, 100]"

    def lower(cx: CallContext, args, kwargs, node):
        p = bind_params(cx, name, args, kwargs, {
            "a": REQUIRED, "q": REQUIRED, "axis": None, "out": None, "overwrite_input": False,
            "method": "linear", "keepdims": False, "weights": None, "interpolation": None},
            node)
        for option in ("out", "weights", "interpolation"):
            if param(cx, p, option, node) is not None:
                raise cx.source.error(node, f"np.{name}({option}=...) is not supported",
                                      "the default linear method compiles")
        if param(cx, p, "method", node) != "linear":
            raise cx.source.error(node, f"np.{name}(method={param(cx, p, 'method', node)!r}) "
                                        "is not supported", "method='linear' compiles")
        q = np.asarray(param(cx, p, "q", node, "value"))
        if q.dtype.kind not in "iuf":
            raise cx.source.error(node, f"np.{name}: q must be a number or a sequence of numbers")
        fractions = q / scale if scale != 1 else q
        if not np.all((fractions >= 0) & (fractions <= 1)):
            raise cx.source.error(node, bounds, kind=AdliteValueError)
        x = cx.array(p["a"], node)
        x = x if x.type.is_float else cx.to_type(x, F64.with_shape(x.type.shape))
        shape, keepdims = x.type.shape, bool(param(cx, p, "keepdims", node))
        x, axis = _lanes(cx, x, p["axis"], node)
        s = _to_last(cx, sort(cx, x, axis), axis)
        lead = s.type.shape[:-1]
        parts = [BuilderOps(cx.b).reshape(_interpolated(cx, s, fraction), lead or None)
                 for fraction in fractions.reshape(-1)]
        result = parts[0] if q.ndim == 0 else cx.b.pack(*parts) if not lead else \
            lookup(np.stack)(cx, [tuple(parts)], {}, node)
        if keepdims:
            lead = tuple(1 if param(cx, p, "axis", node) is None or d == axis else size
                         for d, size in enumerate(shape))
        return BuilderOps(cx.b).reshape(result, (q.shape + lead) or None)

    return lower


def _interpolated(cx: CallContext, s: Atom, q) -> Atom:
    """numpy's linear quantile `q` of each lane of the sorted `s` (lanes last), of shape
    lanes + (1,): `_lerp` between the elements around the virtual index, NaN for a lane
    whose last (largest) element is NaN."""
    b, o, n = cx.b, BuilderOps(cx.b), s.type.shape[-1]
    last = n - 1
    virtual = (n - 1) * q  # numpy's arithmetic: an int for an int q, else float64
    largest = o.slice_along(s, len(s.type.shape) - 1, last, n)
    if isinstance(virtual, np.integer):  # numpy takes that element
        value = o.slice_along(s, len(s.type.shape) - 1, int(virtual), int(virtual) + 1)
    else:
        before = -1 if virtual >= n - 1 else math.floor(virtual)  # numpy's indexes
        after = -1 if virtual >= n - 1 else before + 1
        gamma = float(virtual - np.float64(before))
        lo, hi = (o.slice_along(s, len(s.type.shape) - 1, i % n, i % n + 1)
                  for i in (before, after))
        t = s.type.scalar
        diff = b.sub(hi, lo)
        value = b.sub(hi, b.mul(diff, const(1.0 - gamma, t))) if gamma >= 0.5 else \
            b.add(lo, b.mul(diff, const(gamma, t)))
    return b.select(b.ne(largest, largest), largest, value)


def sort_in_place(cx: CallContext, x: Atom, args, kwargs, node) -> None:
    """The statement `x.sort(axis=-1, kind=None)` on the local array named `x`."""
    target = node.func.value
    if not isinstance(target, gast.Name):
        raise cx.source.error(node, "x.sort() sorts a named local array in place",
                              "write y = np.sort(expression)")
    p = bind_params(cx, "sort", [x, *args], kwargs, _SORT, node)
    _check_kind(cx, p, node)
    if param(cx, p, "axis", node) is None:
        raise cx.source.error(node, "an integer is required (got type NoneType)")
    x, axis = _lanes(cx, x, p["axis"], node)
    cx.write(target.id, None, WHOLE, sort(cx, x, axis), node)


register([np.sort], _np_sort)
register([np.argsort], _np_argsort)
register([np.take_along_axis], _take_along_axis)
register([np.median], _median)
register([np.quantile], _quantile("quantile", 1))
register([np.percentile], _quantile("percentile", 100))
