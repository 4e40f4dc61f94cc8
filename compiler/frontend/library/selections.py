"""`np.select` and `np.piecewise` in compiled code: chains of selects
(`adlite.derivatives.array_composites.select`), so that reverse mode gives each element the
derivative of what it chose only (`ad/reverse.py`), as it does for `np.where`.

Contract:
- `np.select(condlist, choicelist, default=0)` is numpy's: the choice of the first true
  condition, else `default`; conditions, choices and default broadcast together; the result's
  dtype is numpy's (that of the choices and default, Python numbers weak). The lists are lists
  or tuples (or arrays, read along their first axis). What numpy raises for the arguments is
  raised at the call when compiling, with numpy's message: `AdliteValueError` (lists of
  different lengths, empty lists, shapes that do not broadcast), `AdliteTypeError` (a
  condition that is not boolean).
- `np.piecewise(x, condlist, funclist, *args, **kw)` is numpy's for elementwise functions:
  each callable of `funclist` (a lambda, a function defined with def, a numpy function) is
  called as `f(x, *args, **kw)` on the whole `x`, where numpy calls it on `x[cond]`: the same
  values where it is elementwise, which compiled code requires of it and cannot check. A
  number stands for the constant function. The last true condition wins (numpy writes the
  pieces in order); with one more function than conditions, the last is the value where no
  condition holds, else that value is 0. Conditions are read as booleans (nonzero is true),
  numpy's reading of `condlist` included (a single array of `x`'s shape is one condition), and
  index `x` as numpy's boolean index does (a leading part of its shape, else numpy's
  IndexError, as for `x[mask]`). The result has `x`'s dtype and shape. numpy's ValueError
  for the number of functions is `AdliteValueError`; a function whose result is neither a
  number nor of `x`'s shape (not elementwise) is refused at the call.
"""

from __future__ import annotations

import functools

import numpy as np

from adlite.derivatives import array_composites

from ...errors import AdliteTypeError, AdliteValueError
from ...ir.builder import const
from ...ir.core import BOOL, Atom, Const, Type, Var
from ...ir.index import Int
from ...primitives.shapes import broadcast_shapes
from ...primitives.vocabulary import BuilderOps
from .. import masks, sequences
from ..context import CallContext
from ..selection_values import spread
from .registry import bind, register


def _items(cx: CallContext, sequence, what: str, node) -> list:
    """The items of a list (a tuple here) or of an array (along its first axis)."""
    if isinstance(sequence, tuple):
        return list(sequence)
    if _is_array(sequence) and sequence.type.shape:
        return [cx.b.index(sequence, const(i), spec=(Int(),))
                for i in range(sequence.type.shape[0])]
    raise cx.source.error(node, f"{what} must be a list here", f"write [a, b, ...] as {what}")


def _is_array(value) -> bool:
    return isinstance(value, Var | Const) and value.type.is_array


def _shape(value: Atom) -> tuple[int, ...]:
    return value.type.shape or ()


def _broadcast(cx: CallContext, shapes: list, node) -> tuple[int, ...]:
    """numpy's broadcast of `shapes`, or its ValueError."""
    try:
        return broadcast_shapes(*shapes)
    except ValueError as e:
        raise cx.source.error(node, str(e), kind=AdliteValueError) from None


def _common_type(cx: CallContext, values: list, node) -> Type:
    """numpy's result dtype of `values` (Python numbers weak), as a scalar type."""
    if all(v.type.name == "bool" for v in values):
        return BOOL
    return functools.reduce(lambda a, b: cx.promote(a, b, node)[0], values).type.scalar


def _shaped(cx: CallContext, value: Atom, shape: tuple[int, ...]) -> Atom:
    """`value` broadcast to `shape` (a number stays one for the shape ())."""
    return value if _shape(value) == shape else cx.b.broadcast_to(value, shape=shape)


# ---- np.select ------------------------------------------------------------------------------

def _select(cx: CallContext, args, kwargs, node) -> Atom:
    bound = bind(cx, np.select, "np.select", args, kwargs, node)
    conds, choices = ([cx.value(c, node) for c in _items(cx, bound[what], what, node)]
                      for what in ("condlist", "choicelist"))
    if len(conds) != len(choices):
        raise cx.source.error(node, "list of cases must be same length as list of "
                              "conditions", kind=AdliteValueError)
    if not conds:
        raise cx.source.error(node, "select with an empty condition list is not possible",
                              kind=AdliteValueError)
    values = choices + [cx.value(bound["default"], node)]
    dtype = _common_type(cx, values, node)
    shapes = [_broadcast(cx, [_shape(v) for v in group], node) for group in (conds, values)]
    for i, cond in enumerate(conds):
        if cond.type.name != "bool":
            raise cx.source.error(node, f"invalid entry {i} in condlist: should be boolean "
                                  "ndarray", kind=AdliteTypeError)
    shape = _broadcast(cx, shapes, node)
    values = [cx.to_type(v, dtype) for v in values]
    out = array_composites.select(BuilderOps(cx.b), conds, values[:-1], values[-1])
    return _shaped(cx, out, shape)


# ---- np.piecewise ---------------------------------------------------------------------------

def _piecewise(cx: CallContext, args, kwargs, node) -> Atom:
    bound = bind(cx, np.piecewise, "np.piecewise", args, kwargs, node)
    x = cx.value(bound["x"], node)
    funcs = _items(cx, bound["funclist"], "funclist", node)
    conds = _conditions(cx, x, bound["condlist"], node)
    if len(funcs) not in (len(conds), len(conds) + 1):
        raise cx.source.error(node, f"with {len(conds)} condition(s), either {len(conds)} "
                              f"or {len(conds) + 1} functions are expected",
                              kind=AdliteValueError)
    conds = [_mask(cx, x, c, node) for c in conds]
    values = [_piece(cx, x, f, bound["args"], bound["kw"], node) for f in funcs]
    base = values.pop() if len(values) > len(conds) else const(0, x.type.scalar)
    out = array_composites.select(BuilderOps(cx.b), conds[::-1], values[::-1], base)
    return _shaped(cx, out, _shape(x))


def _conditions(cx: CallContext, x: Atom, condlist, node) -> list[Atom]:
    """numpy's reading of `condlist`: a list of conditions (lists of numbers among them),
    except that a number, a list of numbers or an array of one dimension is one condition
    when `x` is an array; an array of more dimensions is a list of its rows."""
    if isinstance(condlist, tuple) and not condlist:
        raise cx.source.error(node, "IndexError: list index out of range")
    if isinstance(condlist, tuple):
        one = _is_array(x) and not isinstance(condlist[0], tuple) and \
            not _is_array(cx.value(condlist[0], node))
        conds = [condlist] if one else list(condlist)
    elif _is_array(condlist) and (len(_shape(condlist)) > 1 or not _is_array(x)):
        conds = _items(cx, condlist, "condlist", node)
    else:
        conds = [condlist]
    conds = [sequences.stack(cx, list(c), node) if isinstance(c, tuple) else
             cx.value(c, node) for c in conds]
    if len({c.type.shape for c in conds}) > 1:
        raise cx.source.error(node, "setting an array element with a sequence: the "
                              "conditions have different shapes "
                              f"({', '.join(str(_shape(c)) for c in conds)})",
                              kind=AdliteValueError)
    return conds


def _mask(cx: CallContext, x: Atom, cond: Atom, node) -> Atom:
    """`cond` read as numpy's boolean index of `x` (nonzero is true; a number is an array of
    one element), over all of `x`; numpy's IndexError where it does not fit."""
    if cond.type.name != "bool":
        cond = cx.b.ne(cond, const(0, cond.type.scalar))
    if not _is_array(x):
        if _is_array(cond):
            raise cx.source.error(node, "IndexError: too many indices for array: array is "
                                  f"0-dimensional, but {len(_shape(cond))} were "
                                  "indexed")
        return cond
    if not _is_array(cond):
        cond = cx.b.broadcast_to(cond, shape=(1,))
    return spread(cx, masks.mask_item(cx, x, cond, 1, node).value, x)


def _piece(cx: CallContext, x: Atom, func, args: tuple, kw: dict, node) -> Atom:
    """The value of one piece over all of `x`, in `x`'s dtype."""
    if isinstance(func, Var | Const):
        value = func
    else:
        value = cx.call_value(func, [(x, None)] + [(a, None) for a in args],
                              {k: (v, None) for k, v in kw.items()}, node)[0]
    value = cx.value(value, node)
    if _is_array(value) and _shape(value) != _shape(x):
        raise cx.source.error(node, f"a piece of type {value.type} for x of type {x.type}: "
                              "compiled code applies each function to all of x, so "
                              "it must be elementwise",
                              "give functions that keep x's shape, or numbers")
    return cx.to_type(value, x.type.scalar)


register([np.select], _select)
register([np.piecewise], _piecewise)
