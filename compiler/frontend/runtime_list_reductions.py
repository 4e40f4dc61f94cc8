"""Reductions of a list whose length is known only at run time (`runtime_lists.py`): the
builtins `max` and `min`, and `np.sum`, `np.prod`, `np.mean`, `np.max` / `np.amax`, `np.min` /
`np.amin` of a list of numbers, which numpy reads as a 1-d array.

Contract: `REDUCTIONS` maps each function to its lowering, called with the list instead of
refusing it. Each is a `while` over the items (`runtime_lists.fold`) with the semantics of the
function on the equivalent Python list or array:
- `max(xs)` / `min(xs)`: CPython's fold (the current value is replaced only when `item >
  current`, so NaN handling depends on the order as in Python); an empty list raises Python's
  ValueError at run time. The derivative goes to the item Python returns.
- `np.max` / `np.min`: NaN if any item is NaN; numpy's ValueError for an empty list; the
  derivative is shared evenly by the tied extrema, as numpy reductions' are in adlite.
- `np.sum` / `np.prod` start from 0 / 1 of the items' type (bools count as ints; ints wrap
  around as numpy's int64 arrays do); `np.mean` is the float sum over the length (NaN for an
  empty list, where numpy warns).
The only keyword taken is `axis` of None or 0.
"""

from __future__ import annotations

import builtins

import numpy as np

from ..ir.builder import const
from ..ir.core import BOOL, F64, I64, Atom
from ..ir.index import Int
from . import runtime_lists
from .conversion_context import ConversionContext
from .library.python_builtins import empty_message


def _numbers(conv: ConversionContext, lst, name: str, node):
    item = runtime_lists.item_type(conv, lst, node)
    if isinstance(item, tuple) or item.is_array:
        raise runtime_lists.refused(conv, node, f"{name} of arrays or tuples")
    return I64 if item == BOOL else item


def _options(conv: ConversionContext, name: str, kwargs: dict, node) -> None:
    axis = kwargs.pop("axis", None)
    if axis is not None and conv.static(axis, node, "its axis", "option") not in (None, 0):
        raise conv.source.error(node, f"{name}: axis {axis.value} is out of bounds for a list "
                                      "(a 1-d array)")
    if kwargs:
        raise conv.source.error(node, f"{name}() of this list takes no keyword "
                                      f"{next(iter(kwargs))!r} (only axis=None or 0)")


def _nonempty(conv: ConversionContext, lst, message: str, node) -> None:
    n = runtime_lists.length(conv, lst, node)
    conv.b.emit("check", [conv.b.gt(n, const(0))], error="ValueError",
                args=(("str", (message,)),))


def _python_extremum(name: str, compare: str):
    def lower(conv: ConversionContext, lst, args, kwargs, node) -> Atom:
        if args or kwargs:
            raise conv.source.error(node, f"{name}() of this list takes the list alone (no "
                                          "default= or key=, no other arguments)")
        item = _numbers(conv, lst, name, node)
        _nonempty(conv, lst, empty_message(name), node)
        first = conv.to_type(runtime_lists.getitem(conv, lst, const(0), node), item)
        return runtime_lists.fold(conv, lst, first, lambda b, current, v: b.select(
            b.op(compare, conv.to_type(v, item, b), current), conv.to_type(v, item, b),
            current), node)
    return lower


def _numpy_extremum(name: str, compare: str):
    word = "maximum" if name == "max" else "minimum"

    def lower(conv: ConversionContext, lst, args, kwargs, node) -> Atom:
        _options(conv, f"np.{name}", kwargs, node)
        item = _numbers(conv, lst, f"np.{name}", node)
        _nonempty(conv, lst, f"zero-size array to reduction operation {word} which has no "
                             "identity", node)
        if not item.is_float:
            worst = -2 ** 63 if name == "max" else 2 ** 63 - 1
            return runtime_lists.fold(conv, lst, const(worst), lambda b, acc, v: b.select(
                b.op(compare, conv.to_type(v, item, b), acc), conv.to_type(v, item, b), acc),
                node)
        start = const(-np.inf if name == "max" else np.inf, item)

        def step(b, acc, v):  # NaN sticks, as numpy's reduction
            better = b.or_(b.ne(v, v), b.op(compare, v, acc))
            return b.select(b.ne(acc, acc), acc, b.select(better, v, acc))
        extremum = conv.b.op("stop_gradient", runtime_lists.fold(conv, lst, start, step, node))
        ties = runtime_lists.fold(conv, lst, const(0.0, item), lambda b, acc, v, m: b.add(
            acc, b.convert(b.eq(v, m), to=item)), node, (extremum,))
        # extremum + sum over the tied items of (item - item without derivative) / ties: the
        # value is the extremum exactly, the derivative is shared evenly by the ties
        shared = runtime_lists.fold(conv, lst, const(0.0, item), lambda b, acc, v, m: b.add(
            acc, b.select(b.eq(v, m), b.sub(v, b.op("stop_gradient", v)), const(0.0, item))),
            node, (extremum,))
        return conv.b.add(extremum, conv.b.div(shared, conv.b.maximum(ties, const(1.0, item))))
    return lower


def _total(name: str, op: str, unit: int):
    def lower(conv: ConversionContext, lst, args, kwargs, node) -> Atom:
        if args:
            raise conv.source.error(node, f"np.{name}() of a list takes the list alone here")
        _options(conv, f"np.{name}", kwargs, node)
        item = _numbers(conv, lst, f"np.{name}", node)
        if item.is_float:
            return runtime_lists.fold(conv, lst, const(unit, item), lambda b, acc, v: b.op(
                op, acc, conv.to_type(v, item, b)), node)
        # ints wrap around as in numpy's int64 array (array arithmetic does; scalar ints raise
        # OverflowError, as Python's would not fit): the fold carries a 1-element array
        total = runtime_lists.fold(
            conv, lst, conv.b.full(const(unit, item), shape=(1,), dtype=item),
            lambda b, acc, v: b.op(op, acc, b.reshape(conv.to_type(v, item, b), shape=(1,))),
            node)
        return conv.b.index(total, const(0), spec=(Int(),))
    return lower


def _mean(conv: ConversionContext, lst, args, kwargs, node) -> Atom:
    if args:
        raise conv.source.error(node, "np.mean() of a list takes the list alone here")
    _options(conv, "np.mean", kwargs, node)
    item = _numbers(conv, lst, "np.mean", node)
    t = item if item.is_float else F64
    total = runtime_lists.fold(conv, lst, const(0.0, t), lambda b, acc, v: b.add(
        acc, conv.to_type(v, t, b)), node)
    return conv.b.div(total, conv.b.convert(runtime_lists.length(conv, lst, node), to=t))


REDUCTIONS = {
    builtins.max: _python_extremum("max", "gt"),
    builtins.min: _python_extremum("min", "lt"),
    np.max: _numpy_extremum("max", "gt"), np.amax: _numpy_extremum("max", "gt"),
    np.min: _numpy_extremum("min", "lt"), np.amin: _numpy_extremum("min", "lt"),
    np.sum: _total("sum", "add", 0), np.prod: _total("prod", "mul", 1),
    np.mean: _mean,
}
