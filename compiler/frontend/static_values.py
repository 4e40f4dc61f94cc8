"""Compile-time ("static") values in the frontend's environment and the questions about them
that compiled code answers while compiling.

Contract: a static value is any environment value that is not a number or array (`Var` /
`Const`), a live view (`LIVE`) or a tuple holding one of those: strings, None, functions,
closures, modules, classes, objects, and tuples of constants. They cost nothing at run time and
may cross an `if` or a loop when every path binds the same value (`same`). `describe` names a
value for error messages; `python_classes` are the classes Python may see for a value (an
array is an `np.ndarray`, an f64 number a `float` or a numpy float64, a 0-d array argument
an `np.ndarray`: `Array0`, ...), which answer `isinstance`, `np.isscalar`, `callable` and
`type` (`PossibleTypes` where they are several); `compare` evaluates `==`, `!=`, `is`,
`is not`, `in`, `not in` when the answer is known while compiling (None otherwise).
"""

from __future__ import annotations

import operator
import types
from dataclasses import dataclass

import gast
import numpy as np

from ..ir.core import Const, Var
from .aliasing import LIVE

SCALAR_CLASSES = {"f64": (float, np.float64), "f32": (np.float32,), "i64": (int, np.int64),
                  "bool": (bool, np.bool_)}
OPERATORS = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Is: operator.is_,
             gast.IsNot: operator.is_not, gast.In: lambda a, b: operator.contains(b, a),
             gast.NotIn: lambda a, b: not operator.contains(b, a)}


def is_runtime(value) -> bool:
    """Does the value (or an element of the tuple) exist only at run time?"""
    if isinstance(value, tuple):
        return any(is_runtime(v) for v in value)
    return isinstance(value, Var) or value is LIVE


def is_static(value) -> bool:
    return not isinstance(value, Const) and not is_runtime(value)


def python_value(value):
    """The Python value of a static value or constant (tuples element by element)."""
    if isinstance(value, tuple):
        return tuple(python_value(v) for v in value)
    return value.value if isinstance(value, Const) else value


def same(a, b) -> bool:
    """Are two static values the same Python value (so a join needs no run-time choice)?"""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and \
            all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Const) or isinstance(b, Const):
        return isinstance(a, Const) and isinstance(b, Const) and a.type == b.type and \
            (a.value == b.value or a.value != a.value and b.value != b.value)
    return a is b or (type(a) is type(b) and isinstance(a, str | int | float | bool |
                                                     PossibleTypes) and a == b) \
        or (hasattr(a, "same_as") and a.same_as(b))


def describe(value) -> str:
    """`a string ('put')`, `None`, `a function (rhs)`, ... for error messages."""
    if value is LIVE or isinstance(value, Var | Const):
        return "an array" if _is_array(value) else "a number"
    if value is None:
        return "None"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, tuple):
        return "a tuple"
    if isinstance(value, types.ModuleType):
        return f"a module ({value.__name__})"
    if callable(value):
        return f"a function ({getattr(value, '__name__', type(value).__name__)})"
    if hasattr(value, "python_class"):  # the frontend's stand-in for a list or a range
        return f"a {value.python_class.__name__} object"
    return f"a compile-time value of type {type(value).__name__}"


@dataclass(frozen=True)
class PossibleTypes:
    """`type(x)` of a number whose Python class compiled code does not tell apart (a `float`
    or a numpy `float64`, an `int` or an `int64`, ...): its candidate `classes`. A comparison
    (`==`, `is`, `in`) is answered when every candidate gives the same answer (`compare`);
    called, it converts as the candidates do when they share one rule."""

    classes: tuple[type, ...]

    @property
    def __name__(self) -> str:  # noqa: PLW3201 - read like a class's name in messages
        return f"type(x) ({' or '.join(c.__name__ for c in self.classes)})"


class Array0(Var):
    """A 0-d array argument (`np.array(1.5)` passed in): a number of its dtype in the IR, a
    numpy 0-d array to `type`, `isinstance` and the caller (returned as one). What numpy
    computes from it is a numpy scalar, as compiled code's numbers are; writing into it in
    place is refused (`to_ir.FunctionConverter.in_place`)."""

    __slots__ = ()


def python_classes(value) -> tuple[type, ...]:
    """The classes the value Python holds may have (compiled numbers and arrays included):
    an f64 number is a `float` or a numpy float64 (the result of a numpy function), ..."""
    if isinstance(value, Array0):
        return (np.ndarray,)
    if isinstance(value, PossibleTypes):
        return (type,)
    if isinstance(value, Var | Const):
        return (np.ndarray,) if value.type.is_array else SCALAR_CLASSES[value.type.name]
    if value is LIVE:
        return (np.ndarray,)
    if hasattr(value, "same_as"):  # a closure
        return (types.FunctionType,)
    if hasattr(value, "python_class"):  # the frontend's stand-in for a list or a range
        return (value.python_class,)
    return (type(value),)


class ListTuple(tuple):
    """A Python list read as a tuple (a list argument, which compiled code cannot write into,
    or a list handed to a lowering): a `list` to `isinstance`."""

    python_class = list


class NamedTupleValue(tuple):
    """A named tuple (an argument, or a transformation's result): its items as a tuple, its
    class `named` for attribute access (`p.w`), `isinstance` and the returned value."""

    named: type

    def __new__(cls, items, named: type) -> NamedTupleValue:
        value = super().__new__(cls, items)
        value.named = named
        return value

    @property
    def python_class(self) -> type:
        return self.named

    def field(self, name: str):
        """The item of field `name`, or None when the class has no such field."""
        fields = self.named._fields
        return self[fields.index(name)] if name in fields else None


def compare(op, left, right):
    """`left op right` as a Python bool when it is known while compiling, else None: both
    sides static or constants (`in` on a tuple of strings), or a static value (a string, None,
    a function) against a number with `==`, `!=` or a number or array with `is`, `is not`:
    never equal, never identical. Numbers against numbers are left to the IR."""
    fn = OPERATORS.get(type(op))
    if fn is None:
        return None
    if isinstance(left, PossibleTypes) or isinstance(right, PossibleTypes):
        answers = {compare(op, a, b) for a in _candidates(left) for b in _candidates(right)}
        return answers.pop() if len(answers) == 1 else None
    kinds = [_kind(left), _kind(right)]
    if isinstance(op, gast.In | gast.NotIn):
        return None if "runtime" in kinds else bool(fn(python_value(left), python_value(right)))
    if kinds == ["static", "static"]:
        return bool(fn(python_value(left), python_value(right)))
    if "static" in kinds and (isinstance(op, gast.Is | gast.IsNot) or
                              not any(_is_array(v) for v in (left, right))):
        return isinstance(op, gast.NotEq | gast.IsNot)
    return None  # numbers against numbers, or numpy's elementwise == on an array


def _candidates(value) -> tuple:
    return value.classes if isinstance(value, PossibleTypes) else (value,)


def _is_array(value) -> bool:
    return value is LIVE or isinstance(value, Var | Const) and value.type.is_array


def _kind(value) -> str:
    if is_runtime(value):
        return "runtime"
    return "const" if isinstance(value, Const) else "static"


def is_tuple(value) -> bool:
    """A tuple of the frontend (a list read as a tuple is one), not a masks.MaskedRead."""
    return type(value) in (tuple, ListTuple, NamedTupleValue)
