"""Matrix products by the OpenBLAS that numpy ships, in the orientation it runs fastest.

Contract: `blas_product(cx, elem, trans, (m, n, k), a, b, c)` stores `op(a) @ op(b)` (m x n,
row-major) into `c`, `trans` the operands' trans flags (a transposed operand is stored
k x m, or n x k, and read with the BLAS's flag). OpenBLAS's row-major product blocks over
the output's columns first, so an output much taller than wide runs its kernel on thin
panels; such a product is made as its transpose `op(b).T @ op(a).T` (n x m) and copied out
in tiles (`_tall_output`, measured with the shapes in its doc). The result is the same
product; its rounding is the BLAS's for the other orientation.
"""

from __future__ import annotations

from llvmlite import ir

from ...ir.dims import is_symbolic
from .arrays import F32, PTR, alloc, extent, loop_nest
from .context import I32
from .decompositions import ROW_MAJOR
from .ops import I64

NO_TRANS, TRANS = 111, 112  # CBLAS's transpose flags
TILE = 8  # rows of the output copied per sweep of the transposed product's columns


def blas_product(cx, elem, trans, dims, a, b, c) -> None:
    (trans_a, trans_b), (m, n, k) = trans, dims
    if _tall_output(trans, dims):
        swapped = alloc(cx, (n, m), elem)
        _gemm(cx, elem, (not trans_b, not trans_a), (n, m, k), b, a, swapped)
        _transposed_copy(cx, elem, swapped, c, m, n)
    else:
        _gemm(cx, elem, trans, dims, a, b, c)


def _tall_output(trans, dims) -> bool:
    """Is the product faster made transposed? For `A.T @ B` (the weight gradient `x.T @ g`
    of a layer over a batch of k rows) with m >= 4n and k >= 2048, on Zen 4 with numpy's
    OpenBLAS (2 threads), copy included: W3's 784 x 4096 by 4096 x 128 10.7 -> 9.1 ms,
    784 x 2048 by 2048 x 16 0.46-0.53x, 4096 x 2048 by 2048 x 128 0.78x. Below those, and
    for `A @ B` (0.93-0.98x at m = 4096, 1.05-1.4x at m <= 2048), the copy cost about what
    the orientation gained, so those keep the one call."""
    (trans_a, trans_b), (m, n, k) = trans, dims
    return trans_a and not trans_b and not any(is_symbolic(d) for d in (m, n, k)) and \
        m >= 4 * n and k >= 2048


def _gemm(cx, elem, trans, dims, a, b, c) -> None:
    """`c` = op(a) @ op(b) by one BLAS call."""
    (trans_a, trans_b), (m, n, k) = trans, dims
    gemm = cx.declare(
        "scipy_cblas_sgemm64_" if elem == F32 else "scipy_cblas_dgemm64_",
        ir.FunctionType(ir.VoidType(), [I32, I32, I32, I64, I64, I64, elem, PTR, I64,
                                        PTR, I64, elem, PTR, I64]))
    em, en, ek = extent(cx, m), extent(cx, n), extent(cx, k)
    cx.b.call(gemm, [ROW_MAJOR, ir.Constant(I32, TRANS if trans_a else NO_TRANS),
                     ir.Constant(I32, TRANS if trans_b else NO_TRANS), em, en, ek,
                     ir.Constant(elem, 1.0), a, em if trans_a else ek, b,
                     ek if trans_b else en, ir.Constant(elem, 0.0), c, en])


def _transposed_copy(cx, elem, src, dst, m: int, n: int) -> None:
    """dst (m x n) = src (n x m).T, TILE rows of dst at a time: each row of src gives TILE
    consecutive elements (one cache line for float64) to TILE rows of dst, written in order."""
    b = cx.b

    def move(i, j):
        value = b.load(b.gep(src, [b.add(b.mul(j, ir.Constant(I64, m)), i)], source_etype=elem),
                       typ=elem)
        b.store(value, b.gep(dst, [b.add(b.mul(i, ir.Constant(I64, n)), j)], source_etype=elem))

    tiles = m // TILE
    loop_nest(cx, (tiles, n, TILE), lambda co: move(
        b.add(b.mul(co[0], ir.Constant(I64, TILE)), co[2]), co[1]))
    if m % TILE:
        loop_nest(cx, (m % TILE, n), lambda co: move(
            b.add(co[0], ir.Constant(I64, tiles * TILE)), co[1]))
