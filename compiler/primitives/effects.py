"""The observable effects of compiled code: run-time checks (`assert`, `raise`) and `print`.

Contract:
- `check[error, args] ok *operands`: raises the built-in exception class named `error` with
  the arguments `args` when `ok` (a bool scalar) is false, else does nothing.
- `print[items, sep, end, flush, file] *operands`: Python's
  `print(*items, sep=sep, end=end, flush=flush, file=sys.<file>)`, looked up at run time (so
  pytest's capsys sees it).
An argument (an exception argument or a printed item) is `("value", k)`, operand k itself,
or `("str", template)`, the string a template makes. A template is a tuple of parts: a
literal string, or `(k, conversion, spec)`, operand k formatted as an f-string replacement
field `{v!conversion:spec}` does (`conversion` None, "s", "r" or "a"; `spec` a template).
Operands are scalars or arrays; `values(types, raw)` gives them the Python types the
uncompiled function would see (float, int, bool, numpy float32 and arrays), and `render`
/ `raise_check` / `emit_print` run the effect with them: both backends call these, so what is
printed or raised is the same everywhere.
Both primitives are effectful (never removed, merged or reordered, see `ir.primitive`) and
not differentiable: they stay in the forward sweep of derivatives and in tangent code, and
`without_effects` removes them from a recomputation of forward values (the replay of an
`if`'s taken arm by reverse mode), so each runs once per evaluation, as in Python.
"""

from __future__ import annotations

import builtins
import sys

import numpy as np

from ..ir.core import BOOL, Graph, Type
from ..ir.primitive import Primitive, register

EFFECTS = ("check", "print")
CONVERSIONS = {None: lambda v: v, "s": str, "r": repr, "a": ascii}


def exception_class(name: str) -> type:
    """The built-in exception class called `name`."""
    cls = getattr(builtins, name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise TypeError(f"{name!r} is not a built-in exception class")
    return cls


def type_of(text: str) -> Type:
    """The IR type printed as `text` (`f64`, `f64[3,2]`)."""
    name, _, shape = text.partition("[")
    if not shape:
        return Type(name)
    return Type(name, tuple(int(n) for n in shape[:-1].split(",") if n))


def values(types: tuple[str, ...], raw: list) -> list:
    """Operands of the printed types `types`, as the uncompiled function holds them."""
    return [python_value(type_of(t), v) for t, v in zip(types, raw, strict=True)]


def python_value(t: Type, value):
    """`value` of IR type `t` as the uncompiled function holds it."""
    if t.is_array:
        return np.asarray(value, dtype=t.dtype.numpy).reshape(t.shape)
    if t.name == "f32":
        return np.float32(value)
    return {"f64": float, "i64": int, "bool": bool}[t.name](value)


def render(template: tuple, operands: list) -> str:
    out = []
    for part in template:
        if isinstance(part, str):
            out.append(part)
        else:
            k, conversion, spec = part
            out.append(format(CONVERSIONS[conversion](operands[k]), render(spec, operands)))
    return "".join(out)


def argument(arg: tuple, operands: list):
    kind, what = arg
    return operands[what] if kind == "value" else render(what, operands)


def raise_check(error: str, args: tuple, operands: list):
    """Raises the failed check's exception."""
    raise exception_class(error)(*(argument(a, operands) for a in args))


def emit_print(items: tuple, sep: str | None, end: str | None, flush: bool, file: str,
               operands: list) -> None:
    print(*(argument(a, operands) for a in items), sep=sep, end=end, flush=flush,
          file=getattr(sys, file))


def _check_type(in_types, params):
    if in_types[0] != BOOL:
        raise TypeError(f"check: the condition must be a bool scalar, got {in_types[0]}")
    exception_class(params["error"])
    return []


def _check_impl(ok, *operands, error, args):
    if not ok:
        raise_check(error, args, list(operands))
    return ()


def _print_impl(*operands, items, sep, end, flush, file):
    emit_print(items, sep, end, flush, file, list(operands))
    return ()


def _operand_list(args: list[str]) -> str:
    return "[" + ", ".join(args) + "]"


def _check_py(args, eqn):
    p = eqn.params
    return f"_rt.check({args[0]}, {p['error']!r}, {p['args']!r}, " \
           f"{_types_source(eqn.inputs[1:])}, {_operand_list(args[1:])})"


def _print_py(args, eqn):
    p = eqn.params
    return f"_rt.print_({p['items']!r}, {p['sep']!r}, {p['end']!r}, {p['flush']!r}, " \
           f"{p['file']!r}, {_types_source(eqn.inputs)}, {_operand_list(args)})"


def _types_source(atoms) -> str:
    return "(" + "".join(f"{str(a.type)!r}, " for a in atoms) + ")"


register(Primitive("check", _check_type, _check_impl, None, None, _check_py, effectful=True,
                   differentiable=False))
register(Primitive("print", lambda in_types, params: [], _print_impl, None, None, _print_py,
                   effectful=True, differentiable=False))


def without_effects(graph: Graph) -> bool:
    """Removes, in place, every `check` and `print` of `graph` and its subgraphs; whether
    there was one."""
    removed = False
    for eqn in graph.eqns:
        for sub in eqn.subgraphs():
            removed |= without_effects(sub)
    kept = [e for e in graph.eqns if e.prim not in EFFECTS]
    removed |= len(kept) != len(graph.eqns)
    graph.eqns = kept
    return removed
