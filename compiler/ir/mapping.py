"""A graph run once per example along a leading axis, as one `while` equation.

Contract: `map_graph(b, graph, args, batched, size, backwards)` emits into `b` a `while` loop
that runs `graph` (inlined, its subgraphs cloned) once per example i in [0, size) (from the
last when `backwards`), on `arg[i]` for the operands with `batched` true and on the others as
they are, and writes each output into an array with a leading axis of `size` (zeros before);
it returns those arrays. Used by the batching interpreter's per-example map
(`batching/mapping.py`) and by the frontend for stacks of matrices (`library/stacks.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .builder import Builder
from .core import I64, Atom, Const, Graph, Var
from .index import Int
from .loops import While
from .transform import inline


def map_graph(b: Builder, graph: Graph, args: Sequence[Atom], batched: Sequence[bool],
              size: int, backwards: bool = False) -> list[Atom]:
    first, step = (size - 1, -1) if backwards else (0, 1)
    results = [b.full(Const(False if v.type.name == "bool" else 0, v.type.scalar),
                      shape=(size,) + (v.type.shape or ()), dtype=v.type.scalar)
               for v in graph.outputs]
    consts = [Var(a.type, getattr(a, "hint", "")) for a in args]

    def carries() -> list[Var]:
        return [Var(I64, "example")] + [Var(r.type) for r in results]

    cond_in = carries()
    cb = Builder(b.loc)
    more = cb.ge(cond_in[0], 0) if backwards else cb.lt(cond_in[0], size)
    cond = Graph([Var(c.type) for c in consts] + cond_in, cb.eqns, [more], "map_cond")

    body_in = carries()
    i, outs = body_in[0], body_in[1:]
    bb = Builder(b.loc)
    example = [bb.index(c, i, spec=(Int(),)) if flag else c
               for c, flag in zip(consts, batched, strict=True)]
    values = inline(bb, graph, example)
    written = [bb.index_update(out, v, i, spec=(Int(),), mode="set")
               for out, v in zip(outs, values, strict=True)]
    body = Graph(consts + body_in, bb.eqns, [bb.add(i, step)] + written, "map_body")
    (_, *final) = b.emit("while", list(args) + [Const(first, I64)] + results,
                         **While.params(cond, body, len(args)))
    return final
