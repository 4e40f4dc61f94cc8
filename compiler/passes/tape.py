"""Unread tape stores: a value a reverse loop loads but never reads is not stored.

Contract (`prune_unread_stores`): reverse mode turns a `while` into a forward loop F, whose
body ends with the pushes of its residuals on tape t (`ad/storage.py`, `forward_body`), and a
reverse loop R, whose body starts with the matching pops in reverse order and whose last
input is F's last output (the trip count). Within each graph level, for such a pair, the
first k top-level pops of tape t in R's body (before any other use of tape t there) load the
values of the last k top-level pushes of tape t in F's body (after any other use of tape t
there), one for one, in every iteration (the tape is a LIFO). A pop among those whose value
is unused (after DCE: e.g. the cotangent of an argument not differentiated) is removed with
its push, so the forward loop no longer stores it.

`prune_unread_records` covers tapes that several loops share (a checkpointed loop's taped
prefix, its recomputed segments and their two reverse loops: `ad/checkpoint.py`): a tape all
of whose uses are records, each graph level touching it being a run of pushes of the same
types or a run of pops of those types in reverse order, with no other use of the tape at that
level or below it. Each pop then loads the same field of a record that a push stored (the
tape is a LIFO of whole records), so a field that no pop site reads is removed from every
push and pop site. Both run with the optimisation passes.
"""

from __future__ import annotations

from ..ir.core import Eqn, Graph, Var, walk_eqns
from ..ir.transform import all_graphs, producers


def prune_unread_stores(graph: Graph) -> bool:
    """Remove every such unread pop and its push in `graph` and its subgraphs, in place."""
    changed = False
    for g in all_graphs(graph):
        defs = producers(g.eqns)
        reverse_loops: dict[int, list[Eqn]] = {}
        for eqn in g.eqns:
            if eqn.prim == "while" and isinstance(eqn.inputs[-1], Var):
                reverse_loops.setdefault(id(eqn.inputs[-1]), []).append(eqn)
        for trips, loops in reverse_loops.items():
            forward = defs.get(trips)
            if len(loops) == 1 and forward is not None and forward.prim == "while" and \
                    id(forward.outputs[-1]) == trips:
                changed |= _prune_pair(forward.params["body"], loops[0].params["body"])
    return changed


def prune_unread_records(graph: Graph) -> bool:
    """Remove, in place, the fields of record tapes that no pop site reads (see module)."""
    sites: dict[int, list[tuple[Graph, list[Eqn]]]] = {}
    mixed = set()
    for g in all_graphs(graph):
        direct: dict[int, list[Eqn]] = {}
        for eqn in g.eqns:
            if eqn.prim in ("push", "pop"):
                direct.setdefault(eqn.params.get("tape", 0), []).append(eqn)
        for tape, run in direct.items():
            if len({e.prim for e in run}) > 1 or \
                    any(_uses_tape(e, tape) for e in g.eqns if e.prim not in ("push", "pop")):
                mixed.add(tape)
            sites.setdefault(tape, []).append((g, run))
    changed = False
    for tape, runs in sites.items():
        records = [[e.inputs[0].type for e in run] if run[0].prim == "push" else
                   [e.params["type"] for e in reversed(run)] for _, run in runs]
        if tape in mixed or any(r != records[0] for r in records):
            continue
        unread = set(range(len(records[0])))
        for g, run in runs:
            if run[0].prim == "pop":
                read = {id(a) for sub in all_graphs(g) for a in _reads(sub)}
                unread -= {k for k, e in enumerate(reversed(run)) if id(e.outputs[0]) in read}
        if not unread:
            continue
        for g, run in runs:
            fields = run if run[0].prim == "push" else run[::-1]
            gone = {id(e) for k, e in enumerate(fields) if k in unread}
            g.eqns = [e for e in g.eqns if id(e) not in gone]
        changed = True
    return changed


def _uses_tape(eqn: Eqn, tape: int) -> bool:
    if eqn.prim in ("push", "pop"):
        return eqn.params.get("tape", 0) == tape
    return any(e.prim in ("push", "pop") and e.params.get("tape", 0) == tape
               for sub in eqn.subgraphs() for e in walk_eqns(sub))


def _run(eqns, prim: str, tape: int) -> list[Eqn]:
    """The leading run of `prim` equations on `tape` among `eqns`, up to another use of it."""
    run = []
    for eqn in eqns:
        if not _uses_tape(eqn, tape):
            continue
        if eqn.prim != prim:
            break
        run.append(eqn)
    return run


def _prune_pair(forward: Graph, reverse: Graph) -> bool:
    first_pop = next((e for e in reverse.eqns if e.prim == "pop"), None)
    if first_pop is None:
        return False
    tape = first_pop.params.get("tape", 0)
    pops = _run(reverse.eqns, "pop", tape)
    pushes = _run(reversed(forward.eqns), "push", tape)
    read = {id(a) for g in all_graphs(reverse) for a in _reads(g)}
    dropped = {id(push) for pop, push in zip(pops, pushes, strict=False)
               if id(pop.outputs[0]) not in read and pop.params["type"] == push.inputs[0].type}
    if not dropped:
        return False
    gone = {id(pop) for pop, push in zip(pops, pushes, strict=False) if id(push) in dropped}
    forward.eqns = [e for e in forward.eqns if id(e) not in dropped]
    reverse.eqns = [e for e in reverse.eqns if id(e) not in gone]
    return True


def _reads(graph: Graph):
    """The atoms the equations and the outputs of `graph` (this level) read."""
    for eqn in graph.eqns:
        yield from eqn.inputs
    yield from graph.outputs
