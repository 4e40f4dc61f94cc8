"""Elementwise code: the elements of (possibly fused) arrays, the loop nests that materialise
them, and the table entries of the elementwise primitives.

Contract: `element(cx, env, atom, coords)` is the element of `atom` at the broadcast
position `coords`: a load from a buffer, or, for a fused result (`fusion.Lazy`), computed
from the elements of its operands (numpy broadcasting applied to every node of the fused
tree, memoised per position in `cx.memo`; a fused gather `take` reads its source at the
position its index gives, checked: `gathered_coords`); a fused scatter (the adjoint of a
slice) decides inside or outside its region once per loop range when the range is known
(`arrays.loop_nest`): contiguous loads, no selects. `materialize(cx, env, var)` computes an
array result into a buffer (the caller's output buffer when it is one) by one loop nest, on
the thread pool when large (`parallel.any_nest`). `lower_elementwise` is the rule of an
elementwise equation or a view (VIEWS) that is not fused.

The elementwise primitives' rules compute one element, `rule(cx, args, eqn)` (ops.py,
special.py); `PerElement(rule)` is the table entry made of one (registry.py): called as every
rule, `(cx, eqn, env)`, it lowers an array result by `lower_elementwise` and a scalar by the
rule on the operands' values, and keeps the rule as `per_element` for fused loop bodies.
Importing this module registers them all.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ... import status
from ...ir.core import Const
from ...ir.dims import is_one
from ...ir.index import NewAxis
from ...ir.primitive import PRIMITIVES
from . import ops, special
from .arrays import (
    alloc,
    coordinate_range,
    element_type,
    load,
    offset,
    slice_cuts,
    slice_span,
    store,
)
from .context import LoweringContext, extent
from .fusion import VIEWS, Lazy
from .ops import I64
from .parallel import any_nest
from .registry import lowers


def _view_source_coords(cx, eqn, coords):
    """Source coordinates of a constant-slice view's element at `coords`."""
    b = cx.b
    shape = eqn.inputs[0].type.shape
    source, k, dim = [], 0, 0
    for item in eqn.params["spec"]:
        if isinstance(item, NewAxis):
            k += 1
            continue
        start, _, step = item.indices(shape[dim])
        source.append(b.add(extent(cx, start), b.mul(coords[k], extent(cx, step))))
        k += 1
        dim += 1
    return source + list(coords[k:])


def element(cx: LoweringContext, env: dict, atom, coords: list) -> ir.Value:
    """The element of `atom` at the (broadcast) position `coords`; a fused node shared
    inside one loop body is computed once (memoised per position)."""
    if isinstance(atom, Const):
        return cx.value(env, atom)
    value = env[id(atom)]
    if not atom.type.is_array:
        return value
    if not isinstance(value, Lazy):
        return load(cx, value, atom.type, offset(cx, atom.type.shape, coords))
    key = (id(atom), tuple(id(c) for c in coords))
    if key not in cx.memo:
        cx.memo[key] = _fused_element(cx, env, atom, value.eqn, coords)
    return cx.memo[key]


def _fused_element(cx, env, atom, eqn, coords):
    if eqn.prim == "broadcast_to":
        return element(cx, env, eqn.inputs[0], coords)
    if eqn.prim == "full":
        return cx.value(env, eqn.inputs[0])
    if eqn.prim == "index_update":
        return _scatter_element(cx, env, atom, eqn, coords)
    shape = atom.type.shape
    mine = coords[len(coords) - len(shape):]
    # a dimension of size 1 is broadcast: its coordinate is 0 whatever the consumer's
    local = [ir.Constant(I64, 0) if is_one(n) else c for c, n in zip(mine, shape, strict=True)]
    if eqn.prim == "arange":
        return cx.b.sitofp(local[-1], element_type(atom.type))
    if eqn.prim == "index":
        return element(cx, env, eqn.inputs[0], _view_source_coords(cx, eqn, local))
    if eqn.prim == "take":
        x, idx = eqn.inputs
        axis = eqn.params["axis"]
        return element(cx, env, x, gathered_coords(cx, env, idx, local, axis,
                                                   x.type.shape[axis]))
    args = [element(cx, env, a, local) for a in eqn.inputs]
    return PRIMITIVES[eqn.prim].llvm.per_element(cx, args, eqn)[0]


def gathered_coords(cx: LoweringContext, env: dict, idx, coords: list, axis: int,
                    n) -> list:
    """The coordinates in `x` of the element of `take[axis](x, idx)` at `coords`, the index
    checked in `[0, n)` (else status INDEX: never a read outside `x`)."""
    b = cx.b
    k = len(idx.type.shape)
    i = element(cx, env, idx, coords[axis:axis + k])
    ok = b.and_(b.icmp_signed(">=", i, ir.Constant(I64, 0)),
                b.icmp_signed("<", i, extent(cx, n)))
    cx.check(ok, status.INDEX)
    return coords[:axis] + [i] + coords[axis + k:]


def _scatter_element(cx, env, atom, eqn, coords):
    """c (+) v inside the region, c outside. A coordinate whose loop range (`ranges`) lies
    inside or outside the slice is decided once, without a select: contiguous loads."""
    b = cx.b
    base, v = eqn.inputs
    fill = element(cx, env, base, coords)
    shape = atom.type.shape
    mine = [ir.Constant(I64, 0) if is_one(n) else c
            for c, n in zip(coords[len(coords) - len(shape):], shape, strict=True)]
    inside = None  # the run-time condition of the coordinates not decided statically
    region, dim = [], 0
    for item in eqn.params["spec"]:
        if isinstance(item, NewAxis):
            region.append(ir.Constant(I64, 0))
            continue
        start, _, step = item.indices(shape[dim])
        length = item.length(shape[dim])
        c = mine[dim]
        rel = b.sub(c, extent(cx, start))
        span, known = slice_span(item, shape[dim]), coordinate_range(cx, c)
        if span is None or known is not None and (known[1] <= span[0] or
                                                  known[0] >= span[1]):
            return fill  # wholly outside
        if known is not None and abs(step) == 1 and span[0] <= known[0] and \
                known[1] <= span[1]:
            region.append(rel if step == 1 else b.neg(rel))  # wholly inside
            dim += 1
            continue
        pos = b.sdiv(rel, extent(cx, step))
        ok = b.and_(b.icmp_signed("==", b.srem(rel, extent(cx, step)),
                                  ir.Constant(I64, 0)),
                    b.and_(b.icmp_signed(">=", pos, ir.Constant(I64, 0)),
                           b.icmp_signed("<", pos, extent(cx, length))))
        inside = ok if inside is None else b.and_(inside, ok)
        region.append(b.select(ok, pos, ir.Constant(I64, 0)))  # clamped: always in bounds
        dim += 1
    region.extend(mine[dim:])
    value = element(cx, env, v, region)
    if eqn.params["mode"] == "add":
        value = b.fadd(fill, value)
    return value if inside is None else b.select(inside, value, fill)


def materialize(cx: LoweringContext, env: dict, var) -> ir.Value:
    """Array `var` computed into a buffer (the caller's output buffer when it is one)."""
    ptr = cx.out_buffers.get(id(var)) or \
        alloc(cx, var.type.shape, element_type(var.type))
    strides = var.type.shape

    def body(coords):
        store(cx, ptr, var.type, offset(cx, strides, coords), element(cx, env, var, coords))

    any_nest(cx, var.type.shape, body, slice_cuts(cx, env, var, var.type.shape))
    return ptr


@lowers(*VIEWS)
def lower_elementwise(cx: LoweringContext, eqn, env: dict) -> list:
    """An elementwise equation or view (`fusible(eqn)`) that is not fused: its array
    result computed into a buffer by one loop nest (its fused operands per element)."""
    out = eqn.outputs[0]
    env[id(out)] = Lazy(eqn)
    return [materialize(cx, env, out)]


class PerElement:
    """The `llvm` table entry of an elementwise primitive, made of its per-element rule."""

    def __init__(self, per_element: Callable) -> None:
        self.per_element = per_element

    def __call__(self, cx: LoweringContext, eqn, env: dict) -> list:
        if eqn.outputs[0].type.is_array:
            return lower_elementwise(cx, eqn, env)
        return self.per_element(cx, [cx.value(env, a) for a in eqn.inputs], eqn)


for _name, _rule in {**ops.LOWERINGS, **special.LOWERINGS}.items():
    lowers(_name)(PerElement(_rule))
