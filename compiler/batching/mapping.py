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
from ..ir.core import I64, Atom, Const, Eqn, Graph, Var
from ..ir.index import Int
from ..ir.loops import While
from ..ir.transform import inline
from . import tapes
from .table import with_batch, zero


def map_eqn(b: Builder, eqn: Eqn, args: Sequence[Atom], batched: Sequence[bool],
            size: int) -> list[Atom]:
    backwards = tapes.current().visit(eqn)
    first, step = (size - 1, -1) if backwards else (0, 1)
    results = [b.full(zero(v.type), shape=with_batch(v.type, size).shape, dtype=v.type.scalar)
               for v in eqn.outputs]
    consts = [Var(a.type, getattr(a, "hint", "")) for a in args]

    def carries() -> list[Var]:
        return [Var(I64, "example")] + [Var(r.type) for r in results]

    cond_in = carries()
    cb = Builder(eqn.loc)
    more = cb.ge(cond_in[0], 0) if backwards else cb.lt(cond_in[0], size)
    cond = Graph([Var(c.type) for c in consts] + cond_in, cb.eqns, [more], "map_cond")

    body_in = carries()
    i, outs = body_in[0], body_in[1:]
    bb = Builder(eqn.loc)
    example = [bb.index(c, i, spec=(Int(),)) if flag else c
               for c, flag in zip(consts, batched, strict=True)]
    values = copy_eqn(bb, eqn, example)
    written = [bb.index_update(out, v, i, spec=(Int(),), mode="set")
               for out, v in zip(outs, values, strict=True)]
    body = Graph(consts + body_in, bb.eqns, [bb.add(i, step)] + written, "map_body")
    (_, *final) = b.emit("while", list(args) + [Const(first, I64)] + results,
                         **While.params(cond, body, len(args)))
    return final


def copy_eqn(b: Builder, eqn: Eqn, args: Sequence[Atom]) -> list[Atom]:
    """Appends a copy of `eqn` (subgraphs cloned) applied to `args`; its new outputs."""
    params = [Var(a.type, getattr(a, "hint", "")) for a in eqn.inputs]
    single = Graph(params, [Eqn(eqn.prim, list(params), list(eqn.outputs), eqn.params,
                                eqn.loc)], list(eqn.outputs))
    return inline(b, single, list(args))
