"""`adlite.runtime.scipy` (runtime/scipy/): scipy's API on the tape. Each function and
distribution method it has gives scipy's value (several shapes, broadcasting, loc/scale) and
records: gradients against central differences of scipy's own function, second order by
`gradcheck`; the rest of scipy is re-exported; a method it lacks is refused naming itself;
the conversion errors name the equivalents it has (`foreign.ON_THE_TAPE`), which all exist.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.signal
import scipy.special
import scipy.stats

from adlite.runtime import foreign, gradcheck, tensor
from adlite.runtime import scipy as tape_scipy
from adlite.runtime.scipy import signal, special, stats

from ..support.gradients import central_differences

RNG = np.random.default_rng(11)


def _r(*shape):
    return RNG.standard_normal(shape)


def _pos(*shape):
    return RNG.standard_normal(shape) ** 2 + 1.1


U4 = RNG.uniform(0.05, 0.95, 4)
COUNTS = np.round(_r(4, 3) ** 2)
A44 = _r(4, 4)
COV = A44 @ A44.T + np.eye(4)

# name -> (the tape's function, scipy's, arguments, positions of the differentiated ones)
CASES = {
    "norm.pdf": (stats.norm.pdf, scipy.stats.norm.pdf, (_r(4, 3), _r(1, 3), _pos(4, 1)),
                 (0, 1, 2)),
    "norm.logsf": (stats.norm.logsf, scipy.stats.norm.logsf, (_r(4), _r(4), _pos(4)), (0, 1, 2)),
    "norm.entropy": (stats.norm.entropy, scipy.stats.norm.entropy, (_r(3), _pos(3)), (1,)),
    "t.pdf": (stats.t.pdf, scipy.stats.t.pdf, (_r(4, 3), _pos(1, 3) + 1, _r(4, 3), _pos(4, 1)),
              (0, 1, 2, 3)),
    "t.logpdf": (stats.t.logpdf, scipy.stats.t.logpdf, (_r(4), _pos(4) + 1, _r(4), _pos(4)),
                 (0, 1, 2, 3)),
    "t.cdf": (stats.t.cdf, scipy.stats.t.cdf, (_r(4, 3), _pos(1, 3) + 1, _r(4, 3), _pos(4, 1)),
              (0, 2, 3)),
    "t.logcdf": (stats.t.logcdf, scipy.stats.t.logcdf, (_r(4), _pos(4) + 1, _r(4), _pos(4)),
                 (0, 2)),
    "t.sf": (stats.t.sf, scipy.stats.t.sf, (_r(4), _pos(4) + 1, _r(4), _pos(4)), (0, 2, 3)),
    "chi2.pdf": (stats.chi2.pdf, scipy.stats.chi2.pdf, (_pos(4), np.array([1, 2, 3, 4])), (0,)),
    "chi2.logpdf": (stats.chi2.logpdf, scipy.stats.chi2.logpdf, (_pos(4), 3), (0,)),
    "chi2.cdf": (stats.chi2.cdf, scipy.stats.chi2.cdf, (_pos(2, 3), np.array([1, 2, 3])), (0,)),
    "gamma.pdf": (stats.gamma.pdf, scipy.stats.gamma.pdf, (_pos(4), _pos(4)), (0, 1)),
    "gamma.cdf": (stats.gamma.cdf, scipy.stats.gamma.cdf, (_pos(4), _pos(4), 0.5, 2.0), (0,)),
    "gamma.logcdf": (stats.gamma.logcdf, scipy.stats.gamma.logcdf, (_pos(4), _pos(4)), (0,)),
    "beta.logpdf": (stats.beta.logpdf, scipy.stats.beta.logpdf, (U4, _pos(4), _pos(4)),
                    (0, 1, 2)),
    "beta.cdf": (stats.beta.cdf, scipy.stats.beta.cdf, (U4, _pos(4), _pos(4)), (0,)),
    "poisson.pmf": (stats.poisson.pmf, scipy.stats.poisson.pmf, (COUNTS, _pos(4, 1)), (1,)),
    "poisson.cdf": (stats.poisson.cdf, scipy.stats.poisson.cdf, (COUNTS, _pos(4, 1)), (1,)),
    "poisson.logcdf": (stats.poisson.logcdf, scipy.stats.poisson.logcdf, (COUNTS, _pos(3)),
                       (1,)),
    "dirichlet.pdf": (stats.dirichlet.pdf, scipy.stats.dirichlet.pdf,
                      (np.array([0.2, 0.3, 0.5]), _pos(3)), (1,)),
    "multivariate_normal.pdf": (stats.multivariate_normal.pdf,
                                scipy.stats.multivariate_normal.pdf, (_r(5, 4), _r(4), COV),
                                (0, 1)),
    "multivariate_normal.logpdf": (stats.multivariate_normal.logpdf,
                                   scipy.stats.multivariate_normal.logpdf, (_r(4), _r(4), COV),
                                   (0, 1)),
    "multivariate_normal.entropy": (stats.multivariate_normal.entropy,
                                    scipy.stats.multivariate_normal.entropy, (_r(4), COV), ()),
    "logsumexp": (special.logsumexp, scipy.special.logsumexp, (_r(3, 4),), (0,)),
    "multigammaln": (lambda a: special.multigammaln(a, 3),
                     lambda a: scipy.special.multigammaln(a, 3), (RNG.uniform(4, 5, (2, 3)),),
                     (0,)),
    "polygamma": (lambda x: special.polygamma(1, x), lambda x: scipy.special.polygamma(1, x),
                  (_pos(4),), (0,)),
    "convolve_2d_full": (signal.convolve, scipy.signal.convolve, (_r(4, 3), _r(2, 2)), (0, 1)),
    "convolve_2d_valid": (lambda a, b: signal.convolve(a, b, "valid"),
                          lambda a, b: scipy.signal.convolve(a, b, "valid"),
                          (_r(5, 4), _r(3, 2)), (0, 1)),
    "convolve_same_swapped": (lambda a, b: signal.convolve(a, b, "same"),
                              lambda a, b: scipy.signal.convolve(a, b, "same"),
                              (_r(2, 3), _r(4, 3)), (0, 1)),
    "convolve_1d": (signal.convolve, scipy.signal.convolve, (_r(5), _r(3)), (0, 1)),
}


def _with_tensors(args, wrt):
    return [tensor(a, requires_grad=True) if i in wrt else a for i, a in enumerate(args)]


@pytest.mark.parametrize("name", CASES)
def test_values_are_scipys(name):
    tape, reference, args, wrt = CASES[name]
    out = tape(*_with_tensors(args, wrt))
    expected = reference(*args)
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(out.data, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", [n for n in CASES if CASES[n][3]])
def test_gradients_match_differences_of_scipy(name):
    tape, reference, args, wrt = CASES[name]
    inputs = _with_tensors(args, wrt)
    weights = RNG.standard_normal(np.shape(reference(*args)))
    np.sum(tape(*inputs) * weights).backward()

    def moved(*values):
        full = list(args)
        for i, v in zip(wrt, values, strict=True):
            full[i] = v
        return float(np.sum(reference(*full) * weights))

    expected = central_differences(moved, [args[i] for i in wrt])
    for i, e in zip(wrt, expected, strict=True):
        np.testing.assert_allclose(inputs[i].grad.data, e, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", [n for n in CASES if CASES[n][3]])
def test_second_order(name):
    tape, _, args, wrt = CASES[name]

    def of_differentiated(*values):
        full = list(args)
        for i, v in zip(wrt, values, strict=True):
            full[i] = v
        return tape(*full)

    assert gradcheck(of_differentiated, [args[i] for i in wrt], order=2)


def test_scipys_errors_are_its_errors():
    with pytest.raises(ValueError, match="not met"):
        special.multigammaln(np.array([0.5, 4.0]), 3)
    with pytest.raises(ValueError, match="same dimensionality"):
        signal.convolve(_r(3), _r(2, 2))
    with pytest.raises(ValueError, match="at least as large"):
        signal.convolve(_r(3, 2), _r(2, 3), "valid")


def test_shape_parameters_and_singular_covariances_are_refused():
    with pytest.raises(NotImplementedError, match="argument 0"):
        stats.gamma.cdf(_pos(3), tensor(_pos(3), requires_grad=True))
    with pytest.raises(NotImplementedError, match="allow_singular"):
        stats.multivariate_normal.logpdf(_r(4), _r(4), COV, allow_singular=True)


def test_the_rest_of_scipy_is_scipys_and_missing_methods_name_themselves():
    assert special.iv is scipy.special.iv and stats.expon is scipy.stats.expon
    assert tape_scipy.linalg.sqrtm is scipy.linalg.sqrtm
    with pytest.raises(stats.NotOnTapeError, match=r"scipy\.stats\.norm\.rvs"):
        stats.norm.rvs  # noqa: B018
    assert not hasattr(stats.t, "ppf")


@pytest.mark.parametrize("name", foreign.ON_THE_TAPE)
def test_every_equivalent_the_conversion_error_names_exists(name):
    obj = tape_scipy
    for part in name.split("."):
        obj = getattr(obj, part)
    assert callable(obj)


def test_scipys_own_function_on_a_tensor_names_the_tape_equivalent():
    with pytest.raises(foreign.ConversionError, match=r"adlite\.runtime\.scipy\.special\."
                                                      "multigammaln"):
        scipy.special.multigammaln(tensor(_pos(3) + 4, requires_grad=True), 2)
