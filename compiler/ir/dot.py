"""Graphviz DOT text of an IR graph (the compiler's counterpart of the tape's `to_dot`).

Contract: `graph_to_dot(graph)` draws inputs as ellipses, each equation as a box labelled
with its primitive (and the source line), edges from the producer of each operand to its
user, loop bodies, loop conditions and branch arms as nested clusters fed by their
equation's operands, and the outputs. Ids follow definition order, so the text is
deterministic.
"""

from __future__ import annotations

from .core import Const, Graph
from .printer import format_const


def graph_to_dot(graph: Graph) -> str:
    lines = ["digraph adlite_ir {", '  node [fontname="monospace", fontsize=10];']
    source: dict[int, str] = {}
    counter = [0]

    def new_id(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}{counter[0]}"

    def operand(atom, indent: str) -> str:
        if isinstance(atom, Const):
            node = new_id("c")
            lines.append(f'{indent}{node} [label="{format_const(atom)}", shape=plaintext];')
            return node
        return source[id(atom)]

    def draw(g: Graph, indent: str) -> None:
        for v in g.inputs:
            node = new_id("v")
            source[id(v)] = node
            lines.append(f'{indent}{node} [label="{v.hint or "arg"}: {v.type}", shape=ellipse];')
        for eqn in g.eqns:
            node = new_id("e")
            loc = f"\\nL{eqn.loc}" if eqn.loc is not None else ""
            lines.append(f'{indent}{node} [label="{eqn.prim}{loc}", shape=box];')
            for a in eqn.inputs:
                lines.append(f"{indent}{operand(a, indent)} -> {node};")
            for k, (part, sub) in enumerate(_parts(eqn)):
                lines.append(f'{indent}subgraph cluster_{node}_{k} {{')
                lines.append(f'{indent}  label="{eqn.prim} {part}";')
                draw(sub, indent + "  ")
                lines.append(f"{indent}}}")
                for v in sub.inputs:
                    lines.append(f"{indent}{node} -> {source[id(v)]} [style=dashed];")
            for v in eqn.outputs:
                source[id(v)] = node
        out = new_id("out")
        lines.append(f'{indent}{out} [label="{g.name} outputs", shape=ellipse, '
                     'style=filled, fillcolor=darkolivegreen1];')
        for a in g.outputs:
            lines.append(f"{indent}{operand(a, indent)} -> {out};")

    draw(graph, "  ")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _parts(eqn):
    """(label, subgraph) pairs: `cond`/`body` of a loop, `else`/`then` of a branch."""
    for key, value in eqn.params.items():
        if isinstance(value, Graph):
            yield key, value
        elif isinstance(value, tuple) and key == "branches":
            yield from zip(("else", "then"), value, strict=True)
