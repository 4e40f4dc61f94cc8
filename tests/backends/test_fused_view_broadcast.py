"""A fused view (a constant-slice `index`, an `arange`) with a dimension of size 1 is
broadcast by its consumer: every consumer coordinate along that dimension reads its one
element (a miscompile once read `x[0:1, :]` of `x * x[0:1, :]` as `x` itself)."""

import numpy as np
import pytest

from adlite.compiler import grad, jit, jvp


def _row_times_all(x):
    return x * x[0:1, :]


def _column_plus_all(x):
    return x[:, 2:3] + x


def _strided_row(x):
    return np.sin(x) * x[1:2, ::-1]


def _middle_plane(x):
    return x * x[:, 1:2, :]


def _arange_column(x):
    return x * np.arange(1.0, 2.0).reshape(1, 1)


CASES = [_row_times_all, _column_plus_all, _strided_row, _arange_column]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["llvm", "python"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 4)], ids=str)
def test_a_sliced_row_or_column_broadcasts_against_the_whole(fn, backend, shape):
    x = np.arange(np.prod(shape), dtype=float).reshape(shape) + 1.0
    np.testing.assert_array_equal(jit(fn, backend=backend)(x), fn(x))


@pytest.mark.parametrize("backend", ["llvm", "python"])
def test_a_sliced_plane_broadcasts_in_three_dimensions(backend):
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(jit(_middle_plane, backend=backend)(x), _middle_plane(x))


def test_derivatives_of_a_broadcast_slice_are_the_product_rule():
    rng = np.random.default_rng(0)
    x, u = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    _, tangent = jvp(_row_times_all, (x,), (u,))
    np.testing.assert_allclose(tangent, u * x[0:1] + x * u[0:1], rtol=1e-14)
    g = grad(lambda x: np.sum(_row_times_all(x) * u))(x)
    want = u * x[0:1]
    want[0] += np.sum(u * x, axis=0)
    np.testing.assert_allclose(g, want, rtol=1e-13)
