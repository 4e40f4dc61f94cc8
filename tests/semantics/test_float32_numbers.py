"""np.float32 numbers as arguments: float32 arithmetic as numpy's, literals weak (numpy 2)."""

import numpy as np
import pytest

from adlite.compiler import grad, jit

BACKENDS = ["llvm", "python"]


def square(a):
    return a * a


def affine(a):
    return 2 * a - 1.5


def with_array(a, x):
    return np.sum(a * x)


def spaced(a, b):
    return np.linspace(a, b, 7)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", [
    (square, (np.float32(1.1),)),
    (affine, (np.float32(2.3),)),
    (with_array, (np.float32(0.7), np.linspace(0, 1, 5, dtype=np.float32))),
    (spaced, (np.float32(0.1), np.float32(2.9))),
])
def test_values_and_dtype_are_numpys(fn, args, backend):
    got, want = jit(fn, backend=backend)(*args), fn(*args)
    assert np.asarray(got).dtype == np.float32
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_of_a_float32_number_is_float32(backend):
    g = grad(affine, backend=backend)(np.float32(2.3))
    assert type(g) is np.float32 and g == np.float32(2.0)
    g = grad(square, backend=backend)(np.float32(1.5))
    assert type(g) is np.float32 and g == np.float32(3.0)


def test_float64_numbers_stay_float64():
    assert type(jit(affine)(np.float64(2.3))) in (float, np.float64)
    assert jit(affine)(2.3) == 2 * 2.3 - 1.5


# mixed element types of whole arrays (none weak): numpy's result_type, float32 with int64
# is float64, float32 with bool stays float32
def added(a, k):
    return a + k


def masked(a, k):
    return a * (k > 0)


def joined(a, k):
    return np.concatenate([a, k])


def stacked_rows(a, k):
    return np.vstack([a, k, 2.0 * a])


def side_by_side(a, k):
    return np.hstack([a, k])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, want_dtype", [(added, np.float64), (masked, np.float32),
                                            (joined, np.float64), (stacked_rows, np.float64),
                                            (side_by_side, np.float64)],
                         ids=["added", "masked", "joined", "stacked_rows", "side_by_side"])
def test_arrays_of_float32_and_int64_promote_as_numpy(fn, want_dtype, backend):
    a, k = np.linspace(0.1, 0.9, 4, dtype=np.float32), np.arange(-1, 3)
    got = jit(fn, backend=backend)(a, k)
    assert got.dtype == want_dtype
    np.testing.assert_array_equal(got, fn(a, k))
