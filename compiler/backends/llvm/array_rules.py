"""LLVM lowering rules of the array primitives (`primitives/arrays.py`) that are not
elementwise: reductions, reshaping, `matmul`, indexing and scatters.

Contract: each rule is registered with `registry.lowers` and runs with the lowering `cx`,
using its array services (arrays.py: `alloc`, `loop_nest`, `any_nest`, `element`,
`slice_cuts`, `load`, `store`, `offset`, `copy_array`) and `parallel_nest` (parallel.py).
- Reductions (`sum`, `prod`, `max`, `min`, `sum_to`) loop over their operand (a max/min over no
  element is preceded by `empty_extremum`, which leaves with its status). A reduction over
  dimension 0 (a full one included) of a large operand reduces each block of rows in order
  into its own partial on the thread pool, then combines the partials in block order: the
  same bits for any thread count (not those of one in-order loop). A full float sum of a
  smaller operand is numpy's pairwise sum (pairwise.py: `np.sum`'s bits for a contiguous
  array); the other full reductions of smaller operands run in order.
- `matmul` calls the OpenBLAS that numpy ships (`scipy_cblas_dgemm64_` / `sgemm64_`), or
  loops without it (`arrays.blas()`). An operand that is a transpose fusion left
  unmaterialised (`transposed_source`) is read with the BLAS's trans flag; code that cannot
  read it so copies it (`operand_buffer`; linalg.py's `solve` uses both too); the call
  and its orientation are `blas_products.py`'s.
- `index` checks runtime indices (status 4 -> IndexError); `index_update` copies, then
  writes (in place where inplace.py allows it); both with constant slices only are
  computed per element, as views (`fusion.fusible`).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir

from ... import status
from ...ir.index import Int, NewAxis
from ...primitives.arrays import index_shape, reduced_shape, sum_to_axes
from .arrays import (
    alloc,
    blas,
    copy_array,
    element_type,
    extent,
    load,
    loop_nest,
    n_elements,
    offset,
    row_major_strides,
    slice_cuts,
    store,
)
from .blas_products import blas_product
from .elements import element, lower_elementwise
from .fusion import Lazy, fusible
from .ops import I1, I64
from .pairwise import pairwise_sum
from .parallel import any_nest, blocks, parallel_nest, rows_per_block
from .registry import lowers


def _reduce(cx, env, x, axes, kind, out_shape):
    shape = x.type.shape
    if x.type.is_float:
        init = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[kind]
    else:  # int64 (the frontend reduces bool arrays as int64)
        init = {"sum": 0, "prod": 1, "max": np.iinfo(np.int64).min,
                "min": np.iinfo(np.int64).max}[kind]

    def combine(acc, v):
        b = cx.b
        if kind == "sum":
            return b.fadd(acc, v) if x.type.is_float else b.add(acc, v)
        if kind == "prod":  # int products wrap, as numpy's
            return b.fmul(acc, v) if x.type.is_float else b.mul(acc, v)
        if not x.type.is_float:
            return b.select(b.icmp_signed(">" if kind == "max" else "<", v, acc), v, acc)
        better = b.fcmp_ordered(">" if kind == "max" else "<", v, acc)
        return b.select(b.or_(better, b.fcmp_unordered("uno", v, v)), v, acc)

    elem = element_type(x.type)
    cuts = slice_cuts(cx, env, x, shape)
    if out_shape is None:
        total = _blocked_total(cx, env, x, combine, ir.Constant(elem, init), cuts)
        if total is not None:
            return total
        if kind == "sum" and x.type.is_float:
            return pairwise_sum(cx, env, x)
        slot = _accumulator(cx, ir.Constant(elem, init))

        def body(coords):
            cx.b.store(combine(cx.b.load(slot, typ=elem),
                               element(cx, env, x, coords)), slot)

        loop_nest(cx, shape, body, cuts)
        return cx.b.load(slot, typ=elem)
    kept = [d for d in range(len(shape)) if d not in axes]
    kept_shape = [shape[d] for d in kept]
    out = alloc(cx, out_shape, elem)
    any_nest(cx, out_shape, lambda c: store(
        cx, out, x.type.with_shape(out_shape), offset(cx, out_shape, c),
        ir.Constant(elem, init)))

    def accumulate(target, first=None):
        def body(coords):
            b = cx.b
            off = offset(cx, kept_shape, [coords[d] for d in kept])
            off = off if first is None else b.add(first, off)
            ptr = b.gep(target, [off], inbounds=True, source_etype=elem)
            b.store(combine(b.load(ptr, typ=elem), element(cx, env, x, coords)), ptr)
        return body

    if 0 in kept:  # blocks of rows write disjoint rows of `out`, in the same order
        any_nest(cx, shape, accumulate(out), cuts)
    elif not _blocked_rows(cx, shape, out_shape, out, accumulate, combine,
                           ir.Constant(elem, init), cuts):
        loop_nest(cx, shape, accumulate(out), cuts)
    return out


def _blocked_rows(cx, shape, out_shape, out, accumulate, combine, init, cuts) -> bool:
    """A reduction over dimension 0 (among others) of a large operand by the thread pool:
    each fixed block of rows reduced in order into its own copy of the result, the copies
    then combined into `out` (holding `init`) in block order, so the bits do not depend
    on the thread count. False (nothing emitted) when the operand is small, the copies
    would outgrow half the operand, or the body cannot be outlined."""
    per = rows_per_block(shape)
    size = n_elements(out_shape)
    if per is None or blocks(shape, per) * size > n_elements(shape) // 2:
        return False
    elem = init.type
    partials = alloc(cx, (blocks(shape, per), size), elem)
    firsts = []  # the block's first element of `partials`, made by `before`

    def before(block):
        first = cx.b.mul(block, ir.Constant(I64, size))
        loop_nest(cx, (size,), lambda c: cx.b.store(init, cx.b.gep(
            partials, [cx.b.add(first, c[0])], inbounds=True, source_etype=elem)))
        firsts[:] = [first]

    def body(coords):
        accumulate(partials, firsts[0])(coords)

    if not parallel_nest(cx, shape, body, cuts, per, before):
        return False

    def gather(c):
        b = cx.b
        target = b.gep(out, [c[1]], inbounds=True, source_etype=elem)
        part = b.gep(partials, [b.add(b.mul(c[0], ir.Constant(I64, size)), c[1])],
                     inbounds=True, source_etype=elem)
        b.store(combine(b.load(target, typ=elem), b.load(part, typ=elem)), target)

    loop_nest(cx, (blocks(shape, per), size), gather)
    return True


def _accumulator(cx, init):
    slot = cx.entry.alloca(init.type)
    cx.b.store(init, slot)
    return slot


def _blocked_total(cx, env, x, combine, init, cuts):
    """A full reduction of a large operand by the thread pool: each fixed block of rows
    (parallel.py) reduced in order into its own partial, the partials then combined in
    block order, so the bits do not depend on the thread count; None when the operand is
    small (the plain in-order loop) or the body cannot be outlined."""
    shape = x.type.shape
    per = rows_per_block(shape)
    if per is None:
        return None
    partials = alloc(cx, (blocks(shape, per),), init.type)
    slots = []  # the block's accumulator, made by `before` in the outlined function

    def before(block):
        slots[:] = [_accumulator(cx, init)]
        return slots[0]

    def body(coords):
        cx.b.store(combine(cx.b.load(slots[0], typ=init.type),
                           element(cx, env, x, coords)), slots[0])

    def after(block, slot):
        cx.b.store(cx.b.load(slot, typ=init.type),
                   cx.b.gep(partials, [block], inbounds=True, source_etype=init.type))

    if not parallel_nest(cx, shape, body, cuts, per, before, after):
        return None
    slot = _accumulator(cx, init)
    loop_nest(cx, (blocks(shape, per),), lambda c: cx.b.store(combine(
        cx.b.load(slot, typ=init.type),
        cx.b.load(cx.b.gep(partials, [c[0]], inbounds=True, source_etype=init.type),
                  typ=init.type)), slot))
    return cx.b.load(slot, typ=init.type)


@lowers("sum", "prod", "max", "min")
def lower_reduction(cx, eqn, env):
    x = eqn.inputs[0]
    axis = eqn.params["axis"]
    axes = tuple(range(len(x.type.shape))) if axis is None else axis
    kept = reduced_shape(x.type.shape, axes, False)
    result = _reduce(cx, env, x, axes, eqn.prim, kept)
    return [_as_output(cx, result, kept, eqn.outputs[0].type)]


def _as_output(cx, result, kept, out_type):
    """A full reduction kept as a 1-element array (keepdims) needs a buffer."""
    if kept is None and out_type.is_array:
        ptr = alloc(cx, out_type.shape, element_type(out_type))
        cx.b.store(result, ptr)
        return ptr
    return result


@lowers("empty_extremum")
def lower_empty_extremum(cx, eqn, env):
    """A max/min over no element: numpy's ValueError whenever this point is reached."""
    code = status.EMPTY_MAXIMUM if eqn.params["kind"] == "max" else status.EMPTY_MINIMUM
    cx.check(ir.Constant(I1, 0), code)
    return []


@lowers("sum_to")
def lower_sum_to(cx, eqn, env):
    x = eqn.inputs[0]
    target = eqn.params["shape"]
    if not x.type.is_array:
        return [cx.value(env, x)]
    axes = sum_to_axes(x.type.shape, target)
    kept = reduced_shape(x.type.shape, axes, False) if target else None
    return [_as_output(cx, _reduce(cx, env, x, axes, "sum", kept), kept,
                       eqn.outputs[0].type)]


@lowers("reshape")
def lower_reshape(cx, eqn, env):
    x = eqn.inputs[0]
    if not x.type.is_array:  # a scalar becoming a one-element array
        ptr = alloc(cx, (1,), element_type(x.type))
        cx.b.store(cx.value(env, x), ptr)
        return [ptr]
    if eqn.outputs[0].type.shape is None:
        return [load(cx, env[id(x)], x.type, ir.Constant(I64, 0))]
    return [env[id(x)]]


@lowers("transpose")
def lower_transpose(cx, eqn, env):
    x, out = eqn.inputs[0], eqn.outputs[0]
    axes = eqn.params["axes"]
    src = env[id(x)]
    ptr = alloc(cx, out.type.shape, element_type(out.type))
    src_strides = row_major_strides(x.type.shape)

    def body(coords):
        off = ir.Constant(I64, 0)
        for c, a in zip(coords, axes, strict=True):
            off = cx.b.add(off, cx.b.mul(c, extent(cx, src_strides[a])))
        store(cx, ptr, out.type, offset(cx, out.type.shape, coords),
              load(cx, src, x.type, off))

    any_nest(cx, out.type.shape, body)
    return [ptr]


@lowers("concatenate")
def lower_concatenate(cx, eqn, env):
    out = eqn.outputs[0]
    axis = eqn.params["axis"]
    ptr = alloc(cx, out.type.shape, element_type(out.type))
    start = 0
    for part in eqn.inputs:
        shift = start

        def body(coords, part=part, shift=shift):
            target = list(coords)
            target[axis] = cx.b.add(coords[axis], extent(cx, shift))
            store(cx, ptr, out.type, offset(cx, out.type.shape, target),
                  element(cx, env, part, coords))

        loop_nest(cx, part.type.shape, body)
        start += part.type.shape[axis]
    return [ptr]


@lowers("pack")
def lower_pack(cx, eqn, env):
    ptr = alloc(cx, (len(eqn.inputs),), element_type(eqn.outputs[0].type))
    for i, a in enumerate(eqn.inputs):
        store(cx, ptr, eqn.outputs[0].type, ir.Constant(I64, i), cx.value(env, a))
    return [ptr]


def transposed_source(env, v):
    """The matrix whose transpose the operand `v` of a product or `solve` is, when fusion
    left that transpose unmaterialised (`fusion.product_operand`: BLAS and LAPACK read the
    source with their trans flags), else None."""
    value = env[id(v)]
    return value.eqn.inputs[0] if isinstance(value, Lazy) else None


def operand_buffer(cx, env, v):
    """The buffer of such an operand `v`: a transpose left unmaterialised is copied now,
    once (the environment keeps the copy), for code that does not read it transposed."""
    if transposed_source(env, v) is not None:
        env[id(v)] = cx.lower_eqn(env[id(v)].eqn, env)[0]
    return env[id(v)]


@lowers("matmul")
def lower_matmul(cx, eqn, env):
    x, y = eqn.inputs
    out = eqn.outputs[0]
    xs = x.type.shape if len(x.type.shape) == 2 else (1, x.type.shape[0])
    ys = y.type.shape if len(y.type.shape) == 2 else (y.type.shape[0], 1)
    m, k, n = xs[0], xs[1], ys[1]
    elem = element_type(x.type)
    c = alloc(cx, (m, n), elem)
    b = cx.b
    integers = isinstance(elem, ir.IntType)  # int64: the loops, whose sums wrap as numpy's
    if blas() and not integers:
        sources = [transposed_source(env, v) for v in (x, y)]
        trans_a, trans_b = (source is not None for source in sources)
        a, bm = (env[id(v if source is None else source)]
                 for v, source in zip((x, y), sources, strict=True))
        blas_product(cx, elem, (trans_a, trans_b), (m, n, k), a, bm, c)
    else:
        a, bm = (operand_buffer(cx, env, v) for v in (x, y))
        def at(ptr, i, j, cols):
            return b.gep(ptr, [b.add(b.mul(i, extent(cx, cols)), j)], source_etype=elem)

        zero = ir.Constant(elem, 0 if integers else 0.0)
        loop_nest(cx, (m, n), lambda co: b.store(zero, at(c, co[0], co[1], n)))
        add, mul = (b.add, b.mul) if integers else (b.fadd, b.fmul)

        def body(co):
            i, p, j = co
            av = b.load(at(a, i, p, k), typ=elem)
            bv = b.load(at(bm, p, j, n), typ=elem)
            cp = at(c, i, j, n)
            b.store(add(b.load(cp, typ=elem), mul(av, bv)), cp)

        loop_nest(cx, (m, k, n), body)
    if out.type.shape is None:
        return [b.load(c, typ=elem)]
    return [c]


def _index_map(cx, env, eqn, x_shape, ints):
    """coords of the indexed view -> flat offset in the source; checks runtime ints."""
    b = cx.b
    spec = eqn.params["spec"]
    runtime = iter(ints)
    plan, dim = [], 0
    for item in spec:
        if isinstance(item, NewAxis):
            plan.append(("new", None))
            continue
        n = x_shape[dim]
        if isinstance(item, Int):
            i = cx.value(env, next(runtime))
            ok = b.and_(b.icmp_signed(">=", i, ir.Constant(I64, 0)),
                        b.icmp_signed("<", i, extent(cx, n)))
            cx.check(ok, status.INDEX)
            plan.append(("int", (dim, i)))
        else:
            start, _, step = item.indices(n)
            plan.append(("slice", (dim, start, step)))
        dim += 1
    strides = row_major_strides(x_shape)
    rest = list(range(dim, len(x_shape)))

    def flat(coords):
        off = ir.Constant(I64, 0)
        k = 0
        for kind, info in plan:
            if kind == "new":
                k += 1
            elif kind == "int":
                d, i = info
                off = b.add(off, b.mul(i, extent(cx, strides[d])))
            else:
                d, start, step = info
                pos = b.add(extent(cx, start), b.mul(coords[k], extent(cx, step)))
                off = b.add(off, b.mul(pos, extent(cx, strides[d])))
                k += 1
        for d in rest:
            off = b.add(off, b.mul(coords[k], extent(cx, strides[d])))
            k += 1
        return off

    return flat


@lowers("index")
def lower_index(cx, eqn, env):
    if fusible(eqn):  # constant slices: a view
        return lower_elementwise(cx, eqn, env)
    x, *ints = eqn.inputs
    out = eqn.outputs[0]
    source = _index_map(cx, env, eqn, x.type.shape, ints)
    src = env[id(x)]
    if not out.type.is_array:
        return [load(cx, src, x.type, source([]))]
    ptr = alloc(cx, out.type.shape, element_type(out.type))
    loop_nest(cx, out.type.shape, lambda co: store(
        cx, ptr, out.type, offset(cx, out.type.shape, co), load(cx, src, x.type, source(co))))
    return [ptr]


@lowers("index_update")
def lower_index_update(cx, eqn, env):
    if fusible(eqn):  # constant slices: computed per element, as a view
        return lower_elementwise(cx, eqn, env)
    x, v, *ints = eqn.inputs
    if id(eqn) in cx.in_place:  # see inplace.py: the buffer is private to the loop
        ptr = env[id(x)]
    elif isinstance(env[id(x)], Lazy):  # a constant fill
        ptr = alloc(cx, x.type.shape, element_type(x.type))
        fill = cx.value(env, env[id(x)].eqn.inputs[0])
        loop_nest(cx, x.type.shape, lambda co: store(
            cx, ptr, x.type, offset(cx, x.type.shape, co), fill))
    else:
        ptr = copy_array(cx, env[id(x)], x.type)
    target = _index_map(cx, env, eqn, x.type.shape, ints)
    region = index_shape(x.type.shape, eqn.params["spec"])
    add = eqn.params["mode"] == "add"

    def write(coords):
        off = target(coords)
        value = element(cx, env, v, coords)
        if add:
            value = cx.b.fadd(load(cx, ptr, x.type, off), value)
        store(cx, ptr, x.type, off, value)

    if region is None:
        write([])
    else:
        loop_nest(cx, region, write)
    return [ptr]
