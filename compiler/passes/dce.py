"""Dead-code elimination, including unused loop carries, branch outputs and subgraph inputs.

Contract (`dce`): removes, in place, every pure equation whose outputs are unused; drops
`cond` outputs nobody reads (from both arms), `while` carries that neither the rest of the
graph, the condition, effectful equations, nor other live carries need (a fixpoint over the
body), and the operands of loops and branches that their subgraphs never read (the calls of
`primitives/custom.py` keep their interface). Effectful equations (tape
push/pop) always stay.
"""

from __future__ import annotations

from ..ir.core import Const, Eqn, Graph, Var
from ..ir.loops import While
from ..ir.primitive import PRIMITIVES


def _used_inputs(graph: Graph, live_outputs: list[int]) -> set[int]:
    """Ids of `graph`'s vars needed for the given output positions (and for effects). A
    `while` with effects inside needs its consts and only the carries its live outputs,
    its condition and its effects need (`_live_carries`): a cotangent carried through a
    loop that pops the tape is not needed when nothing reads it."""
    need = {id(graph.outputs[i]) for i in live_outputs if isinstance(graph.outputs[i], Var)}
    for eqn in reversed(graph.eqns):
        if eqn.prim == "while":
            loop = While(eqn)
            used = {i for i, o in enumerate(eqn.outputs) if id(o) in need}
            if used or _has_effects(eqn):
                live = _live_carries(loop, used)
                needed = loop.consts + [loop.carries[i] for i in live]
                need.update(id(a) for a in needed if isinstance(a, Var))
        elif PRIMITIVES[eqn.prim].effectful or _has_effects(eqn) or \
                any(id(o) in need for o in eqn.outputs):
            need.update(id(a) for a in eqn.inputs if isinstance(a, Var))
    return need


def _has_effects(eqn: Eqn) -> bool:
    return any(PRIMITIVES[e.prim].effectful or _has_effects(e)
               for sub in eqn.subgraphs() for e in sub.eqns)


def _live_carries(loop: While, live: set[int]) -> set[int]:
    """The carry positions a loop needs for the outputs at positions `live`: those, the
    ones its condition reads, and (a fixpoint over the body) the ones those and the body's
    effects need."""
    n, cond, body = loop.n_consts, loop.cond, loop.body
    n_carry = len(loop.eqn.outputs)
    cond_need = _used_inputs(cond, [0])
    live = live | {i for i in range(n_carry) if id(cond.inputs[n + i]) in cond_need}
    while True:
        need = _used_inputs(body, sorted(live))
        grown = live | {i for i in range(n_carry) if id(body.inputs[n + i]) in need}
        if grown == live:
            return live
        live = grown


def _prune_while(eqn: Eqn, used: set[int]) -> bool:
    loop = While(eqn)
    n, cond, body = loop.n_consts, loop.cond, loop.body
    n_carry = len(eqn.outputs)
    keep = sorted(_live_carries(loop, {i for i, o in enumerate(eqn.outputs) if id(o) in used}))
    if len(keep) == n_carry:
        return False
    eqn.outputs = [eqn.outputs[i] for i in keep]
    eqn.inputs = eqn.inputs[:n] + [eqn.inputs[n + i] for i in keep]
    body.outputs = [body.outputs[i] for i in keep]
    for g in (cond, body):
        g.inputs = g.inputs[:n] + [g.inputs[n + i] for i in keep]
    return True


def _prune_subgraph_inputs(eqn: Eqn) -> bool:
    """Drop operands no subgraph reads (while consts, cond operands)."""
    loop = While(eqn) if eqn.prim == "while" else None
    graphs = [loop.cond, loop.body] if loop else list(eqn.params["branches"])
    count = loop.n_consts if loop else len(eqn.inputs) - 1
    read = set()
    for g in graphs:
        read |= _reads(g)
    dead = [k for k in range(count) if all(id(g.inputs[k]) not in read for g in graphs)]
    if not dead:
        return False
    if loop:
        loop.drop_consts(dead)
        return True
    for g in graphs:
        g.inputs = [v for k, v in enumerate(g.inputs) if k not in dead]
    eqn.inputs = eqn.inputs[:1] + [a for k, a in enumerate(eqn.inputs[1:]) if k not in dead]
    return True


def _reads(graph: Graph) -> set[int]:
    ids = {id(a) for e in graph.eqns for a in e.inputs if isinstance(a, Var)}
    return ids | {id(a) for a in graph.outputs if isinstance(a, Var)}


def _prune_cond(eqn: Eqn, used: set[int]) -> bool:
    keep = [i for i, o in enumerate(eqn.outputs) if id(o) in used]
    if len(keep) == len(eqn.outputs):
        return False
    eqn.outputs = [eqn.outputs[i] for i in keep]
    for arm in eqn.params["branches"]:
        arm.outputs = [arm.outputs[i] for i in keep]
    return True


def dce(graph: Graph) -> bool:
    changed = False
    used = {id(a) for a in graph.outputs if not isinstance(a, Const)}
    kept = []
    for eqn in reversed(graph.eqns):
        if not any(id(o) in used for o in eqn.outputs) and \
                not (PRIMITIVES[eqn.prim].effectful or _has_effects(eqn)):
            changed = True
            continue
        if eqn.prim == "while":
            changed |= _prune_while(eqn, used)
        elif eqn.prim == "cond":
            changed |= _prune_cond(eqn, used)
        for sub in eqn.subgraphs():
            changed |= dce(sub)
        if eqn.prim in ("while", "cond"):
            changed |= _prune_subgraph_inputs(eqn)
        used.update(id(a) for a in eqn.inputs if isinstance(a, Var))
        kept.append(eqn)
    graph.eqns = kept[::-1]
    return changed
