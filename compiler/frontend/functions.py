"""Calls the frontend understands: math / numpy / builtin functions and module constants.

Contract: `lookup(obj)` maps a Python object reached from the user's code (by identity, so
any import alias works: `np.sin`, `numpy.sin`, `from math import sin`) to a lowering
`(conv, args, kwargs, node) -> value` that emits IR with `conv.b` (keyword arguments are
accepted only by the array functions of `array_functions.py`); `constant(obj)` gives the value
of module constants (`math.pi`, `np.e`, `np.inf`). Unknown objects return None.
`array_functions` registers the numpy array functions into the same table
(`register_with_keywords`; `bind` binds a call's arguments by numpy's signature); `to_ir`
imports both modules. The numpy composites the eager tape has too (`square`, `hypot`, log
bases, `norm`) are lowered from `adlite.derivatives.composites`.
Python's builtins `sum`, `max`, `min`, `any`, `all`, `abs`, `round` take arrays as Python
does (iterating the first axis); where Python would raise (numpy's ambiguous truth value,
an empty sequence, round of an array) the call emits a `check` that raises the same error
when it runs.
"""

from __future__ import annotations

import builtins
import difflib
import inspect
import math
import numbers

import numpy as np

from adlite import derivatives
from adlite.derivatives import composites

from ..errors import AdliteTypeError
from ..ir.builder import const
from ..ir.core import F64, I64, Const, Var
from ..ir.index import Int
from ..primitives.ints import range_len
from ..primitives.vocabulary import BuilderOps
from . import static_values
from .context import CallContext


def unary(prim):
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


AMBIGUOUS = ("The truth value of an array with more than one element is ambiguous. Use "
             "a.any() or a.all()")


def _rows(conv, x, name, node):
    """The items Python's iteration of array `x` gives to a builtin that compares or tests
    them: elements of a 1-D array; an array of rows raises numpy's ValueError where Python
    would test a row of several elements (a run-time check: the call raises, as in Python)."""
    shape = x.type.shape
    if len(shape) == 1:
        return x
    compared = shape[0] >= (1 if name in ("any", "all") else 2)
    if compared and int(np.prod(shape[1:])) != 1:
        conv.b.emit("check", [const(False)], error="ValueError", args=(("str", (AMBIGUOUS,)),))
        return None
    raise conv.source.error(node, f"builtin {name}() of a {x.type} array",
                            f"use np.{name}(x, axis=0)")


def _builtin_extremum(name, compare, reduction):
    """Python's max / min: a left fold that replaces the current value only when
    `item > current` (min: `<`), exactly as CPython does (so `max(1.0, nan)` is 1.0 and
    `max(nan, 1.0)` is nan); a single tuple argument is iterated, and so is a single array:
    the fold over a 1-D array is its first element when that is NaN, else the extremum of
    its other elements (at ties of the array's extremum, its gradient is shared evenly, as
    np.max's)."""

    def lower(conv, args, node):
        if len(args) == 1 and isinstance(args[0], Var | Const) and args[0].type.is_array:
            return _array_extremum(conv, args[0], node)
        items = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
        if not items or (items is args and len(items) == 1):
            raise conv.source.error(node, f"{name}() needs two or more numbers, a non-empty "
                                          "tuple of numbers or an array",
                                    f"call {name}(a, b, ...)")
        values = [conv.value(v, node) for v in items]
        if any(v.type.is_array for v in values):
            raise conv.source.error(node, f"builtin {name}() of arrays (Python compares "
                                          "whole arrays, which is ambiguous)",
                                    f"use np.{reduction}imum(a, b) elementwise")
        result = values[0]
        for item in values[1:]:
            current, other = conv.promote(result, item, node)
            result = conv.b.select(conv.b.op(compare, other, current), other, current)
        return result

    def _array_extremum(conv, x, node):
        if _rows(conv, x, name, node) is None:  # raises numpy's ValueError when run
            return conv.placeholder(x.type.with_shape(x.type.shape[1:]))
        (n,) = x.type.shape
        if n == 0:
            conv.b.emit("check", [const(False)], error="ValueError",
                        args=(("str", (_empty_message(name),)),))
            return conv.placeholder(x.type.scalar)
        first = conv.b.index(x, const(0), spec=(Int(),))
        if not x.type.is_float:
            return conv.b.op(reduction, x, axis=(0,), keepdims=False)
        fill = const(-np.inf if name == "max" else np.inf, x.type.scalar)
        numbers = conv.b.select(conv.b.eq(x, x), x, fill)
        folded = conv.b.op(reduction, numbers, axis=(0,), keepdims=False)
        return conv.b.select(conv.b.ne(first, first), first, folded)

    return lower


def builtin_sum_of_array(conv, x, start, node):
    """Python's sum(x, start) of an array: iteration is over the first axis, so it is
    `start + np.sum(x, axis=0)` (the 1-D sum adds the elements in order, as Python's left fold
    does, in the LLVM backend). Sums of lists and tuples: `sequences.py`."""
    x = conv.array(x, node)
    if x.type.name == "bool":
        x = conv.to_type(x, I64.with_shape(x.type.shape))
    total = conv.b.op("sum", x, axis=(0,), keepdims=False)
    return conv.b.add(*conv.promote(start, total, node))


def _truth_fold(name):
    """any(x) / all(x) of a 1-D array: whether some (every) element is true (nonzero; NaN is
    true); an array of rows raises numpy's ValueError where Python tests a row."""

    def lower(conv, args, node):
        items = conv.one(args, node)
        if isinstance(items, tuple):
            truths = [conv.truth(conv.value(v, node), node) for v in items]
            result = const(name == "all")
            for t in truths:
                result = conv.b.and_(result, t) if name == "all" else conv.b.or_(result, t)
            return result
        x = conv.array(items, node)
        if _rows(conv, x, name, node) is None:
            return const(name == "all")
        zero = const(0, x.type.scalar)
        hits = conv.b.ne(x, zero) if name == "any" else conv.b.eq(x, zero)
        count = conv.b.op("sum", conv.to_type(hits, F64.with_shape(x.type.shape)), axis=(0,),
                          keepdims=False)
        return conv.b.gt(count, const(0.0)) if name == "any" else conv.b.eq(count, const(0.0))

    return lower


def _round_half_even(conv, x):
    """numpy's rint: the nearest integer, ties to even (exact: x - floor(x) is exact), with
    x's sign when it is zero (rint(-0.5) is -0.0: x * 0.0 keeps the sign)."""
    b = conv.b
    low = b.floor(x)
    frac = b.sub(x, low)
    odd = b.eq(b.mod(low, const(2.0, x.type.scalar)), const(1.0, x.type.scalar))
    up = b.or_(b.gt(frac, const(0.5, x.type.scalar)),
               b.and_(b.eq(frac, const(0.5, x.type.scalar)), odd))
    rounded = b.select(up, b.add(low, const(1.0, x.type.scalar)), low)
    zero = const(0.0, x.type.scalar)
    return b.select(b.eq(rounded, zero), b.mul(x, zero), rounded)


def _rounding_to_digits(builtin: bool):
    """Builtin round(x) of a float: the nearest int, ties to even (ValueError for NaN,
    OverflowError for infinities, as Python); of an int: itself; of an array: numpy's
    TypeError when run. np.round(x) (np.around): the same float (arrays elementwise).
    round(x, n) (n known when compiling) as numpy rounds float64 scalars and arrays:
    rint(x * 10**n) / 10**n (Python's float.__round__ rounds the exact decimal expansion
    instead, which differs at a few halfway cases such as round(2.675, 2))."""

    def lower(conv, args, node):
        if not 1 <= len(args) <= 2:
            raise conv.source.error(node, f"round() takes 1 or 2 arguments, {len(args)} given")
        x = conv.numeric(args[0], node)
        if builtin and x.type.is_array:
            conv.b.emit("check", [const(False)], error="TypeError",
                        args=(("str", ("type numpy.ndarray doesn't define __round__ method",)),))
            return x
        digits = conv.static(args[1], node) if len(args) == 2 else None
        if digits is not None and not isinstance(digits, int):
            raise conv.source.error(node, "round(): ndigits must be an int known when compiling")
        if not x.type.is_float:
            return x
        if digits is None:
            rounded = _round_half_even(conv, x)
            return conv.b.convert(rounded, to=I64) if builtin else rounded
        scale = const(10.0 ** abs(digits), x.type.scalar)
        if digits >= 0:
            return conv.b.div(_round_half_even(conv, conv.b.mul(x, scale)), scale)
        return conv.b.mul(_round_half_even(conv, conv.b.div(x, scale)), scale)

    return lower


def _abs(conv, args, node):
    x = conv.numeric(conv.one(args, node), node)
    return conv.b.op("abs", x)  # elementwise on arrays


def _square(conv, args, node):
    x = conv.as_float(conv.one(args, node), node)
    return composites.square(BuilderOps(conv.b), x)


def _log(conv, args, node):
    if len(args) == 2:
        x, base = (conv.as_float(a, node) for a in args)
        return composites.log_base(BuilderOps(conv.b), x, base)
    return conv.b.log(conv.as_float(conv.one(args, node), node))


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


def _empty_message(name: str) -> str:
    """What this Python's builtin `name` (max, min) says of an empty sequence (3.11 and
    3.12 word it differently)."""
    try:
        getattr(builtins, name)([])
    except ValueError as e:
        return str(e)
    raise AssertionError(f"{name}([]) returned")


def _range_arguments(conv, args, node) -> list:
    """range()'s arguments as int64 (bools count as ints); anything else is refused, as
    range() raises TypeError for it."""
    values = [conv.numeric(conv.scalar(a, node), node) for a in args]
    if any(v.type != I64 for v in values):
        raise conv.source.error(node, "range() arguments must be integers, got "
                                      f"{', '.join(str(v.type) for v in values)} ('float' "
                                      "object cannot be interpreted as an integer)",
                                "convert with int(...) first")
    return values


def _range_len(conv, args, node):
    """The trip count of a `for` loop (see normalize.py)."""
    return conv.b.range_len(*_range_arguments(conv, args, node))


def range_bound(value):
    """A bound of a `for ... in range(...)` loop counted with a step of 1 or -1
    (normalize.py): checked to be an int like range()'s."""
    raise TypeError("compiled code only")  # a marker object; lowered by `_range_bound`


def _range_bound(conv, args, node):
    return _range_arguments(conv, args, node)[0]


_FUNCTIONS = {}


def register_with_keywords(objects, lowering):
    """`lowering(conv, args, kwargs, node)` handles calls to each of `objects`."""
    for obj in objects:
        _FUNCTIONS[id(obj)] = (obj, lowering)


def bind(conv, fn, name: str, args, kwargs, node) -> dict:
    """The arguments of the numpy function `fn` (called `name` in messages) by parameter
    name, by its own signature, its defaults filled in (numbers as constants); numpy's
    TypeError for arguments that do not bind."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as e:
        raise conv.source.error(node, f"{name}(): {e}", kind=AdliteTypeError) from None
    bound.apply_defaults()
    return {k: const(v) if isinstance(v, int | float) else v
            for k, v in bound.arguments.items()}


def refuse_keywords(conv: CallContext, kwargs, node, allowed=()) -> None:
    """Refuse the keyword arguments not in `allowed`, naming them (`out=` with its own
    hint)."""
    unknown = sorted(set(kwargs) - set(allowed))
    if "out" in unknown:
        raise conv.source.error(node, "unsupported keyword argument(s) out: compiled code "
                                      "makes new arrays",
                                "assign the result: y = np.multiply(a, b), or "
                                "y[...] = np.multiply(a, b) to write into a local array y")
    if unknown:
        raise conv.source.error(node, f"unsupported keyword argument(s) {', '.join(unknown)}",
                                f"supported here: {', '.join(allowed) or 'none'}")


def without_keywords(lowering):
    """The keyword-taking form of `lowering(conv, args, node)`, refusing keywords."""

    def lower(conv, args, kwargs, node):
        refuse_keywords(conv, kwargs, node)
        return lowering(conv, args, node)

    return lower


def _register(objects, lowering):
    """`lowering(conv, args, node)` handles calls without keyword arguments."""
    register_with_keywords(objects, without_keywords(lowering))


for _name in ["exp", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "log1p", "expm1",
              "cbrt"]:
    _register([getattr(np, _name), getattr(math, _name)], unary(_name))
for _np_name, _math_name in [("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan")]:
    _register([getattr(np, _np_name), getattr(math, _math_name)], unary(_np_name))
_register([np.log, math.log], _log)
_register([np.log2, math.log2], unary("log2"))
_register([np.log10, math.log10], unary("log10"))
_register([np.abs, np.absolute, np.fabs, math.fabs, builtins.abs], _abs)
_register([np.square], _square)
_register([np.hypot, math.hypot], _hypot)
_register([np.power, math.pow, builtins.pow], _pow)
_register([np.maximum], _elementwise_extremum("maximum"))
_register([np.minimum], _elementwise_extremum("minimum"))
_register([np.fmax], _nan_ignoring_extremum("ge"))
_register([np.fmin], _nan_ignoring_extremum("le"))
_register([builtins.max], _builtin_extremum("max", "gt", "max"))
_register([builtins.min], _builtin_extremum("min", "lt", "min"))
_register([builtins.any], _truth_fold("any"))
_register([builtins.all], _truth_fold("all"))
_register([builtins.round], _rounding_to_digits(True))
_register([np.round, np.around], _rounding_to_digits(False))
_register([np.sign], unary("sign"))
_register([np.floor], _rounding("floor", False))
_register([np.ceil], _rounding("ceil", False))
_register([math.floor], _rounding("floor", True))
_register([math.ceil], _rounding("ceil", True))
_register([builtins.float, np.float64], _cast(F64))
_register([builtins.int], _cast(I64))
_register([range_len], _range_len)
_register([range_bound], _range_bound)
_register([builtins.isinstance], _class_test("isinstance", issubclass))
_register([np.isscalar], _class_test("np.isscalar", lambda cls: issubclass(
    cls, np.generic | numbers.Number) or cls in np.ScalarType))  # numpy's test, on the class
_register([builtins.callable], _class_test("callable", lambda cls: any(
    "__call__" in k.__dict__ for k in cls.__mro__)))

_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}


_RESOLVERS = []


def add_resolver(resolver) -> None:
    """`resolver(obj)` gives a lowering for objects the table does not hold by identity
    (bound methods, functions of modules registered lazily), or None."""
    _RESOLVERS.append(resolver)


def lookup(obj):
    entry = _FUNCTIONS.get(id(obj))
    if entry is not None and entry[0] is obj:
        return entry[1]
    return next((r for r in (resolve(obj) for resolve in _RESOLVERS) if r is not None), None)


def constant(module, attr: str):
    if module in (np, math) and attr in _CONSTANTS:
        return _CONSTANTS[attr]
    return None


def supported_names(module=None) -> list[str]:
    """The public names of `module` (numpy, math, builtins, ... when None) that have a
    lowering, sorted: what a 'did you mean' may offer (never adlite's own markers)."""
    modules = [module] if module is not None else [np, np.linalg, math, builtins]
    return sorted({name for m in modules for name in dir(m) if not name.startswith("_")
                   and lookup(getattr(m, name, None)) is not None})


def nearest(name: str, candidates) -> str | None:
    """'did you mean ...?' for the candidates closest to `name` (None when none is close)."""
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.7)
    return f"did you mean {' or '.join(repr(c) for c in close)}?" if close else None
