"""Parallel loops give the same bits for any thread count (1, 2, 3, 4), and the right values.

Arrays of at least `parallel.PARALLEL_MIN` elements run on the thread pool in fixed blocks;
the sizes here straddle that threshold and the block boundaries. Each function is compiled
once and called with every thread count (`threads.set_num_threads`); one test starts
subprocesses with `ADLITE_NUM_THREADS` instead. References: numpy, and central differences
for gradients. Checks that fail inside a parallel block raise as the serial loop does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from adlite.compiler import grad, jit, value_and_grad
from adlite.compiler.backends.llvm import threads
from adlite.compiler.backends.llvm.parallel import BLOCK, PARALLEL_MIN
from benchmarks.workloads import w3_mlp as mlp

COUNTS = (1, 2, 3, 4)
SIZES = (PARALLEL_MIN - 1, PARALLEL_MIN, PARALLEL_MIN + 1, 9 * BLOCK - 1, 9 * BLOCK + 1,
         300_007)


@pytest.fixture
def thread_counts():
    """Yields a function running `call()` under each thread count; restores the count."""
    before = threads.num_threads()

    def each(call):
        results = []
        for n in COUNTS:
            threads.set_num_threads(n)
            results.append(call())
        return results

    yield each
    threads.set_num_threads(before)


def same_bits(results) -> None:
    def raw(r):
        parts = r if isinstance(r, tuple) else (r,)
        return b"".join(np.asarray(p, dtype=np.float64).tobytes() for p in parts)

    first = raw(results[0])
    for n, r in zip(COUNTS[1:], results[1:], strict=True):
        assert raw(r) == first, f"{n} threads differ from 1 thread"


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_grad(x):
    t = x[1:] - x[:-1] ** 2
    g = np.zeros_like(x)
    g[1:] += 200.0 * t
    g[:-1] += -400.0 * t * x[:-1] - 2.0 * (1.0 - x[:-1])
    return g


def total(x):
    return np.sum(x)


def mean(x):
    return np.mean(x * 0.5 + 1.0)


def dot(x, y):
    return np.sum(x * y)


def extremes(x):
    return np.max(np.sin(x)) - np.min(x * x), np.prod(1.0 + x * 1e-6)


@pytest.mark.parametrize("n", SIZES)
def test_reductions_same_bits_and_values(n, thread_counts):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    for fn, args, ref in ((total, (x,), np.sum(x)), (mean, (x,), np.mean(x * 0.5 + 1.0)),
                          (dot, (x, y), np.dot(x, y))):
        compiled = jit(fn)
        results = thread_counts(lambda compiled=compiled, args=args: compiled(*args))
        same_bits(results)
        assert results[0] == pytest.approx(ref, rel=1e-12, abs=1e-9 * np.sqrt(n))
    compiled = jit(extremes)
    results = thread_counts(lambda: compiled(x))
    same_bits(results)
    np.testing.assert_allclose(results[0], extremes(x), rtol=1e-10)


def test_extrema_propagate_nan_from_any_block(thread_counts):
    x = np.random.default_rng(1).standard_normal(5 * BLOCK + 3)
    x[3 * BLOCK + 7] = np.nan
    compiled = jit(lambda x: (np.max(x), np.min(x)))
    for result in thread_counts(lambda: compiled(x)):
        assert np.isnan(result[0]) and np.isnan(result[1])


@pytest.mark.parametrize("n", SIZES)
def test_rosenbrock_gradient_same_bits(n, thread_counts):
    x = np.random.default_rng(2).standard_normal(n)
    compiled = value_and_grad(rosenbrock)
    results = thread_counts(lambda: compiled(x))
    same_bits(results)
    value, g = results[0]
    assert value == pytest.approx(rosenbrock(x), rel=1e-12)
    np.testing.assert_allclose(g, rosenbrock_grad(x), rtol=1e-12, atol=1e-9)


def test_mlp_gradient_same_bits_and_finite_differences(thread_counts):
    rng = np.random.default_rng(3)
    batch, d, hidden, classes = 1500, 30, 100, 10  # hidden layer: 150000 elements
    args = [rng.standard_normal((d, hidden)) * 0.2, rng.standard_normal(hidden) * 0.1,
            rng.standard_normal((hidden, classes)) * 0.2, rng.standard_normal(classes) * 0.1,
            rng.standard_normal((batch, d)),
            np.eye(classes)[rng.integers(0, classes, batch)]]
    compiled = grad(mlp, wrt=(0, 1, 2, 3))
    results = thread_counts(lambda: compiled(*args))
    same_bits(results)
    assert compiled(*args)[0].shape == (d, hidden)
    for which, index in ((0, (4, 7)), (1, (11,)), (2, (50, 3)), (3, (2,))):
        eps = 1e-6
        plus = [a.copy() for a in args]
        minus = [a.copy() for a in args]
        plus[which][index] += eps
        minus[which][index] -= eps
        numeric = (mlp(*plus) - mlp(*minus)) / (2 * eps)
        assert results[0][which][index] == pytest.approx(numeric, rel=1e-5, abs=1e-8)


@pytest.mark.parametrize("shape,axis", [((70000, 3), 0), ((70000, 3), 1), ((3, 100003), 1),
                                        ((3, 100003), 0), ((1000, 131), 0), ((1000, 131), 1)])
def test_axis_reductions_maps_and_transposes_same_bits(shape, axis, thread_counts):
    x = np.random.default_rng(4).standard_normal(shape)
    compiled = jit(lambda x: (np.sum(np.cos(x) * x, axis=axis), np.exp(x) - x,
                              np.transpose(x * 2.0)))
    results = thread_counts(lambda: compiled(x))
    same_bits(results)
    np.testing.assert_allclose(results[0][0], np.sum(np.cos(x) * x, axis=axis), rtol=1e-9,
                               atol=1e-9)
    np.testing.assert_allclose(results[0][1], np.exp(x) - x, rtol=1e-13)
    np.testing.assert_array_equal(results[0][2], np.transpose(x * 2.0))


def gather_twice(x, idx):
    return x[idx] * 2.0


def test_error_in_a_parallel_block_raises_as_serial(thread_counts):
    n = 20 * BLOCK
    x = np.arange(n, dtype=np.float64)
    idx = np.arange(n)
    idx[[7 * BLOCK + 5, 15 * BLOCK]] = [n + 3, n + 9]  # out of bounds in two blocks
    compiled = jit(gather_twice)

    def call():
        # the first bad index, as the serial loop (and numpy) reports it
        with pytest.raises(IndexError, match=f"^index {n + 3} is out of bounds for axis 0 "
                                             f"with size {n}$"):
            compiled(x, idx)
        return compiled(x, np.where(idx >= n, 3, idx))

    results = thread_counts(call)
    same_bits(results)
    np.testing.assert_array_equal(results[0], 2.0 * x[np.where(idx >= n, 3, idx)])


def gathered(x, i):
    return np.sum(x[i] * 2.0)


def test_index_error_in_a_parallel_reduction(thread_counts):
    n = PARALLEL_MIN + 5
    x = np.linspace(0.0, 1.0, n)
    i = np.arange(n)[::-1].copy()
    i[3 * BLOCK + 1] = n + 3
    compiled = jit(gathered)

    def call():
        with pytest.raises(IndexError, match=f"index {n + 3} is out of bounds"):
            compiled(x, i)
        return compiled(x, np.arange(n))

    for result in thread_counts(call):
        assert result == pytest.approx(2.0 * np.sum(x), rel=1e-12)


SCRIPT = textwrap.dedent('''
    import numpy as np, sys
    from adlite.compiler import value_and_grad
    from adlite.compiler.backends.llvm import threads
    def f(x):
        return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    x = np.random.default_rng(5).standard_normal(1_000_003)
    v, g = value_and_grad(f)(x)
    sys.stdout.write(f"{threads.num_threads()} {np.float64(v).tobytes().hex()} "
                     f"{hash(g.tobytes())}\\n")
''')


def test_environment_variable_sets_the_thread_count(tmp_path):
    script = tmp_path / "rosenbrock_threads.py"
    script.write_text(SCRIPT)
    outputs = {}
    for n in ("1", "3"):
        env = dict(os.environ, ADLITE_NUM_THREADS=n, PYTHONHASHSEED="0")
        out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                             text=True, timeout=300, check=True).stdout.split()
        assert out[0] == n
        outputs[n] = out[1:]
    assert outputs["1"] == outputs["3"]
