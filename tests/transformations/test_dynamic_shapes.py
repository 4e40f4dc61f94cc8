"""`shapes="dynamic"`: one compilation for every size (issue 25, run-time dimensions).

Values against numpy / Python, gradients against central finite differences and the eager
tape, on several sizes per function, with compilation counts: sizes of MIN_SIZE or more
share one compilation; smaller ones, other ranks, dtypes or patterns of equal sizes compile
again; code that needs a size's value compiles per shape (logged), never wrongly."""

import logging
import pickle
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adlite.compiler import (
    AdliteSyntaxError,
    grad,
    hessian,
    jacfwd,
    jacrev,
    jit,
    jvp,
    show,
    value_and_grad,
)
from adlite.compiler.backends.llvm import threads
from adlite.compiler.ir.core import Type
from adlite.compiler.ir.dims import MIN_SIZE, symbol
from adlite.runtime import Tensor

from ..corpus.test_array_random import programs
from ..support.corpus_arrays import ARRAY_CORPUS, differentiable, sample
from ..support.generated_source import load_function
from ..support.random_programs import examples


def grown(spec, k: int):
    """`spec` with every size of 2 or more grown past MIN_SIZE by k (distinct sizes stay
    distinct, equal ones equal, 0 and 1 stay)."""
    def size(n):
        return n + MIN_SIZE + k if n >= 2 else n
    if spec == "f" or spec[0] == "i":
        return spec
    if spec[0] in ("p", "z"):
        return (spec[0], tuple(map(size, spec[1])))
    return tuple(map(size, spec))


# corpus functions numpy runs on their own shapes only (a constant array, a reshape to a
# constant shape)
ONE_SHAPE = {"row_max", "reshape_then_reduce", "outer_product", "pairwise_distances"}



def _along(fn, args, wrt, directions, step):
    moved = list(args)
    for i, d in zip(wrt, directions, strict=True):
        moved[i] = args[i] + step * d
    return fn(*moved)


@pytest.mark.parametrize("name,fn,specs", ARRAY_CORPUS, ids=[c[0] for c in ARRAY_CORPUS])
def test_corpus_compiles_once_for_every_size(name, fn, specs):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    wrt = differentiable(specs)
    f, g = jit(fn, shapes="dynamic"), grad(fn, wrt=wrt, shapes="dynamic")
    calls = 0
    for k in (0, 3, 11):
        args = [sample(grown(s, k), rng) for s in specs]
        try:
            want = fn(*args)
        except (ValueError, IndexError):  # the function takes one shape only
            continue
        calls += 1
        assert f(*args) == pytest.approx(want, rel=1e-12, abs=1e-12)
        got = g(*args)
        tensors = [Tensor(a, requires_grad=True) if i in wrt else a for i, a in enumerate(args)]
        fn(*tensors).backward()
        for j, i in enumerate(wrt):
            np.testing.assert_allclose(got[j], tensors[i].grad.numpy(), rtol=1e-10, atol=1e-12)
        directions = [rng.standard_normal(np.shape(args[i])) for i in wrt]
        numeric = (_along(fn, args, wrt, directions, 1e-6) -
                   _along(fn, args, wrt, directions, -1e-6)) / 2e-6
        analytic = sum(float(np.sum(np.asarray(got[j]) * d)) for j, d in enumerate(directions))
        assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-6)
    if name in ONE_SHAPE:
        assert calls == 0, f"{name} now runs on other shapes: unmark it"
        return
    assert calls == 3
    assert not f.sizes_refused and not g.sizes_refused, (f.sizes_refused, g.sizes_refused)
    assert (f.compile_count, g.compile_count) == (1, 1)


def norm_loss(x):
    return np.sum(np.tanh(x) * x)


def test_one_compilation_for_twenty_lengths():
    f = grad(norm_loss, shapes="dynamic")
    for n in range(10, 210, 10):
        x = np.linspace(-1.0, 1.0, n)
        np.testing.assert_allclose(f(x), np.tanh(x) + x / np.cosh(x) ** 2, rtol=1e-13)
    assert f.compile_count == 1
    static = grad(norm_loss)
    for n in (10, 20):
        static(np.ones(n))
    assert static.compile_count == 2  # the default: one per shape


def test_small_sizes_dtypes_ranks_and_equal_sizes_compile_again():
    f = jit(lambda x, y: np.sum(x) * np.sum(y), shapes="dynamic")
    f(np.ones(20), np.ones(30))
    f(np.ones(40), np.ones(50))  # same signature: d0, d1
    assert f.compile_count == 1
    f(np.ones(40), np.ones(40))  # one size for both: another signature
    f(np.ones(3), np.ones(50))  # a size below MIN_SIZE is specialised
    f(np.ones(40, dtype=np.float32), np.ones(50))
    f(np.ones((4, 40)), np.ones(50))
    assert f.compile_count == 5


def batch_loss(w, b, x):
    h = np.tanh(x @ w + b)
    return np.mean(h ** 2) + np.sum(h[0]) / len(x) + x.shape[0]


def test_mlp_batches_share_one_gradient():
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((9, 12)), rng.standard_normal(12)
    vg = value_and_grad(batch_loss, wrt=(0, 1), shapes="dynamic")
    for batch in (16, 33, 100):
        x = rng.standard_normal((batch, 9))
        value, (dw, db) = vg(w, b, x)
        assert value == pytest.approx(batch_loss(w, b, x), rel=1e-12)
        tw, tb = Tensor(w, requires_grad=True), Tensor(b, requires_grad=True)
        batch_loss(tw, tb, x).backward()
        np.testing.assert_allclose(dw, tw.grad.numpy(), rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(db, tb.grad.numpy(), rtol=1e-10, atol=1e-13)
    assert vg.compile_count == 1


def sizes_as_values(x):
    n = len(x)
    y = np.zeros(n) + np.arange(n) / (n - 1)
    z = np.reshape(np.outer(x, y), (-1,))
    return np.sum(x[1:-1] * y[2:]) + np.sum(np.roll(x, -1) * x) + np.sum(z) / z.size + \
        np.sum(np.eye(n) @ x) + x[-1] * x[9] + np.mean(x[::-1])


@pytest.mark.parametrize("backend", ["llvm", "python"])
def test_sizes_as_values_shapes_and_indices(backend):
    f = jit(sizes_as_values, shapes="dynamic", backend=backend)
    g = grad(sizes_as_values, shapes="dynamic", backend=backend)
    rng = np.random.default_rng(1)
    for n in (10, 17, 64):
        x = rng.standard_normal(n)
        assert f(x) == pytest.approx(sizes_as_values(x), rel=1e-12)
        t = Tensor(x, requires_grad=True)
        sizes_as_values(t).backward()
        np.testing.assert_allclose(g(x), t.grad.numpy(), rtol=1e-10, atol=1e-13)
    assert (f.compile_count, g.compile_count) == (1, 1)
    with pytest.raises(IndexError):  # x[9] of 8 elements: checked when the code runs
        f(np.ones(8))
    assert f.compile_count == 1


def test_python_backend_reads_sizes_from_the_arguments():
    source = show(sizes_as_values, "python", types=[Type("f64", (symbol("d0"),))])
    assert "d0 = x.shape[0]" in source


def stepped(x, k):
    i = 0
    while i < k:
        x = np.sin(x) * 1.01 + x[0] * 0.01
        i += 1
    return np.sum(x * x)


def test_loops_over_arrays_checkpointed_with_run_time_segment_lengths():
    """A budget of 4 KB makes the segments of the reverse loop max(1, 2 KB // (8 n + ...))
    steps long: computed when the code runs, from the size."""
    g = grad(stepped, shapes="dynamic", checkpoint="4KB")
    rng = np.random.default_rng(2)
    for n in (10, 100, 1000):
        x = rng.standard_normal(n)
        d = rng.standard_normal(n)
        numeric = (stepped(x + 1e-6 * d, 30) - stepped(x - 1e-6 * d, 30)) / 2e-6
        assert float(np.sum(g(x, 30) * d)) == pytest.approx(numeric, rel=1e-6)
        np.testing.assert_array_equal(g(x, 30), grad(stepped, checkpoint=False)(x, 30))
    assert g.compile_count == 1


def test_mismatched_lengths_are_refused_as_for_static_shapes():
    f = jit(lambda x, y: np.sum(x + y), shapes="dynamic")
    with pytest.raises(AdliteSyntaxError, match=r"shapes \(10,\) and \(12,\) cannot be broadcast"):
        f(np.ones(10), np.ones(12))
    assert f(np.ones(12), np.ones(12)) == 24.0


def test_what_needs_a_size_compiles_per_shape_and_says_so(caplog):
    def first_ten(x):
        return np.sum(x[:10])  # 10 elements, or fewer: only the size says

    f = jit(first_ten, shapes="dynamic")
    with caplog.at_level(logging.INFO, logger="adlite.compile"):
        assert f(np.arange(9.0)) == 36.0
        assert f(np.arange(12.0)) == 45.0
    assert f.compile_count == 2
    assert "compiled per shape, not for every size" in caplog.text




def cubic(x):
    return np.sum(np.sin(x) * x[0]) + np.mean(x ** 3)


def residuals(x):
    return np.tanh(x) * np.sum(x)


def test_forward_mode_and_second_order():
    rng = np.random.default_rng(4)
    transforms = [hessian(cubic, shapes="dynamic"), jacfwd(residuals, shapes="dynamic"),
                  jacrev(residuals, shapes="dynamic")]
    for n in (9, 16, 40):
        x, v = rng.standard_normal(n), rng.standard_normal(n)
        want_h = np.diag(-np.sin(x) * x[0] + 6 * x / n)  # by hand from cubic's formula
        want_h[0, :] += np.cos(x)
        want_h[:, 0] += np.cos(x)
        np.testing.assert_allclose(transforms[0](x), want_h, rtol=1e-12, atol=1e-14)
        want_j = np.diag(1 / np.cosh(x) ** 2) * np.sum(x) + np.tanh(x)[:, None]
        np.testing.assert_allclose(transforms[1](x), want_j, rtol=1e-12)
        np.testing.assert_allclose(transforms[2](x), want_j, rtol=1e-12)
        out, tangent = jvp(residuals, (x,), (v,), shapes="dynamic")
        np.testing.assert_allclose(tangent, want_j @ v, rtol=1e-12)
        hv = jvp(grad(cubic, shapes="dynamic"), (x,), (v,), shapes="dynamic")[1]
        np.testing.assert_allclose(hv, want_h @ v, rtol=1e-12, atol=1e-13)
    assert [t.compile_count for t in transforms] == [1, 1, 1]


def test_option_survives_pickling_and_methods():
    f = jit(norm_loss, shapes="dynamic")
    assert pickle.loads(pickle.dumps(f)).shapes == "dynamic"

    class Model:
        @jit(shapes="dynamic")
        def loss(self, x):
            return np.sum(x)

    m = Model()
    m.loss(np.ones(10)), m.loss(np.ones(20))
    assert m.loss.compile_count == 1
    with pytest.raises(ValueError, match="unknown shapes"):
        jit(norm_loss, shapes="ragged")


def tanh_map(a):
    return np.tanh(a).T * 2.0 + 1.0


@pytest.mark.parametrize("shape", [(300, 1000), (20, 20000), (5000,), (7, 9)])
def test_maps_choose_the_thread_pool_when_the_code_runs(shape):
    """A map of run-time sizes holds both loops; the rule of code compiled for the shape
    picks one when it runs: the same blocks, so the same bits for any thread count."""
    types = [Type("f64", tuple(symbol(f"d{k}") for k in range(len(shape))))]
    assert "__adlite_parallel_for" in show(tanh_map, "llvm", types=types)
    a = np.random.default_rng(5).random(shape)
    want = jit(tanh_map)(a)
    f = jit(tanh_map, shapes="dynamic")
    before = threads.num_threads()
    try:
        for n in (1, 2, 3):
            threads.set_num_threads(n)
            np.testing.assert_array_equal(f(a), want)
    finally:
        threads.set_num_threads(before)


def _any_size(source: str) -> str:
    """A random program of tests/corpus/test_array_random.py over (3,) and (2, 3) arrays,
    written for any sizes: its constant sizes become the arrays' own."""
    return (source.replace("reshape(1, 3)", "reshape(1, -1)")
            .replace("range(2)", "range(len(a))").replace("range(3)", "range(len(b))"))


@settings(max_examples=examples(25), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=programs(), seed=st.integers(0, 1000))
def test_random_programs_of_run_time_sizes(source, seed, tmp_path):
    f = load_function(_any_size(source), tmp_path)
    rng = np.random.default_rng(seed)
    compiled, gradient = jit(f, shapes="dynamic"), grad(f, wrt=(0, 1), shapes="dynamic")
    for rows, columns in ((8, 9), (11, 30)):
        x, y = rng.standard_normal(columns), rng.standard_normal((rows, columns))
        np.testing.assert_allclose(compiled(x, y), f(x, y), rtol=1e-11, atol=1e-12)
        gx, gy = gradient(x, y)
        tx, ty = Tensor(x, requires_grad=True), Tensor(y, requires_grad=True)
        f(tx, ty).backward()
        for got, t in ((gx, tx), (gy, ty)):
            want = np.zeros_like(got) if t.grad is None else t.grad.numpy()
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)
    assert (compiled.compile_count, gradient.compile_count) == (1, 1), (
        compiled.sizes_refused, gradient.sizes_refused)


def gaussian_log_likelihood(a, y):
    k = a @ a.T + len(y) * np.eye(len(y))
    chol = np.linalg.cholesky(k)
    alpha = np.linalg.solve(k, y)
    return -0.5 * y @ alpha - np.sum(np.log(np.diag(chol)))


def test_lapack_calls_of_run_time_sizes():
    f = jit(gaussian_log_likelihood, shapes="dynamic")
    g = grad(gaussian_log_likelihood, wrt=(0, 1), shapes="dynamic")
    rng = np.random.default_rng(6)
    for n in (9, 20, 41):
        a, y = rng.standard_normal((n, 3)), rng.standard_normal(n)
        k = a @ a.T + n * np.eye(n)
        want = -0.5 * y @ np.linalg.solve(k, y) - 0.5 * np.linalg.slogdet(k)[1]
        assert f(a, y) == pytest.approx(want, rel=1e-12)
        da, dy = g(a, y)
        for value, got in ((a, da), (y, dy)):
            d = rng.standard_normal(value.shape)
            moved = [(a + s * d, y) if value is a else (a, y + s * d) for s in (1e-6, -1e-6)]
            numeric = (gaussian_log_likelihood(*moved[0]) -
                       gaussian_log_likelihood(*moved[1])) / 2e-6
            assert float(np.sum(got * d)) == pytest.approx(numeric, rel=1e-6)
    assert (f.compile_count, g.compile_count) == (1, 1)


def kept_doubles(x):
    out = []
    for i in range(len(x)):  # a run-time trip count: the list lives in a buffer
        if x[i] > 0.5:
            out.append(x[i] * x[i])
    return sum(out) + np.sum(x[x > 0.5])


def test_lists_and_selections_of_run_time_length():
    f, g = jit(kept_doubles, shapes="dynamic"), grad(kept_doubles, shapes="dynamic")
    rng = np.random.default_rng(7)
    for n in (9, 30, 200):
        x = rng.random(n)
        assert f(x) == pytest.approx(kept_doubles(x), rel=1e-12)
        np.testing.assert_allclose(g(x), np.where(x > 0.5, 2 * x + 1, 0.0), rtol=1e-12)
    assert (f.compile_count, g.compile_count) == (1, 1)
