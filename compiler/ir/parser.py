"""Parser of the printer's text form: `parse_graph(print_graph(g))` rebuilds `g`.

Grammar (one equation per line; `# L<n>` records the source line):

    graph  := "{" "lambda" input* "." ["let" eqn (NEWLINE eqn)*] "in" "(" atoms ")" "}"
    input  := ["extern"] NAME ":" TYPE
    eqn    := [(NAME ":" TYPE)+ "="] PRIM ["[" param ("," param)* "]"] atom* [LOC]
    param  := NAME "=" value
    value  := graph | "(" [value ("," value)* [","]] ")" | NUMBER | STRING | TYPE
            | "True" | "False" | "None" | "int" | "newaxis" | [INT] ":" [INT] [":" [INT]]
    TYPE   := NAME ["[" [INT ("," INT)*] "]"]
    atom   := (NAME | NUMBER | "True" | "False" | "inf" | "-inf" | "nan") [":" TYPE]

Numbers with a '.' or an exponent (and inf/nan) are f64, other numbers i64, unless a type
follows (`2.0:f32`). `extern` inputs are the graph's external inputs (what they read is not
in the text: the parsed graph's `externals.reads` is empty).
"""

from __future__ import annotations

import ast
import re

from .core import BOOL, F64, I64, TYPES, Const, Eqn, Externals, Graph, Type, Var
from .index import Int, NewAxis, Slice

_TOKEN = re.compile(r"""
    (?P<loc>\#\s*L(?P<line>\d+))
  | (?P<num>-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)|-inf)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<str>'(?:[^'\\\n]|\\.)*')
  | (?P<punct>[{}()\[\],=.:])
  | (?P<newline>\n)
  | (?P<space>[ \t]+)
""", re.X)


class IRSyntaxError(ValueError):
    """The text is not in the printer's format."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise IRSyntaxError(f"unexpected character {text[pos]!r} at offset {pos}")
        kind = m.lastgroup if m.lastgroup != "line" else "loc"
        if kind == "loc":
            out.append(("loc", m.group("line")))
        elif kind != "space":
            out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _number(tok: str) -> int | float:
    return float(tok) if any(c in tok for c in ".eE") or tok.endswith("inf") else int(tok)


_INDEX_ITEMS = {"int": Int(), "newaxis": NewAxis()}


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.vars: dict[str, Var] = {}

    def peek(self, k: int = 0) -> tuple[str, str]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "")

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        tok_kind, tok = self.peek()
        if (value is not None and tok != value) or (kind is not None and tok_kind != kind):
            raise IRSyntaxError(f"expected {value or kind}, got {tok!r} (token {self.i})")
        self.i += 1
        return tok

    def skip_newlines(self) -> None:
        while self.peek()[0] == "newline":
            self.i += 1

    def type(self) -> Type:
        name = self.take(kind="name")
        if name not in TYPES:
            raise IRSyntaxError(f"unknown type {name!r}")
        if self.peek()[1] != "[":
            return TYPES[name]
        self.take("[")
        shape = []
        while self.peek()[1] != "]":
            shape.append(int(self.take(kind="num")))
            if self.peek()[1] == ",":
                self.take(",")
        self.take("]")
        return Type(name, tuple(shape))

    def define(self) -> Var:
        name = self.take(kind="name")
        self.take(":")
        var = Var(self.type(), re.sub(r"_\d+$", "", name))
        self.vars[name] = var
        return var

    def atom(self):
        kind, tok = self.peek()
        self.i += 1
        if kind == "num":
            value = _number(tok)
            typ = F64 if isinstance(value, float) else I64
        elif tok in ("True", "False"):
            value, typ = tok == "True", BOOL
        elif tok in ("inf", "nan"):
            value, typ = float(tok), F64
        elif tok in self.vars:
            return self.vars[tok]
        else:
            raise IRSyntaxError(f"undefined name {tok!r}")
        if self.peek()[1] == ":":
            self.take(":")
            typ = self.type()
        return Const(value, typ)

    def value(self):
        kind, tok = self.peek()
        if tok == "{":
            return self.graph()
        if tok == "(":
            self.take("(")
            items = []
            while self.peek()[1] != ")":
                items.append(self.value())
                if self.peek()[1] != ")":
                    self.take(",")
            self.take(")")
            return tuple(items)
        if kind == "name" and tok in TYPES:
            return self.type()
        if tok == ":" or (kind == "num" and self.peek(1)[1] == ":"):
            return self.slice()
        self.i += 1
        if tok in _INDEX_ITEMS:
            return _INDEX_ITEMS[tok]
        if kind == "num":
            return _number(tok)
        if kind == "str" or tok in ("True", "False", "None"):
            return ast.literal_eval(tok)
        raise IRSyntaxError(f"bad parameter value {tok!r}")

    def slice(self) -> Slice:
        parts: list[int | None] = []
        while True:
            parts.append(int(self.take()) if self.peek()[0] == "num" else None)
            if len(parts) == 3 or self.peek()[1] != ":":
                break
            self.take(":")
        return Slice(*parts)

    def eqn(self) -> Eqn:
        outputs = []
        while self.peek(1)[1] == ":":
            outputs.append(self.define())
        if outputs:
            self.take("=")
        prim = self.take(kind="name")
        params = {}
        if self.peek()[1] == "[":
            self.take("[")
            while True:
                key = self.take(kind="name")
                self.take("=")
                self.skip_newlines()
                params[key] = self.value()
                if self.peek()[1] != ",":
                    break
                self.take(",")
            self.take("]")
        inputs = []
        while self.peek()[0] in ("name", "num"):
            inputs.append(self.atom())
        loc = int(self.take(kind="loc")) if self.peek()[0] == "loc" else None
        return Eqn(prim, inputs, outputs, params, loc)

    def graph(self) -> Graph:
        self.take("{")
        self.take("lambda")
        inputs, hidden = [], []
        while self.peek()[1] != ".":
            extern = self.peek() == ("name", "extern") and self.peek(1)[0] == "name"
            if extern:
                self.take("extern")
            inputs.append(self.define())
            if extern:
                hidden.append(inputs[-1])
        self.take(".")
        self.skip_newlines()
        eqns = []
        if self.peek()[1] == "let":
            self.take("let")
            while self.peek()[1] != "in":
                eqns.append(self.eqn())
                self.skip_newlines()
        self.take("in")
        self.take("(")
        outputs = []
        while self.peek()[1] != ")":
            outputs.append(self.atom())
            if self.peek()[1] == ",":
                self.take(",")
        self.take(")")
        self.take("}")
        return Graph(inputs, eqns, outputs, externals=Externals((), tuple(hidden)))


def parse_graph(text: str) -> Graph:
    """Rebuild a graph from `print_graph` output."""
    p = _Parser(text)
    graph = p.graph()
    p.skip_newlines()
    if p.peek()[0] != "eof":
        raise IRSyntaxError(f"trailing text after the graph: {p.peek()[1]!r}")
    return graph
