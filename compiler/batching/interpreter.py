"""The batching interpreter: a graph of one example -> the graph of a batch of examples.

Contract: `batch_graph(graph, batched, size, force)` returns `(new graph, out_batched)`. The
new graph takes the inputs of `graph`, those with `batched[k]` true with a leading batch
axis of length `size`, and returns the outputs of `graph`, with a leading batch axis where
`out_batched[k]` (always where `force[k]`: an unbatched output is then repeated). Each
equation is rewritten by its primitive's `batch` rule when one of its operands is batched (or
always, for the tape primitives and control flow, whose subgraphs may hold tape stores), and
by the per-example map of `mapping.py` when there is no rule or the rule declines. Equations
on unbatched operands only are copied unchanged. `graph` is not modified. A program using
lists of run-time length runs whole once per example instead (`batch_per_example`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.builder import Builder
from ..ir.core import Atom, Const, Eqn, Graph, Var, walk_eqns
from ..ir.mapping import map_graph
from ..ir.primitive import PRIMITIVES
from ..primitives.lists import LIST_PRIMITIVES
from .mapping import copy_eqn, map_eqn
from .table import ensure, with_batch

ALWAYS = ("push", "pop", "while", "cond")  # rewritten even without batched operands


def batch_graph(graph: Graph, batched: Sequence[bool], size: int,
                force: Sequence[bool] | None = None) -> tuple[Graph, list[bool]]:
    inputs = [Var(with_batch(v.type, size) if flag else v.type, v.hint)
              for v, flag in zip(graph.inputs, batched, strict=True)]
    b = Builder()
    outputs = batch_eqns(b, graph, list(zip(inputs, batched, strict=True)), size)
    force = force or [False] * len(outputs)
    flags = [flag or forced for (_, flag), forced in zip(outputs, force, strict=True)]
    atoms = [ensure(b, a, flag, size) if want else a
             for (a, flag), want in zip(outputs, flags, strict=True)]
    return Graph(inputs, b.eqns, atoms, graph.name,
                 graph.externals.renamed(graph.inputs, inputs)), flags


def batch_eqns(b: Builder, graph: Graph, args: list[tuple[Atom, bool]],
               size: int) -> list[tuple[Atom, bool]]:
    """Emits into `b` the batched equations of `graph` applied to `args` ((atom, batched)
    pairs, one per input); returns (atom, batched) per output of `graph`."""
    env: dict[int, tuple[Atom, bool]] = {id(v): a for v, a in zip(graph.inputs, args,
                                                                    strict=True)}

    def read(a: Atom) -> tuple[Atom, bool]:
        return (a, False) if isinstance(a, Const) else env[id(a)]

    for eqn in graph.eqns:
        operands = [read(a) for a in eqn.inputs]
        outs = batch_eqn(b, eqn, [a for a, _ in operands], [f for _, f in operands], size)
        env.update((id(v), o) for v, o in zip(eqn.outputs, outs, strict=True))
    return [read(a) for a in graph.outputs]


def batch_per_example(b: Builder, graph: Graph, args: list[tuple[Atom, bool]],
                      size: int) -> list[tuple[Atom, bool]]:
    """`batch_eqns` for a graph that must run whole once per example: one that holds lists
    of run-time length, whose buffers every example would otherwise share
    (`primitives/lists.py`)."""
    mapped = map_graph(b, graph, [a for a, _ in args], [flag for _, flag in args], size)
    return [(a, True) for a in mapped]


def holds_lists(graph: Graph) -> bool:
    """Does `graph` use lists of run-time length (`batch_per_example`)?"""
    return any(e.prim in LIST_PRIMITIVES for e in walk_eqns(graph))


def batch_eqn(b: Builder, eqn: Eqn, args: list[Atom], batched: list[bool],
              size: int) -> list[tuple[Atom, bool]]:
    """The batched form of one equation: its rule's, else the per-example map."""
    if not any(batched) and eqn.prim not in ALWAYS:
        return [(a, False) for a in copy_eqn(b, eqn, args)]
    b.loc = eqn.loc
    rule = PRIMITIVES[eqn.prim].batch
    outs = rule(b, eqn, args, batched, size) if rule is not None else None
    if outs is None:
        outs = [(a, True) for a in map_eqn(b, eqn, args, batched, size)]
    return outs
