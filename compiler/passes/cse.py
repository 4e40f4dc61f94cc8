"""Common-subexpression elimination within each graph level.

Contract (`cse`): a pure, subgraph-free equation whose primitive, inputs and params equal an
earlier one's (in the same graph) is removed and its outputs replaced by the earlier outputs.
Effectful equations are never merged.
"""

from __future__ import annotations

from ..ir.core import Const, Graph
from ..ir.primitive import PRIMITIVES
from ..ir.transform import all_graphs
from .rewrite import Substitution


def _key(eqn):
    inputs = tuple(("c", a.type.name, repr(a.value)) if isinstance(a, Const) else id(a)
                   for a in eqn.inputs)
    params = tuple(sorted((k, repr(v)) for k, v in eqn.params.items()))
    return eqn.prim, inputs, params


def cse(graph: Graph) -> bool:
    changed = False
    for g in all_graphs(graph):
        sub, seen, eqns = Substitution(), {}, []
        for eqn in g.eqns:
            sub.apply(eqn)
            if not PRIMITIVES[eqn.prim].effectful and not eqn.subgraphs():
                key = _key(eqn)
                if key in seen:
                    for out, prev in zip(eqn.outputs, seen[key].outputs, strict=True):
                        sub[out] = prev
                    changed = True
                    continue
                seen[key] = eqn
            eqns.append(eqn)
        g.eqns = eqns
        sub.outputs(g)
    return changed
