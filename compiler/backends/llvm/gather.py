"""LLVM lowering of integer-array indexing (`primitives/gather.py`).

Contract (rules of `take`, `take_add`, `put`, registered with `registry.lowers`; they use
the array services of the lowering `cx`: `element`, `alloc`, `loop_nest`, `check`):
`take` loops over its result, reading `x` at the position whose `axis` coordinate is the
index array's element (checked in `[0, n)`, else status INDEX: never a read outside `x`);
`take_add` zeroes its result, then loops over `g` adding each element at the position the
index gives (so repeated indices accumulate, as `np.add.at`); `put` copies `x`, then loops
over `v` storing each element at the position the index gives (the last write wins).
"""

from __future__ import annotations

from llvmlite import ir

from ... import status
from .arrays import alloc, copy_array, element_type, extent, load, loop_nest, offset, store
from .elements import element
from .ops import I64
from .registry import lowers


def _gathered(cx, env, idx, coords, axis, n):
    """(coords of the indexed array) for the coords of the taken array, index checked."""
    b = cx.b
    k = len(idx.type.shape)
    i = element(cx, env, idx, coords[axis:axis + k])
    ok = b.and_(b.icmp_signed(">=", i, ir.Constant(I64, 0)),
                b.icmp_signed("<", i, extent(cx, n)))
    cx.check(ok, status.INDEX)
    return coords[:axis] + [i] + coords[axis + k:]


@lowers("take")
def lower_take(cx, eqn, env):
    x, idx = eqn.inputs
    out = eqn.outputs[0]
    axis = eqn.params["axis"]
    n = x.type.shape[axis]
    if not out.type.is_array:
        return [element(cx, env, x, _gathered(cx, env, idx, [], axis, n))]
    ptr = alloc(cx, out.type.shape, element_type(out.type))
    loop_nest(cx, out.type.shape, lambda co: store(
        cx, ptr, out.type, offset(cx, out.type.shape, co),
        element(cx, env, x, _gathered(cx, env, idx, list(co), axis, n))))
    return [ptr]


@lowers("take_add")
def lower_take_add(cx, eqn, env):
    g, idx = eqn.inputs
    out = eqn.outputs[0]
    axis, shape = eqn.params["axis"], eqn.params["shape"]
    elem, floats = element_type(out.type), out.type.is_float
    ptr = alloc(cx, shape, elem)
    loop_nest(cx, shape, lambda co: store(
        cx, ptr, out.type, offset(cx, shape, co), ir.Constant(elem, 0.0 if floats else 0)))
    plus = cx.b.fadd if floats else cx.b.add  # int64 sums: np.add.at of int arrays

    def add(co):
        off = offset(cx, shape, _gathered(cx, env, idx, list(co), axis, shape[axis]))
        value = plus(load(cx, ptr, out.type, off), element(cx, env, g, co))
        store(cx, ptr, out.type, off, value)

    loop_nest(cx, g.type.shape, add)
    return [ptr]


@lowers("put")
def lower_put(cx, eqn, env):
    x, v, idx = eqn.inputs
    axis = eqn.params["axis"]
    shape = x.type.shape
    ptr = copy_array(cx, env[id(x)], x.type)

    def write(co):
        off = offset(cx, shape, _gathered(cx, env, idx, list(co), axis, shape[axis]))
        store(cx, ptr, x.type, off, element(cx, env, v, co))

    loop_nest(cx, v.type.shape, write)
    return [ptr]
