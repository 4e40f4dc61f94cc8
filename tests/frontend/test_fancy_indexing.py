"""Integer-array (fancy) indexing in compiled code, `np.searchsorted` and
`np.linalg.norm(axis=, keepdims=)`: values against numpy's, gradients against central
differences computed here with numpy, forward mode and second order, both backends; numpy's
IndexError for out-of-range index arrays; clear refusals of masks and writes."""

import numpy as np
import pytest

from adlite import compiler
from adlite.compiler import AdliteSyntaxError
from adlite.runtime import tensor

from ..support.gradients import central_difference_in, check_value_and_gradient

BACKENDS = ["llvm", "python"]
RNG = np.random.default_rng(11)
X1 = RNG.standard_normal(6)
X2 = RNG.standard_normal((4, 5))


def central_differences(fn, x, rest):
    return central_difference_in(fn, (x, *rest), 0)


def vector_repeated(x, idx):
    return np.sum(x[idx] ** 2 * np.arange(1.0, 6.0))


def rows(x, idx):
    return np.sum(np.sin(x[idx, :]) * x[idx])


def columns(x, idx):
    return np.sum(x[:, idx] ** 3)


def pairs(x, r, c):
    return np.sum(np.exp(x[r, c]))


def broadcast_pairs(x, r, c):
    return np.sum(x[r[:, None], c[None, :]] ** 2 * x[r[:, None], 0])


def picked_by_arange(x, labels):
    return -np.sum(np.log(np.abs(x[np.arange(x.shape[0]), labels]) + 1.0))


def computed_index(x, idx):
    j = np.clip(idx * 2 - 1, 0, 4)
    return np.sum(x[1:3][:, j] * x[2, j])


def int_of_int(x, idx, perm):
    return np.sum(x[perm[idx]])


def stepped_arange(x, idx):
    return np.sum(x[np.arange(1, 4, 2) - 1, idx[:2]][:, None] *
                  x[2 * np.arange(2), :2][:, idx[:2]])


IDX = np.array([0, 3, 3, -1, -6])
CASES = [
    ("vector_repeated", vector_repeated, X1, (IDX,)),
    ("rows", rows, X2, (np.array([[1, -1], [1, 0]]),)),
    ("columns", columns, X2, (np.array([4, 0, 4, -2]),)),
    ("pairs", pairs, X2, (np.array([0, 3, 3, -4]), np.array([4, -1, -1, 0]))),
    ("broadcast_pairs", broadcast_pairs, X2, (np.array([2, 0, 2]), np.array([1, -1]))),
    ("picked_by_arange", picked_by_arange, X2, (np.array([4, 0, 2, 2]),)),
    ("computed_index", computed_index, X2, (np.array([0, 1, 2, 2, 3]),)),
    ("stepped_arange", stepped_arange, X2, (np.array([1, -1, 0]),)),
    ("int_of_int", int_of_int, X1, (np.array([0, 2, 2, 5]), np.array([5, 4, 3, 2, 1, 0]))),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,fn,x,rest", CASES, ids=IDS)
def test_values_and_gradients(name, fn, x, rest, backend):
    check_value_and_gradient(fn, x, rest, backend)


@pytest.mark.parametrize("name,fn,x,rest", CASES, ids=IDS)
def test_forward_mode(name, fn, x, rest):
    d = RNG.standard_normal(x.shape)
    value, tangent = compiler.jvp(fn, (x, *rest), [d])
    eps = 1e-6
    expected = (fn(x + eps * d, *rest) - fn(x - eps * d, *rest)) / (2 * eps)
    assert value == pytest.approx(fn(x, *rest), rel=1e-13)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_gradient_matches_the_tape_on_repeated_indices():
    t = tensor(X1, requires_grad=True)
    vector_repeated(t, IDX).backward()
    np.testing.assert_allclose(compiler.grad(vector_repeated)(X1, IDX), t.grad.numpy(),
                               rtol=1e-13)


def test_second_order():
    h = compiler.hessian(vector_repeated)(X1, IDX)
    d = np.zeros((6, 6))
    for i in range(6):
        step = np.zeros(6)
        step[i] = 1e-5
        d[i] = (central_differences(vector_repeated, X1 + step, (IDX,)) -
                central_differences(vector_repeated, X1 - step, (IDX,))) / 2e-5
    np.testing.assert_allclose(h, d, rtol=1e-4, atol=1e-4)


def taken(x, idx):
    return x[idx]


def taken_columns(x, idx):
    return x[:, idx]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,x,idx", [
    (taken, X1, np.array([1, 6])), (taken, X1, np.array([[0], [-7]])),
    (taken_columns, X2, np.array([0, 2, 5, 9])), (pairs, X2, None)],
    ids=["taken-index_past_the_end", "taken-2d_index_before_the_start",
         "taken_columns-columns_past_the_end", "pairs-row_and_column_past_the_end"])
def test_out_of_bounds_is_numpys_index_error(fn, x, idx, backend):
    args = (x, np.array([0, 4]), np.array([0, 5])) if idx is None else (x, idx)
    with pytest.raises(IndexError) as expected:
        fn(*args)
    with pytest.raises(IndexError) as got:
        compiler.jit(fn, backend=backend)(*args)
    assert str(got.value) == str(expected.value)


def add_then_set(x, v, idx):
    y = x * 1.0
    y[idx] += v
    y[idx[:2]] = 2.0 * v[:2]
    return np.sum(y ** 2 * np.arange(1.0, 1.0 + x.size))


def rows_and_columns_written(x, v, idx):
    y = x.copy()
    y[:, idx] = v[0]
    y[idx, :] += x[idx] * v[1:3, None]
    return np.sum(np.sin(y))


WRITES = [
    ("add_then_set", add_then_set, (X1, np.array([1.0, 2.0, 3.0, 4.0]),
                                    np.array([1, 1, -1, 4]))),
    ("rows_and_columns", rows_and_columns_written, (X2, np.array([0.3, -1.0, 2.0]),
                                                     np.array([0, -2]))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,fn,args", WRITES, ids=[w[0] for w in WRITES])
def test_writes_match_numpy_repeats_included(name, fn, args, backend):
    """numpy's `y[idx] += v` does not accumulate repeated indices: the last write wins."""
    x, v, idx = args
    assert compiler.jit(fn, backend=backend)(*args) == pytest.approx(fn(*args), rel=1e-13)
    gx, gv = compiler.grad(fn, wrt=(0, 1), backend=backend)(*args)
    np.testing.assert_allclose(gx, central_differences(fn, x, (v, idx)), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gv, central_differences(lambda v, x, i: fn(x, v, i), v,
                                                       (x, idx)), rtol=1e-6, atol=1e-7)
    dx, dv = RNG.standard_normal(x.shape), RNG.standard_normal(v.shape)
    _, tangent = compiler.jvp(fn, args, [dx, dv])
    assert tangent == pytest.approx(np.sum(gx * dx) + np.sum(gv * dv), rel=1e-10)


def write_out_of_bounds(x, idx):
    y = x.copy()
    y[idx] = 0.0
    return y


@pytest.mark.parametrize("backend", BACKENDS)
def test_write_out_of_bounds_is_numpys_index_error(backend):
    args = (X1, np.array([0, -7]))
    with pytest.raises(IndexError) as expected:
        write_out_of_bounds(*args)
    with pytest.raises(IndexError) as got:
        compiler.jit(write_out_of_bounds, backend=backend)(*args)
    assert str(got.value) == str(expected.value)


def written_mixed(x, idx):
    y = x.copy()
    y[0, idx] = 1.0
    return np.sum(y)


def float_index(x):
    return np.sum(x[x * 2.0])


def float_arange_index(x):
    return np.sum(x[np.arange(3.0)])


@pytest.mark.parametrize("fn,args,message", [
    (written_mixed, (X2, IDX), "write through index arrays mixed with ints"),
    (float_index, (X1,), "must be of integer (or boolean) type"),
    (float_arange_index, (X1,), "must be of integer (or boolean) type"),
], ids=["written_mixed", "float_index", "float_arange_index"])
def test_refused_clearly_at_the_users_line(fn, args, message):
    with pytest.raises(AdliteSyntaxError, match="test_fancy_indexing.py") as e:
        compiler.jit(fn)(*args)
    assert message in str(e.value)


def search_left(a, v):
    return np.searchsorted(a, v)


def search_right(a, v):
    return np.searchsorted(a, v, side="right")


SORTED = np.array([0.0, 1.0, 1.0, 2.5, np.nan])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [search_left, search_right])
@pytest.mark.parametrize("v", [np.array([-1.0, 1.0, 1.5, 3.0, np.nan, 2.5]), 1.0, np.nan,
                               np.array([[0.0, 1.0], [2.0, 9.0]])],
                         ids=["vector_with_nan", "1.0", "nan", "matrix_2x2"])
def test_searchsorted_is_numpys(fn, v, backend):
    got, expected = compiler.jit(fn, backend=backend)(SORTED, v), fn(SORTED, v)
    assert np.array_equal(got, expected)
    assert np.shape(got) == np.shape(expected)


def spline_like(y, x, xq):
    idx = np.clip(np.searchsorted(x, xq) - 1, 0, len(x) - 2)
    return np.sum(y[idx] * (xq - x[idx]) ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_searchsorted_index_gradient(backend):
    x, y, xq = np.linspace(0, 1, 6), RNG.standard_normal(6), np.array([0.1, 0.5, 0.55, 0.99])
    g = compiler.grad(spline_like, backend=backend)(y, x, xq)
    np.testing.assert_allclose(g, central_differences(spline_like, y, (x, xq)), rtol=1e-6,
                               atol=1e-7)



X3 = RNG.standard_normal((3, 4, 2))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("axis", [0, 1, -1, (0, 2), None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_norm_axis(axis, keepdims, backend):
    def fn(x):
        return np.linalg.norm(x, axis=axis, keepdims=keepdims)

    def loss(x):
        return np.sum(np.sin(2.0 * fn(x)))

    np.testing.assert_allclose(compiler.jit(fn, backend=backend)(X3), fn(X3), rtol=1e-13)
    g = compiler.grad(loss, backend=backend)(X3)
    np.testing.assert_allclose(g, central_differences(loss, X3, ()), rtol=1e-6, atol=1e-7)
    t = tensor(X3, requires_grad=True)
    loss(t).backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-12)
    value, tangent = compiler.jvp(loss, (X3,), [X3 * 0.5])
    assert tangent == pytest.approx(np.sum(g * X3 * 0.5), rel=1e-10)
