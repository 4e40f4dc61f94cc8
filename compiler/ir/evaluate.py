"""Reference interpreter: runs a graph with each primitive's numpy `impl`.

Contract: `run_graph(graph, values) -> list` evaluates the equations in order (IEEE semantics,
no Python exceptions for inf/nan); `evaluate(graph, values)` does the same with fresh AD
tapes. It is the oracle for backends and the engine of constant folding.
"""

from __future__ import annotations

import contextvars
from typing import Any

from .core import Const, Graph
from .primitive import PRIMITIVES

_tape: contextvars.ContextVar[dict] = contextvars.ContextVar("adlite_tape")


def current_tape(number: int = 0) -> list:
    return _tape.get().setdefault(number, [])


def run_graph(graph: Graph, values: list[Any]) -> list[Any]:
    env = dict(zip(map(id, graph.inputs), values, strict=True))

    def read(atom):
        return atom.value if isinstance(atom, Const) else env[id(atom)]

    for eqn in graph.eqns:
        outs = PRIMITIVES[eqn.prim].impl(*(read(a) for a in eqn.inputs), **eqn.params)
        for var, value in zip(eqn.outputs, outs, strict=True):
            env[id(var)] = value
    return [read(a) for a in graph.outputs]


def evaluate(graph: Graph, values: list[Any]) -> list[Any]:
    token = _tape.set({})
    try:
        return run_graph(graph, values)
    finally:
        _tape.reset(token)
