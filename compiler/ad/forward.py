"""Forward mode over the IR: `jvp_graph(g)` pushes tangents through every equation.

Contract: `jvp_graph(g)` is `inputs + tangents of float inputs -> outputs + tangents of float
outputs`; `jvp_graph(g, wrt)` takes tangents only for the float inputs at positions `wrt`, the
others are constants (symbolic zero tangents: no `0 * inf` from them). Each equation is copied,
then its primitive's `jvp(b, eqn, tangents)` rule emits the output tangents (None = symbolic
zero, materialised as 0.0 only where needed). The tape primitives emit themselves
(`jvp_emits_primal`): every stored value is accompanied by its tangent, so forward mode runs
through adjoint code with loops (forward over reverse gives Hessian-vector products).
"""

from __future__ import annotations

from collections.abc import Collection

from ..ir.builder import Builder
from ..ir.core import Atom, Graph, Var
from ..ir.primitive import PRIMITIVES
from ..ir.transform import clone


def jvp_graph(graph: Graph, wrt: Collection[int] | None = None) -> Graph:
    g = clone(graph)
    b = Builder()
    tangents: dict[int, Atom] = {}
    t_inputs = []
    for i, v in enumerate(g.inputs):
        if v.type.is_float and (wrt is None or i in wrt):
            t = Var(v.type, "t" + v.hint)
            tangents[id(v)] = t
            t_inputs.append(t)
    for eqn in g.eqns:
        prim = PRIMITIVES[eqn.prim]
        ts = [tangents.get(id(a)) if isinstance(a, Var) else None for a in eqn.inputs]
        if not prim.jvp_emits_primal:
            b.eqns.append(eqn)
            if all(t is None for t in ts) or not prim.differentiable:
                continue
        b.loc = eqn.loc
        for out, t in zip(eqn.outputs, prim.jvp(b, eqn, ts), strict=True):
            if t is not None and out.type.is_float:
                if t.type.shape != out.type.shape:  # e.g. only a scalar operand moved
                    t = b.broadcast_to(t, shape=out.type.shape)
                tangents[id(out)] = t
    t_out = [tangents[id(a)] if isinstance(a, Var) and id(a) in tangents else b.zeros(a.type)
             for a in g.outputs if a.type.is_float]
    return Graph(g.inputs + t_inputs, b.eqns, list(g.outputs) + t_out, g.name + "_jvp",
                 g.externals)
