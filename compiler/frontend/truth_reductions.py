"""np.any / np.all and np.argmax / np.argmin in compiled code (not differentiated).

Contract: registers, into the table of `functions.py`:
- `np.any(x, axis=None, keepdims=False)` / `np.all(...)`: whether some (every) element along
  `axis` is true (nonzero; NaN is true): the count of true (false) elements compared with 0,
  so a reduction over no element gives numpy's False (True);
- `np.argmax(x, axis=None, keepdims=False)` / `np.argmin(...)`: the int64 index of the
  first extremum along `axis` (of the flattened array when None), numpy's NaN rule included
  (the first NaN wins): the smallest position where `x` equals the reduction's max (min), or
  is NaN where that is NaN. An empty axis or an axis out of range is refused when compiling,
  as numpy raises.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir.builder import const
from ..ir.core import F64, I64
from .array_functions import reduce
from .functions import refuse_keywords, register_with_keywords


def _option(conv, args, kwargs, key, default, node):
    """The second positional argument (axis) or keyword `key`, known when compiling."""
    if key == "axis" and len(args) == 2:
        return conv.static(args[1], node)
    return conv.static(kwargs[key], node) if key in kwargs else default


def _truth(conv, x):
    return x if x.type.name == "bool" else conv.b.ne(x, const(0, x.type.scalar))


def _truth_reduction(name):
    def lower(conv, args, kwargs, node):
        refuse_keywords(conv, kwargs, node, ("axis", "keepdims"))
        if not 1 <= len(args) <= 2:
            raise conv.source.error(node, f"np.{name}() takes x and axis, got {len(args)} "
                                          "arguments")
        axis = _option(conv, args, kwargs, "axis", None, node)
        keepdims = _option(conv, args, kwargs, "keepdims", False, node)
        truth = _truth(conv, conv.numeric(args[0], node))
        if name == "all":
            truth = conv.b.not_(truth)
        if not truth.type.is_array:
            return truth if name == "any" else conv.b.not_(truth)
        count = reduce(conv, "sum", truth, axis, keepdims, node)
        zero = const(0, count.type.scalar)
        return conv.b.gt(count, zero) if name == "any" else conv.b.eq(count, zero)

    return lower


def _arg_extremum(name, prim):
    def lower(conv, args, kwargs, node):
        refuse_keywords(conv, kwargs, node, ("axis", "keepdims"))
        keepdims = bool(_option(conv, args, kwargs, "keepdims", False, node))
        if not 1 <= len(args) <= 2:
            raise conv.source.error(node, f"np.{name}() takes x and axis, got {len(args)} "
                                          "arguments")
        axis = _option(conv, args, kwargs, "axis", None, node)
        b, x = conv.b, conv.numeric(args[0], node)
        if not x.type.is_array:
            return const(0)
        kept = tuple(1 for _ in x.type.shape)
        if axis is None:
            x, axis = b.reshape(x, shape=(math.prod(x.type.shape),)), 0
        shape = x.type.shape
        if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
            raise conv.source.error(node, f"axis {axis} is out of bounds for array of "
                                          f"dimension {len(shape)}")
        axis %= len(shape)
        n = shape[axis]
        if n == 0:
            raise conv.source.error(node, f"attempt to get {name} of an empty sequence")
        best = reduce(conv, prim, x, axis, True, node)
        hit = b.eq(x, best)
        if x.type.is_float:
            hit = b.or_(hit, b.and_(b.ne(x, x), b.ne(best, best)))
        position = b.reshape(b.op("arange", n=n, dtype=F64),
                             shape=tuple(n if d == axis else 1 for d in range(len(shape))))
        first = b.min(b.select(hit, position, const(math.inf)), axis=(axis,), keepdims=keepdims)
        if keepdims and first.type.shape != kept and len(shape) == 1:  # axis None
            first = b.reshape(first, shape=kept)
        return conv.to_type(first, I64.with_shape(first.type.shape) if first.type.is_array
                            else I64)

    return lower


register_with_keywords([np.any], _truth_reduction("any"))
register_with_keywords([np.all], _truth_reduction("all"))
register_with_keywords([np.argmax], _arg_extremum("argmax", "max"))
register_with_keywords([np.argmin], _arg_extremum("argmin", "min"))
