"""`to_dot`: the recorded backward graph as Graphviz DOT text (what torchviz draws).

Contract: one box per backward node (its `name()`), leaves shown with their shape (and name
when given in `params`), an edge from every input node to the node that consumes it, and the
output tensors as ellipses. Node ids are assigned in traversal order, so the text is
deterministic for a given graph.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .graph import AccumulateGrad, Node
from .tensor import Tensor


def _shape(t: Tensor) -> str:
    return "(" + ", ".join(str(n) for n in t.shape) + ")"


def to_dot(outputs: Tensor | Sequence[Tensor], params: Mapping[str, Tensor] | None = None) -> str:
    r"""Graphviz DOT source of the graph that produced `outputs` (what torchviz draws).

    One box per backward node, labelled with its `name()`; leaves that require grad are
    filled boxes showing their shape, and their name where `params` gives one; each output
    is an ellipse showing its shape; an edge goes from every input node to the node that
    consumes it. Node ids follow the traversal, so the text is the same for the same graph.
    Render it with Graphviz (`dot -Tsvg graph.dot`).

    Args:
        outputs: The tensor, or tensors, whose graph to draw.
        params: Names for leaf tensors, `{name: tensor}` (a model's parameters).

    Returns:
        The DOT text, ending with a newline.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import tensor, to_dot
        >>> w = tensor([1.0, 2.0], requires_grad=True)
        >>> print(to_dot(np.sin(w), {"w": w}), end="")
        digraph adlite {
          node [fontname="monospace", fontsize=10];
          out0 [label="(2)", shape=ellipse, style=filled, fillcolor=darkolivegreen1];
          n0 [label="SinBackward0", shape=box];
          n0 -> out0;
          n1 [label="w\n(2)", shape=box, style=filled, fillcolor=lightblue];
          n1 -> n0;
        }
    """
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    names = {id(t): name for name, t in (params or {}).items()}
    ids: dict[int, str] = {}
    lines = ["digraph adlite {", '  node [fontname="monospace", fontsize=10];']

    def node_id(node: Node) -> str:
        if id(node) not in ids:
            ids[id(node)] = f"n{len(ids)}"
            if isinstance(node, AccumulateGrad):
                label = names.get(id(node.variable), "")
                label = f"{label}\\n{_shape(node.variable)}".lstrip("\\n")
                lines.append(f'  {ids[id(node)]} [label="{label}", shape=box, '
                             'style=filled, fillcolor=lightblue];')
            else:
                lines.append(f'  {ids[id(node)]} [label="{node.name()}", shape=box];')
        return ids[id(node)]

    stack: list[Node] = []
    for k, out in enumerate(outputs):
        lines.append(f'  out{k} [label="{_shape(out)}", shape=ellipse, style=filled, '
                     'fillcolor=darkolivegreen1];')
        if out.grad_fn is not None:
            lines.append(f"  {node_id(out.grad_fn)} -> out{k};")
            stack.append(out.grad_fn)
    done: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in done:
            continue
        done.add(id(node))
        for parent, _ in node.next_functions:
            if parent is not None:
                lines.append(f"  {node_id(parent)} -> {node_id(node)};")
                stack.append(parent)
    lines.append("}")
    return "\n".join(lines) + "\n"
