"""The per-example map: the batched form of any equation, by a loop over the batch.

Contract: `map_eqn(b, eqn, args, batched, size)` emits a `while` loop that runs `eqn`
unchanged (its subgraphs cloned) once per example, on example i of each batched operand
(`x[i]`) and on the unbatched operands as they are, and writes its outputs into arrays with
a leading batch axis, which it returns. Effects run per example, in example order, as a
Python loop over the examples would run them (the first failing check raises). A loop that
loads values from AD tapes visits the examples in the reverse of the order in which the
loop that stored them did (`tapes.py`: tapes are LIFOs).
It is the fallback of the batching interpreter for primitives without a rule, and the rule
of loops and branches whose trip count or predicate differs between examples.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.builder import Builder
from ..ir.core import Atom, Eqn, Graph, Var
from ..ir.mapping import map_graph
from ..ir.transform import inline
from . import tapes


def map_eqn(b: Builder, eqn: Eqn, args: Sequence[Atom], batched: Sequence[bool],
            size: int) -> list[Atom]:
    backwards = tapes.current().visit(eqn)
    return map_graph(b, _single(eqn), args, batched, size, backwards)


def _single(eqn: Eqn) -> Graph:
    """A graph holding `eqn` alone (its operands the graph's inputs)."""
    params = [Var(a.type, getattr(a, "hint", "")) for a in eqn.inputs]
    return Graph(params, [Eqn(eqn.prim, list(params), list(eqn.outputs), eqn.params,
                              eqn.loc)], list(eqn.outputs))


def copy_eqn(b: Builder, eqn: Eqn, args: Sequence[Atom]) -> list[Atom]:
    """Appends a copy of `eqn` (subgraphs cloned) applied to `args`; its new outputs."""
    return inline(b, _single(eqn), list(args))
