"""IR verifier: well-formedness and types, run after every pass in tests.

Checks, for a graph and all its subgraphs: every primitive exists; every var is defined once
(across the whole graph tree); every atom an equation reads is defined earlier in the same
graph (subgraphs are closed); the primitive's type rule accepts the input types and gives the
output vars' types; outputs are defined; the calling convention holds (every external input
is an input of its graph, once, and has the type of its read: see `Externals`). Raises
`IRVerificationError` naming the equation and showing the printed graph around it.
"""

from __future__ import annotations

from .core import Const, Graph
from .primitive import PRIMITIVES
from .printer import print_graph


class IRVerificationError(Exception):
    """The IR is malformed; the message names the equation and shows the IR."""


def verify(graph: Graph) -> None:
    defined_anywhere: set[int] = set()

    def fail(msg: str) -> None:
        raise IRVerificationError(f"{msg}\nin graph:\n{print_graph(graph)}")

    def define(var, where: str) -> None:
        if id(var) in defined_anywhere:
            fail(f"{var!r} defined twice ({where})")
        defined_anywhere.add(id(var))

    def check(g: Graph) -> None:
        scope: set[int] = set()
        for v in g.inputs:
            define(v, f"input of {g.name}")
            scope.add(id(v))
        for i, eqn in enumerate(g.eqns):
            where = f"equation {i} ({eqn.prim}) of {g.name}"
            if eqn.prim not in PRIMITIVES:
                fail(f"unknown primitive {eqn.prim!r} in {where}")
            for a in eqn.inputs:
                if not isinstance(a, Const) and id(a) not in scope:
                    fail(f"{a!r} used before definition in {where}")
            for sub in eqn.subgraphs():
                check(sub)
            try:
                types = PRIMITIVES[eqn.prim].type_rule([a.type for a in eqn.inputs], eqn.params)
            except (TypeError, KeyError) as e:
                fail(f"type error in {where}: {e}")
            if [v.type for v in eqn.outputs] != list(types):
                fail(f"{where} outputs {[str(v.type) for v in eqn.outputs]}, type rule says "
                     f"{[str(t) for t in types]}")
            for v in eqn.outputs:
                define(v, where)
                scope.add(id(v))
        for a in g.outputs:
            if not isinstance(a, Const) and id(a) not in scope:
                fail(f"output {a!r} of {g.name} is not defined")
        convention(g)

    def convention(g: Graph) -> None:
        hidden = g.externals.inputs
        inputs = {id(v) for v in g.inputs}
        if any(id(v) not in inputs for v in hidden) or len({id(v) for v in hidden}) < len(hidden):
            fail(f"the external inputs of {g.name} {list(hidden)} are not among its inputs, "
                 "or repeated")
        typed = [r.type for r in g.externals.reads if r.type is not None]
        if g.externals.reads and typed != [v.type for v in hidden]:
            fail(f"the external inputs of {g.name} {list(hidden)} do not match the types of "
                 f"what they read {[str(t) for t in typed]}")

    check(graph)
