"""Canonical, deterministic text form of IR graphs (parsed back by `parser.py`).

    { lambda x:f64 n:i64 .
      let t1:f64 = mul x 2.0          # L3
          y:f64 = while[n_consts=1,
                        cond={ lambda ... },
                        body={ lambda ... }] n t1
      in (y) }

An input a graph reads from outside its arguments (see `Externals` in core.py) prints as
`extern W:f64[3]`.

Names come from the user's variables (`hint`), made unique with `_1`, `_2` suffixes, or `t1`,
`t2` for temporaries, in order of definition across the whole printout. Constants print with
Python's `repr` (`2.0` is f64, `2` is i64, `True` is bool; `inf`, `nan`); constants of other
types carry their type (`2.0:f32`). Parameters print as Python literals (ints, floats, bools,
`None`, quoted strings, tuples with a trailing comma when of length one), types as in
signatures (`f64[3,4]`), index items as in `ir.index` (`int`, `1:-1`, `newaxis`) and
subgraphs as nested graphs. The text is complete: two graphs with
the same text compute the same function (the LLVM cache keys on it).
"""

from __future__ import annotations

import math

from . import dtypes
from .core import Const, Graph, Type, Var
from .dims import is_symbolic
from .index import Int, NewAxis, Slice


class _Namer:
    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        self.temps = 0

    def define(self, var: Var) -> str:
        base = var.hint or ""
        if base and base not in self.used:
            name = base
        elif base:
            k = 1
            while f"{base}_{k}" in self.used:
                k += 1
            name = f"{base}_{k}"
        else:
            self.temps += 1
            name = f"t{self.temps}"
            while name in self.used:
                self.temps += 1
                name = f"t{self.temps}"
        self.used.add(name)
        self.names[id(var)] = name
        return name

    def use(self, atom) -> str:
        if isinstance(atom, Const):
            return format_const(atom)
        if id(atom) not in self.names:
            return f"<undefined {atom!r}>"
        return self.names[id(atom)]


_DEFAULT_CONST_TYPES = (dtypes.F64, dtypes.I64, dtypes.BOOL)  # what a bare literal parses as


def format_const(c: Const) -> str:
    v = c.value
    if is_symbolic(v):  # a run-time size
        text = str(v)
    elif c.type.is_float:
        text = "nan" if math.isnan(v) else repr(float(v))
    else:
        text = repr(v)
    return text if c.type.dtype in _DEFAULT_CONST_TYPES else f"{text}:{c.type}"


def _param(value, namer: _Namer, indent: str) -> str:
    if isinstance(value, Graph):
        return _graph(value, namer, indent + "  ")
    if isinstance(value, tuple):
        items = [_param(v, namer, indent) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, Type | Int | Slice | NewAxis):
        return str(value)
    return repr(value)


def _graph(graph: Graph, namer: _Namer, indent: str) -> str:
    hidden = {id(v) for v in graph.externals.inputs}
    ins = " ".join(("extern " if id(v) in hidden else "") + f"{namer.define(v)}:{v.type}"
                   for v in graph.inputs)
    lines = [f"{{ lambda {ins} ."]
    for k, eqn in enumerate(graph.eqns):
        params = ""
        if eqn.params:
            inner = indent + " " * 6
            params = "[" + ", ".join(f"{key}={_param(val, namer, inner)}"
                                     for key, val in sorted(eqn.params.items())) + "]"
        args = " ".join(namer.use(a) for a in eqn.inputs)
        outs = " ".join(f"{namer.define(v)}:{v.type}" for v in eqn.outputs)
        lhs = f"{outs} = " if outs else ""
        loc = f"  # L{eqn.loc}" if eqn.loc is not None else ""
        lead = "let " if k == 0 else "    "
        lines.append(f"{indent}  {lead}{lhs}{eqn.prim}{params} {args}".rstrip() + loc)
    outs = ", ".join(namer.use(a) for a in graph.outputs)
    lines.append(f"{indent}  in ({outs}) }}")
    return "\n".join(lines)


def print_graph(graph: Graph) -> str:
    """The canonical text of `graph` (and its subgraphs)."""
    return _graph(graph, _Namer(), "") + "\n"
