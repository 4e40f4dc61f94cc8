"""Python's builtins and the marker functions of normalized loops, in compiled code.

Contract: registers the rules of `max`, `min`, `any`, `all` (Python's iteration of the first
axis of an array; where Python would raise (numpy's ambiguous truth value, an empty
sequence) the call emits a `check` that raises the same error when it runs), `round`
(`elementwise.rounding_to_digits`), `float` / `np.float64` / `int` (casts; `int` truncates
toward zero), `isinstance` / `np.isscalar` / `callable` / `type` (answered while compiling
from the classes a value may have at run time: `type(x)` is a class, or the
`static_values.PossibleTypes` of a number that may be a Python or a numpy scalar, called as
its classes convert), `functools.wraps(f)` / `functools.update_wrapper` (decorators that
copy metadata only: they return the function they decorate), `dict(...)` (`dict(a=x)`,
`dict(pairs)`, `dict(d, **kw)`: a compile-time structure of values with string keys, as
`{...}` displays), and of the markers `range_len` and `range_bound` of `normalize.py`'s
loops (range()'s int arguments). `builtin_sum_of_array` is Python's `sum` of an array
(`sequences.py` registers `sum`). `abs` and `pow` are numpy's (`elementwise`).
"""

from __future__ import annotations

import builtins
import functools
import numbers

import numpy as np

from ...ir.builder import const
from ...ir.core import F64, I64, Const, Var
from ...ir.index import Int
from ...primitives.ints import range_len
from .. import static_values
from ..context import CallContext
from .elementwise import rounding_to_digits
from .registry import add_resolver, register, registered

AMBIGUOUS = ("The truth value of an array with more than one element is ambiguous. Use "
             "a.any() or a.all()")


def _rows(cx: CallContext, x, name, node):
    """The items Python's iteration of array `x` gives to a builtin that compares or tests
    them: elements of a 1-D array; an array of rows raises numpy's ValueError where Python
    would test a row of several elements (a run-time check: the call raises, as in Python)."""
    shape = x.type.shape
    if len(shape) == 1:
        return x
    compared = shape[0] >= (1 if name in ("any", "all") else 2)
    if compared and int(np.prod(shape[1:])) != 1:
        cx.b.emit("check", [const(False)], error="ValueError", args=(("str", (AMBIGUOUS,)),))
        return None
    raise cx.source.error(node, f"builtin {name}() of a {x.type} array",
                          f"use np.{name}(x, axis=0)")


def _builtin_extremum(name, compare, reduction):
    """Python's max / min: a left fold that replaces the current value only when
    `item > current` (min: `<`), exactly as CPython does (so `max(1.0, nan)` is 1.0 and
    `max(nan, 1.0)` is nan); a single tuple argument is iterated, and so is a single array:
    the fold over a 1-D array is its first element when that is NaN, else the extremum of
    its other elements (at ties of the array's extremum, its gradient is shared evenly, as
    np.max's)."""

    def lower(cx: CallContext, args, node):
        if len(args) == 1 and isinstance(args[0], Var | Const) and args[0].type.is_array:
            return _array_extremum(cx, args[0], node)
        items = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
        if not items or (items is args and len(items) == 1):
            raise cx.source.error(node, f"{name}() needs two or more numbers, a non-empty "
                                  "tuple of numbers or an array",
                                  f"call {name}(a, b, ...)")
        values = [cx.value(v, node) for v in items]
        if any(v.type.is_array for v in values):
            raise cx.source.error(node, f"builtin {name}() of arrays (Python compares "
                                  "whole arrays, which is ambiguous)",
                                  f"use np.{reduction}imum(a, b) elementwise")
        result = values[0]
        for item in values[1:]:
            current, other = cx.promote(result, item, node)
            result = cx.b.select(cx.b.op(compare, other, current), other, current)
        return result

    def _array_extremum(cx: CallContext, x, node):
        if _rows(cx, x, name, node) is None:  # raises numpy's ValueError when run
            return cx.placeholder(x.type.with_shape(x.type.shape[1:]))
        (n,) = x.type.shape
        if n == 0:
            cx.b.emit("check", [const(False)], error="ValueError",
                      args=(("str", (empty_message(name),)),))
            return cx.placeholder(x.type.scalar)
        first = cx.b.index(x, const(0), spec=(Int(),))
        if not x.type.is_float:
            return cx.b.op(reduction, x, axis=(0,), keepdims=False)
        fill = const(-np.inf if name == "max" else np.inf, x.type.scalar)
        numbers = cx.b.select(cx.b.eq(x, x), x, fill)
        folded = cx.b.op(reduction, numbers, axis=(0,), keepdims=False)
        return cx.b.select(cx.b.ne(first, first), first, folded)

    return lower


def builtin_sum_of_array(cx: CallContext, x, start, node):
    """Python's sum(x, start) of an array: iteration is over the first axis, so it is
    `start + np.sum(x, axis=0)` (the 1-D sum adds the elements in order, as Python's left fold
    does, in the LLVM backend). Sums of lists and tuples: `sequences.py`."""
    x = cx.array(x, node)
    if x.type.name == "bool":
        x = cx.to_type(x, I64.with_shape(x.type.shape))
    total = cx.b.op("sum", x, axis=(0,), keepdims=False)
    return cx.b.add(*cx.promote(start, total, node))


def _truth_fold(name):
    """any(x) / all(x) of a 1-D array: whether some (every) element is true (nonzero; NaN is
    true); an array of rows raises numpy's ValueError where Python tests a row."""

    def lower(cx: CallContext, args, node):
        items = cx.one(args, node)
        if isinstance(items, tuple):
            truths = [cx.truth(cx.value(v, node), node) for v in items]
            result = const(name == "all")
            for t in truths:
                result = cx.b.and_(result, t) if name == "all" else cx.b.or_(result, t)
            return result
        x = cx.array(items, node)
        if _rows(cx, x, name, node) is None:
            return const(name == "all")
        zero = const(0, x.type.scalar)
        hits = cx.b.ne(x, zero) if name == "any" else cx.b.eq(x, zero)
        count = cx.b.op("sum", cx.to_type(hits, F64.with_shape(x.type.shape)), axis=(0,),
                        keepdims=False)
        return cx.b.gt(count, const(0.0)) if name == "any" else cx.b.eq(count, const(0.0))

    return lower


def _cast(target):
    def lower(cx: CallContext, args, node):
        x = cx.numeric(cx.one(args, node), node)
        if x.type == target:
            return x
        if target == I64 and x.type == F64:
            return cx.b.convert(x, to=I64)  # truncates toward zero, like int()
        return cx.b.convert(x, to=target)

    return lower



def _dict(cx: CallContext, args, kwargs, node):
    """`dict(mapping_or_pairs, **kwargs)`, as Python builds it; keys are strings known when
    compiling (a frontend dict, see `to_ir.expr_Dict`)."""
    if len(args) > 1:
        raise cx.source.error(node, f"dict expected at most 1 argument, got {len(args)}")
    items = list(args[0].items()) if args and isinstance(args[0], dict) else []
    if args and not isinstance(args[0], dict):
        pairs = args[0]
        if not static_values.is_tuple(pairs) or not all(
                static_values.is_tuple(p) and len(p) == 2 for p in pairs):
            raise cx.source.error(node, "dict(): the argument must be a dict or a list or "
                                        "tuple of (key, value) pairs",
                                  "dict(pairs) with pairs = [('a', x), ('b', y)]")
        items = [(static_values.python_value(k), v) for k, v in pairs]
    items += kwargs.items()
    if not all(isinstance(k, str) for k, _ in items):
        raise cx.source.error(node, "dict keys must be strings",
                              "use string keys: dict(w=w, b=b)")
    return dict(items)


def _class_test(name, test):
    """isinstance / np.isscalar / callable, answered while compiling from the classes the
    value may have at run time (see static_values.python_classes); refused when they
    disagree (a number that is a float or a numpy float64)."""

    def lower(cx: CallContext, args, node):
        value, *rest = cx.exactly(args, 2 if name == "isinstance" else 1, node)
        options = [static_values.python_value(r) for r in rest]
        try:
            answers = {test(cls, *options) for cls in static_values.python_classes(value)}
        except TypeError as e:
            raise cx.source.error(node, f"{name}(): {e}") from None
        if len(answers) != 1:
            raise cx.source.error(node, f"{name}(): the answer depends on whether the number "
                                  "is a Python or a numpy scalar, which compiled code "
                                  "does not tell apart", "test with builtin classes: "
                                                                 "float, int, np.ndarray")
        return const(answers.pop())

    return lower


def _type_of(cx: CallContext, args, node):
    """`type(x)`: the class of `x` (a compile-time value), or its `PossibleTypes` where a
    number may be a Python or a numpy scalar."""
    (value,) = cx.exactly(args, 1, node)
    classes = static_values.python_classes(value)
    return classes[0] if len(classes) == 1 else static_values.PossibleTypes(classes)


def _possible_type_call(obj):
    """The rule of calling `type(x)` of a number (`type(x)(v)`): the one its candidate
    classes share (float and np.float64 both convert to f64), else None (refused)."""
    if not isinstance(obj, static_values.PossibleTypes):
        return None
    rules = {registered(c) for c in obj.classes}
    return rules.pop() if len(rules) == 1 else None


class _CopiesMetadata:
    """The decorator `functools.wraps(f)` makes: it copies names and docstrings, which
    compiled code does not keep, so it returns the function it decorates."""


COPIES_METADATA = _CopiesMetadata()


def _wraps(cx: CallContext, args, kwargs, node):
    return COPIES_METADATA


def _wrapper(cx: CallContext, args, kwargs, node):
    """`functools.update_wrapper(wrapper, wrapped, ...)` and the decorator of `wraps`: the
    wrapper itself."""
    if not args:
        raise cx.source.error(node, "expected the function to decorate")
    return args[0]


def empty_message(name: str) -> str:
    """What this Python's builtin `name` (max, min) says of an empty sequence (3.11 and
    3.12 word it differently)."""
    try:
        getattr(builtins, name)([])
    except ValueError as e:
        return str(e)
    raise AssertionError(f"{name}([]) returned")


def _range_arguments(cx: CallContext, args, node) -> list:
    """range()'s arguments as int64 (bools count as ints); anything else is refused, as
    range() raises TypeError for it."""
    values = [cx.numeric(cx.scalar(a, node), node) for a in args]
    if any(v.type != I64 for v in values):
        raise cx.source.error(node, "range() arguments must be integers, got "
                              f"{', '.join(str(v.type) for v in values)} ('float' "
                              "object cannot be interpreted as an integer)",
                              "convert with int(...) first")
    return values


def _range_len(cx: CallContext, args, node):
    """The trip count of a `for` loop (see normalize.py)."""
    return cx.b.range_len(*_range_arguments(cx, args, node))


def range_bound(value):
    """A bound of a `for ... in range(...)` loop counted with a step of 1 or -1
    (normalize.py): checked to be an int like range()'s."""
    raise TypeError("compiled code only")  # a marker object; lowered by `_range_bound`


def _range_bound(cx: CallContext, args, node):
    return _range_arguments(cx, args, node)[0]


register([builtins.max], _builtin_extremum("max", "gt", "max"), keywords=False)
register([builtins.min], _builtin_extremum("min", "lt", "min"), keywords=False)
register([builtins.any], _truth_fold("any"), keywords=False)
register([builtins.all], _truth_fold("all"), keywords=False)
register([builtins.round], rounding_to_digits(True), keywords=False)
register([builtins.float, np.float64], _cast(F64), keywords=False)
register([builtins.int, np.int64], _cast(I64), keywords=False)
register([range_len], _range_len, keywords=False)
register([range_bound], _range_bound, keywords=False)
register([builtins.dict], _dict)
register([builtins.type], _type_of, keywords=False)
register([functools.wraps], _wraps)
register([functools.update_wrapper, COPIES_METADATA], _wrapper)
add_resolver(_possible_type_call)
register([builtins.isinstance], _class_test("isinstance", issubclass), keywords=False)
register([np.isscalar], _class_test("np.isscalar", lambda cls: issubclass(
    cls, np.generic | numbers.Number) or cls in np.ScalarType),  # numpy's test, on the class
         keywords=False)
register([builtins.callable], _class_test("callable", lambda cls: any(
    "__call__" in k.__dict__ for k in cls.__mro__)), keywords=False)
