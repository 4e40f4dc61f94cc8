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
- `read(conv, x, mask, node)`: `x[mask]` where the compiled code may use it: the operand of a
  reduction (`np.sum/np.mean/np.max/np.min(x[mask])`, `x[mask].sum()` ..., marked by
  `before_call`/`expect_method` before the operand is evaluated) gives a `Masked`, which
  `reduce` lowers to a reduction of `np.where(mask, x, fill)`; the read of `x[mask] op= v`
  (marked `augmented` by the normalizer) gives a `MaskedRead`, which `augmented_operands`
  turns into the whole array and `v`; any other use is refused (its shape depends on the
  mask's values). `np.mean` of an empty selection is nan, as numpy's; `np.max/np.min` of one
  raise numpy's ValueError at run time. `before_call` also refuses `np.where(cond)` with one
  argument, np.nonzero, np.argwhere and np.flatnonzero (their shapes depend on the values).
- `whole(conv, mask, x)`: a mask of a leading part of `x`'s shape broadcast over all of `x`.
- `write(conv, x, mask, v, node)`: `x` after `x[mask] = v`, i.e. `np.where(mask, v, x)`, for a
  `v` that broadcasts to `x[mask]` whatever the number of True values (a scalar, or an array
  of the trailing shape); for `x[mask] op= v` the whole-array `x op v`; `np.add.at(x, mask,
  v)` adds `v` there.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import gast
import numpy as np

from ..ir.builder import const
from ..ir.core import BOOL, F64, I64, Atom, Const, Var
from .conversion_context import ExpressionContext

_BITWISE = {gast.BitAnd: ("and_", "&"), gast.BitOr: ("or_", "|"), gast.BitXor: ("ne", "^")}
REDUCTIONS = {np.sum: "sum", np.mean: "mean", np.max: "max", np.amax: "max", np.min: "min",
              np.amin: "min"}
_INDICES = {np.nonzero, np.argwhere, np.flatnonzero}
_USES = "np.sum/np.mean/np.max/np.min(x[mask]), x[mask].sum() (.mean/.max/.min), x[mask] = v " \
    "and x[mask] += v (-=, *=, /=)"


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


class Masked(NamedTuple):
    """`x[mask]` as the operand of a reduction."""

    array: Atom
    mask: Atom


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


def before_call(conv: ExpressionContext, func, node) -> None:
    """Before `node`'s arguments are evaluated: `np.sum(x[mask])` may read `x[mask]`; the
    index-returning functions (`np.where(cond)`, np.nonzero ...) are refused."""
    func = _hashable(func)
    if func in _INDICES or func is np.where and len(node.args) == 1 and not node.keywords:
        name = "np.where(cond) with one argument" if func is np.where else \
            f"np.{func.__name__}"
        raise conv.source.error(node, f"{name} returns the indices of the True values, whose "
                                      "number is known only at run time (compiled code needs "
                                      "array shapes when compiling)",
                                f"use np.where(cond, x, y), or {_USES}")
    if func in REDUCTIONS and node.args and isinstance(node.args[0], gast.Subscript):
        node.args[0].mask_reduction = True


def expect_method(node) -> None:
    """Before `x[mask].sum` is evaluated: its `x[mask]` may be read."""
    if node.attr in ("sum", "mean", "max", "min") and isinstance(node.value, gast.Subscript):
        node.value.mask_reduction = True


def reduction_name(func) -> str | None:
    return REDUCTIONS.get(_hashable(func))


def _hashable(func):
    try:
        hash(func)
    except TypeError:
        return None
    return func


def read(conv: ExpressionContext, x: Atom, mask: Mask, node):
    if getattr(node, "mask_reduction", False):
        return Masked(x, mask.value)
    if getattr(node, "augmented", False):
        return MaskedRead(x, mask.value)
    raise conv.source.error(node, "boolean mask index here: the result's shape depends on the "
                                  "mask's values, which compiled code must know when compiling",
                            f"supported: {_USES}; apply functions before masking "
                            "(np.sum((x ** 2)[mask])), or use np.where(mask, x, 0)")


def whole(conv: ExpressionContext, mask: Atom, x: Atom) -> Atom:
    """The mask broadcast over `x`'s trailing dimensions."""
    extra = len(x.type.shape) - len(mask.type.shape)
    if extra:
        mask = conv.b.reshape(mask, shape=mask.type.shape + (1,) * extra)
        mask = conv.b.broadcast_to(mask, shape=x.type.shape)
    return mask


def reduce(conv: ExpressionContext, name: str, masked: Masked, args, kwargs, node) -> Atom:
    if args or kwargs:
        raise conv.source.error(node, f"{name} of x[mask] with arguments (x[mask] is "
                                      "one-dimensional)", f"call {name} of x[mask] alone")
    b, x = conv.b, masked.array
    if x.type.name == "bool":  # numpy sums booleans as integers
        x = conv.to_type(x, I64.with_shape(x.type.shape))
    mask = whole(conv, masked.mask, x)
    rest = math.prod(x.type.shape[len(masked.mask.type.shape):])
    if name in ("sum", "mean"):
        total = b.sum(b.select(mask, x, const(0, x.type.scalar)), axis=None, keepdims=False)
        if name == "sum":
            return total
        count = b.mul(_count(conv, masked.mask), const(float(rest)))
        total = conv.as_float(total, node)
        return b.div(total, conv.to_type(count, total.type))  # float32 stays float32
    fill = -np.inf if name == "max" else np.inf
    if not x.type.is_float:
        info = np.iinfo(np.int64)
        fill = info.min if name == "max" else info.max
    picked = b.select(mask, x, const(fill, x.type.scalar))
    value = b.op(name, picked, axis=None, keepdims=False)
    b.emit("check", [b.gt(_count(conv, masked.mask), const(0.0))], error="ValueError",
           args=(("str", (f"zero-size array to reduction operation "
                          f"{'maximum' if name == 'max' else 'minimum'} which has no "
                          f"identity",)),))
    return value


def _count(conv: ExpressionContext, mask: Atom) -> Atom:
    """The number of True values of `mask`, a float."""
    return conv.b.sum(conv.to_type(mask, F64.with_shape(mask.type.shape)), axis=None,
                      keepdims=False)


def augmented_operands(conv: ExpressionContext, read_: MaskedRead, y, node) -> tuple[Atom, Atom]:
    """(x, v) of `x[mask] op v` in `x[mask] op= v`: the whole array and `v` shaped for it."""
    return read_.array, _value(conv, read_.array, read_.mask, conv.numeric(y, node), node)


def _value(conv: ExpressionContext, x: Atom, mask: Atom, v: Atom, node) -> Atom:
    """`v` shaped to broadcast over `x` as it broadcasts over `x[mask]` for any count."""
    rest = x.type.shape[len(mask.type.shape):]
    shape = v.type.shape or ()
    if len(shape) == len(rest) + 1 and shape[0] == 1:
        v, shape = conv.b.reshape(v, shape=shape[1:]), shape[1:]
    try:
        fits = len(shape) <= len(rest) and np.broadcast_shapes(shape, rest) == rest
    except ValueError:
        fits = False
    if not fits:
        raise conv.source.error(node, f"x[mask] = v with v of shape {shape}: numpy needs v to "
                                      "broadcast to x[mask], whose length is the number of "
                                      "True values (known only at run time)",
                                "assign a scalar (or an array of x's trailing shape), or use "
                                "np.where(mask, v, x)")
    return v


def write(conv: ExpressionContext, x: Atom, mask: Mask, v: Atom, node,
          accumulate: bool = False) -> Atom:
    """`x` after `x[mask] = v` (`np.add.at(x, mask, v)` with `accumulate`)."""
    spread = whole(conv, mask.value, x)
    if not getattr(node, "augmented", False):
        v = _value(conv, x, mask.value, v, node)
    v = conv.to_type(v, x.type.with_shape(v.type.shape))
    if accumulate:
        v = conv.b.add(x, v)
    if v.type.shape != x.type.shape and v.type.is_array:
        v = conv.b.broadcast_to(v, shape=x.type.shape)
    return conv.b.select(spread, v, x)
