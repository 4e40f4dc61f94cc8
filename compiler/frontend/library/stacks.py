"""Stacks of matrices in `np.linalg`: a function of matrices applied to arrays of more than two
dimensions, as numpy applies it (to each matrix of the stack).

Contract: `stacked(rule, operands)` wraps the rule of a `np.linalg` function whose first
`operands` positional arguments are matrices (`solve`: two, the right-hand side a stack of
vectors only when it is one-dimensional, as numpy 2 reads it). When an operand has more
dimensions than its core (two for a matrix), the leading dimensions of all of them broadcast
together (numpy's rule and ValueError), are flattened, and the rule runs once per matrix in a
`while` loop (`ir.mapping.map_graph`; reverse and forward mode come from the loop's rules);
the results get the leading dimensions back, in the structure the rule gives (a tuple, a
named tuple). Otherwise the rule runs as it is. Options (keywords, further positional
arguments) go to every run unchanged.
"""

from __future__ import annotations

import math

from ...ir.builder import Builder
from ...ir.core import Graph, Var
from ...ir.mapping import map_graph
from ...primitives.shapes import broadcast_shapes
from ..static_values import NamedTupleValue


def _cores(values: list) -> list[int]:
    """The core rank of each operand: 2 (a matrix), 1 for a one-dimensional right-hand side
    (the second operand of `solve`)."""
    return [1 if k == 1 and len(v.type.shape) == 1 else 2 for k, v in enumerate(values)]


def stacked(rule, operands: int = 1):
    def lower(cx, args, *rest):
        node = rest[-1]
        values = [cx.as_float(a, node) for a in args[:operands]] if len(args) >= operands \
            else []
        if not values or all(len(v.type.shape or ()) <= c
                             for v, c in zip(values, _cores(values), strict=True)):
            return rule(cx, args, *rest)
        cores = _cores(values)
        leading = [v.type.shape[:len(v.type.shape) - c]
                   for v, c in zip(values, cores, strict=True)]
        try:
            batch = broadcast_shapes(*leading)
        except ValueError as e:
            raise cx.source.error(node, str(e)) from None
        size = math.prod(batch)
        flat, batched = [], []
        for v, c, lead in zip(values, cores, leading, strict=True):
            if not lead:  # one matrix for every one of the stack
                flat.append(v)
                batched.append(False)
                continue
            core = v.type.shape[len(v.type.shape) - c:]
            whole = v if lead == batch else cx.b.broadcast_to(v, shape=batch + core)
            flat.append(cx.b.reshape(whole, shape=(size,) + core))
            batched.append(True)
        inputs = [Var(f.type.with_shape(f.type.shape[1:]) if flag else f.type, "matrix")
                  for f, flag in zip(flat, batched, strict=True)]
        outer = cx.b
        cx.b = Builder(outer.loc)
        try:
            result = rule(cx, inputs + list(args[operands:]), *rest)
            parts = list(result) if isinstance(result, tuple) else [result]
            graph = Graph(inputs, cx.b.eqns, [cx.value(p, node) for p in parts], "matrix")
        finally:
            cx.b = outer
        mapped = map_graph(cx.b, graph, flat, batched, size)
        shaped = [cx.b.reshape(m, shape=batch + tuple(m.type.shape[1:])) for m in mapped]
        if isinstance(result, NamedTupleValue):
            return NamedTupleValue(shaped, result.named)
        return tuple(shaped) if isinstance(result, tuple) else shaped[0]

    return lower
