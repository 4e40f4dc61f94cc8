"""Calls with a boolean selection (`x[mask]`, see selection_values) among their operands.

Contract: `selection_call(conv, func, args, kwargs, node)` is the value of calling the library
function or builtin `func` (or the method `func`, a `calls.Method` of a selection) on
arguments of which at least one is a `Selection`: the reductions of
`reductions.SELECTION_REDUCTIONS` and their methods, `len`, np.dot/np.inner of two
one-dimensional selections, and elementwise functions (numpy ufuncs, np.clip, np.where with
three arguments, builtin abs, and the methods .astype, .clip, .round) giving a selection,
np.sort of a one-dimensional selection (`sorted_selection`); any other function needs the
selection's shape and is refused, naming it. `selection_item` is `s[i]`: an int (the i-th
selected item) or a selection of bools by the same mask (both masks). Python functions the
user wrote are not calls of this kind: they are inlined, their bodies see the selection.
"""

from __future__ import annotations

import builtins

import numpy as np

from ..ir.builder import const
from ..ir.core import I64
from ..ir.index import Int
from .conversion_context import StatementContext
from .library import arrays, registry
from .library.reductions import SELECTION_REDUCTIONS, dot_of_selections, reduce_selection
from .selection_values import (
    ELEMENTWISE,
    Selection,
    count,
    elementwise,
    escape,
    involved,
    same_mask,
)

METHOD_REDUCTIONS = ("sum", "prod", "mean", "var", "std", "max", "min", "any", "all")
ELEMENTWISE_METHODS = ("astype", "clip", "round")
METHODS = METHOD_REDUCTIONS + ELEMENTWISE_METHODS


def selection_call(conv: StatementContext, func, args: list, kwargs: dict, node):
    if isinstance(getattr(func, "array", None), Selection):  # x[m].sum(), x[m].astype(t)
        return _method(conv, func.array, func.name, args, kwargs, node)
    selection = involved(args + list(kwargs.values()))
    if func is builtins.len and len(args) == 1:
        return count(conv, selection)
    name = _reduction(func)
    if name is not None and args and args[0] is selection:
        return reduce_selection(conv, name, selection, args[1:], kwargs, node)
    if (func is np.dot or func is np.inner) and len(args) == 2 and not kwargs:
        return dot_of_selections(conv, args[0], args[1], node)
    if func is np.sort and len(args) == 1 and args[0] is selection and not kwargs:
        return sorted_selection(conv, selection, node)
    if involved(kwargs.values()) is None and (
            isinstance(func, np.ufunc) or any(func is f for f in ELEMENTWISE)):
        rule = registry.lookup(func)
        if rule is not None:
            return elementwise(conv, args, lambda whole: rule(conv, whole, kwargs, node), node)
    name = registry.library_function(func) or getattr(func, "__name__", "this function")
    raise escape(conv, selection, node, f"{name}()")


def _method(conv: StatementContext, selection: Selection, name: str, args, kwargs, node):
    if name in METHOD_REDUCTIONS:
        return reduce_selection(conv, name, selection, args, kwargs, node)
    if name in ELEMENTWISE_METHODS and involved(list(args) + list(kwargs.values())) is None:
        return elementwise(conv, [selection], lambda whole: arrays.method(
            conv, whole[0], name, args, kwargs, node), node)
    raise escape(conv, selection, node, f"the method .{name}()")


def _one_dimensional(conv: StatementContext, selection: Selection, use: str, node) -> None:
    if selection.rest or len(selection.mask.type.shape) != 1:
        raise escape(conv, selection, node, f"{use} of a selection of more than one dimension")


def sorted_selection(conv: StatementContext, selection: Selection, node) -> Selection:
    """`np.sort(x[m])` (one-dimensional): the whole array sorted with the unselected values
    replaced by a value sorting last (NaN for floats, as numpy sorts NaN last: selected NaNs
    stay among the first k; the largest int; True), selected by its first k positions."""
    _one_dimensional(conv, selection, "np.sort()", node)
    b, x, m = conv.b, selection.array, selection.mask
    t = x.type.scalar
    fill = const(np.nan if t.is_float else True if t.name == "bool" else 2 ** 63 - 1, t)
    ordered = registry.lookup(np.sort)(conv, [b.select(m, x, fill)], {}, node)
    positions = b.op("arange", n=x.type.shape[0], dtype=I64)
    return Selection(ordered, b.lt(positions, count(conv, selection)), node)


def selection_item(conv: StatementContext, selection: Selection, index, node):
    """`s[i]` of a selection: with `i` a selection of bools by the same mask (`s[s > 0]`), the
    selection by both masks; with an int (one-dimensional selections), its i-th selected item
    (numpy's IndexError out of range, negative `i` from the end)."""
    b, m = conv.b, selection.mask
    if isinstance(index, Selection):
        if index.array.type.name != "bool" or index.array.type.shape != m.type.shape or \
                not same_mask(conv, index.mask, m):
            raise escape(conv, selection, node, "indexing it with another selection")
        return Selection(selection.array, b.and_(m, index.array), node)
    _one_dimensional(conv, selection, "indexing", node)
    i = conv.scalar(index, node)
    if i.type.name not in ("i64", "bool"):
        raise escape(conv, selection, node, f"indexing it with a {i.type}")
    i = conv.to_type(i, I64)
    k = count(conv, selection)
    b.emit("check", [b.and_(b.ge(i, b.neg(k)), b.lt(i, k)), i, k], error="IndexError",
           args=(("str", ("index ", (0, None, ()), " is out of bounds for axis 0 with size ",
                          (1, None, ()))),))
    wanted = b.add(b.select(b.lt(i, const(0)), b.add(i, k), i), const(1))
    seen = registry.lookup(np.cumsum)(conv, [conv.to_type(m, I64.with_shape(m.type.shape))],
                                     {}, node)
    position = registry.lookup(np.argmax)(conv, [b.and_(m, b.eq(seen, wanted))], {}, node)
    return b.index(selection.array, position, spec=(Int(),))


def _reduction(func) -> str | None:
    return next((n for f, n in SELECTION_REDUCTIONS.items() if func is f), None)
