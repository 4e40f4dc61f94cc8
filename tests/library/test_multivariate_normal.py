"""scipy.stats.multivariate_normal.logpdf / pdf (and frozen distributions, norm's too) in
compiled code: values against scipy's for every shape scipy takes, gradients w.r.t. x, mean and
cov against central differences and the tape in both modes, and a covariance that is not
positive definite raising LinAlgError (a ValueError, as scipy's errors are)."""

import re

import numpy as np
import pytest
from scipy.stats import multivariate_normal, norm

from adlite import compiler
from adlite.compiler.errors import AdliteSyntaxError
from adlite.runtime import special as tape_special
from adlite.runtime import tensor

from ..support.gradients import central_differences

BACKENDS = ["llvm", "python"]
RNG = np.random.default_rng(3)
FACTOR = RNG.standard_normal((3, 3))
COV = FACTOR @ FACTOR.T + 0.5 * np.eye(3)
MEAN = RNG.standard_normal(3)
POINTS = RNG.standard_normal((5, 3)) * 2.0
RTOL = 1e-13  # measured: 2e-16 relative (scipy factors cov by eigh, adlite by Cholesky)


def _forms(x, mean, cov):
    return (multivariate_normal.logpdf(x, mean, cov),
            multivariate_normal.logpdf(x[1], mean=mean, cov=cov),
            multivariate_normal.pdf(x, mean, cov),
            multivariate_normal.logpdf(x, mean, cov=np.diag(cov)),
            multivariate_normal.logpdf(x, mean, 2.5),
            multivariate_normal.logpdf(x[:, 0], cov=cov[0, 0]),
            multivariate_normal.logpdf(x[:, :1], 0.5, cov[:1, :1]),
            multivariate_normal.logpdf(x[:2].reshape(2, 1, 3), mean, cov),
            multivariate_normal.logpdf(x, cov=cov),
            multivariate_normal(mean, cov).logpdf(x),
            multivariate_normal(mean, cov=cov).pdf(x[0]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_and_shapes_are_scipys(backend):
    compiled = compiler.jit(_forms, backend=backend)(POINTS, MEAN, COV)
    for c, e in zip(compiled, _forms(POINTS, MEAN, COV), strict=True):
        assert np.shape(c) == np.shape(e)
        np.testing.assert_allclose(c, e, rtol=RTOL, atol=0)


def _sum(x, mean, cov):
    return np.sum(multivariate_normal.logpdf(x, mean, cov) * np.arange(1.0, 6.0))


def _parametrized(x, mean, factor):
    return _sum(x, mean, factor @ factor.T + 0.5 * np.eye(3))


def _taped(x, mean, cov):
    return (tape_special.multivariate_normal_logpdf(x, mean, cov) * np.arange(1.0, 6.0)).sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_against_differences_and_the_tape(backend):
    gx, gmean, gcov = compiler.grad(_sum, wrt=(0, 1, 2), backend=backend)(POINTS, MEAN, COV)
    tensors = [tensor(a, requires_grad=True) for a in (POINTS, MEAN, COV)]
    _taped(*tensors).backward()
    for c, t in zip((gx, gmean, gcov), tensors, strict=True):
        np.testing.assert_allclose(c, t.grad.data, rtol=1e-12, atol=1e-14)
    dx, dmean, dcov = central_differences(_sum, [POINTS, MEAN, COV])
    np.testing.assert_allclose(gx, dx, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(gmean, dmean, rtol=1e-7, atol=1e-7)
    # only cov's lower triangle is read (scipy's too): the symmetric cotangent's two halves
    # together are the derivative along an off-diagonal element of the lower triangle
    np.testing.assert_allclose(np.tril(gcov + gcov.T) - np.diag(np.diag(gcov)), dcov,
                               rtol=1e-7, atol=1e-7)
    gfactor = compiler.grad(_parametrized, wrt=2, backend=backend)(POINTS, MEAN, FACTOR)
    np.testing.assert_allclose(gfactor, central_differences(_parametrized,
                                                            [POINTS, MEAN, FACTOR])[2],
                               rtol=1e-7, atol=1e-7)


def test_forward_mode_against_directional_differences():
    directions = (RNG.standard_normal((5, 3)), RNG.standard_normal(3), RNG.standard_normal((3, 3)))
    directions = (directions[0], directions[1], directions[2] + directions[2].T)
    primals = (POINTS, MEAN, COV)
    value, tangent = compiler.jvp(_sum, primals, directions)
    eps = 1e-6
    up = [p + eps * d for p, d in zip(primals, directions, strict=True)]
    down = [p - eps * d for p, d in zip(primals, directions, strict=True)]
    assert value == pytest.approx(_sum(*primals), rel=1e-13)
    assert tangent == pytest.approx((_sum(*up) - _sum(*down)) / (2 * eps), rel=1e-7)


def test_hessian_in_the_mean_is_minus_n_inverse_cov_times_the_weights():
    def in_mean(mean):
        return _sum(POINTS, mean, COV)

    np.testing.assert_allclose(compiler.hessian(in_mean)(MEAN), -15.0 * np.linalg.inv(COV),
                               rtol=1e-12)


def _at(x, cov):
    return multivariate_normal.logpdf(x, cov=cov)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cov", [np.array([[1.0, 2.0], [2.0, 1.0]]),
                                 np.array([[1.0, 1.0], [1.0, 1.0]]), -np.eye(2)])
def test_a_covariance_not_positive_definite_raises_a_value_error(backend, cov):
    with pytest.raises(ValueError):  # scipy: ValueError (indefinite) or LinAlgError (singular)
        multivariate_normal.logpdf(np.zeros(2), cov=cov)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        compiler.jit(_at, backend=backend)(np.zeros(2), cov)


def _mismatch(x, cov):
    return multivariate_normal.logpdf(x, np.zeros(2), cov)


def _diagonal_without_mean(x, cov):
    return multivariate_normal.logpdf(x, cov=cov)


def test_shapes_scipy_rejects_are_refused_with_its_message():
    with pytest.raises(ValueError, match="Dimension mismatch: array 'cov' is of shape"):
        multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(3))
    with pytest.raises(AdliteSyntaxError, match="Dimension mismatch: array 'cov' is of shape"):
        compiler.jit(_mismatch)(np.zeros(2), np.eye(3))
    message = "cannot reshape array of size 2 into shape (1,1)"  # scipy: d = 1 without a mean
    with pytest.raises(ValueError, match=re.escape(message)):
        _diagonal_without_mean(np.zeros(2), np.ones(2))
    with pytest.raises(AdliteSyntaxError, match=re.escape(message)):
        compiler.jit(_diagonal_without_mean)(np.zeros(2), np.ones(2))


FROZEN = norm(1.0, scale=2.0)


def _frozen_norms(x, mu, sigma):
    d = norm(mu, sigma)
    return d.logpdf(x) + norm(loc=mu).cdf(x) + FROZEN.pdf(x) + d.ppf(0.3) + FROZEN.sf(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_frozen_norm_in_and_outside_the_compiled_code(backend):
    x = np.array([-1.0, 0.2, 3.5])
    np.testing.assert_allclose(compiler.jit(_frozen_norms, backend=backend)(x, 0.3, 1.5),
                               _frozen_norms(x, 0.3, 1.5), rtol=1e-14)
    g = compiler.grad(lambda mu: np.sum(_frozen_norms(x, mu, 1.5)), backend="llvm")(0.3)
    assert g == pytest.approx(float(central_differences(
        lambda mu: np.sum(_frozen_norms(x, mu, 1.5)), [0.3])[0]), rel=1e-7)
