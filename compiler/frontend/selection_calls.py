"""Calls with a boolean selection (`x[mask]`, see selection_values) among their operands.

Contract: `selection_call(conv, func, args, kwargs, node)` is the value of calling the library
function or builtin `func` (or the method `func`, a `calls.Method` of a selection) on
arguments of which at least one is a `Selection`: the reductions of
`reductions.SELECTION_REDUCTIONS` and their methods, `len`, np.dot/np.inner of two
one-dimensional selections, and elementwise functions (numpy ufuncs, np.clip, np.where with
three arguments, builtin abs, and the methods .astype, .clip, .round) giving a selection; any
other function needs the selection's shape and is refused, naming it. Python functions the
user wrote are not calls of this kind: they are inlined, their bodies see the selection.
"""

from __future__ import annotations

import builtins

import numpy as np

from .conversion_context import StatementContext
from .library import arrays, registry
from .library.reductions import SELECTION_REDUCTIONS, dot_of_selections, reduce_selection
from .selection_values import ELEMENTWISE, Selection, count, elementwise, escape, involved

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


def _reduction(func) -> str | None:
    return next((n for f, n in SELECTION_REDUCTIONS.items() if func is f), None)
