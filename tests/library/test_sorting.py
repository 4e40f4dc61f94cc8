"""np.sort / np.argsort / np.take_along_axis / x.sort() / x.argsort() in compiled code (both
backends) and on the eager tape: values and dtypes against numpy's (NaN last, infinities,
signed zeros, ties in numpy's stable order), gradients through the permutation against
central differences and the tape, forward mode and second order; numpy's IndexError for
out-of-range `take_along_axis` indices; clear refusals."""

import numpy as np
import pytest

from adlite import compiler
from adlite.compiler import AdliteSyntaxError
from adlite.runtime import Tensor

from ..support.gradients import central_difference_in

BACKENDS = ["llvm", "python"]
RNG = np.random.default_rng(7)


def _special(shape, dtype=np.float64):
    """Random values with ties, NaNs, infinities and signed zeros."""
    x = RNG.integers(-3, 4, size=shape).astype(dtype)
    flat = x.reshape(-1)
    picks = RNG.choice(flat.size, size=min(6, flat.size), replace=False)
    for k, v in zip(picks, [np.nan, np.inf, -np.inf, -0.0, 0.0, np.nan], strict=False):
        flat[k] = v
    return x


def sort_last(x):
    return np.sort(x)


def sort_axis0(x):
    return np.sort(x, axis=0)


def sort_middle(x):
    return np.sort(x, axis=1, kind="quicksort")


def sort_flat(x):
    return np.sort(x, axis=None)


def argsort_last(x):
    return np.argsort(x)


def argsort_axis0(x):
    return np.argsort(x, axis=0, kind="stable")


def argsort_flat(x):
    return np.argsort(x, axis=None)


def argsort_method(x):
    return x.argsort(axis=-2)


def sort_in_place(x):
    y = x.copy()
    alias = y
    y.sort(axis=0)
    return alias


def gathered(x):
    return np.take_along_axis(x, np.argsort(x, axis=0), axis=0)


SORTS = [sort_last, sort_axis0, sort_middle, sort_flat, argsort_last, argsort_axis0,
         argsort_flat, argsort_method, sort_in_place, gathered]
SHAPES = [(1, 1, 1), (3, 4, 5), (2, 33, 3), (4, 2, 17)]


STABLE = {  # numpy's results with the stable kind (the default leaves ties unspecified)
    sort_last: lambda x: np.sort(x, kind="stable"),
    sort_axis0: lambda x: np.sort(x, axis=0, kind="stable"),
    sort_middle: lambda x: np.sort(x, axis=1, kind="stable"),
    sort_flat: lambda x: np.sort(x, axis=None, kind="stable"),
    argsort_last: lambda x: np.argsort(x, kind="stable"),
    argsort_axis0: argsort_axis0,
    argsort_flat: lambda x: np.argsort(x, axis=None, kind="stable"),
    argsort_method: lambda x: x.argsort(axis=-2, kind="stable"),
    sort_in_place: lambda x: np.sort(x, axis=0, kind="stable"),
    gathered: lambda x: np.take_along_axis(x, np.argsort(x, axis=0, kind="stable"), axis=0),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64],
                         ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fn", SORTS, ids=lambda f: f.__name__)
def test_values_and_dtypes_are_numpys(fn, shape, dtype, backend):
    x = _special(shape, np.float64) if dtype != np.int64 else \
        RNG.integers(-3, 4, size=shape)
    x = x.astype(dtype)
    expected = STABLE[fn](x)
    if fn not in (argsort_last, argsort_axis0, argsort_flat, argsort_method):
        np.testing.assert_array_equal(fn(x), expected)  # sorted values: any kind's
    got = compiler.jit(fn, backend=backend)(x)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    if got.dtype.kind == "f":  # signed zeros in their stable places
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [0, 1, 2, 7, 64, 1000, 1025])
def test_long_lanes(n, backend):
    """Many merge passes, lengths around powers of two; distinct values: numpy's default
    kind gives the same indices."""
    x = RNG.permutation(np.arange(3 * n, dtype=np.float64)).reshape(3, n) * 0.5
    np.testing.assert_array_equal(compiler.jit(argsort_last, backend=backend)(x),
                                  np.argsort(x))
    np.testing.assert_array_equal(compiler.jit(sort_last, backend=backend)(x), np.sort(x))


def weighted_sort(x, w):
    return np.sum(np.sort(x, axis=1) ** 2 * w)


def weighted_in_place(x, w):
    y = x * 1.0
    y.sort(axis=0)
    return np.sum(np.sin(y) * w[::-1])


def weighted_take(x, w):
    order = np.argsort(-x, axis=1)
    return np.sum(np.take_along_axis(x, order, axis=1) * w + np.sort(x, axis=None)[0])


GRADIENT_CASES = [weighted_sort, weighted_in_place, weighted_take]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", GRADIENT_CASES, ids=lambda f: f.__name__)
def test_gradients_through_the_permutation(fn, backend):
    x = RNG.standard_normal((3, 5))
    w = RNG.standard_normal((3, 5))
    expected = central_difference_in(fn, (x, w), 0)
    got = compiler.grad(fn, backend=backend)(x, w)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    t = Tensor(x.copy(), requires_grad=True)
    y = fn(t, w)
    y.backward()
    np.testing.assert_allclose(got, t.grad.data, rtol=1e-13, atol=1e-15)


def test_forward_mode_and_second_order():
    x = RNG.standard_normal((3, 5))
    w = RNG.standard_normal((3, 5))
    v = RNG.standard_normal((3, 5))
    _, tangent = compiler.jvp(weighted_sort, (x, w), (v, np.zeros_like(w)))
    eps = 1e-6
    fd = (weighted_sort(x + eps * v, w) - weighted_sort(x - eps * v, w)) / (2 * eps)
    assert tangent == pytest.approx(fd, rel=1e-6)
    hessian = compiler.hessian(weighted_sort)(x, w)
    expected = np.zeros((15, 15))
    order = np.argsort(x, axis=1)
    for r in range(3):  # d2/dx2 of sum(sorted**2 * w) is 2 w at the sorted position
        for k, j in enumerate(order[r]):
            expected[r * 5 + j, r * 5 + j] = 2 * w[r, k]
    np.testing.assert_allclose(np.reshape(hessian, (15, 15)), expected, atol=1e-12)


def tape_sort(x):
    return np.sum(np.sort(x, axis=0) * np.arange(1.0, 4.0)[:, None])


def test_tape_sort_matches_compiled_and_numpy():
    x = RNG.standard_normal((3, 4))
    x[0, 1] = x[2, 1]  # a tie: the stable order decides who gets which weight
    t = Tensor(x.copy(), requires_grad=True)
    out = tape_sort(t)
    out.backward()
    assert float(out.data) == pytest.approx(tape_sort(x), rel=1e-15)
    np.testing.assert_array_equal(t.grad.data, compiler.grad(tape_sort)(x))
    assert np.argsort(t).dtype == np.int64
    np.testing.assert_array_equal(t.argsort(axis=None).data, np.argsort(x, axis=None,
                                                                        kind="stable"))
    u = Tensor(x.copy())
    assert u.sort(axis=0) is None
    np.testing.assert_array_equal(u.data, np.sort(x, axis=0))


def take_wrapped(x, idx):
    return np.take_along_axis(x, idx, axis=1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_take_along_axis_wraps_broadcasts_and_checks(backend):
    x = RNG.standard_normal((3, 4))
    idx = np.array([[-1, 0, 2]])  # broadcast over the rows, -1 wraps
    np.testing.assert_array_equal(compiler.jit(take_wrapped, backend=backend)(x, idx),
                                  np.take_along_axis(x, idx, axis=1))
    bad = np.array([[0, 4], [1, 1], [2, -5]])
    with pytest.raises(IndexError) as expected:
        take_wrapped(x, bad)
    with pytest.raises(IndexError) as got:
        compiler.jit(take_wrapped, backend=backend)(x, bad)
    assert str(got.value) == str(expected.value)


def bad_kind(x):
    return np.sort(x, kind="bogo")


def bad_order(x):
    return np.argsort(x, order="f")


def sort_expression(x):
    (x * 2.0).sort()
    return x


def float_indices(x):
    return np.take_along_axis(x, x, axis=0)


@pytest.mark.parametrize("fn, message", [
    (bad_kind, "sort kind must be one of"), (bad_order, "order="),
    (sort_expression, "sorts a named local array"), (float_indices, "integer array")],
    ids=lambda v: getattr(v, "__name__", ""))
def test_refusals_name_the_line(fn, message):
    with pytest.raises(AdliteSyntaxError, match=message) as e:
        compiler.jit(fn)(np.ones(3))
    assert "test_sorting.py" in str(e.value)


def median_all(x):
    return np.median(x)


def median_axis1(x):
    return np.median(x, axis=1)


def median_last_keepdims(x):
    return np.median(x, axis=-1, keepdims=True)


def median_all_keepdims(x):
    return np.median(x, keepdims=True)


def median_even(x):
    return np.median(x[:, :, :4], axis=2)


MEDIANS = [median_all, median_axis1, median_last_keepdims, median_all_keepdims, median_even]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64],
                         ids=lambda d: d.__name__)
@pytest.mark.parametrize("fn", MEDIANS, ids=lambda f: f.__name__)
def test_median_is_numpys(fn, dtype, backend):
    x = RNG.standard_normal((3, 4, 5))
    x[1, 2, 3] = np.nan
    x = RNG.integers(-9, 10, size=x.shape) if dtype == np.int64 else x.astype(dtype)
    with np.errstate(invalid="ignore"):
        expected = fn(x)
    got = compiler.jit(fn, backend=backend)(x)
    assert np.shape(got) == np.shape(expected)
    if np.ndim(expected):
        assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    t = fn(Tensor(x))
    assert t.shape == np.shape(expected)
    np.testing.assert_array_equal(t.data, expected)


def median_loss(x):
    return np.sum(np.median(x, axis=0) ** 2) + np.median(x) * 3.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_median_gradient(backend):
    x = RNG.standard_normal((4, 3))
    got = compiler.grad(median_loss, backend=backend)(x)
    np.testing.assert_allclose(got, central_difference_in(median_loss, (x,), 0), rtol=1e-6,
                               atol=1e-7)
    t = Tensor(x.copy(), requires_grad=True)
    median_loss(t).backward()
    np.testing.assert_allclose(got, t.grad.data, rtol=1e-13, atol=1e-15)
