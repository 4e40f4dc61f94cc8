"""int64 arrays as numpy makes them and index items as numpy reads them, in compiled code
(both backends): `np.arange` of ints and `np.array` of int lists are int64 (as index arrays,
promoted to float64 next to floats, in reductions and integer arithmetic); `np.newaxis` and
`...` in reads and writes; out-of-range index arrays raise numpy's IndexError at run time
(negative ones wrap); `x[idx] += v` does not accumulate repeated indices, `np.add.at` does;
gradients against central differences."""

import numpy as np
import pytest

from adlite import compiler

from ..support.gradients import central_difference_in

BACKENDS = ["llvm", "python"]
X = np.arange(24.0).reshape(2, 3, 4) * 0.25 - 2.0
V = np.linspace(-1.0, 1.0, 5)


def arange_alone(x):
    return np.arange(3)


def arange_stepped(x):
    return np.arange(2, 11, 3) * 2 - 1


def arange_floor_divide(x):
    return np.arange(7) // 2 + np.arange(7) % 3


def arange_sum(x):
    return np.sum(np.arange(5))


def arange_max(x):
    return np.max(np.arange(5) - 3)


def arange_cumsum(x):
    return np.cumsum(np.arange(5))


def arange_times_float(x):
    return np.arange(5) * x


def arange_true_divide(x):
    return np.arange(5) / 2


def arange_mean(x):
    return np.mean(np.arange(5))


def arange_as_index(x):
    return x[np.arange(5)[::-1]]


def arange_float_bounds(x):
    return np.arange(0, 1, 0.25)


def array_of_ints(x):
    return np.array([3, 0, 2])


def array_of_ints_as_index(x):
    return x[np.array([4, 0, -1])]


def array_of_mixed(x):
    return np.array([1, 2.5])


INT_CASES = [arange_alone, arange_stepped, arange_floor_divide, arange_sum, arange_max,
             arange_cumsum, arange_times_float, arange_true_divide, arange_mean,
             arange_as_index, arange_float_bounds, array_of_ints, array_of_ints_as_index,
             array_of_mixed]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", INT_CASES, ids=lambda f: f.__name__)
def test_int_arrays_are_numpys(fn, backend):
    expected = fn(V)
    got = compiler.jit(fn, backend=backend)(V)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def arange_gradient(x):
    return np.sum(np.arange(5) * x ** 2) + np.sum(x[np.arange(1, 5, 2)] ** 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_arange_gradient(backend):
    np.testing.assert_allclose(compiler.grad(arange_gradient, backend=backend)(V),
                               central_difference_in(arange_gradient, (V,), 0), rtol=1e-7,
                               atol=1e-8)


def newaxis_read(x):
    return x[:, np.newaxis, 1:3, ...]


def newaxis_ellipsis_read(x):
    return x[np.newaxis, ..., np.newaxis, 2]


def ellipsis_array_read(x):
    return x[..., np.array([0, -1, 2])]


def newaxis_array_read(x):
    return x[None, np.array([1, 0])]


def ellipsis_write(x):
    y = x.copy()
    y[..., 1] = -1.0
    return y


def newaxis_write(x):
    y = x.copy()
    y[np.newaxis, 0] = 5.0
    y[1, ..., np.newaxis] += x[0, :, :, None]
    return y


def repeated_add(x):
    y = x.copy()
    y[..., np.array([0, 0, 3])] += 1.0
    y[np.array([1, 1, -1])] += x[0] * 2.0
    return y


def repeated_add_at(x):
    y = x.copy()
    np.add.at(y, np.array([1, 1, -1]), x[0] * 2.0)
    return y


INDEX_CASES = [newaxis_read, newaxis_ellipsis_read, ellipsis_array_read, newaxis_array_read,
               ellipsis_write, newaxis_write, repeated_add, repeated_add_at]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", INDEX_CASES, ids=lambda f: f.__name__)
def test_index_items_as_numpy(fn, backend):
    expected = fn(X)
    got = compiler.jit(fn, backend=backend)(X)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    weights = np.cos(np.arange(expected.size)).reshape(expected.shape)

    def loss(x):
        return np.sum(fn(x) ** 2 * weights)

    np.testing.assert_allclose(compiler.grad(loss, backend=backend)(X),
                               central_difference_in(loss, (X,), 0), rtol=1e-6, atol=1e-6)


def out_of_range_read(x):
    return x[np.array([0, 2])]


def out_of_range_negative(x):
    return x[:, np.array([-4, 1])]


def out_of_range_after_ellipsis(x):
    return x[..., np.array([1, 4])]


def out_of_range_write(x):
    y = x.copy()
    y[np.array([1, -3])] = 0.0
    return y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [out_of_range_read, out_of_range_negative,
                                out_of_range_after_ellipsis, out_of_range_write],
                         ids=lambda f: f.__name__)
def test_out_of_range_index_arrays_raise_numpys_index_error(fn, backend):
    with pytest.raises(IndexError) as expected:
        fn(X)
    with pytest.raises(IndexError) as got:
        compiler.jit(fn, backend=backend)(X)
    assert str(got.value) == str(expected.value)
