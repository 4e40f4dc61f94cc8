"""Graph utilities shared by passes, transforms and backends: cloning, inlining, free
variables, walking the graph tree.

Contract: `inline(b, graph, args)` appends a copy of `graph`'s equations to builder `b` with
the graph's inputs replaced by `args` and fresh output vars, and returns the atoms standing
for the graph's outputs. `clone(graph)` is a copy with fresh vars everywhere (subgraphs
included; its external inputs are the copies'). Neither mutates its input. `externals_last(graph)`
is `graph` taking its external inputs after the others (compiled code's order).
`all_graphs(graph)` lists `graph` and its subgraphs; `producers(eqns)` maps each var (by id)
to the equation among `eqns` that defines it.
"""

from __future__ import annotations

from collections.abc import Sequence

from .core import Atom, Const, Eqn, Graph, Var


def _copy_eqns(eqns: Sequence[Eqn], env: dict[int, Atom]) -> list[Eqn]:
    out = []
    for eqn in eqns:
        inputs = [a if isinstance(a, Const) else env.get(id(a), a) for a in eqn.inputs]
        outputs = [Var(v.type, v.hint) for v in eqn.outputs]
        env.update((id(old), new) for old, new in zip(eqn.outputs, outputs, strict=True))
        params = {k: _clone_param(v) for k, v in eqn.params.items()} if eqn.params else {}
        out.append(Eqn(eqn.prim, inputs, outputs, params, eqn.loc))
    return out


def _clone_param(value):
    if isinstance(value, Graph):
        return clone(value)
    if isinstance(value, tuple):
        return tuple(_clone_param(v) for v in value)
    return value


def clone(graph: Graph) -> Graph:
    inputs = [Var(v.type, v.hint) for v in graph.inputs]
    env: dict[int, Atom] = {id(o): n for o, n in zip(graph.inputs, inputs, strict=True)}
    eqns = _copy_eqns(graph.eqns, env)
    outputs = [a if isinstance(a, Const) else env[id(a)] for a in graph.outputs]
    return Graph(inputs, eqns, outputs, graph.name, graph.externals.renamed(graph.inputs, inputs))


def externals_last(graph: Graph) -> Graph:
    hidden = list(graph.externals.inputs)
    if graph.inputs[len(graph.inputs) - len(hidden):] == hidden:
        return graph
    return Graph(graph.arguments + hidden, graph.eqns, graph.outputs, graph.name,
                 graph.externals)


def inline(b, graph: Graph, args: Sequence[Atom]) -> list[Atom]:
    env: dict[int, Atom] = {id(v): a for v, a in zip(graph.inputs, args, strict=True)}
    b.eqns.extend(_copy_eqns(graph.eqns, env))
    return [a if isinstance(a, Const) else env[id(a)] for a in graph.outputs]


def free_vars(eqns: Sequence[Eqn], outputs: Sequence[Atom] = ()) -> list[Var]:
    """Vars read by `eqns` (or listed in `outputs`) but not defined by them, in first-use order."""
    defined: set[int] = set()
    seen: set[int] = set()
    free: list[Var] = []

    def use(a):
        if isinstance(a, Var) and id(a) not in defined and id(a) not in seen:
            seen.add(id(a))
            free.append(a)

    for eqn in eqns:
        for a in eqn.inputs:
            use(a)
        defined.update(id(v) for v in eqn.outputs)
    for a in outputs:
        use(a)
    return free


def producers(eqns: Sequence[Eqn]) -> dict[int, Eqn]:
    """The equation of `eqns` defining each of their outputs, by the output's id."""
    return {id(o): e for e in eqns for o in e.outputs}


def all_graphs(graph: Graph) -> list[Graph]:
    """`graph` and every subgraph, innermost last."""
    out, stack = [], [graph]
    while stack:
        g = stack.pop()
        out.append(g)
        for eqn in g.eqns:
            stack.extend(eqn.subgraphs())
    return out
