"""scipy.stats t, chi2, gamma, beta, poisson and dirichlet densities, multivariate_normal's
entropy and its singular covariances in compiled code: values against scipy's (NaN for invalid
parameters, -inf / 0 outside the support, broadcasting, loc / scale by position and keyword,
frozen distributions), scipy's ValueErrors, gradients in every continuous argument against
central differences and the eager tape, forward mode, Hessians."""

import numpy as np
import pytest
from scipy import stats

from adlite import compiler
from adlite.compiler.errors import AdliteSyntaxError
from adlite.runtime import Tensor
from adlite.runtime import scipy_stats as tape_stats

from ..support.gradients import fd_hessian
from ..support.library_checks import BACKENDS, case_ids, case_tests, check_values

RNG = np.random.default_rng(11)
INF, NAN = np.inf, np.nan


def positive(*shape):
    return RNG.standard_normal(shape) ** 2 + 1.1


def t_all(x, df, loc, scale):
    return stats.t.logpdf(x, df, loc, scale)


def t_pdf_keywords(x, df, loc, scale):
    return stats.t.pdf(x, df, loc=loc, scale=scale)


def chi2_logpdf(x, df):
    return stats.chi2.logpdf(x, df)


def chi2_pdf_scaled(x, df, scale):
    return stats.chi2.pdf(x, df, 0.5, scale)


def gamma_logpdf(x, a):
    return stats.gamma.logpdf(x, a)


def gamma_pdf_loc(x, a, loc):
    return stats.gamma.pdf(x, a, loc=loc, scale=2.0)


def beta_logpdf(x, a, b):
    return stats.beta.logpdf(x, a, b)


def beta_pdf(x, a, b, scale):
    return stats.beta.pdf(x, a, b, scale=scale)


def poisson_logpmf(k, mu):
    return stats.poisson.logpmf(k, mu)


def poisson_pmf(k, mu):
    return stats.poisson.pmf(k, mu, loc=1.0)


def frozen(x, df, a):
    return stats.t(df, loc=0.5).logpdf(x) + stats.gamma(a).pdf(x ** 2) + \
        stats.beta(a, 2.0).logpdf(0.25 * np.tanh(x) + 0.5)


COUNTS = np.round(RNG.standard_normal((4, 3)) ** 2 * 3.0).astype(np.int64)
CASES = [
    (t_all, (RNG.standard_normal(4), positive(4) + 1.0, RNG.standard_normal(4), positive(4))),
    (t_all, (RNG.standard_normal((4, 3)), positive(1, 3), RNG.standard_normal((4, 3)),
             positive(4, 1))),
    (t_pdf_keywords, (RNG.standard_normal(5), 3.5, 0.2, positive(5))),
    (chi2_logpdf, (positive(4), positive(4))),
    (chi2_pdf_scaled, (positive(3, 2) + 0.5, positive(2), 1.5)),
    (gamma_logpdf, (positive(4), positive(4))),
    (gamma_pdf_loc, (positive(2, 3) + 1.0, positive(3), 0.5)),
    (beta_logpdf, (RNG.uniform(0.05, 0.95, 4), positive(4), positive(4))),
    (beta_pdf, (RNG.uniform(0.05, 0.95, (3, 2)), positive(2), 1.7, 1.2)),
    (poisson_logpmf, (COUNTS, positive(4, 1))),
    (poisson_pmf, (COUNTS + 1, positive(3))),
    (frozen, (RNG.standard_normal(3), 4.5, 2.5)),
]
IDS = case_ids(CASES)
test_values, test_gradients, test_forward = case_tests(CASES, IDS, rtol=1e-13, atol=1e-300)


EDGES = {
    "t": (t_all, (np.array([0.0, 1.0, INF, NAN, 1.0, 1.0, 1.0, 0.3, -2.0]),
                  np.array([INF, INF, 3.0, 3.0, 0.0, -1.0, NAN, 1e5, 2.0]), 0.0,
                  np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]))),
    "chi2": (chi2_logpdf, (np.array([0.0, 0.0, 0.0, -1.0, INF, 1.0, 1.0, NAN]),
                           np.array([1.0, 2.0, 3.0, 3.0, 3.0, INF, 0.0, 2.0]))),
    "gamma": (gamma_logpdf, (np.array([0.0, 0.0, 0.0, -1.0, INF, 1.0, 1.0]),
                             np.array([1.0, 0.5, 3.0, 3.0, 3.0, INF, -2.0]))),
    "beta": (beta_logpdf, (np.array([0.0, 0.0, 0.0, 1.0, 1.0, -0.1, 1.1, 0.5, 0.5]),
                           np.array([1.0, 0.5, 3.0, 1.0, 1.0, 2.0, 2.0, INF, 0.0]),
                           np.array([1.0, 1.0, 1.0, 0.5, 3.0, 2.0, 2.0, 1.0, 1.0]))),
    "beta pdf": (beta_pdf, (np.array([0.0, 0.0, 0.0, 1.0, -0.1, 0.5]),
                            np.array([1.0, 0.5, 3.0, 1.0, 2.0, 2.0]),
                            np.array([1.0, 1.0, 1.0, 3.0, 2.0, 2.0]), 1.0)),
    "poisson": (poisson_logpmf, (np.array([0.0, 1.0, -1.0, 1.5, 3.0, 3.0, INF, 3.0, NAN]),
                                 np.array([0.0, 0.0, 2.0, 2.0, 2.0, -1.0, 2.0, INF, 2.0]))),
    "poisson pmf": (poisson_pmf, (np.array([1.0, 2.0, 0.0, 2.5]),
                                  np.array([0.0, 0.0, 2.0, 2.0]))),
    "int counts": (poisson_logpmf, (np.array([0, 1, 7]), 2.5)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(EDGES))
def test_invalid_parameters_and_support_edges_are_scipys(case, backend):
    fn, args = EDGES[case]
    with np.errstate(all="ignore"):
        expected = fn(*args)
        np.testing.assert_allclose(compiler.jit(fn, backend=backend)(*args), expected,
                                   rtol=1e-14, atol=0)  # NaN and infinities where scipy's


def _scalar(x, a):
    return stats.gamma.logpdf(x, a), stats.t.pdf(x, a), stats.poisson.pmf(3, a)


def test_numbers_give_numbers():
    got, expected = compiler.jit(_scalar)(1.5, 2.5), _scalar(1.5, 2.5)
    for g, e in zip(got, expected, strict=True):
        assert isinstance(g, float) and g == pytest.approx(e, rel=1e-13)


GAMMA_FROZEN = stats.gamma(2.0, scale=3.0)


def _frozen_outside(x):
    return GAMMA_FROZEN.logpdf(x)


def test_a_frozen_distribution_made_outside_is_read():
    x = positive(4)
    np.testing.assert_allclose(compiler.jit(_frozen_outside)(x), GAMMA_FROZEN.logpdf(x),
                               rtol=1e-14)


def _t_large_df(x, df):
    return stats.t.logpdf(x, df)


def test_t_with_large_degrees_of_freedom_does_not_cancel():
    # beyond df = 2e4 both take poch's series (below, gammaln's difference: ulps of 1e5 apart)
    x, df = np.array([1.0, -3.0, 0.5, 2.0]), np.array([2.00002e4, 1e8, 1e15, 1e300])
    np.testing.assert_allclose(compiler.jit(_t_large_df)(x, df), stats.t.logpdf(x, df),
                               rtol=1e-14)


def _shapes_mismatch(x, df):
    return stats.t.logpdf(x, df)


def test_shapes_that_do_not_broadcast_are_refused_with_numpys_message():
    with pytest.raises(AdliteSyntaxError, match="shape mismatch") as info:
        compiler.jit(_shapes_mismatch)(np.zeros(3), np.ones(4))
    assert isinstance(info.value, ValueError)


TAPE = [("t", t_all, tape_stats.t_logpdf, (0.3, 3.5, -0.2, 1.7)),
        ("gamma", gamma_logpdf, tape_stats.gamma_logpdf, (2.2, 1.8)),
        ("beta", beta_logpdf, tape_stats.beta_logpdf, (0.3, 1.8, 2.6)),
        ("poisson", poisson_logpmf, tape_stats.poisson_logpmf, (4.0, 2.6))]


@pytest.mark.parametrize("name,fn,taped,args", TAPE, ids=[t[0] for t in TAPE])
def test_gradients_equal_the_eager_tapes(name, fn, taped, args):
    wrt = tuple(range(1 if name == "poisson" else 0, len(args)))
    compiled = compiler.grad(fn, wrt=wrt)(*args)
    tensors = [Tensor(np.array(a), requires_grad=True) for a in args]
    taped(*tensors).backward()
    for k, g in zip(wrt, compiled, strict=True):
        np.testing.assert_allclose(g, tensors[k].grad.item(), rtol=1e-12)


def _t_sum(v):
    return np.sum(stats.t.logpdf(v[:2], v[2], v[3], v[4]) + stats.beta.logpdf(v[5], v[2],
                                                                                v[4]))


def test_hessians_against_second_differences():
    v = np.array([0.3, -0.4, 3.5, 0.2, 1.4, 0.35])
    np.testing.assert_allclose(compiler.hessian(_t_sum)(v),
                               fd_hessian(_t_sum, v), rtol=1e-5, atol=1e-5)


ALPHA = RNG.random(4) ** 2 + 1.2


def dirichlet_logpdf(x, alpha):
    return stats.dirichlet.logpdf(x, alpha)


def dirichlet_normalized(x, alpha):
    return stats.dirichlet.logpdf(x / np.sum(x), alpha)


def dirichlet_pdf(x, alpha):
    return stats.dirichlet.pdf(x / np.sum(x), alpha)


def dirichlet_columns(x, alpha):
    return stats.dirichlet.logpdf(x / np.sum(x, axis=0), alpha)


DIRICHLET = [(dirichlet_normalized, (RNG.dirichlet(ALPHA), ALPHA)),
             (dirichlet_logpdf, (RNG.dirichlet(ALPHA)[:3], ALPHA)),
             (dirichlet_pdf, (RNG.dirichlet(ALPHA), ALPHA)),
             (dirichlet_columns, (RNG.dirichlet(ALPHA, 5).T, ALPHA)),
             (dirichlet_logpdf, (RNG.dirichlet(ALPHA, 5).T[:3], ALPHA)),
             (dirichlet_columns, (RNG.dirichlet(ALPHA, 1).T, ALPHA))]
DIRICHLET_IDS = case_ids(DIRICHLET)
test_dirichlet_values, test_dirichlet_gradients, test_dirichlet_forward = case_tests(
    DIRICHLET, DIRICHLET_IDS, rtol=1e-13, atol=0)


@pytest.mark.parametrize("x,alpha,message", [
    (np.array([0.5, 0.6, -0.1, 0.0]), ALPHA, "greater than or equal to zero"),
    (np.array([0.5, 0.6, 0.1, 0.0]), ALPHA, "normal simplex. but np.sum(x, 0) = 1.2"),
    (np.array([0.5, 0.0, 0.5, 0.0]), np.array([1.0, 0.5, 2.0, 2.0]), "if its alpha is less"),
    (np.array([0.5, 0.3, 0.2, 0.0]), -ALPHA, "All parameters must be greater than 0"),
], ids=["negative", "off the simplex", "zero at a small alpha", "alpha"])
def test_dirichlet_raises_scipys_value_errors_at_run_time(x, alpha, message):
    for fn in (dirichlet_logpdf, compiler.jit(dirichlet_logpdf)):
        with pytest.raises(ValueError) as info:
            fn(x, alpha)
        assert message in str(info.value)


def test_dirichlet_shapes_scipy_rejects_are_refused_with_its_message():
    with pytest.raises(AdliteSyntaxError, match="one entry fewer than") as info:
        compiler.jit(dirichlet_logpdf)(np.ones(2) / 2, ALPHA)
    assert isinstance(info.value, ValueError)


def entropy(mean, cov):
    return stats.multivariate_normal.entropy(mean, cov) + \
        stats.multivariate_normal.entropy(mean, cov=np.diag(cov)) + \
        stats.multivariate_normal.entropy(mean[0], cov[0, 0]) + \
        stats.multivariate_normal.entropy(cov=cov[:2, :2])


FACTOR = RNG.standard_normal((4, 4))
COV = FACTOR @ FACTOR.T + np.eye(4)
test_entropy_values, test_entropy_gradients, test_entropy_forward = case_tests(
    [(entropy, (RNG.standard_normal(4), COV))], ["entropy"], rtol=1e-13, atol=0)


SINGULAR = np.diag([1.0, 2.0, 0.0, 0.0])
SINGULAR[0, 1] = SINGULAR[1, 0] = 0.5


def singular(x, mean, cov):
    return stats.multivariate_normal.logpdf(x, mean, cov, allow_singular=True)


def singular_pdf(x, mean):
    x = np.concatenate([x[:2], mean[2:]])
    return stats.multivariate_normal(mean, SINGULAR, allow_singular=True).pdf(x)


def test_singular_covariances_are_scipys():
    points = RNG.standard_normal((6, 4))
    points[:4, 2:] = 0.0  # the first four in the support, the last two outside it
    mean = np.zeros(4)
    for cov in (SINGULAR, COV, np.zeros((4, 4))):
        np.testing.assert_allclose(compiler.jit(singular)(points, mean, cov),
                                   singular(points, mean, cov), rtol=1e-12)


test_singular_values, test_singular_gradients, test_singular_forward = case_tests(
    [(singular_pdf, (np.concatenate([RNG.standard_normal(2), [0.0, 0.0]]),
                     np.concatenate([RNG.standard_normal(2), [0.0, 0.0]]))),
     (singular, (RNG.standard_normal((3, 4)), RNG.standard_normal(4), COV))],
    ["singular", "regular"], rtol=1e-12, atol=0)


@pytest.mark.parametrize("cov,message", [
    (-np.eye(2), "symmetric positive semidefinite"),
    (np.array([[1.0, NAN], [NAN, 1.0]]), "must not contain infs or NaNs")])
def test_singular_covariances_raise_scipys_value_errors(cov, message):
    for fn in (singular, compiler.jit(singular)):
        with pytest.raises(ValueError, match=message):
            fn(np.zeros(2), np.zeros(2), cov)


def test_values_on_the_python_backend_too():
    check_values(singular, (RNG.standard_normal((3, 4)), np.zeros(4), SINGULAR), "python",
                 rtol=1e-12, atol=0)
