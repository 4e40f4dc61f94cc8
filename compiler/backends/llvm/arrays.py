"""Arrays in LLVM code: float64 / float32 / int64 / bool buffers, their memory and loop nests.

Contract (functions of the lowering context `cx`, context.py, that the rules of the array
primitives and the elementwise code (elements.py) use: `alloc`, `copy_array`, `loop_nest`,
`coordinate_range`, `slice_cuts`, `offset`, `load`, `store`):
- An array value is a pointer to contiguous row-major float64, float32 or int64 data (bool
  arrays: one byte per element) of static shape. Buffers outside loops are slices of the caller's
  scratch buffer; inside loops they come from `malloc`, are recorded in an allocation list
  and freed on every exit path (arrays are immutable, so buffers never alias writes).
- Fusion: the results `fusion.plan_fusion` picks are not materialised (the environment holds
  a `fusion.Lazy`): the loop nests of their consumers compute them per element
  (`elements.element`). A loop nest computing fused scatters (the adjoints of slices) is
  split at their slice boundaries into ranges, run in the same row-major order, each a plain
  loop that reads contiguous elements with no per-element select (`slice_cuts`,
  `loop_nest`): the loops vectorise, and the values (sums included) keep their bits. The
  innermost loop of a nest is kept as a loop (never fully unrolled) when it is MIN_KEPT_ROW
  long or longer, so that it, not the loop over rows, is vectorised.
- Threads: a loop nest over at least `parallel.PARALLEL_MIN` elements (a materialised map, a
  reduction, a transpose: `array_rules.py`) runs on the thread pool in fixed blocks of rows
  of dimension 0 (`parallel.any_nest`, threads.py); the loops keep their bits, and
  reductions over dimension 0 combine per-block partials in block order (`array_rules.py`).
  Scatters with run-time indices (repeated indices accumulate) stay serial.
- `blas()` finds numpy's OpenBLAS and loads it on first use, never at import;
  `blas_for(graph)` names the library the code of `graph` calls, part of the disk-cache key.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import math
import os
from collections.abc import Callable

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from ...ir import dtypes
from ...ir.core import Var, walk_eqns
from ...ir.dims import DimLike, is_one, is_symbolic
from ...ir.index import NewAxis
from ...primitives.decompositions import LAPACK
from . import buffer_cache
from .context import LoweringContext, extent
from .fusion import VIEWS, Lazy, static_view
from .ops import F64, I64
from .tapes import push

PTR = ir.PointerType()
I8 = ir.IntType(8)
F32 = ir.FloatType()


def element_type(t):
    """Storage type of one element: double, float, int64, or a byte for bools."""
    return {dtypes.BOOL: I8, dtypes.F32: F32, dtypes.I64: I64}.get(t.dtype, F64)


def itemsize(t) -> int:
    return t.dtype.itemsize  # numpy's: the buffers are numpy arrays
MAX_PIECES = 32  # at most this many copies of a loop body split at slice boundaries
MIN_KEPT_ROW = 16  # an inner loop of a nest this long or longer is never fully unrolled


def _unroll_disabled(module: ir.Module):
    """A new loop ID `!n = !{!n, !{!"llvm.loop.unroll.disable"}}` (its first operand is itself,
    which llvmlite's `add_metadata` cannot build, so the node is made, then pointed at)."""
    disable = module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.disable")])
    loop_id = ir.values.MDValue(module, [disable], name=str(len(module.metadata)))
    loop_id.operands = (loop_id, disable)
    return loop_id


def _segments(n: int, cuts) -> list[tuple[int, int]]:
    """[0, n) split at the cuts inside it."""
    edges = [0, *sorted(c for c in set(cuts) if 0 < c < n), n]
    return list(zip(edges[:-1], edges[1:], strict=True))


def slice_span(item, n: int):
    """(first, last + 1) of the positions a slice of a dimension of length n selects, in
    increasing order, or None when it selects none."""
    start, _, step = item.indices(n)
    length = item.length(n)
    if length == 0:
        return None
    end = start + step * (length - 1)
    return (start, end + 1) if step > 0 else (end, start + 1)


def row_major_strides(shape) -> list[int]:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return out[::-1]


def n_elements(shape) -> DimLike:
    return math.prod(shape) if shape else 1



@functools.cache
def blas() -> str | None:
    """The path of numpy's OpenBLAS, loaded for MCJIT on the first call; None without it."""
    folder = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in sorted(glob.glob(os.path.join(folder, "libscipy_openblas64_*.so"))):
        try:
            ctypes.CDLL(path).scipy_cblas_dgemm64_  # noqa: B018 - probe the symbol
        except (OSError, AttributeError):
            continue
        llvm.load_library_permanently(path)
        return path
    return None


# the primitives whose code calls numpy's OpenBLAS (BLAS, or LAPACK: `linalg.py`,
# `decompositions.py`) when found
CALLS_OPENBLAS = {"matmul", "solve", "inv", "det", "slogdet", "det_sign", "cholesky",
                  "scipy_cholesky", "solve_triangular"} | LAPACK


def blas_for(graph) -> str:
    """The BLAS library the code of `graph` calls ("" when it calls none), loaded."""
    if any(e.prim in CALLS_OPENBLAS for e in walk_eqns(graph)):
        return blas() or ""
    return ""


def alloc(cx: LoweringContext, shape, elem: ir.Type = F64) -> ir.Value:
    """A buffer for an array of `elem`s (the storage type of one element). Outside loops it
    is a fixed slice of the caller's scratch buffer (planned at compile time, reused by every
    call: no malloc, no page faults); inside loops it comes from malloc and is freed at
    exit."""
    nbytes = n_elements(shape) * {I8: 1, F32: 4}.get(elem, 8)
    if cx.loop_depth == 0 and not is_symbolic(nbytes):
        start = cx.scratch_size
        cx.scratch_size += (max(nbytes, 8) + 63) // 64 * 64
        return cx.b.gep(cx.scratch, [ir.Constant(I64, start)], inbounds=True, source_etype=I8)
    size = extent(cx, nbytes if is_symbolic(nbytes) else max(nbytes, 8))
    if cx.loop_depth > 0:  # a loop iteration's buffer: kept between calls
        ptr = buffer_cache.take(cx, size)
    else:
        ptr = cx.b.call(cx.declare("malloc", ir.FunctionType(PTR, [I64])), [size])
    cx.check(cx.b.icmp_unsigned("!=", ptr, ir.Constant(PTR, None)), 1)
    push(cx, cx.b.ptrtoint(ptr, I64), "allocs")
    return ptr


def loop_nest(cx: LoweringContext, shape, body: Callable, cuts=None, rows=None) -> None:
    """Run `body(coords)` for every index of `shape` (row-major, innermost fastest).
    `cuts` (one collection of positions per dimension, see `slice_cuts`) splits each
    dimension into ranges, each its own loop (a range of one position: a constant), in
    increasing order, so the body runs in the same order; `ranges` tells the body the range
    of each coordinate, so a fused scatter decides inside/outside per range, not per
    element (contiguous loads, no selects: the loops vectorise). `rows` (run-time begin,
    end) restricts dimension 0 to those rows (a block of a parallel nest: parallel.py). An
    innermost loop of a nest of MIN_KEPT_ROW or more positions is never fully unrolled:
    LLVM would then vectorise the loop around it instead, across rows, with gathers and
    scatters (a 32x32 stencil's gradient ran 2-3x slower so). The body starts with the
    element values of the enclosing body (`cx.memo`: they dominate the nest), so a nested
    loop reuses what its enclosing loop computed (a gather's index loaded and checked once
    per row, not per element: the row loop then has no exit and vectorises)."""
    b = cx.b
    coords = []
    pieces = [[(0, n)] if is_symbolic(n) else _segments(n, cuts[d] if cuts else ())
              for d, n in enumerate(shape)]
    if n_elements([len(p) for p in pieces]) > MAX_PIECES:
        pieces = [[(0, n)] for n in shape]
    outer_ranges, cx.ranges = cx.ranges, dict(cx.ranges)
    enclosing = cx.memo  # the enclosing body's values dominate this nest: kept (hoisted)

    def level(d):
        if d == len(shape):
            cx.memo = dict(enclosing)
            body(coords)
            cx.memo = {}
            return
        for lo, hi in pieces[d]:
            first, stop = ir.Constant(I64, lo), extent(cx, hi)
            if d == 0 and rows is not None:  # [lo, hi) within the block's rows
                first = b.select(b.icmp_signed(">", rows[0], first), rows[0], first)
                stop = b.select(b.icmp_signed("<", rows[1], stop), rows[1], stop)
            if is_one(hi - lo):
                done = None
                if d == 0 and rows is not None:
                    inside = cx.fn.append_basic_block("row")
                    done = cx.fn.append_basic_block("row.end")
                    b.cbranch(b.icmp_signed("<", first, stop), inside, done)
                    b.position_at_end(inside)
                coords.append(ir.Constant(I64, lo))
                level(d + 1)
                coords.pop()
                if done is not None:
                    b.branch(done)
                    b.position_at_end(done)
                continue
            pre = b.block
            head = cx.fn.append_basic_block(f"for{d}")
            inner = cx.fn.append_basic_block(f"for{d}.body")
            done = cx.fn.append_basic_block(f"for{d}.end")
            b.branch(head)
            b.position_at_end(head)
            i = b.phi(I64)
            i.add_incoming(first, pre)
            b.cbranch(b.icmp_signed("<", i, stop), inner, done)
            b.position_at_end(inner)
            cx.ranges[id(i)] = (i, lo, hi)
            coords.append(i)
            level(d + 1)
            coords.pop()
            i.add_incoming(b.add(i, ir.Constant(I64, 1)), b.block)
            back = b.branch(head)
            if 0 < d == len(shape) - 1 and (is_symbolic(hi) or hi - lo >= MIN_KEPT_ROW):
                back.set_metadata("llvm.loop", _unroll_disabled(cx.module))
            b.position_at_end(done)

    try:
        level(0)
    finally:
        cx.ranges, cx.memo = outer_ranges, enclosing


def coordinate_range(cx: LoweringContext, c) -> tuple[int, int] | None:
    """(lo, hi) of the values a loop coordinate takes in the current loop, or None."""
    if isinstance(c, ir.Constant):
        return c.constant, c.constant + 1
    known = cx.ranges.get(id(c))
    return known[1:] if known is not None and known[0] is c else None


def slice_cuts(cx: LoweringContext, env: dict, atom, shape) -> list[set[int]]:
    """Per dimension of a loop nest over `shape` computing `atom`: the boundaries of the
    constant-slice regions of the scatters fused into `atom` that read the loop's
    coordinates directly (through elementwise operations, broadcasts and scatter bases)."""
    cuts: list[set[int]] = [set() for _ in shape]
    seen = set()

    def visit(a, dims):
        value = env.get(id(a)) if isinstance(a, Var) else None
        if not isinstance(value, Lazy) or (id(a), tuple(dims)) in seen:
            return
        seen.add((id(a), tuple(dims)))
        mine = a.type.shape
        dims = [None if is_one(n) else d
                for d, n in zip(dims[len(dims) - len(mine):], mine, strict=True)]
        eqn = value.eqn
        if eqn.prim == "index_update":
            spans = [item for item in eqn.params["spec"] if not isinstance(item, NewAxis)]
            for d, item, n in zip(dims, spans, mine, strict=False):
                if is_symbolic(n):  # a run-time size: one loop, decided per element
                    continue
                span = slice_span(item, n)
                if d is not None and span is not None:
                    cuts[d].update(span)
            visit(eqn.inputs[0], dims)
        elif eqn.prim not in VIEWS and eqn.prim != "take" and not static_view(eqn):
            for x in eqn.inputs:
                if isinstance(x, Var) and x.type.is_array:
                    visit(x, dims)
        elif eqn.prim == "broadcast_to":
            visit(eqn.inputs[0], dims)

    visit(atom, list(range(len(shape))))
    return cuts


def offset(cx: LoweringContext, shape, coords: list) -> ir.Value:
    """Flat offset of `shape`'s element at the broadcast position `coords`."""
    b = cx.b
    aligned = coords[len(coords) - len(shape):] if shape else []
    total = ir.Constant(I64, 0)
    for c, n, s in zip(aligned, shape, row_major_strides(shape), strict=True):
        if not is_one(n):
            total = b.add(total, b.mul(c, extent(cx, s)))
    return total


def load(cx: LoweringContext, ptr: ir.Value, t, off: ir.Value) -> ir.Value:
    elem = element_type(t)
    value = cx.b.load(cx.b.gep(ptr, [off], inbounds=True, source_etype=elem), typ=elem)
    # a bool element is true for any nonzero byte, as numpy reads it (masks from files or
    # C callers may hold 128 or 255, whose lowest bit a truncation would read)
    return cx.b.icmp_unsigned("!=", value, ir.Constant(I8, 0)) if elem == I8 else value


def store(cx: LoweringContext, ptr: ir.Value, t, off: ir.Value, value: ir.Value) -> None:
    elem = element_type(t)
    if elem == I8:
        value = cx.b.zext(value, I8)
    cx.b.store(value, cx.b.gep(ptr, [off], inbounds=True, source_etype=elem))


def copy_array(cx: LoweringContext, ptr: ir.Value, t) -> ir.Value:
    copy = alloc(cx, t.shape, element_type(t))
    memcpy = cx.declare("memcpy", ir.FunctionType(PTR, [PTR, PTR, I64]))
    cx.b.call(memcpy, [copy, ptr, extent(cx, n_elements(t.shape) * itemsize(t))])
    return copy
