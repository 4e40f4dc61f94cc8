"""Which `index_update`s in a loop body may write into their array instead of copying it.

Contract: `in_place_updates(while_eqn)` returns {carry position: ids of index_update
equations} for array carries whose body is a chain `x1 = x[...] <- v; x2 = x1[...] <- w; ...`
ending in the body's output for that carry, or ending in a value read only within the
iteration while the output is a fresh buffer read by nothing else (the adjoint of slice
updates: `du` has its boundary zeroed in place, then the new cotangent is computed into a new
buffer from views of it), where every other use of a chain value is a read that completes
before the update that follows it (an element or row read with a runtime index, or a
reduction). The lowering then copies the initial value once at loop entry and
updates that private buffer in place: `y[i] = ...` in a loop costs O(1), not O(len(y)).
Anything else (a value stored on the AD tape, passed to a nested loop or branch, returned
twice, read through a lazy view) keeps the copying semantics.

`dying_updates(graph)` returns the ids of the `index_update`s of one graph level whose array
is the result of another `index_update` of that level read by nothing else (not even as an
output) except by early reads (as above) before it: that buffer was made by the update before
it and is dead after, so the update writes into it instead of copying it. A chain
`x1 = x[...] <- v; x2 = x1[...] <- w; ...` (as in the adjoint of slice updates: zero a slice
of a cotangent, then scatter-add several slices into it) then copies once, not once per link.
"""

from __future__ import annotations

from collections import Counter

from ...ir.core import Graph, Var, walk_eqns
from ...ir.index import has_runtime_index
from ...ir.loops import While
from ...ir.primitive import PRIMITIVES
from ...ir.transform import producers
from .fusion import fusible


def _early_read(eqn, position: int, update_position: int) -> bool:
    if position >= update_position:
        return False
    if PRIMITIVES[eqn.prim].reduction:
        return True
    runtime_index = has_runtime_index(eqn.params.get("spec", ()))
    return eqn.prim == "index" and (runtime_index or not eqn.outputs[0].type.is_array)


def in_place_updates(eqn) -> dict[int, set[int]]:
    loop = While(eqn)
    body, n = loop.body, loop.n_consts
    uses: dict[int, list] = {}
    for position, e in enumerate(body.eqns):
        for a in e.inputs:
            if isinstance(a, Var):
                uses.setdefault(id(a), []).append((position, e))
    outputs = [id(a) for a in body.outputs]
    plan = {}
    for j, carry in enumerate(body.inputs[n:]):
        if not carry.type.is_array:
            continue
        chain, current, ok = [], carry, True
        while ok:
            users = uses.get(id(current), [])
            updates = [(p, e) for p, e in users
                       if e.prim == "index_update" and e.inputs[0] is current]
            if len(updates) != 1 or fusible(updates[0][1]):
                break  # a fusible update (constant slices) computes a new buffer
            position, update = updates[0]
            others = [(p, e) for p, e in users if e is not update]
            if any(a is current for a in update.inputs[1:]) or not all(
                    _early_read(e, p, position) for p, e in others):
                ok = False
                break
            chain.append(update)
            current = update.outputs[0]
        if not (ok and chain):
            continue
        if outputs.count(id(current)) == 1 and outputs.index(id(current)) == j and \
                not uses.get(id(current)) or \
                _dies_in_iteration(body, current, body.outputs[j], uses, outputs):
            plan[j] = {id(e) for e in chain}
    return plan


def _dies_in_iteration(body, end, new, uses, outputs) -> bool:
    """The chain's last value `end` is read only within this iteration (by equations of this
    level without subgraphs, never stored) and the carry's next value `new` is a fresh buffer
    made in the body and read by nothing, so the private buffer is dead once `new` is made."""
    made = producers(body.eqns)
    maker = made.get(id(new))
    return id(end) not in outputs and all(
        e.prim != "push" and not e.subgraphs() for _, e in uses.get(id(end), [])) and \
        maker is not None and (fusible(maker) or maker.prim == "index_update") and \
        outputs.count(id(new)) == 1 and not uses.get(id(new))


def dying_updates(graph: Graph) -> set[int]:
    reads = Counter(id(a) for eqn in walk_eqns(graph) for a in eqn.inputs)
    for eqn in walk_eqns(graph):
        for sub in eqn.subgraphs():
            reads.update(id(a) for a in sub.outputs)
    reads.update(id(a) for a in graph.outputs)
    uses: dict[int, list] = {}  # reads at this level
    for position, eqn in enumerate(graph.eqns):
        for a in eqn.inputs:
            uses.setdefault(id(a), []).append((position, eqn))
    made = {id(e.outputs[0]) for e in graph.eqns if e.prim == "index_update"}
    dying = set()
    for position, eqn in enumerate(graph.eqns):
        x = id(eqn.inputs[0]) if eqn.prim == "index_update" else None
        if x not in made or reads[x] != len(uses[x]):
            continue
        others = [(p, e) for p, e in uses[x] if e is not eqn]
        if len(others) == len(uses[x]) - 1 and all(_early_read(e, p, position)
                                                   for p, e in others):
            dying.add(id(eqn))
    return dying
