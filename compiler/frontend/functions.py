"""Calls the frontend understands: math / numpy / builtin functions and module constants.

Contract: `lookup(obj)` maps a Python object reached from the user's code (by identity, so
any import alias works: `np.sin`, `numpy.sin`, `from math import sin`) to a lowering
`(conv, args, kwargs, node) -> value` that emits IR with `conv.b` (keyword arguments are
accepted only by the array functions of `array_functions.py`); `constant(obj)` gives the value
of module constants (`math.pi`, `np.e`, `np.inf`). Unknown objects return None.
`array_functions` registers the numpy array functions into the same table
(`register_with_keywords`); `to_ir` imports both modules. The numpy composites the eager tape
has too (`square`, `hypot`, log bases, `norm`) are lowered from `adlite.derivatives.composites`.
"""

from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from adlite import derivatives
from adlite.derivatives import composites

from ..ir.builder import const
from ..ir.core import F64, I64
from ..primitives.ints import range_len
from ..primitives.vocabulary import BuilderOps
from . import static_values


def _unary(prim):
    return lambda conv, args, node: conv.b.op(prim, conv.as_float(conv.one(args, node), node))


def _elementwise_extremum(prim):
    """np.maximum / np.minimum: NaN-propagating, elementwise."""

    def lower(conv, args, node):
        return conv.b.op(prim, *conv.promote(*conv.exactly(args, 2, node), node))

    return lower


def _nan_ignoring_extremum(compare):
    """np.fmax / np.fmin: `a if (a >= b or isnan(b)) else b` (fmin: `<=`), so a NaN operand
    yields the other one (both NaN: NaN) and the gradient follows the select (torch.fmax)."""

    def lower(conv, args, node):
        a, b = conv.promote(*conv.exactly(args, 2, node), node)
        if a.type.is_float:
            first = derivatives.takes_first(conv.b, compare, a, b)  # the tape's fmax rule's too
        else:
            first = conv.b.op(compare, a, b)  # no NaN among ints
        return conv.b.select(first, a, b)

    return lower


def _builtin_extremum(name, compare, elementwise):
    """Python's max / min of numbers: a left fold that replaces the current value only when
    `item > current` (min: `<`), exactly as CPython does (so `max(1.0, nan)` is 1.0 and
    `max(nan, 1.0)` is nan); a single tuple argument is iterated."""

    def lower(conv, args, node):
        items = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
        if not items or (items is args and len(items) == 1):
            raise conv.source.error(node, f"{name}() needs two or more numbers or a non-empty "
                                          "tuple of numbers", f"call {name}(a, b, ...)")
        values = [conv.value(v, node) for v in items]
        if any(v.type.is_array for v in values):
            raise conv.source.error(node, f"builtin {name}() of arrays (Python compares whole "
                                          "arrays, which is ambiguous)",
                                    f"use {elementwise}(a, b) elementwise or np.{name}(x)")
        result = values[0]
        for item in values[1:]:
            current, other = conv.promote(result, item, node)
            result = conv.b.select(conv.b.op(compare, other, current), other, current)
        return result

    return lower


def _abs(conv, args, node):
    x = conv.numeric(conv.one(args, node), node)
    return conv.b.op("abs", x)


def _square(conv, args, node):
    x = conv.as_float(conv.one(args, node), node)
    return composites.square(BuilderOps(conv.b), x)


def _log(conv, args, node):
    if len(args) == 2:
        x, base = (conv.as_float(a, node) for a in args)
        return composites.log_base(BuilderOps(conv.b), x, base)
    return conv.b.log(conv.as_float(conv.one(args, node), node))


def _log_base(base):
    def lower(conv, args, node):
        x = conv.as_float(conv.one(args, node), node)
        return composites.log_base(BuilderOps(conv.b), x, base)

    return lower


def _hypot(conv, args, node):
    x, y = (conv.as_float(a, node) for a in conv.exactly(args, 2, node))
    return composites.hypot(BuilderOps(conv.b), x, y)


def _rounding(prim, to_int):
    def lower(conv, args, node):
        x = conv.one(args, node)
        if x.type == I64:
            return x
        y = conv.b.op(prim, conv.as_float(x, node))
        return conv.b.convert(y, to=I64) if to_int else y

    return lower


def _cast(target):
    def lower(conv, args, node):
        x = conv.numeric(conv.one(args, node), node)
        if x.type == target:
            return x
        if target == I64 and x.type == F64:
            return conv.b.convert(x, to=I64)  # truncates toward zero, like int()
        return conv.b.convert(x, to=target)

    return lower


def _pow(conv, args, node):
    x, y = (conv.as_float(a, node) for a in conv.exactly(args, 2, node))
    return conv.b.pow(x, y)


def _class_test(name, test):
    """isinstance / np.isscalar / callable, answered while compiling from the classes the
    value may have at run time (see static_values.python_classes); refused when they
    disagree (a number that is a float or a numpy float64)."""

    def lower(conv, args, node):
        value, *rest = conv.exactly(args, 2 if name == "isinstance" else 1, node)
        options = [static_values.python_value(r) for r in rest]
        try:
            answers = {test(cls, *options) for cls in static_values.python_classes(value)}
        except TypeError as e:
            raise conv.source.error(node, f"{name}(): {e}") from None
        if len(answers) != 1:
            raise conv.source.error(node, f"{name}(): the answer depends on whether the number "
                                          "is a Python or a numpy scalar, which compiled code "
                                          "does not tell apart", "test with builtin classes: "
                                                                 "float, int, np.ndarray")
        return const(answers.pop())

    return lower


def _range_len(conv, args, node):
    """The trip count of a `for` loop (see normalize.py): range() takes ints only."""
    values = [conv.numeric(conv.scalar(a, node), node) for a in args]
    if any(v.type != I64 for v in values):
        raise conv.source.error(node, "range() arguments must be integers, got "
                                      f"{', '.join(str(v.type) for v in values)}",
                                "convert with int(...) first")
    return conv.b.range_len(*values)


_FUNCTIONS = {}


def register_with_keywords(objects, lowering):
    """`lowering(conv, args, kwargs, node)` handles calls to each of `objects`."""
    for obj in objects:
        _FUNCTIONS[id(obj)] = (obj, lowering)


def _register(objects, lowering):
    """`lowering(conv, args, node)` handles calls without keyword arguments."""

    def lower(conv, args, kwargs, node):
        if kwargs:
            raise conv.source.error(node, f"unexpected keyword argument(s) "
                                          f"{', '.join(kwargs)}", "pass arguments by position")
        return lowering(conv, args, node)

    register_with_keywords(objects, lower)


for _name in ["exp", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "log1p", "expm1",
              "cbrt"]:
    _register([getattr(np, _name), getattr(math, _name)], _unary(_name))
for _np_name, _math_name in [("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan")]:
    _register([getattr(np, _np_name), getattr(math, _math_name)], _unary(_np_name))
_register([np.log, math.log], _log)
_register([np.log2, math.log2], _log_base(2.0))
_register([np.log10, math.log10], _log_base(10.0))
_register([np.abs, np.absolute, np.fabs, math.fabs, builtins.abs], _abs)
_register([np.square], _square)
_register([np.hypot, math.hypot], _hypot)
_register([np.power, math.pow, builtins.pow], _pow)
_register([np.maximum], _elementwise_extremum("maximum"))
_register([np.minimum], _elementwise_extremum("minimum"))
_register([np.fmax], _nan_ignoring_extremum("ge"))
_register([np.fmin], _nan_ignoring_extremum("le"))
_register([builtins.max], _builtin_extremum("max", "gt", "np.maximum"))
_register([builtins.min], _builtin_extremum("min", "lt", "np.minimum"))
_register([np.sign], _unary("sign"))
_register([np.floor], _rounding("floor", False))
_register([np.ceil], _rounding("ceil", False))
_register([math.floor], _rounding("floor", True))
_register([math.ceil], _rounding("ceil", True))
_register([builtins.float, np.float64], _cast(F64))
_register([builtins.int], _cast(I64))
_register([range_len], _range_len)
_register([builtins.isinstance], _class_test("isinstance", issubclass))
_register([np.isscalar], _class_test("np.isscalar", lambda cls: issubclass(
    cls, np.generic | numbers.Number) or cls in np.ScalarType))  # numpy's test, on the class
_register([builtins.callable], _class_test("callable", lambda cls: any(
    "__call__" in k.__dict__ for k in cls.__mro__)))

_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}


def lookup(obj):
    entry = _FUNCTIONS.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def constant(module, attr: str):
    if module in (np, math) and attr in _CONSTANTS:
        return _CONSTANTS[attr]
    return None


def supported_names() -> str:
    return ", ".join(sorted({getattr(o, "__name__", "?") for o, _ in _FUNCTIONS.values()}))
