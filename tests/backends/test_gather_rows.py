"""Integer-array indexing lowered row by row (`backends/llvm/gather.py`): `x[idx]` and its
adjoint, the scatter-add of rows at repeated indices, equal numpy's bits (`np.take`,
`np.add.at`, which adds in index order) on the serial path and on the thread pool, where a
large scatter-add splits the *result* rows among blocks that each scan every index, and the
bits are the same for any thread count. Gradients are also checked against the eager tape.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from adlite import compiler
from adlite import runtime as rt
from adlite.compiler import grad, jit
from adlite.compiler.backends.llvm.gather import DEST_BLOCKS
from adlite.compiler.backends.llvm.parallel import PARALLEL_MIN
from adlite.compiler.ir.core import Type
from tests.backends.test_threads_determinism import same_bits, thread_counts  # noqa: F401

# (rows of W, width, indices): small (serial), large along axis 0 (destination blocks),
# and fewer rows than blocks (serial although large)
CASES = [(7, 3, 40), (10_000, 32, PARALLEL_MIN // 32 + 5), (DEST_BLOCKS - 1, 8, 20_000)]


def embedding(w, idx, v):
    return np.sum(np.tanh(w[idx]) * v)


def rows_dot(w, idx, v):
    """Its gradient is exactly `np.add.at(zeros, idx, v)`: bits comparable with numpy's."""
    return np.sum(w[idx] * v)


def _arguments(rows, width, count, seed=0):
    rng = np.random.default_rng(seed)
    idx = rng.integers(-rows, rows, count)  # negative indices wrap, many repeats
    return rng.standard_normal((rows, width)), idx, rng.standard_normal((count, width))


@pytest.mark.parametrize("rows,width,count", CASES)
def test_row_scatter_add_is_np_add_at_for_any_thread_count(thread_counts, rows,  # noqa: F811
                                                           width, count):
    w, idx, v = _arguments(rows, width, count)
    g = grad(rows_dot)
    results = thread_counts(lambda: g(w, idx, v))
    same_bits(results)
    expected = np.zeros_like(w)
    np.add.at(expected, idx, v)
    assert results[0].tobytes() == expected.tobytes()
    same_bits(thread_counts(lambda: grad(embedding)(w, idx, v)))


def test_gather_rows_equal_numpy_for_any_thread_count(thread_counts):  # noqa: F811
    w, idx, _ = _arguments(10_000, 32, PARALLEL_MIN // 32 + 5)
    take = jit(lambda w, idx: w[idx])
    results = thread_counts(lambda: take(w, idx))
    same_bits(results)
    np.testing.assert_array_equal(results[0], w[idx])


def test_scatter_along_a_later_axis_and_a_2d_index(thread_counts):  # noqa: F811
    """`x[:, idx]` with a 2-D index: the blocks split the result's dimension 0."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((300, 50, 3))
    idx = rng.integers(0, 50, (40, 20))
    v = rng.standard_normal((300, 40, 20, 3))

    def f(x, idx, v):
        return np.sum(x[:, idx] * v)

    results = thread_counts(lambda: grad(f)(x, idx, v))
    same_bits(results)
    expected = np.zeros_like(x)
    np.add.at(expected, (slice(None), idx), v)
    assert results[0].tobytes() == expected.tobytes()


def test_embedding_gradient_matches_the_tape():
    w, idx, v = _arguments(50, 4, 300)
    wt = rt.tensor(w, requires_grad=True)
    embedding(wt, idx, rt.tensor(v)).backward()
    np.testing.assert_allclose(grad(embedding)(w, idx, v), wt.grad.numpy(), rtol=1e-12,
                               atol=1e-12)


def test_the_scatter_add_computes_its_rows_in_its_loop():
    """`take_add` is a reduction for fusion: the cotangent rows `v * (1 - tanh(.)**2)` are
    computed inside the scatter's row loop, and the result is the caller's output buffer, so
    the scratch holds the gathered rows only (it held four full-size temporaries, 42 MB for
    the benchmark's shapes: malloc then maps fresh pages every call; `tanh(g) * tanh(g)`
    also counts as one use of the tanh, computed once per position in the loop)."""
    rows, width, count = 100, 8, 1000
    types = [Type("f64", (rows, width)), Type("i64", (count,)), Type("f64", (count, width))]
    text = compiler.show(embedding, "lower", types=types, grad=True)
    size = int(re.search(r"_scratch\(\)[^{]*\{\s*entry:\s*ret i64 (\d+)", text).group(1))
    assert size < 2 * count * width * 8, size


def _lowered(fn, rows, width, count, **options):
    types = [Type("f64", (rows, width)), Type("i64", (count,)), Type("f64", (count, width))]
    return compiler.show(fn, "lower", types=types, **options)


def _scratch_bytes(text):
    return int(re.search(r"_scratch\(\)[^{]*\{\s*entry:\s*ret i64 (\d+)", text).group(1))


@pytest.mark.parametrize("gradient", [False, True])
def test_gathered_rows_are_never_materialised(gradient):
    """`take` is fused into its elementwise consumers and reductions: `tanh(W[idx]) * v`
    reads the rows of W where its loop (the sum's, the scatter-add's) needs them, so no buffer
    of the gathered rows exists (12.8 MB per call for the benchmark's shapes); the scratch
    holds at most the index arrays (the wrapped indices, the bounds check)."""
    rows, width, count = 100, 8, 1000
    text = _lowered(embedding, rows, width, count, grad=gradient)
    assert _scratch_bytes(text) < count * width * 8 // 2, _scratch_bytes(text)
    assert "@malloc" not in text


def test_a_fused_gather_checks_its_index_once_per_row():
    """The scatter-add's inner loop over a row reads the index its enclosing loop already
    loaded and checked (loop nests keep the enclosing body's element values), so the row's
    `v * (1 - tanh(W[i])**2)` has no exit inside and vectorises (tanh's polynomial on vector
    registers); re-reading the index in the inner loop, which may alias the result's stores,
    left a scalar loop."""
    text = _lowered(embedding, 100, 32, 1000, grad=True)
    assert re.search(r"@llvm\.fma\.v\d+f64", text)


def test_a_fused_gather_out_of_bounds_is_an_index_error():
    """The index check of a gather computed inside its consumer's loop still refuses an index
    outside the array (numpy's IndexError), also through the scatter-add's loop."""
    w, idx, v = _arguments(7, 3, 40)
    idx[17] = 7
    for f in (jit(embedding), grad(embedding)):
        with pytest.raises(IndexError):
            f(w, idx, v)
