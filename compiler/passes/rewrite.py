"""Shared machinery of the rewriting passes: substitution of atoms inside one graph level.

Contract: `Substitution` maps vars to replacement atoms; `apply(eqn)` rewrites an equation's
inputs, `outputs(graph)` a graph's outputs. Subgraphs are closed, so a substitution made at
one level never reaches inside them.
"""

from __future__ import annotations

from ..ir.core import Atom, Const, Eqn, Graph


class Substitution:
    def __init__(self) -> None:
        self.map: dict[int, Atom] = {}

    def __setitem__(self, var, atom: Atom) -> None:
        self.map[id(var)] = self[atom]

    def __getitem__(self, atom: Atom) -> Atom:
        if isinstance(atom, Const):
            return atom
        return self.map.get(id(atom), atom)

    def apply(self, eqn: Eqn) -> None:
        if self.map:
            eqn.inputs = [self[a] for a in eqn.inputs]

    def outputs(self, graph: Graph) -> None:
        graph.outputs = [self[a] for a in graph.outputs]

