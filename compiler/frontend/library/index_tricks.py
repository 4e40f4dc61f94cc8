"""`np.r_[...]` and `np.c_[...]` in compiled code, as numpy's `AxisConcatenator` builds them.

Contract: `is_concatenator(obj)` tells `np.r_` / `np.c_`; `subscript(conv, obj, node)` is the
array `obj[items]` gives, with numpy's rules (r_: axis 0, at least 1-d; c_: axis -1, at
least 2-d, 1-d items as columns):
- an array or a list / tuple of numbers (`np.asarray` of it) at least `ndmin`-d, its
  dimensions moved as numpy's `trans1d` says when it has fewer;
- a number: a one-element array of `ndmin` dimensions;
- a slice `a:b:s` of numbers known when compiling: `np.arange(a, b, s)`, `a:b:nj` (an
  imaginary step written as a literal) `np.linspace(a, b, n)`;
- a first string directive `'axis'`, `'axis,ndmin'` or `'axis,ndmin,trans1d'`; `'r'` /
  `'c'` (numpy's matrices) are refused at the line, and so is a directive elsewhere or one
  numpy does not know (numpy's ValueError message).
The items' dtype is numpy's result type of the arrays' dtypes, Python numbers taking part only
where they are of a higher kind (`np.r_[f32_array, 2.5]` stays float32); the items are then
concatenated (numpy's errors for shapes that do not fit, when compiling); gradients flow to
every array item.
"""

from __future__ import annotations

import gast
import numpy as np

from ...errors import AdliteValueError
from ...ir.builder import const
from ...ir.core import BOOL, F32, F64, I64, Type
from ..conversion_context import ExpressionContext
from .registry import lookup

_KINDS = (BOOL, I64, F32, F64)


def is_concatenator(obj) -> bool:
    return obj is np.r_ or obj is np.c_


def _result_type(arrays: list[Type], scalars: list[Type]) -> Type:
    """numpy's result type: the arrays' common type (int64 and float32 make float64), raised
    by the numbers only to a higher kind (bool < int < float)."""
    kinds = arrays or scalars
    dtype = max(kinds, key=_KINDS.index)
    if F32 in kinds and I64 in kinds:
        dtype = F64
    for s in scalars if arrays else ():
        if _KINDS.index(s) > _KINDS.index(dtype) and not (s == F64 and dtype == F32):
            dtype = F64 if s.is_float else s
    return dtype


def _bound(conv: ExpressionContext, node, default):
    if node is None:
        return default
    value = conv.static(conv.expr(node), node, "a bound of a slice in np.r_ / np.c_",
                        "sequence")
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise conv.source.error(node, "the bounds of a slice in np.r_ / np.c_ are numbers")
    return value


def _range(conv: ExpressionContext, item: gast.Slice, node):
    """The 1-d array of a slice item: arange, or linspace for an imaginary step literal."""
    start, stop = _bound(conv, item.lower, 0), _bound(conv, item.upper, None)
    if stop is None:
        raise conv.source.error(item, "a slice in np.r_ / np.c_ needs its stop")
    step = item.step
    if isinstance(step, gast.Constant) and isinstance(step.value, complex):
        count = const(int(abs(step.value)))
        return lookup(np.linspace)(conv, [const(start), const(stop), count], {}, node)
    return lookup(np.arange)(conv, [const(start), const(stop), const(_bound(conv, step, 1))],
                             {}, node)


def _directive(conv: ExpressionContext, text: str, options: dict, item) -> None:
    """`options` (axis, ndmin, trans1d) as the string directive `text` sets them."""
    if text in ("r", "c"):
        raise conv.source.error(item, f"the directive {text!r} makes a numpy matrix, which "
                                      "compiled code does not have",
                                "concatenate arrays: np.r_[a, b], np.c_[a, b]")
    parts = text.split(",")
    try:
        numbers = [int(p) for p in parts[:3]]
    except ValueError:
        numbers = []
    if not numbers or len(parts) == 2 and len(numbers) < 2:
        message = f"unknown special directive {text!r}" if "," in text else \
            "unknown special directive"
        raise conv.source.error(item, message, kind=AdliteValueError)
    options.update(zip(("axis", "ndmin", "trans1d"), numbers, strict=False))


def _shaped(conv: ExpressionContext, x, options: dict, transposed: bool):
    """`x` with at least `ndmin` dimensions, its own moved as numpy's `trans1d` says."""
    b, ndmin, trans1d = conv.b, options["ndmin"], options["trans1d"]
    shape = tuple(x.type.shape or ())
    if len(shape) >= ndmin:
        return x
    x = b.reshape(x, shape=(1,) * (ndmin - len(shape)) + shape)
    if not transposed or trans1d == -1:
        return x
    k2, k1 = ndmin - len(shape), trans1d
    if k1 < 0:
        k1 += k2 + 1
    axes = list(range(ndmin))
    return b.transpose(x, axes=tuple(axes[:k1] + axes[k2:] + axes[k1:k2]))


def _sliced(conv: ExpressionContext, x, options: dict):
    """A slice's range at least `ndmin`-d, its last axis swapped with `trans1d` (numpy's)."""
    ndmin, trans1d = options["ndmin"], options["trans1d"]
    if ndmin <= 1:
        return x
    x = conv.b.reshape(x, shape=(1,) * (ndmin - 1) + x.type.shape)
    if trans1d == -1:
        return x
    axes = list(range(ndmin))
    axes[-1], axes[trans1d] = axes[trans1d], axes[-1]
    return conv.b.transpose(x, axes=tuple(axes))


def subscript(conv: ExpressionContext, obj, node):
    """`np.r_[items]` / `np.c_[items]` (see the module doc); `node` the subscript."""
    items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    options = {"axis": obj.axis, "ndmin": obj.ndmin, "trans1d": obj.trans1d}
    parts = []  # (array, is a number)
    for k, item in enumerate(items):
        if isinstance(item, gast.Slice):
            parts.append((_sliced(conv, _range(conv, item, node), options), False))
            continue
        value = conv.expr(item)
        if isinstance(value, str):
            if k != 0:
                raise conv.source.error(item, "special directives must be the first entry.",
                                        kind=AdliteValueError)
            _directive(conv, value, options, item)
            continue
        if static_number(value):
            parts.append((conv.value(value, item), True))
            continue
        x = lookup(np.asarray)(conv, [value], {}, item)
        parts.append((_shaped(conv, x, options, True), False))
    if not parts:
        raise conv.source.error(node, "need at least one array to concatenate",
                                kind=AdliteValueError)
    dtype = _result_type([x.type.scalar for x, number in parts if not number],
                         [x.type.scalar for x, number in parts if number])
    arrays = [_shaped(conv, conv.to_type(x, dtype), options, False) for x, _ in parts]
    ndim = len(arrays[0].type.shape)
    axis = options["axis"]
    if not -ndim <= axis < ndim:
        raise conv.source.error(node, f"axis {axis} is out of bounds for array of dimension "
                                      f"{ndim}", kind=AdliteValueError)
    return lookup(np.concatenate)(conv, [tuple(arrays)], {"axis": const(axis % ndim)}, node)


def static_number(value) -> bool:
    """A number item (numpy's scalar case): a compiled scalar."""
    return hasattr(value, "type") and not value.type.is_array
