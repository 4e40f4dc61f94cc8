"""scipy.stats' cumulative methods (cdf, logcdf, sf, logsf) of t, chi2, gamma, beta and
poisson in compiled code: values against scipy's on both backends (support ends, infinities,
NaN, invalid parameters, broadcasting, float32 arguments computed in double), gradients with
respect to x, loc, scale and poisson's mu against central differences, forward mode and a
Hessian."""

import numpy as np
import pytest
import scipy.stats as st

from adlite import compiler

from ..support.gradients import central_differences

BACKENDS = ["llvm", "python"]
rng = np.random.default_rng(11)
EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 0.3, 2.0, np.inf, -np.inf, np.nan])
X = np.concatenate([rng.normal(0.0, 2.0, 12), EDGES])


def _t(x, shape, loc, scale):
    return (st.t.cdf(x, shape, loc, scale), st.t.logcdf(x, shape, loc, scale),
            st.t.sf(x, shape, loc=loc, scale=scale), st.t.logsf(x, df=shape, loc=loc,
                                                               scale=scale))


def _chi2(x, shape, loc, scale):
    return (st.chi2.cdf(x, shape, loc, scale), st.chi2.logcdf(x, shape, loc, scale),
            st.chi2.sf(x, shape, loc, scale), st.chi2.logsf(x, shape, loc, scale))


def _gamma(x, shape, loc, scale):
    return (st.gamma.cdf(x, shape, loc, scale), st.gamma.logcdf(x, shape, loc, scale),
            st.gamma.sf(x, shape, loc, scale), st.gamma.logsf(x, a=shape, loc=loc))


def _beta(x, shape, loc, scale):
    y = x / 4.0
    return (st.beta.cdf(y, shape, 2.5, loc, scale), st.beta.logcdf(y, shape, 0.7, loc, scale),
            st.beta.sf(y, 1.5, shape, loc, scale), st.beta.logsf(y, shape, shape, loc, scale))


def _poisson(x, shape, loc, scale):
    k = 3.0 * x
    return (st.poisson.cdf(k, shape, loc), st.poisson.logcdf(k, shape, loc),
            st.poisson.sf(k, shape), st.poisson.logsf(k, mu=shape, loc=loc))


FAMILIES = [_t, _chi2, _gamma, _beta, _poisson]
PARAMETERS = [(2.5, 0.3, 1.5), (0.7, -0.2, 0.4), (-1.0, 0.0, 1.0), (3.0, 0.0, -1.0),
              (0.0, 0.0, 1.0), (np.nan, 0.0, 1.0)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__[1:])
def test_values_are_scipys(family, backend):
    compiled = compiler.jit(family, backend=backend)
    for shape, loc, scale in PARAMETERS:
        with np.errstate(all="ignore"):
            expected = family(X, shape, loc, scale)
        for c, e in zip(compiled(X, shape, loc, scale), expected, strict=True):
            assert c.dtype == e.dtype == np.float64
            np.testing.assert_allclose(c, e, rtol=1e-14, atol=1e-300, equal_nan=True,
                                       err_msg=f"{family.__name__} {shape} {loc} {scale}")


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__[1:])
def test_broadcasting_numbers_and_float32_in_double(family):
    rng = np.random.default_rng(29)  # its own draws: the same in any test order
    x = rng.uniform(0.1, 3.0, (4, 3)).astype(np.float32)
    shape = rng.uniform(0.5, 4.0, (1, 3)).astype(np.float32)
    scale = rng.uniform(0.5, 2.0, (4, 1))
    compiled = compiler.jit(family)
    for args in ((x, shape, 0.1, scale), (1.3, 2.2, 0.1, 0.9)):
        for c, e in zip(compiled(*args), family(*args), strict=True):
            assert np.shape(c) == np.shape(e) and np.asarray(c).dtype == np.float64
            np.testing.assert_allclose(c, e, rtol=1e-14)


def _total(family, x, shape, loc, scale):
    return sum(np.sum(v) for v in family(x, shape, loc, scale))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__[1:])
def test_gradients_against_central_differences(family, backend):
    """x, loc and scale (poisson: mu; its k and loc are floored) against differences; the
    shape parameters get no derivative, as in autograd."""
    x = np.random.default_rng(23).uniform(0.2, 3.5, 6) + 0.05  # its own draws: any order
    args = [x, 2.3, 0.1, 1.2]

    def fn(*a):
        return _total(family, *a)

    wrt = (1,) if family is _poisson else (0, 2, 3)
    compiled = compiler.grad(fn, wrt=wrt, backend=backend)(*args)
    differences = central_differences(fn, args)
    for c, k in zip(compiled, wrt, strict=True):
        np.testing.assert_allclose(c, differences[k], rtol=2e-6, atol=1e-7)


def _t_cdf(x, scale):
    return np.sum(st.t.cdf(x, 3.5, 0.2, scale) + st.gamma.logsf(x, 2.0) * st.chi2.sf(x, 3.0))


def test_forward_mode_and_hessian():
    rng = np.random.default_rng(31)
    x, scale = rng.uniform(0.5, 3.0, 5), 1.7
    direction = rng.normal(size=5)
    value, tangent = compiler.jvp(_t_cdf, (x, scale), (direction, 0.3))
    eps = 1e-6
    expected = (_t_cdf(x + eps * direction, scale + 0.3 * eps)
                - _t_cdf(x - eps * direction, scale - 0.3 * eps)) / (2 * eps)
    assert value == pytest.approx(_t_cdf(x, scale), rel=1e-14)
    assert tangent == pytest.approx(expected, rel=1e-6)
    hessian = compiler.hessian(_t_cdf)(x, scale)
    gradient = compiler.grad(_t_cdf)
    differences = np.stack([central_differences(lambda y, k=k: gradient(y, scale)[k], [x])[0]
                            for k in range(len(x))])
    np.testing.assert_allclose(hessian, differences, rtol=1e-5, atol=1e-7)
