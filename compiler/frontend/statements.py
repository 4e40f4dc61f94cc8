"""`assert`, `raise` and `print` (with f-strings) in compiled code: the effect primitives.

Contract:
- `end_at_raises(stmts)` (run by the normalizer before anything else) makes every `raise`
  the last statement of its block (what follows it never runs) and turns an `if` one of whose
  arms always raises into `if test: <that arm>` followed by the other arm's statements: the
  rest of the function runs only when the arm did not raise, so the variables the other arm
  assigns are defined afterwards, as in Python.
- `handles(conv, s)` tells whether `convert(conv, s)` converts statement `s`: `assert` becomes
  `check[AssertionError]` of its test (none under `python -O`, which drops asserts), `raise E`
  / `raise E(args)` of a built-in exception class a `check` that always fails where it is
  reached, and `print(...)` (a statement) a `print` equation. Keywords of `print` (`sep`,
  `end`, `flush`, `file=sys.stdout` / `sys.stderr`) must be known when compiling.
- Arguments (of `print` and of exceptions) are strings (constants, compile-time strings,
  f-strings, `"fmt" % values` printf-style formatting), numbers and arrays, and tuples of
  them; f-strings and `%`-formats are formatted at run time as Python formats them (any
  format spec: Python formats it; a `%` conversion is the format spec it amounts to).
  Other compile-time values are formatted when compiling. See `primitives/effects.py` for
  the encoding.
A message is computed before its check is made (Python computes it only when the check
fails): a message that cannot be computed is an error even where the check would pass.
"""

from __future__ import annotations

import builtins
import re
import sys

import gast

from .. import gast_adapter as g
from ..ir.core import BOOL, I64, Const, Var
from ..primitives.effects import CONVERSIONS
from .conversion_context import ConversionContext
from .static_requirements import refusal
from .static_values import describe

_CONVERSION_CODES = {-1: None, 115: "s", 114: "r", 97: "a"}
_STREAMS = ("stdout", "stderr")


# ---- normalization: a raise ends its block ----------------------------------------------------

def end_at_raises(stmts: list) -> list:
    out: list = []
    for k, s in enumerate(stmts):
        if isinstance(s, gast.Raise):
            out.append(s)
            return out
        if isinstance(s, gast.If):
            s.body, s.orelse = end_at_raises(s.body), end_at_raises(s.orelse)
            raising = [arm for arm in (s.body, s.orelse) if _raises(arm)]
            if len(raising) == 1 and s.body and s.orelse:
                test = s.test if raising[0] is s.body else g.not_(s.test, at=s)
                other = s.orelse if raising[0] is s.body else s.body
                hoisted = gast.copy_location(gast.If(test=test, body=raising[0], orelse=[]), s)
                return out + [hoisted] + end_at_raises(other + stmts[k + 1:])
        elif isinstance(s, gast.While | gast.For):
            s.body = end_at_raises(s.body)
        out.append(s)
    return out


def _raises(stmts: list) -> bool:
    return bool(stmts) and isinstance(stmts[-1], gast.Raise)


# ---- conversion -------------------------------------------------------------------------------

def handles(conv: ConversionContext, s) -> bool:
    if isinstance(s, gast.Assert | gast.Raise):
        return True
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and \
        isinstance(s.value.func, gast.Name) and s.value.func.id not in conv.scope and \
        conv.expr(s.value.func) is builtins.print


def convert(conv: ConversionContext, s) -> None:
    if isinstance(s, gast.Assert):
        _assert(conv, s)
    elif isinstance(s, gast.Raise):
        _raise(conv, s)
    else:
        _print(conv, s.value)


class _Operands:
    """The run-time values an effect reads, in order."""

    def __init__(self) -> None:
        self.atoms: list = []

    def add(self, atom) -> int:
        self.atoms.append(atom)
        return len(self.atoms) - 1


def _assert(conv: ConversionContext, s) -> None:
    if sys.flags.optimize:
        return
    test = conv.truth(conv.expr(s.test), s.test)
    if isinstance(test, Const) and test.value:
        return
    operands = _Operands()
    args = () if s.msg is None else (_argument(conv, s.msg, operands),)
    conv.b.emit("check", [test] + operands.atoms, error="AssertionError", args=args)


def _raise(conv: ConversionContext, s) -> None:
    if s.exc is None:
        raise conv.source.error(s, "bare `raise` (re-raising) in compiled code",
                                "raise a built-in exception: `raise ValueError(\"...\")`")
    if s.cause is not None and not (isinstance(s.cause, gast.Constant) and
                                    s.cause.value is None):
        raise conv.source.error(s, "`raise ... from ...` in compiled code",
                                "raise the exception without `from`")
    exc, call_args = s.exc, []
    if isinstance(exc, gast.Call):
        if exc.keywords:
            raise conv.source.error(exc, "keyword arguments of an exception",
                                    "pass the message as a positional argument")
        exc, call_args = exc.func, exc.args
    cls = conv.expr(exc)
    if not (isinstance(cls, type) and issubclass(cls, BaseException) and
            getattr(builtins, cls.__name__, None) is cls):
        name = getattr(cls, "__name__", type(cls).__name__)
        raise conv.source.error(s, f"raise of {name!r}: compiled code raises Python's built-in "
                                   "exception classes only",
                                "raise ValueError, RuntimeError, ArithmeticError, ... with a "
                                "message")
    operands = _Operands()
    args = tuple(_argument(conv, a, operands) for a in call_args)
    conv.b.emit("check", [Const(False, BOOL)] + operands.atoms, error=cls.__name__, args=args)


def _print(conv: ConversionContext, call) -> None:
    keywords = {kw.arg: kw.value for kw in call.keywords}
    unknown = set(keywords) - {"sep", "end", "flush", "file"}
    if None in keywords or unknown:
        raise conv.source.error(call, f"print() keyword {sorted(map(str, unknown))[0]!r}",
                                "use sep=, end=, flush= and file=sys.stdout or sys.stderr")
    sep, end = (_static_text(conv, keywords.get(k), k) for k in ("sep", "end"))
    flush = _static_flag(conv, keywords.get("flush"))
    file = _stream(conv, keywords.get("file"))
    operands = _Operands()
    items = tuple(_argument(conv, a, operands) for a in call.args)
    conv.b.emit("print", operands.atoms, items=items, sep=sep, end=end, flush=flush, file=file)


def _static_text(conv: ConversionContext, node, what: str) -> str | None:
    if node is None:
        return None
    value = node.value if isinstance(node, gast.Constant) else conv.expr(node)
    if value is None or isinstance(value, str):
        return value
    raise refusal(conv.source, node, "option", f"print()'s {what}= must be a string known when "
                                               f"compiling, got {describe(value)}",
                  f"write {what}=\" \" with a constant string")


def _static_flag(conv: ConversionContext, node) -> bool:
    if node is None:
        return False
    value = conv.expr(node)
    if isinstance(value, Const):
        return bool(value.value)
    raise refusal(conv.source, node, "option", "print()'s flush= must be known when compiling, "
                                               "but it is known only at run time",
                  "write flush=True or flush=False")


def _stream(conv: ConversionContext, node) -> str:
    if node is None:
        return "stdout"
    value = conv.expr(node) if isinstance(node, gast.Attribute) else None
    for name in _STREAMS:
        if value is getattr(sys, name):
            return name
    raise conv.source.error(node, "print(): file= must be sys.stdout or sys.stderr",
                            "print to sys.stdout or sys.stderr, or write files outside the "
                            "compiled function")


def _argument(conv: ConversionContext, node, operands: _Operands) -> tuple:
    """An argument of `print` or of an exception: ("value", k) or ("str", template)."""
    if isinstance(node, gast.Constant | gast.JoinedStr):
        return "str", _template(conv, node, operands)
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mod):
        text = conv.expr(node.left)
        if isinstance(text, str):  # "v=%.2f" % x
            values = conv.expr(node.right)
            return "str", _percent_template(conv, text, values if type(values) is tuple
                                            else (values,), node, operands)
    value = conv.expr(node)
    if isinstance(value, Var | Const):
        return "value", operands.add(value)
    if isinstance(value, tuple):
        return "str", tuple(_tuple_template(conv, value, node, operands))
    return "str", (str(value),)


def _template(conv: ConversionContext, node, operands: _Operands) -> tuple:
    if isinstance(node, gast.Constant):
        return (str(node.value),)
    parts: list = []
    for v in node.values:
        if isinstance(v, gast.Constant):
            parts.append(str(v.value))
            continue
        conversion = _CONVERSION_CODES[v.conversion]
        spec = _template(conv, v.format_spec, operands) if v.format_spec is not None else ()
        value = conv.expr(v.value)
        if isinstance(value, Var | Const):
            parts.append((operands.add(value), conversion, spec))
        elif isinstance(value, tuple):
            parts.extend(_tuple_template(conv, value, v.value, operands))
        elif all(isinstance(p, str) for p in spec):
            parts.append(format(CONVERSIONS[conversion](value), "".join(spec)))
        else:
            raise refusal(conv.source, v, "object", "a format spec computed at run time for a "
                                                    "value known when compiling",
                          "write the format spec as a constant")
    return tuple(parts)


def _tuple_template(conv: ConversionContext, values: tuple, node, operands: _Operands) -> list:
    """The parts of `repr` of a tuple of numbers (Python's `(a, b)`, `(a,)`)."""
    parts: list = ["("]
    for k, value in enumerate(values):
        if isinstance(value, tuple):
            parts.extend(_tuple_template(conv, value, node, operands))
        elif isinstance(value, Var | Const):
            parts.append((operands.add(value), "r", ()))
        else:
            parts.append(repr(value))
        parts.append(", " if k + 1 < len(values) else ("," if len(values) == 1 else ""))
    parts.append(")")
    return parts


_PERCENT = re.compile(r"%(?P<key>\([^)]*\))?(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?"
                      r"(?:\.(?P<precision>\*|\d*))?[hlL]?(?P<type>.?)")
_NUMERIC = {"d": "d", "i": "d", "u": "d", "o": "o", "x": "x", "X": "X", "e": "e", "E": "E",
            "f": "f", "F": "F", "g": "g", "G": "G"}


def _percent_template(conv: ConversionContext, text: str, values: tuple, node,
                      operands: _Operands) -> tuple:
    """The template of `text % values` (printf-style formatting, as Python's `str % ...`):
    each conversion becomes the format spec Python's formatting of that value amounts to;
    `%d` formats `int()` of a float (truncated toward zero). Mapping keys, `*` widths and
    `%c` are refused; so are numeric conversions of arrays and the wrong number of values."""
    parts: list = []
    position, items = 0, list(values)
    for match in _PERCENT.finditer(text):
        parts.append(text[position:match.start()])
        position = match.end()
        kind, flags = match["type"], match["flags"]
        if kind == "%" and match.group(0) == "%%":
            parts.append("%")
            continue
        if match["key"] or match["width"] == "*" or match["precision"] == "*" or \
                kind not in {*_NUMERIC, "s", "r", "a"}:
            raise conv.source.error(node, f"the %-format {match.group(0)!r} does not compile",
                                    "use %d, %i, %u, %o, %x, %e, %f, %g, %s, %r with flags, a "
                                    "width and a precision, or an f-string")
        if not items:
            raise conv.source.error(node, "TypeError: not enough arguments for format string")
        value = items.pop(0)
        width = match["width"] or ""
        precision = "" if match["precision"] is None else f".{match['precision'] or 0}"
        if kind in _NUMERIC:
            spec = ("<" if "-" in flags else "") + \
                ("+" if "+" in flags else " " if " " in flags else "") + \
                ("#" if "#" in flags else "") + ("0" if "0" in flags and "-" not in flags
                                                 else "") + width + precision + _NUMERIC[kind]
            conversion = None
        else:
            spec = ("<" if "-" in flags else ">") + width + precision
            conversion = kind
        parts.append(_percent_part(conv, value, kind, conversion, spec, node, operands))
    if items:
        raise conv.source.error(node, "TypeError: not all arguments converted during string "
                                      "formatting")
    parts.append(text[position:])
    return tuple(p for p in parts if p != "")


def _percent_part(conv: ConversionContext, value, kind: str, conversion, spec: str, node,
                  operands: _Operands):
    """One formatted value of `_percent_template`: a part formatted at run time, or the
    text of a value known when compiling."""
    if not isinstance(value, Var | Const):
        if isinstance(value, tuple):
            raise conv.source.error(node, "TypeError: a tuple among the values of a %-format",
                                    "format its items one by one")
        return format(CONVERSIONS[conversion](value), spec)
    if conversion is None and value.type.is_array:
        raise conv.source.error(node, f"%{kind} of an array (Python's TypeError: only "
                                      "numbers have a numeric format)",
                                "format it with %s, or an item of it")
    if kind in "diuoxX" and value.type.is_float:
        if kind in "oxX":
            raise conv.source.error(node, f"TypeError: %{kind} format: an integer is required, "
                                          "not float")
        value = conv.b.convert(value, to=I64)  # Python's %d of a float: int() of it
    return operands.add(value), conversion, (spec,) if spec else ()
