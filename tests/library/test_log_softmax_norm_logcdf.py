"""scipy.special.log_softmax and scipy.stats.norm.logcdf: values against scipy, gradients
against central finite differences and the eager tape (one formula each in
`adlite.derivatives`), both backends."""

import numpy as np
import pytest
import scipy.special as sc
from scipy.stats import norm

from adlite import compiler
from adlite import runtime as rt
from adlite.runtime import special as tape_special
from adlite.runtime import tensor

from ..support.gradients import central_differences

BACKENDS = ["llvm", "python"]


def log_softmax_rows(x):
    return np.sum(sc.log_softmax(x, axis=1) * np.arange(1.0, 5.0))


def logcdf_sum(x, loc):
    return np.sum(norm.logcdf(x, loc=loc, scale=1.5)) + norm.logcdf(-40.0 + loc)


X = np.array([[0.3, -1.2, 2.5, 0.0], [10.0, -30.0, 1e-3, 4.0]])
Z = np.array([-45.0, -12.0, -1.0, 0.0, 2.0, 9.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_equal_scipys(backend):
    assert compiler.jit(log_softmax_rows, backend=backend)(X) == pytest.approx(
        log_softmax_rows(X), rel=1e-13)
    assert compiler.jit(logcdf_sum, backend=backend)(Z, 0.5) == pytest.approx(
        logcdf_sum(Z, 0.5), rel=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_match_finite_differences_and_the_tape(backend):
    g = compiler.grad(log_softmax_rows, backend=backend)(X)
    np.testing.assert_allclose(g, central_differences(log_softmax_rows, [X])[0], rtol=1e-6,
                               atol=1e-8)
    t = tensor(X, requires_grad=True)
    (rt.functional.log_softmax(t, axis=1) * np.arange(1.0, 5.0)).sum().backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-12, atol=1e-15)

    gx, gloc = compiler.grad(logcdf_sum, wrt=(0, 1), backend=backend)(Z, 0.5)
    fx, floc = central_differences(logcdf_sum, [Z, 0.5])
    np.testing.assert_allclose(gx, fx, rtol=1e-6, atol=1e-7)  # FD cannot see 2.8e-8 at z=5.7
    assert gloc == pytest.approx(float(floc), rel=1e-6)
    tz, tl = tensor(Z, requires_grad=True), tensor(0.5, requires_grad=True)
    (tape_special.norm_logcdf(tz, tl, 1.5).sum() + tape_special.norm_logcdf(-40.0 + tl)).backward()
    np.testing.assert_allclose(gx, tz.grad.numpy(), rtol=1e-12)
    assert gloc == pytest.approx(float(tl.grad.numpy()), rel=1e-12)
