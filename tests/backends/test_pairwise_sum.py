"""Full float sums in numpy's pairwise order (`backends/llvm/pairwise.py`): the same bits as
`np.sum` for contiguous operands of every size on the serial path (one leaf, the leaf
boundaries, a tree walked at run time), N-D, fused and float32; a parameter's gradient in a
time loop (a sum per step) still matches central differences and the eager tape; and the
emitted loop keeps eight independent accumulators, not one chain of dependent adds.
"""

from __future__ import annotations

import numpy as np
import pytest

from adlite import compiler
from adlite.compiler import grad, jit
from adlite.compiler.backends.llvm.pairwise import LANES
from adlite.compiler.backends.llvm.parallel import PARALLEL_MIN
from adlite.compiler.ir.core import Type
from adlite.runtime import Tensor
from benchmarks.stencil import convection_1d

from ..support.gradients import central_difference_in

SIZES = (0, 1, 7, 8, 9, 127, 128, 129, 136, 200, 255, 256, 257, 263, 999, 1001, 4097,
         65_536, PARALLEL_MIN - 1)


def total(x):
    return np.sum(x)


def _spread(n, seed=0, dtype=np.float64):
    """Terms of very different magnitudes and signs: any other order changes the bits."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * 10.0 ** rng.integers(-5, 15, n)).astype(dtype)


@pytest.mark.parametrize("n", SIZES)
def test_sum_has_numpys_bits(n):
    a = _spread(n)
    assert np.float64(jit(total)(a)).tobytes() == np.sum(a).tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_run_time_sizes_have_numpys_bits(dtype):
    """One compilation for every length (`shapes="dynamic"`): the tree is walked from n."""
    fn = jit(lambda x: np.sum(x * 2.0), shapes="dynamic")
    for n in (8, 9, 100, 128, 129, 200, 255, 257, 1001, 4097, 30_011):
        a = _spread(n, seed=n, dtype=dtype)
        assert np.asarray(fn(a), dtype).tobytes() == np.sum(a * 2.0).tobytes(), n
    assert fn.compile_count == 1


def shifted_product(x, y):
    return np.sum(x[1:, 1:] * y[:-1, :-1])


def strided_sines(x):
    return np.sum(np.sin(x[:, 1:, ::2]))


@pytest.mark.parametrize("shape", [(2, 2), (9, 9), (3, 40), (8, 9), (81, 81), (7, 300),
                                   (300, 7), (2, 1000), (130, 3), (17, 129)],
                         ids=lambda s: "x".join(map(str, s)))
def test_sums_over_views_have_numpys_bits(shape):
    """Rows shorter and longer than a chunk of eight: chunks inside one row and across rows;
    numpy sums the product made contiguous, in the same row-major order."""
    rng = np.random.default_rng(sum(shape))
    x, y = _spread(shape[0] * shape[1]).reshape(shape), rng.standard_normal(shape)
    want = np.sum(x[1:, 1:] * y[:-1, :-1]).tobytes()
    assert np.float64(jit(shifted_product)(x, y)).tobytes() == want
    assert np.float64(jit(shifted_product, shapes="dynamic")(x, y)).tobytes() == want
    z = _spread(2 * 9 * 40).reshape(2, 9, 40)
    assert np.float64(jit(strided_sines)(z)).tobytes() == np.sum(np.sin(z[:, 1:, ::2])).tobytes()


def test_a_sum_over_rows_loads_whole_chunks():
    """A chunk inside one row of a 2-D view multiplies eight consecutive elements of each
    operand as one vector (before, each element's coordinates were taken apart, the
    operands gathered and the products made one by one)."""
    text = compiler.show(shifted_product, "lower", types=[Type("f64", (81, 81))] * 2)
    assert "fmul <8 x double>" in text, text


def _lowered_count(fn, shapes, needle) -> int:
    text = compiler.show(fn, "lower", types=[Type("f64", shape) for shape in shapes])
    return sum(needle in line for line in text.splitlines())


def test_chunks_of_a_row_a_multiple_of_eight_long_are_never_split():
    """Rows of 80: every chunk is inside one row, so no code steps coordinates across rows
    (its `select`s of the next coordinate, 14 of them in the optimised IR, were there)."""
    assert _lowered_count(shifted_product, [(81, 81)] * 2, "select i1") == 0


def test_a_chunk_across_rows_steps_its_coordinates():
    """Rows of 81 and 399: a chunk that crosses a row end steps each element's coordinates
    with a carry; taking every element's position apart (as before: 16 divisions in the
    optimised IR, the chunk's eight unrolled twice) made these sums 2.3x and 2.6x slower."""
    for shape in ((100, 82), (40, 400)):
        assert _lowered_count(shifted_product, [shape] * 2, "udiv") < LANES


def test_a_tree_leaf_adds_its_full_chunks_without_a_clamp():
    """A leaf of a tree (a sum of more than 128 elements) loops over its full chunks only,
    the last leaf's partial chunk after the loop: no clamp (`smin`) of a chunk's position
    per chunk, which cost 10 % of a 1-D stencil's parameter gradient."""
    assert _lowered_count(lambda x, y: np.sum(x * y), [(999,)] * 2, "smin") == 0


def test_a_sum_of_a_known_size_takes_its_leaves_from_a_table():
    """A tree over a known size runs its leaves from constant tables made when it is compiled
    (the run-time walker's branches cost a 1-D stencil's parameter gradient 6 %); the bits
    of both are checked above, known sizes by `SIZES`, run-time ones by their own test."""
    text = compiler.show(lambda x, y: np.sum(x * y), "lower", types=[Type("f64", (999,))] * 2)
    assert "pairwise.lengths" in text and "pairwise.combines" in text


def test_nd_fused_and_float32_sums_have_numpys_bits():
    a = _spread(3 * 7 * 50).reshape(3, 7, 50)
    assert jit(total)(a) == np.sum(a)
    fused = jit(lambda x: np.sum(np.sin(x) * x))
    assert fused(a) == np.sum(np.sin(a) * a)
    f32 = _spread(1000, dtype=np.float32)
    result = jit(total)(f32)
    assert result.dtype == np.float32 and result == np.sum(f32)


def test_zero_sums_are_positive_zero():
    assert np.signbit(jit(total)(np.full(300, -0.0))) == np.signbit(np.sum(np.full(300, -0.0)))


def test_time_loop_parameter_gradient_matches_references():
    rng = np.random.default_rng(3)
    u0, c = rng.standard_normal(1000), 0.4
    du, dc = grad(convection_1d, argnums=(0, 1))(u0, c)
    u_t, c_t = Tensor(u0, requires_grad=True), Tensor(c, requires_grad=True)
    convection_1d(u_t, c_t).backward()
    np.testing.assert_allclose(du, u_t.grad.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(dc, c_t.grad.item(), rtol=1e-9)
    np.testing.assert_allclose(dc, central_difference_in(convection_1d, (u0, c), 1), rtol=1e-6)


def test_the_sum_loop_has_eight_accumulators():
    """numpy's eight accumulators are one vector of eight lanes, added to one chunk at a time
    (the optimiser's code: before, its vectoriser found pairs of lanes at best)."""
    for dtype in ("f64", "f32"):
        text = compiler.show(lambda x, y: np.sum(x * y), "lower",
                             types=[Type(dtype, (1000,))] * 2)
        elem = "double" if dtype == "f64" else "float"
        lanes = [line for line in text.splitlines() if f"phi <8 x {elem}>" in line]
        adds = [line for line in text.splitlines() if f"fadd <8 x {elem}>" in line]
        assert lanes and adds, text
