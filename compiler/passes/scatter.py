"""Scatter-cotangent accumulation: `acc + scatter-add(zeros, ...)` becomes `scatter-add(acc, ...)`.

Contract (`accumulate_scatters`): within each graph level, an array `add(acc, s)` (either
operand order, the right operand first) where `s` is built by a chain of
`index_update(..., mode=add)` equations from `full(0)` (the cotangent of one or more `x[i]`
reads; only reverse mode produces such chains) is replaced by the same chain rooted at `acc`
instead of the zeros and moved to the add's place; its last scatter defines the add's output
var. So an accumulation in a loop updates one array (in place, see the LLVM backend) instead
of adding a fresh zero-filled array each time. A chain is taken only when each of its
scatters is used once (by the next one, the last by the add) and `acc` has the same type.
The two forms differ at most in the sign of a zero cotangent (`-0.0 + 0.0` is `+0.0`). The
zero fills left unused are removed by DCE. Run once after AD (see `pipeline`).
"""

from __future__ import annotations

from collections import Counter

from ..ir.core import Const, Eqn, Graph, Var
from ..ir.transform import all_graphs, producers


def accumulate_scatters(graph: Graph) -> bool:
    """Rewrite every such accumulation of `graph` and its subgraphs, in place."""
    changed = False
    for g in all_graphs(graph):
        changed |= _accumulate_level(g)
    return changed


def _chain(value, defs: dict[int, Eqn], uses: Counter) -> list[Eqn] | None:
    """The scatters, first to last, that build `value` from `full(0)`, each used once; or
    None."""
    chain = []
    while isinstance(value, Var) and id(value) in defs and uses[id(value)] == 1:
        eqn = defs[id(value)]
        if eqn.prim != "index_update" or eqn.params["mode"] != "add":
            break
        chain.append(eqn)
        value = eqn.inputs[0]
    eqn = defs.get(id(value)) if isinstance(value, Var) else None
    if not chain or eqn is None or eqn.prim != "full":
        return None
    fill = eqn.inputs[0]
    return chain[::-1] if isinstance(fill, Const) and fill.value == 0 else None


def _accumulate_level(g: Graph) -> bool:
    defs = producers(g.eqns)
    uses = Counter(id(a) for e in g.eqns for a in e.inputs)
    uses.update(id(a) for a in g.outputs)
    eqns: dict[int, Eqn] = {}  # in order; a chain taken moves to the end
    changed = False
    for eqn in g.eqns:
        eqns[id(eqn)] = eqn
        if eqn.prim != "add" or not eqn.outputs[0].type.is_array:
            continue
        for acc, value in (eqn.inputs, eqn.inputs[::-1]):
            chain = _chain(value, defs, uses)
            if chain is None or acc.type != value.type:
                continue
            del eqns[id(eqn)]
            for link in chain:
                del eqns[id(link)]
                eqns[id(link)] = link
            chain[0].inputs = [acc, *chain[0].inputs[1:]]
            chain[-1].outputs = list(eqn.outputs)
            defs[id(eqn.outputs[0])] = chain[-1]  # a later add may extend this chain
            changed = True
            break
    g.eqns = list(eqns.values())
    return changed
