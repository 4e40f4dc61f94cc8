"""scipy.special and scipy.stats.norm in compiled code: values against scipy's, gradients
against central differences and the eager tape (both backends), forward mode and Hessians,
every way of naming the functions, and scipy staying an optional, lazily imported extra."""

import subprocess
import sys

import numpy as np
import pytest
import scipy
import scipy.special
import scipy.special as sc
import scipy.stats
from scipy.special import gammaln, logsumexp, ndtr
from scipy.stats import norm

from adlite import compiler
from adlite.runtime import special as tape_special
from adlite.runtime import tensor

from ..support.gradients import central_differences

BACKENDS = ["llvm", "python"]
X = np.array([-40.0, -9.5, -3.2, -0.6, -1e-3, 0.0, 0.4, 0.7071, 1.9, 6.5, 38.0])


def _elementwise(x):
    return (sc.erf(x), sc.erfc(x), ndtr(x), sc.expit(x), scipy.special.ndtr(x * 0.5))


@pytest.mark.parametrize("backend", BACKENDS)
def test_elementwise_values_are_scipys(backend):
    compiled = compiler.jit(_elementwise, backend=backend)(X)
    for c, e in zip(compiled, _elementwise(X), strict=True):
        np.testing.assert_allclose(c, e, rtol=2e-14, atol=0)  # glibc's erfc vs scipy's


def _positive(x):
    return gammaln(x), sc.digamma(x), sc.logit(x / (1.0 + x)), sc.xlogy(x, x + 0.5)


POSITIVE = np.array([1e-8, 0.3, 1.0, 1.4616321449683622, 2.0, 9.99, 10.0, 123.4, 1e6])


@pytest.mark.parametrize("backend", BACKENDS)
def test_gammaln_digamma_logit_xlogy_values_are_scipys(backend):
    compiled = compiler.jit(_positive, backend=backend)(POSITIVE)
    expected = _positive(POSITIVE)
    for c, e in zip(compiled, expected, strict=True):
        np.testing.assert_allclose(c, e, rtol=1e-13, atol=1e-15)


def _digamma(x):
    return sc.digamma(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_digamma_to_1e_13_everywhere_and_nan_at_the_poles(backend):
    x = np.concatenate([np.linspace(-30.3, 30.7, 2001), [1e-300, 5e-5, 1e15, -7.25, -1e10 + 0.5]])
    compiled = compiler.jit(_digamma, backend=backend)(x)
    expected = sc.digamma(x)
    np.testing.assert_allclose(compiled, expected, rtol=1e-13, atol=2e-14)
    poles = np.array([0.0, -0.0, -1.0, -2.0, -1e20, -np.inf, np.nan, np.inf])
    np.testing.assert_array_equal(compiler.jit(_digamma, backend=backend)(poles),
                                  sc.digamma(poles))


def _edge(x, y):
    return sc.xlogy(x, y), gammaln(y)


@pytest.mark.parametrize("backend", BACKENDS)
def test_edges_as_scipy(backend):
    x = np.array([0.0, 0.0, 0.0, 2.0, 1.0])
    y = np.array([0.0, np.nan, -1.0, 0.0, -3.0])
    with np.errstate(all="ignore"):
        expected = _edge(x, y)
        compiled = compiler.jit(_edge, backend=backend)(x, y)
    for c, e in zip(compiled, expected, strict=True):
        np.testing.assert_array_equal(c, e)


def _reductions(x):
    return (logsumexp(x), logsumexp(x, axis=1), logsumexp(x, axis=0, keepdims=True),
            sc.softmax(x), sc.softmax(x, axis=1), scipy.special.softmax(x, 0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_logsumexp_and_softmax_are_scipys(backend):
    x = np.array([[1000.0, 1001.0, 999.0], [-2.0, 0.5, 3.0]])
    for c, e in zip(compiler.jit(_reductions, backend=backend)(x), _reductions(x),
                    strict=True):
        np.testing.assert_allclose(c, e, rtol=1e-14)


def _distribution(x, loc, scale):
    return (norm.cdf(x), norm.cdf(x, loc, scale), norm.pdf(x, loc=loc, scale=scale),
            norm.logpdf(x, scale=scale), scipy.stats.norm.pdf(x), norm.logpdf(x, loc))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scale", [1.7, 0.0, -1.0])
def test_norm_methods_are_scipys_with_loc_and_scale(backend, scale):
    x = np.array([-3.0, -0.2, 0.0, 1.5, 9.0])
    with np.errstate(all="ignore"):
        expected = _distribution(x, 0.3, scale)
    compiled = compiler.jit(_distribution, backend=backend)(x, 0.3, scale)
    for c, e in zip(compiled, expected, strict=True):
        np.testing.assert_allclose(c, e, rtol=1e-14, atol=1e-300)


def _model(x, loc, scale):
    z = norm.cdf(x, loc, scale) + norm.logpdf(x, loc=loc, scale=scale) * 0.3
    return np.sum(z + sc.erf(x) * gammaln(x * x + 1.0) + sc.xlogy(x * x, scale)
                  + ndtr(x - loc) + sc.expit(x) * sc.logit(sc.expit(x * 0.5)) + norm.pdf(x))


def _taped_model(x, loc, scale):
    s = tape_special
    z = s.norm_cdf(x, loc, scale) + s.norm_logpdf(x, loc, scale) * 0.3
    return (z + s.erf(x) * s.gammaln(x * x + 1.0) + s.xlogy(x * x, scale) + s.ndtr(x - loc)
            + sc.expit(x) * sc.logit(sc.expit(x * 0.5)) + s.norm_pdf(x)).sum()


ARGS = (np.array([-1.3, 0.2, 0.9, 2.5]), np.array(0.4), np.array(1.3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_against_differences_and_the_tape(backend):
    x, loc, scale = ARGS
    compiled = compiler.grad(_model, wrt=(0, 1, 2), backend=backend)(x, float(loc),
                                                                       float(scale))
    tensors = [tensor(a, requires_grad=True) for a in ARGS]
    _taped_model(*tensors).backward()
    for c, d, t in zip(compiled, central_differences(_model, list(ARGS)), tensors, strict=True):
        np.testing.assert_allclose(c, d, rtol=1e-7, atol=1e-7)
        np.testing.assert_allclose(c, t.grad.data, rtol=1e-12, atol=1e-14)


def test_forward_mode_against_directional_differences():
    x, loc, scale = ARGS
    primals = (x, float(loc), float(scale))
    directions = (np.array([0.3, -1.0, 0.5, 2.0]), 0.7, -0.4)
    value, tangent = compiler.jvp(_model, primals, directions)
    eps = 1e-6
    moved = [np.asarray(p) + eps * np.asarray(d) for p, d in zip(primals, directions,
                                                                 strict=True)]
    back = [np.asarray(p) - eps * np.asarray(d) for p, d in zip(primals, directions,
                                                                strict=True)]
    assert value == pytest.approx(_model(*primals), rel=1e-14)
    assert tangent == pytest.approx((_model(*moved) - _model(*back)) / (2 * eps), rel=1e-7)


def _gammaln_sum(x):
    return np.sum(gammaln(x) + sc.erf(x))


def test_hessian_of_gammaln_and_erf_is_diagonal_trigamma_and_erf_second_derivative():
    x = np.array([0.3, 1.7, 4.2, 12.5])
    expected = np.diag(sc.polygamma(1, x) - 4.0 / np.sqrt(np.pi) * x * np.exp(-x * x))
    np.testing.assert_allclose(compiler.hessian(_gammaln_sum)(x), expected, rtol=1e-13,
                               atol=1e-15)


def test_third_derivatives_of_gammaln_on_the_tape_are_polygamma_2():
    t = tensor(np.array([1.5, 2.5]), requires_grad=True)
    from adlite.runtime import autograd

    (g,) = autograd.grad(tape_special.gammaln(t).sum(), [t], create_graph=True)
    (h,) = autograd.grad(g.sum(), [t], create_graph=True)
    np.testing.assert_allclose(h.data, sc.polygamma(1, t.data), rtol=1e-14)
    (third,) = autograd.grad(h.sum(), [t])
    np.testing.assert_allclose(third.data, sc.polygamma(2, t.data), rtol=1e-12)


def _black_scholes(spot, strike, t, r, sigma):
    d1 = (np.log(spot / strike) + (r + 0.5 * sigma ** 2) * t) / (sigma * np.sqrt(t))
    d2 = d1 - sigma * np.sqrt(t)
    return spot * norm.cdf(d1) - strike * np.exp(-r * t) * norm.cdf(d2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_black_scholes_delta_is_ndtr_of_d1(backend):
    """`norm.cdf` used to stop compilation ("numbers have no attributes")."""
    args = (100.0, 95.0, 0.5, 0.02, 0.3)
    assert compiler.jit(_black_scholes, backend=backend)(*args) == \
        pytest.approx(_black_scholes(*args), rel=1e-14)
    d1 = (np.log(100.0 / 95.0) + (0.02 + 0.045) * 0.5) / (0.3 * np.sqrt(0.5))
    assert compiler.grad(_black_scholes, backend=backend)(*args) == \
        pytest.approx(sc.ndtr(d1), rel=1e-13)


def _log_ndtr(x):
    return sc.log_ndtr(x)


def _log_ndtr_sum(x):
    return np.sum(sc.log_ndtr(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_log_ndtr_is_scipys_in_the_tails_too(backend):
    x = np.array([-1e8, -1e3, -40.0, -20.000001, -20.0, -19.99, -5.0, 0.0, 5.9, 6.0, 6.1, 30.0,
                  40.0])
    np.testing.assert_allclose(compiler.jit(_log_ndtr, backend=backend)(x), sc.log_ndtr(x),
                               rtol=5e-14, atol=0)  # as ndtr: glibc's erfc vs scipy's
    x = np.array([-60.0, -25.0, -19.0, -2.0, 0.5, 7.0])
    expected = np.exp(norm.logpdf(x) - sc.log_ndtr(x))  # d/dx log ndtr = pdf / ndtr
    np.testing.assert_allclose(compiler.grad(_log_ndtr_sum, backend=backend)(x), expected,
                               rtol=1e-12)
    t = tensor(x, requires_grad=True)
    sc.log_ndtr(t).sum().backward()
    np.testing.assert_allclose(t.grad.data, expected, rtol=1e-12)


def test_scipy_is_imported_only_by_the_users_program():
    code = ("import sys, numpy as np\n"
            "import adlite.compiler, adlite.runtime\n"
            "from adlite.compiler import jit\n"
            "exec(compile('def f(x):\\n    return np.sum(np.sin(x))\\n', '<f>', 'exec'))\n"
            "assert not any(m.split('.')[0] == 'scipy' for m in sys.modules), 'imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)
