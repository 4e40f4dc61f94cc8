"""Jacobians over the IR: one graph computing every block of the Jacobian in one call.

Contract: `jacobian_graph(g, mode, wrt)` is `inputs -> blocks`: one block per (float output
of `g`, input at position `wrt[i]`), output-major, each of shape `out.shape + in.shape` (a
scalar when both are scalars) and of dtype float64 unless both are float32. The basis loop
runs inside the graph (a `while` over the basis vectors), never as one call per row:

- `jacrev` (reverse mode): one cotangent basis vector per output element, through
  `vjp_graph`; the other outputs are ABSENT (not zero cotangents: no `0 * inf` from them).
- `jacfwd` (forward mode, also `hessian`: forward over the gradient graph): one tangent basis
  vector per element of each differentiated input, through `jvp_graph`; the other inputs are
  constants.
- The equations of a sweep that do not depend on the basis vector (the primal, its effects
  included) run once, before the loop (`_hoist`), except those touching an AD tape: a loop of
  the function runs once per trip in jacrev, its values stored and read back each time.
- `jacobian`: `jacfwd` when the differentiated inputs have fewer elements in all than the
  outputs, else `jacrev` (a loop trip costs about one derivative sweep either way).
A scalar output (reverse) or input (forward) needs one sweep and no loop. Outputs that are
not floats raise TypeError naming their position.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod

from ..ir.builder import Builder
from ..ir.core import F32, F64, I64, Atom, Const, Eqn, Graph, Type, Var
from ..ir.index import Int
from ..ir.loops import While
from ..ir.transform import clone, free_vars, inline
from .forward import jvp_graph
from .reverse import ABSENT, PLAIN, touches_tape, vjp_graph

MODES = ("jacrev", "jacfwd", "jacobian", "hessian")

# body(builder, seed) -> one derivative per block of the loop
Sweep = Callable[[Builder, Atom], list]


def jacobian_graph(graph: Graph, mode: str, wrt: Sequence[int]) -> Graph:
    outs = graph.outputs
    bad = [k for k, a in enumerate(outs) if not a.type.is_float]
    if not outs or bad:
        what = f"output {bad[0]} is {outs[bad[0]].type}" if bad else "it returns no value"
        raise TypeError(f"jacobian of {graph.name}: the function must return floats or float "
                        f"arrays ({what}; only float results have derivatives)")
    if mode == "jacobian":
        n_in = sum(_size(graph.inputs[i].type) for i in wrt)
        mode = "jacfwd" if n_in < sum(_size(a.type) for a in outs) else "jacrev"
    b = Builder()
    inputs = [Var(v.type, v.hint) for v in graph.inputs]
    build = _reverse if mode == "jacrev" else _forward
    blocks = build(b, graph, inputs, list(wrt))
    return Graph(inputs, b.eqns, blocks, f"{graph.name}_{mode}",
                 graph.externals.renamed(graph.inputs, inputs))


def _size(t: Type) -> int:
    return prod(t.shape) if t.is_array else 1


def _block_type(a: Type, b: Type) -> Type:
    return F32 if a.name == b.name == "f32" else F64


def _reverse(b: Builder, graph: Graph, inputs: list, wrt: list) -> list:
    """Blocks by reverse mode: per output, a loop of backward sweeps over its elements."""
    float_ins = [i for i, v in enumerate(graph.inputs) if v.type.is_float]
    picks = [float_ins.index(i) for i in wrt]
    in_types = [graph.inputs[i].type for i in wrt]
    n = len(graph.outputs)
    blocks = []
    for j, out in enumerate(graph.outputs):
        pullback = vjp_graph(graph, [PLAIN if k == j else ABSENT for k in range(n)])

        def sweep(bb, seed, pullback=pullback, j=j):
            seeds = [seed if k == j else bb.zeros(a.type) for k, a in enumerate(graph.outputs)]
            bars = inline(bb, pullback, inputs + seeds)[n:]
            return [bars[p] for p in picks]

        rows = _basis_loop(b, out.type, sweep,
                           [_block_type(out.type, t).with_shape(t.shape) for t in in_types])
        blocks += [_reshape(b, r, _joined(out.type, t)) for r, t in zip(rows, in_types,
                                                                         strict=True)]
    return blocks


def _forward(b: Builder, graph: Graph, inputs: list, wrt: list) -> list:
    """Blocks by forward mode: per differentiated input, a loop of tangent sweeps over its
    elements; the loop stacks the output tangents along a leading axis, transposed after."""
    n = len(graph.outputs)
    columns = []  # per input: one block per output
    for i in wrt:
        t_in = graph.inputs[i].type
        tangent_graph = jvp_graph(graph, (i,))

        def sweep(bb, seed, tangent_graph=tangent_graph):
            return inline(bb, tangent_graph, inputs + [seed])[n:]

        stacked = _basis_loop(b, t_in, sweep, [_block_type(a.type, t_in).with_shape(a.type.shape)
                                               for a in graph.outputs])
        columns.append([_transposed(b, s, a.type, t_in) for s, a in zip(stacked, graph.outputs,
                                                                        strict=True)])
    return [columns[i][j] for j in range(n) for i in range(len(wrt))]


def _joined(out: Type, t_in: Type) -> Type:
    """The block of output `out` w.r.t. input `t_in`: shape out.shape + in.shape."""
    shape = (out.shape or ()) + (t_in.shape or ())
    return _block_type(out, t_in).with_shape(shape if shape else None)


def _reshape(b: Builder, x: Atom, t: Type) -> Atom:
    return x if x.type.shape == t.shape else b.reshape(x, shape=t.shape)


def _transposed(b: Builder, stacked: Atom, out: Type, t_in: Type) -> Atom:
    """`stacked` (shape in.shape + out.shape: one output tangent per input element) as the
    block, of shape out.shape + in.shape."""
    block = _joined(out, t_in)
    if not out.is_array or not t_in.is_array:
        return _reshape(b, stacked, block)
    matrix = b.reshape(stacked, shape=(_size(t_in), _size(out)))
    return _reshape(b, b.transpose(matrix, axes=(1, 0)), block)


def _basis_loop(b: Builder, basis: Type, sweep: Sweep, parts: list[Type]) -> list:
    """For each element k of a value of type `basis`, `sweep` seeded with the k-th basis
    vector; result r of sweep k is stored at [k] of an array of shape (size,) + parts[r]
    (one sweep seeded with 1.0, no loop, for a scalar `basis`). What the sweeps compute
    alike runs once, before the loop (`_hoist`)."""
    if not basis.is_array:
        return [_cast(b, r, t) for r, t in zip(sweep(b, Const(1.0, basis)), parts, strict=True)]
    size = _size(basis)
    stacks = [b.zeros(t.with_shape((size,) + (t.shape or ()))) for t in parts]
    k, acc = Var(I64, "k"), [Var(s.type, "jac") for s in stacks]
    bb = Builder()
    one_hot = bb.index_update(bb.zeros(basis.scalar.with_shape((size,))),
                              Const(1.0, basis.scalar), k, spec=(Int(),), mode="set")
    results = sweep(bb, _reshape(bb, one_hot, basis))
    stored = [bb.index_update(a, _cast(bb, r, t), k, spec=(Int(),), mode="set")
              for a, r, t in zip(acc, results, parts, strict=True)]
    outputs = [bb.add(k, Const(1, I64))] + stored
    carried = [k] + acc
    b.eqns += _hoist(bb.eqns, carried)
    consts = [v for v in free_vars(bb.eqns, outputs) if not any(v is c for c in carried)]
    body = clone(Graph(consts + carried, bb.eqns, outputs, "basis"))
    cb = Builder()
    c_in = [Var(v.type, v.hint) for v in body.inputs]
    cond = Graph(c_in, cb.eqns, [cb.lt(c_in[len(consts)], Const(size, I64))], "cond")
    outs = b.emit("while", consts + [Const(0, I64)] + stacks,
                  **While.params(cond, body, len(consts)))
    return outs[1:]


def _hoist(eqns: list[Eqn], carried: list[Var]) -> list[Eqn]:
    """Removes from `eqns` (a loop body reading the loop's `carried` values) and returns the
    equations that compute the same in every trip: those reading no carried value nor a
    value computed from one, and touching no AD tape (a tape's values are pushed and popped
    once per trip). The primal of a jvp or vjp sweep is such: it runs once, before the loop,
    its effects (print, checks) included, as in one call of the function."""
    variant = {id(v) for v in carried}
    hoisted, kept = [], []
    for eqn in eqns:
        if touches_tape(eqn) or any(id(a) in variant for a in eqn.inputs):
            variant.update(id(o) for o in eqn.outputs)
            kept.append(eqn)
        else:
            hoisted.append(eqn)
    eqns[:] = kept
    return hoisted


def _cast(b: Builder, x: Atom, t: Type) -> Atom:
    """`x` (a derivative) as type `t`: converted to its dtype, broadcast to its shape."""
    if x.type.name != t.name:
        x = b.convert(x, to=t.scalar) if not isinstance(x, Const) else Const(x.value, t.scalar)
    if x.type.shape != t.shape:
        x = b.broadcast_to(x, shape=t.shape)
    return x
