"""Boolean masks and the bitwise operators on booleans, in the forms that keep shapes static.

Contract:
- `bitwise(conv, op, x, y, node)`: `x & y`, `x | y`, `x ^ y` (op a gast operator) on bool
  scalars and arrays (numpy's logical and/or/xor, broadcast); integer and float operands are
  refused with a hint. `invert(conv, x, node)`: `~x`, numpy's logical not of a bool array,
  `-x - 1` of an integer (Python's and numpy's `~`); `~` of a bool scalar (Python's `~True`
  is -2, numpy's `~np.True_` is False) and of a float are refused.
- `mask_item(conv, x, value, count, node)`: the `Mask` spec item an index item evaluating to
  the bool array `value` is (None when it is not one); numpy's IndexError at compile time when
  its shape is not a leading part of `x`'s, refused when mixed with other index items.
- `read(conv, x, mask, node)`: `x[mask]`: a `selection_values.Selection` (which see for its
  uses), or for the read of `x[mask] op= v` (marked `augmented` by the normalizer) a
  `MaskedRead`, which `augmented_operands` turns into the whole array and `v`.
- `write(conv, x, mask, v, node)`: `x` after `x[mask] = v`, i.e. `np.where(mask, v, x)`, for a
  `v` that broadcasts to `x[mask]` whatever the number of True values (a scalar, an array of
  the trailing shape, or a selection by the same mask: `x[m] = np.sqrt(x[m])`); for
  `x[mask] op= v` the whole-array `x op v`; `np.add.at(x, mask, v)` adds `v` there.
"""

from __future__ import annotations

from typing import NamedTuple

import gast

from ..ir.builder import const
from ..ir.core import BOOL, Atom, Const, Var
from .conversion_context import ExpressionContext
from .selection_values import Selection, aligned, spread

_BITWISE = {gast.BitAnd: ("and_", "&"), gast.BitOr: ("or_", "|"), gast.BitXor: ("ne", "^")}


def is_bitwise(op) -> bool:
    return type(op) in _BITWISE


def bitwise(conv: ExpressionContext, op, x, y, node) -> Atom:
    prim, symbol = _BITWISE[type(op)]
    x, y = conv.value(x, node), conv.value(y, node)
    kinds = {x.type.name, y.type.name}
    if kinds != {"bool"}:
        kind = (kinds - {"bool"}).pop()
        raise conv.source.error(node, f"`{symbol}` on {kind} values: compiled code "
                                      "supports the bitwise operators on booleans (masks) only",
                                "compare first (`(x > 0) & (y < 1)`), or use np.logical_and/"
                                "np.logical_or")
    return conv.b.op(prim, x, y)


def invert(conv: ExpressionContext, x, node) -> Atom:
    x = conv.value(x, node)
    if x.type.name == "bool" and x.type.is_array:
        return conv.b.not_(x)
    if x.type.name == "bool":
        raise conv.source.error(node, "`~` of a bool scalar: Python's ~True is -2, numpy's "
                                      "~np.True_ is False", "use `not`")
    if x.type.is_float:
        raise conv.source.error(node, f"TypeError: bad operand type for unary ~: {x.type}",
                                "`~` applies to integers and bool arrays")
    return conv.b.sub(conv.b.neg(x), const(1))


class Mask(NamedTuple):
    """A boolean mask as the whole index (a frontend-only spec item)."""

    value: Atom
    node: object


class MaskedRead(NamedTuple):
    """`x[mask]` read by `x[mask] op= v`."""

    array: Atom
    mask: Atom


def mask_item(conv: ExpressionContext, x: Atom, value, count: int, node) -> Mask | None:
    if not (isinstance(value, Var | Const) and value.type.is_array
            and value.type == BOOL.with_shape(value.type.shape)):
        return None
    shape, xs = value.type.shape, x.type.shape
    for axis, (n, m) in enumerate(zip(xs, shape, strict=False)):
        if n != m:
            raise conv.source.error(node, f"IndexError: boolean index did not match indexed "
                                          f"array along axis {axis}; size of axis is {n} but "
                                          f"size of corresponding boolean axis is {m}")
    if len(shape) > len(xs):
        raise conv.source.error(node, f"IndexError: too many indices for array: array is "
                                      f"{len(xs)}-dimensional, but {len(shape)} were indexed")
    if count != 1:
        raise conv.source.error(node, "a boolean mask together with other index items",
                                "index with the mask alone: x[mask]")
    return Mask(value, node)


def is_mask(spec) -> bool:
    return len(spec) == 1 and isinstance(spec[0], Mask)


def read(conv: ExpressionContext, x: Atom, mask: Mask, node):
    if getattr(node, "augmented", False):
        return MaskedRead(x, mask.value)
    return Selection(x, mask.value, node)


def augmented_operands(conv: ExpressionContext, read_: MaskedRead, y, node) -> tuple[Atom, Atom]:
    """(x, v) of `x[mask] op v` in `x[mask] op= v`: the whole array and `v` shaped for it."""
    if not isinstance(y, Selection):
        y = conv.numeric(y, node)
    return read_.array, aligned(conv, y, read_.mask, read_.array, node)


def write(conv: ExpressionContext, x: Atom, mask: Mask, v, node,
          accumulate: bool = False) -> Atom:
    """`x` after `x[mask] = v` (`np.add.at(x, mask, v)` with `accumulate`)."""
    spread_mask = spread(conv, mask.value, x)
    if not getattr(node, "augmented", False):
        v = aligned(conv, v, mask.value, x, node)
    v = conv.to_type(v, x.type.with_shape(v.type.shape))
    if accumulate:
        v = conv.b.add(x, v)
    if v.type.shape != x.type.shape and v.type.is_array:
        v = conv.b.broadcast_to(v, shape=x.type.shape)
    return conv.b.select(spread_mask, v, x)
