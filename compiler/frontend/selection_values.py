"""Selections: `x[mask]`, whose length (the number of True values) is known only at run time.

Contract: a `Selection(array, mask, node)` stands for numpy's `array[mask]` (`mask` a bool
array whose shape is a leading part of `array`'s; `node` the expression that made it, which
errors quote), an array of shape `(k,) + rest` where `k` is the number of True values. The
frontend keeps it as the whole array and the mask, so its shape stays static, and compiles
exactly what numpy computes for the uses below; gradients flow through `select`, so the
adjoint of a read scatters back to the selected positions.
- `spread(conv, mask, array)`: the mask broadcast over the array's trailing dimensions.
- `elementwise(conv, operands, compute, node)`: an elementwise operation (arithmetic,
  comparisons, `&`/`|`/`^`, unary operators, numpy ufuncs, np.clip, np.where(c, a, b),
  `.astype`) of selections with the same mask (the same mask value: `m = x > 0; x[m] * y[m]`),
  numbers and arrays that broadcast against `rest` (numpy broadcasts them against
  `(k,) + rest` whatever `k`) is a Selection of the operation on the whole arrays.
- `count(conv, selection)`: `len()`, an i64. The reductions of selections (np.sum, np.mean,
  ..., `np.dot` of two) are `library/reductions.py`'s.
- `attribute(conv, selection, name, node)`: `.size`, `.ndim`, `.T` (one-dimensional).
- `aligned(conv, value, mask, array, node)`: the whole-array operand standing for `value` in an
  operation with the selection `array[mask]` (the write `x[m] = v` uses it too).
- A returned selection is the result tree `Node("selection", (array, mask))` (the caller,
  in Python, selects `array[mask]`; `_structured` in calls.py rebuilds the selection where
  compiled code calls a jitted function).
- `escape(conv, selection, node, use)`: the error for every other use (its shape is needed
  when compiling), naming the selection's expression and line.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import gast
import numpy as np

from ..errors import AdliteSyntaxError
from ..ir.builder import const
from ..ir.core import I64, Atom, Const, Var
from ..ir.primitive import PRIMITIVES
from ..ir.transform import producers
from ..primitives.shapes import broadcast_shapes
from .conversion_context import ExpressionContext
from .static_requirements import refusal

SUPPORTED = ("elementwise operations with numbers and with selections by the same mask, numpy "
             "ufuncs, np.sum/prod/mean/var/std/max/min/any/all/count_nonzero (whole or "
             "axis=0), len(), np.dot of two selections, np.sort and s[i] (one dimension), "
             "x[mask] = selection")
ELEMENTWISE = (np.clip, np.where, np.round, np.around, abs)  # besides numpy's ufuncs


@dataclass(frozen=True, eq=False)
class Selection:  # not a tuple: the frontend's tuples are Python tuples
    array: Atom
    mask: Atom
    node: object

    @property
    def rest(self) -> tuple[int, ...]:
        return self.array.type.shape[len(self.mask.type.shape):]


@dataclass(frozen=True)
class SelectionIndex:
    """An index made of selections of ints (`x[np.nonzero(m)]`): a frontend-only spec item."""

    items: tuple


def text(node) -> str:
    """The source text of an expression, for messages."""
    try:
        return gast.unparse(node).strip()
    except Exception:  # noqa: BLE001 - a message without the text is still a message
        return "the selection"


def escape(conv: ExpressionContext, selection: Selection, node, use: str) -> AdliteSyntaxError:
    line = getattr(selection.node, "lineno", None)
    where = f" (line {conv.source.first_line + line - 1})" if line else ""
    return refusal(conv.source, node, "mask",
                   f"`{text(selection.node)}`{where} has a length known only at run time (the "
                   f"number of True values of its mask), and {use} needs its shape when "
                   "compiling", f"supported with a boolean selection: {SUPPORTED}; or use "
                   "np.where(mask, x, fill) to keep the shape")


def involved(values) -> Selection | None:
    """The first selection among `values` (None if none)."""
    return next((v for v in values if isinstance(v, Selection)), None)


def aligned(conv: ExpressionContext, value, mask: Atom, array: Atom, node) -> Atom:
    """The operand, over the whole `array`, standing for `value` in an operation with
    `array[mask]`: a selection by the same mask gives its whole array; a number stays; an
    array must broadcast against `array[mask]` for every number of True values."""
    if isinstance(value, Selection):
        if not same_mask(conv, value.mask, mask):
            raise refusal(conv.source, node, "mask",
                          f"`{text(value.node)}` and another selection use different masks: "
                          "numpy pairs their elements in order, which needs the same number "
                          "of True values, known only at run time",
                          "select with one mask value (`m = x > 0; x[m] * y[m]`), or combine "
                          "the whole arrays first")
        return value.array
    value = conv.value(value, node)
    rest = array.type.shape[len(mask.type.shape):]
    shape = value.type.shape or ()
    if len(shape) == len(rest) + 1 and shape[0] == 1:
        value, shape = conv.b.reshape(value, shape=shape[1:]), shape[1:]
    try:
        fits = len(shape) <= len(rest) and broadcast_shapes(shape, rest) == rest
    except ValueError:
        fits = False
    if not fits:
        raise refusal(conv.source, node, "mask",
                      f"an array of shape {shape} with a boolean selection, whose length is "
                      "the number of True values (known only at run time): numpy broadcasts "
                      f"them only when the array fits the trailing shape {rest}",
                      "use a number or an array of the trailing shape, or "
                      "np.where(mask, x, fill) on the whole arrays")
    return value


def same_mask(conv: ExpressionContext, a: Atom, b: Atom) -> bool:
    """Whether masks `a` and `b` are the same value: one atom, or the same pure primitive of
    the same operands (`x[x > 0] * x[x > 0]` computes its mask twice), to a depth of 8."""
    return a is b or _same(producers(conv.b.eqns), a, b, 8)


def _same(defining: dict, a: Atom, b: Atom, depth: int) -> bool:
    if a is b or isinstance(a, Const) and isinstance(b, Const) and a == b:
        return True
    if not (isinstance(a, Var) and isinstance(b, Var)) or depth == 0:
        return False
    ea, eb = defining.get(id(a)), defining.get(id(b))
    return ea is not None and eb is not None and ea.prim == eb.prim and \
        not PRIMITIVES[ea.prim].effectful and ea.subgraphs() == eb.subgraphs() == [] and \
        len(ea.outputs) == 1 and repr(ea.params) == repr(eb.params) and \
        len(ea.inputs) == len(eb.inputs) and \
        all(_same(defining, u, v, depth - 1) for u, v in zip(ea.inputs, eb.inputs, strict=True))


def elementwise(conv: ExpressionContext, operands: list, compute: Callable[[list], Atom],
                node) -> Selection:
    first = involved(operands)
    whole = [aligned(conv, v, first.mask, first.array, node) if _operand(v) else v
             for v in operands]
    result = conv.value(compute(whole), node)
    if result.type.shape != first.array.type.shape:
        result = conv.b.broadcast_to(result, shape=first.array.type.shape)
    return Selection(result, first.mask, first.node)


def _operand(value) -> bool:
    return isinstance(value, Selection | Var | Const)


def spread(conv: ExpressionContext, mask: Atom, array: Atom) -> Atom:
    """The mask broadcast over `array`'s trailing dimensions."""
    extra = len(array.type.shape) - len(mask.type.shape)
    if extra:
        mask = conv.b.reshape(mask, shape=mask.type.shape + (1,) * extra)
        mask = conv.b.broadcast_to(mask, shape=array.type.shape)
    return mask


def count(conv: ExpressionContext, selection: Selection) -> Atom:
    """The number of True values of the mask (`len(x[mask])`), an i64."""
    return conv.b.sum(conv.to_type(selection.mask, I64.with_shape(selection.mask.type.shape)),
                      axis=None, keepdims=False)


def attribute(conv: ExpressionContext, selection: Selection, name: str, node):
    if name == "ndim":
        return const(1 + len(selection.rest))
    if name == "size":
        return conv.b.mul(count(conv, selection), const(math.prod(selection.rest)))
    if name == "T" and not selection.rest:
        return selection
    raise escape(conv, selection, node, f"`.{name}`")
