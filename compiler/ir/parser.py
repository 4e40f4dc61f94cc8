"""Parser of the printer's text form: `parse_graph(print_graph(g))` rebuilds `g`.

Grammar (one equation per line; `# L<n>` records the source line):

    graph  := "{" "lambda" (NAME ":" TYPE)* "." ["let" eqn (NEWLINE eqn)*] "in" "(" atoms ")" "}"
    eqn    := [(NAME ":" TYPE)+ "="] PRIM ["[" param ("," param)* "]"] atom* [LOC]
    param  := NAME "=" (graph | "(" graph ("," graph)* ")" | INT | TYPE)
    atom   := NAME | NUMBER | "True" | "False" | "inf" | "-inf" | "nan"

Numbers with a '.' or an exponent (and inf/nan) are f64, other numbers i64.
"""

from __future__ import annotations

import re

from .core import BOOL, F64, I64, TYPES, Const, Eqn, Graph, Var

_TOKEN = re.compile(r"""
    (?P<loc>\#\s*L(?P<line>\d+))
  | (?P<num>-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)|-inf)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
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

    def define(self) -> Var:
        name = self.take(kind="name")
        self.take(":")
        var = Var(TYPES[self.take(kind="name")], re.sub(r"_\d+$", "", name))
        self.vars[name] = var
        return var

    def atom(self):
        kind, tok = self.peek()
        self.i += 1
        if kind == "num":
            is_float = any(c in tok for c in ".eE") or tok.endswith("inf")
            return Const(float(tok) if is_float else int(tok), F64 if is_float else I64)
        if tok in ("True", "False"):
            return Const(tok == "True", BOOL)
        if tok in ("inf", "nan"):
            return Const(float(tok), F64)
        if tok not in self.vars:
            raise IRSyntaxError(f"undefined name {tok!r}")
        return self.vars[tok]

    def param(self):
        kind, tok = self.peek()
        if tok == "{":
            return self.graph()
        if tok == "(":
            self.take("(")
            items = [self.graph()]
            while self.peek()[1] == ",":
                self.take(",")
                items.append(self.graph())
            self.take(")")
            return tuple(items)
        self.i += 1
        if kind == "num":
            return int(tok)
        if tok in TYPES:
            return TYPES[tok]
        raise IRSyntaxError(f"bad parameter value {tok!r}")

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
                params[key] = self.param()
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
        inputs = []
        while self.peek()[1] != ".":
            inputs.append(self.define())
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
        return Graph(inputs, eqns, outputs)


def parse_graph(text: str) -> Graph:
    """Rebuild a graph from `print_graph` output."""
    p = _Parser(text)
    graph = p.graph()
    p.skip_newlines()
    if p.peek()[0] != "eof":
        raise IRSyntaxError(f"trailing text after the graph: {p.peek()[1]!r}")
    return graph
