"""Expansion of the calls of `primitives/custom.py` before lowering.

Contract: `expand(graph)` returns `graph` itself when it holds no `custom_vjp`, `custom_jvp`,
`call`, `stop_gradient` or `missing_cotangent` equation (at any depth); otherwise an
optimised copy in which each call is replaced by the equations of its `graph` (the function
itself: its derivative rules are no longer needed once the derivatives are taken) and
`stop_gradient x` by `x`; a `missing_cotangent` (a derivative the program needs that does not
exist, see `primitives/special.py`) raises its NotImplementedError. The backends never see
these primitives. `graph` is not modified.
"""

from __future__ import annotations

from ..ir.builder import Builder
from ..ir.core import Atom, Eqn, Graph, Var, walk_eqns
from ..ir.transform import clone, inline
from ..primitives.custom import CALLS
from ..primitives.special import no_derivative_message
from . import optimize

EXPANDED = (*CALLS, "stop_gradient", "missing_cotangent")


def expand(graph: Graph) -> Graph:
    if not any(e.prim in EXPANDED for e in walk_eqns(graph)):
        return graph
    copy = clone(graph)
    _expand_in_place(copy)
    return optimize(copy)


def _expand_in_place(graph: Graph) -> None:
    sub: dict[int, Atom] = {}

    def look(atom: Atom) -> Atom:
        while isinstance(atom, Var) and id(atom) in sub:
            atom = sub[id(atom)]
        return atom

    eqns: list[Eqn] = []

    def visit(eqn: Eqn) -> None:
        eqn.inputs = [look(a) for a in eqn.inputs]
        if eqn.prim == "stop_gradient":
            sub[id(eqn.outputs[0])] = eqn.inputs[0]
            return
        if eqn.prim == "missing_cotangent":
            raise NotImplementedError(no_derivative_message(eqn.params))
        if eqn.prim in CALLS:
            b = Builder()
            results = inline(b, eqn.params["graph"], eqn.inputs)
            for inner in b.eqns:
                visit(inner)
            for out, atom in zip(eqn.outputs, results, strict=True):
                sub[id(out)] = look(atom)
            return
        for s in eqn.subgraphs():
            _expand_in_place(s)
        eqns.append(eqn)

    for eqn in graph.eqns:
        visit(eqn)
    graph.eqns = eqns
    graph.outputs = [look(a) for a in graph.outputs]
