"""LLVM lowering of integer-array indexing (`primitives/gather.py`).

Contract (rules of `take`, `take_add`, `put`, registered with `registry.lowers`; they use
the array services of the lowering `cx`: `element`, `alloc`, `loop_nest`, `parallel_nest`,
`check`). An index array's element is checked in `[0, n)` (else status INDEX: never a read
or write outside an array) once per row: the elements that follow the indexed axis (a row of
`shape[axis + 1:]`, contiguous) are copied or added by one inner loop, which vectorises.
- `take`, when not fused into its consumers (`fusion.py`; `elements.gathered_coords` is then
  its element), computes its result (into the caller's output buffer when it is one) row by
  row, on the thread pool in the fixed blocks of `parallel.rows_per_block` when large: a
  copy, the same bits for any split.
- `take_add` zeroes its result (into the caller's output buffer when it is one), then adds
  each row of `g` at the row the index gives, in row-major order of the index array, so
  repeated indices accumulate in that order (as `np.add.at`). When `g` is large it runs on the
  thread pool with the *destination* split: along `axis` 0, DEST_BLOCKS ranges of result rows,
  each block scanning every index and adding only the rows that land in its range; along a
  later axis, the blocks of the result's dimension 0. Every result element then receives its
  additions in the serial order, so the bits are the same for any thread count and split.
- `put` copies `x`, then loops over `v` storing each element at the position the index gives
  (the last write wins).
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ...ir.dims import is_symbolic
from .arrays import (
    alloc,
    copy_array,
    element_type,
    load,
    loop_nest,
    n_elements,
    offset,
    store,
)
from .elements import element, gathered_coords
from .emit import when
from .ops import I64
from .parallel import PARALLEL_MIN, parallel_nest, rows_per_block
from .registry import lowers

DEST_BLOCKS = 8  # result-row ranges of a large take_add along axis 0 (each scans the indices)


def _rows(cx, shape, per: int | None, body: Callable) -> None:
    """`loop_nest(shape, body)`, on the pool in blocks of `per` rows of dimension 0 when
    `per` is given and the body allows it (`parallel_nest`)."""
    if not (shape and per is not None and parallel_nest(cx, shape, body, None, per)):
        loop_nest(cx, shape, body)


def _buffer(cx, out):
    return cx.out_buffers.get(id(out)) or alloc(cx, out.type.shape, element_type(out.type))


@lowers("take")
def lower_take(cx, eqn, env):
    x, idx = eqn.inputs
    out = eqn.outputs[0]
    axis = eqn.params["axis"]
    n = x.type.shape[axis]
    if not out.type.is_array:
        return [element(cx, env, x, gathered_coords(cx, env, idx, [], axis, n))]
    ptr = _buffer(cx, out)
    shape = out.type.shape
    split = axis + len(idx.type.shape)

    def copy(co):
        source = gathered_coords(cx, env, idx, list(co), axis, n)
        loop_nest(cx, shape[split:], lambda inner: store(
            cx, ptr, out.type, offset(cx, shape, list(co) + inner),
            element(cx, env, x, source + inner)))

    _rows(cx, shape[:split], rows_per_block(shape), copy)
    return [ptr]


@lowers("take_add")
def lower_take_add(cx, eqn, env):
    g, idx = eqn.inputs
    out = eqn.outputs[0]
    axis, shape = eqn.params["axis"], eqn.params["shape"]
    n = shape[axis]
    ptr = _buffer(cx, out)
    elem = element_type(out.type)
    zero = ir.Constant(elem, 0.0 if out.type.is_float else 0)
    plus = ir.IRBuilder.fadd if out.type.is_float else ir.IRBuilder.add  # int64: np.add.at
    split = axis + len(idx.type.shape)
    row = g.type.shape[split:]

    def add_row(co, at):
        loop_nest(cx, row, lambda inner: _add(co + inner, at + inner))

    def _add(source, dest):
        off = offset(cx, shape, dest)
        store(cx, ptr, out.type, off, plus(cx.b, load(cx, ptr, out.type, off),
                                           element(cx, env, g, source)))

    count = n_elements(g.type.shape)  # run-time sizes: the serial scatter
    large = not is_symbolic(count) and count >= PARALLEL_MIN
    if axis > 0 or not large or n < DEST_BLOCKS:
        _rows(cx, shape, rows_per_block(shape), lambda co: store(
            cx, ptr, out.type, offset(cx, shape, co), zero))
        _rows(cx, g.type.shape[:split], rows_per_block(g.type.shape) if axis > 0 else None,
              lambda co: add_row(list(co), gathered_coords(cx, env, idx, list(co), axis, n)))
        return [ptr]
    per = -(-n // DEST_BLOCKS)

    def block(co):  # result rows [lo, hi): zeroed, then every index scanned in order
        b = cx.b
        lo = b.mul(co[0], ir.Constant(I64, per))
        hi = b.add(lo, ir.Constant(I64, per))
        hi = b.select(b.icmp_signed("<", hi, ir.Constant(I64, n)), hi, ir.Constant(I64, n))
        loop_nest(cx, shape, lambda c: store(cx, ptr, out.type, offset(cx, shape, c), zero),
                  rows=(lo, hi))

        def scan(c):
            dest = gathered_coords(cx, env, idx, list(c), 0, n)
            when(cx, b.and_(b.icmp_signed(">=", dest[0], lo), b.icmp_signed("<", dest[0], hi)),
                  lambda: add_row(list(c), dest))

        loop_nest(cx, idx.type.shape, scan)

    _rows(cx, (DEST_BLOCKS,), 1, block)
    return [ptr]


@lowers("put")
def lower_put(cx, eqn, env):
    x, v, idx = eqn.inputs
    axis = eqn.params["axis"]
    shape = x.type.shape
    ptr = copy_array(cx, env[id(x)], x.type)

    def write(co):
        off = offset(cx, shape, gathered_coords(cx, env, idx, list(co), axis, shape[axis]))
        store(cx, ptr, x.type, off, element(cx, env, v, co))

    loop_nest(cx, v.type.shape, write)
    return [ptr]
