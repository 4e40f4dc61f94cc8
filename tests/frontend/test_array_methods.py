"""Array methods that are numpy functions of the array (`x.prod(axis)` is `np.prod(x, axis)`):
values equal numpy's own methods, gradients equal central differences, both backends."""

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, jit

from ..support.gradients import central_difference_in

BACKENDS = ["llvm", "python"]
X = np.array([[0.5, -1.5, 2.0], [1.25, 0.75, -0.5], [3.0, 0.1, -2.0]])


def reductions(x):
    return (x.prod(axis=0).sum() + x.cumsum(axis=1)[:, -1].sum() + x.cumprod()[-1]
            + x.trace() + x.diagonal(1).sum() + x.clip(-1.0, 1.0).sum()
            + x.repeat(2, axis=0).sum() + x[None].squeeze(0).sum())


def discrete(x):
    return (x.argmax(axis=1).sum() + x.argmin() + (x > 0).any(axis=0).sum()
            + (x > -3).all() + x.round(1).sum())


@pytest.mark.parametrize("backend", BACKENDS)
def test_methods_equal_numpys(backend):
    assert jit(reductions, backend=backend)(X) == pytest.approx(reductions(X), rel=1e-14)
    assert jit(discrete, backend=backend)(X) == pytest.approx(discrete(X), rel=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_method_gradients(backend):
    np.testing.assert_allclose(grad(reductions, backend=backend)(X),
                               central_difference_in(reductions, (X,), 0), rtol=1e-6, atol=1e-8)


def squeezes(x):
    y = x[None, :, None]
    return np.squeeze(y).sum() + np.squeeze(y, 0).sum() * 2.0 + np.squeeze(y, axis=(0, 2)).sum()


def squeeze_of_a_long_axis(x):
    return np.squeeze(x[None], 1).sum()


def test_squeeze_with_axes_is_numpys():
    x = np.array([1.0, 2.0, 3.0])
    assert jit(squeezes)(x) == squeezes(x)
    with pytest.raises(ValueError, match="cannot select an axis to squeeze"):
        squeeze_of_a_long_axis(x)
    with pytest.raises(AdliteSyntaxError, match="cannot select an axis to squeeze"):
        jit(squeeze_of_a_long_axis)(x)
