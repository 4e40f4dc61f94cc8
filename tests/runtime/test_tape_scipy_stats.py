"""scipy.stats log-densities on the tape (runtime/scipy_stats.py), whose scipy methods convert
Tensors: scipy's values (relative 1e-12) inside the support, at its edges, outside it (-inf)
and for invalid parameters (NaN), for numbers and broadcast arrays; gradients of every
continuous argument against central differences of scipy's own function; second order by
`gradcheck`. `dirichlet_logpdf`'s `x` lies on the simplex (differences leave it, and scipy
refuses that): its gradient is checked against the exact `(alpha - 1) / x`, and scipy's
errors are its errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from adlite.runtime import gradcheck, scipy_stats, tensor

from ..support.gradients import central_differences

X = np.array([0.15, 0.4, 0.55, 0.9])
EDGES = np.array([-1.0, 0.0, 0.3, 1.0, 2.5])
COUNTS = np.array([0.0, 1.0, 2.5, -1.0, 7.0])
ALPHA = np.array([1.5, 2.0, 0.7])
SIMPLEX = np.random.default_rng(3).dirichlet(ALPHA, 4).T


VALUES = {  # name -> (tape function, scipy's, arguments)
    "t": (scipy_stats.t_logpdf, scipy.stats.t.logpdf, (EDGES, 3.5, 0.2, 1.3)),
    "t_invalid": (scipy_stats.t_logpdf, scipy.stats.t.logpdf,
                  (EDGES, np.array([-1.0, 1.0, 2.0, 0.0, 3.0]), 0.0, 1.0)),
    "t_bad_scale": (scipy_stats.t_logpdf, scipy.stats.t.logpdf, (X, 2.0, 0.0, -1.0)),
    "gamma": (scipy_stats.gamma_logpdf, scipy.stats.gamma.logpdf, (EDGES, 2.5, -0.5, 2.0)),
    "gamma_below_one_at_0": (scipy_stats.gamma_logpdf, scipy.stats.gamma.logpdf, (EDGES, 0.5)),
    "gamma_one_at_0": (scipy_stats.gamma_logpdf, scipy.stats.gamma.logpdf, (EDGES, 1.0)),
    "gamma_invalid": (scipy_stats.gamma_logpdf, scipy.stats.gamma.logpdf,
                      (X, np.array([-1.0, 1.0, 0.0, 3.0]))),
    "beta": (scipy_stats.beta_logpdf, scipy.stats.beta.logpdf, (EDGES, 2.0, 3.0)),
    "beta_halves": (scipy_stats.beta_logpdf, scipy.stats.beta.logpdf, (EDGES, 0.5, 0.5)),
    "beta_uniform": (scipy_stats.beta_logpdf, scipy.stats.beta.logpdf, (EDGES, 1.0, 1.0)),
    "beta_loc_scale": (scipy_stats.beta_logpdf, scipy.stats.beta.logpdf,
                       (EDGES, 2.0, 3.0, -1.0, 3.0)),
    "beta_broadcast": (scipy_stats.beta_logpdf, scipy.stats.beta.logpdf,
                       (X[:, None], np.array([1.5, 2.0, 4.0]), 2.5)),
    "poisson": (scipy_stats.poisson_logpmf, scipy.stats.poisson.logpmf, (COUNTS, 2.3)),
    "poisson_zero_rate": (scipy_stats.poisson_logpmf, scipy.stats.poisson.logpmf,
                          (COUNTS, 0.0)),
    "poisson_loc": (scipy_stats.poisson_logpmf, scipy.stats.poisson.logpmf, (COUNTS, 2.3, 1)),
    "poisson_invalid": (scipy_stats.poisson_logpmf, scipy.stats.poisson.logpmf,
                        (COUNTS, -1.0)),
    "dirichlet": (scipy_stats.dirichlet_logpdf, scipy.stats.dirichlet.logpdf,
                  (np.array([0.2, 0.3, 0.5]), ALPHA)),
    "dirichlet_columns": (scipy_stats.dirichlet_logpdf, scipy.stats.dirichlet.logpdf,
                          (SIMPLEX, ALPHA)),
    "dirichlet_last_implied": (scipy_stats.dirichlet_logpdf, scipy.stats.dirichlet.logpdf,
                               (SIMPLEX[:-1], ALPHA)),
}


@pytest.mark.parametrize("name", VALUES)
def test_values_are_scipys(name):
    tape, reference, args = VALUES[name]
    out = tape(*(tensor(a) if isinstance(a, np.ndarray) else a for a in args))
    expected = reference(*args)
    assert out.dtype == np.float64 and out.shape == np.shape(expected)
    np.testing.assert_allclose(out.data, expected, rtol=1e-12, atol=0)


GRADIENTS = {  # name -> (tape function, scipy's, differentiated arguments, fixed ones)
    "t": (scipy_stats.t_logpdf, scipy.stats.t.logpdf, (X, 3.5, 0.2, 1.3), ()),
    "gamma": (scipy_stats.gamma_logpdf, scipy.stats.gamma.logpdf, (X, 2.5, -0.5, 2.0), ()),
    "beta": (scipy_stats.beta_logpdf, scipy.stats.beta.logpdf, (X, 2.5, 1.5, -0.1, 1.2), ()),
    "poisson_rate": (lambda mu, k: scipy_stats.poisson_logpmf(k, mu),
                     lambda mu, k: scipy.stats.poisson.logpmf(k, mu),
                     (np.array([0.5, 2.3, 4.0]),), (np.array([0.0, 3.0, 7.0]),)),
    "dirichlet_alpha": (lambda a, x: scipy_stats.dirichlet_logpdf(x, a),
                        lambda a, x: scipy.stats.dirichlet.logpdf(x, a), (ALPHA,), (SIMPLEX,)),
}


@pytest.mark.parametrize("name", GRADIENTS)
def test_gradients_match_differences_of_scipy(name):
    tape, reference, args, fixed = GRADIENTS[name]
    inputs = [tensor(a, requires_grad=True) for a in args]
    np.sum(tape(*inputs, *fixed)).backward()
    expected = central_differences(lambda *a: np.sum(reference(*a, *fixed)), args)
    for t, e in zip(inputs, expected, strict=True):
        np.testing.assert_allclose(t.grad.data, e, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", GRADIENTS)
def test_second_order(name):
    tape, _, args, fixed = GRADIENTS[name]
    assert gradcheck(lambda *a: tape(*a, *fixed), list(args), order=2)


def test_dirichlet_gradient_in_x_is_exact():
    x = tensor(SIMPLEX, requires_grad=True)
    np.sum(scipy_stats.dirichlet_logpdf(x, ALPHA)).backward()
    np.testing.assert_allclose(x.grad.data, (ALPHA[:, None] - 1.0) / SIMPLEX, rtol=1e-14)


def test_outside_the_support_the_gradient_is_zero():
    x = tensor(EDGES, requires_grad=True)
    np.sum(np.where(np.isfinite(scipy_stats.beta_logpdf(x, 2.0, 3.0)),
                    scipy_stats.beta_logpdf(x, 2.0, 3.0), 0.0)).backward()
    inside = (EDGES > 0) & (EDGES < 1)
    assert np.all(x.grad.data[~inside] == 0) and np.all(np.isfinite(x.grad.data))


DIRICHLET_ERRORS = {
    "off_the_simplex": np.array([0.2, 0.3, 0.6]),
    "negative": np.array([-0.2, 0.7, 0.5]),
    "wrong_length": np.array([0.5, 0.5]),
    "alpha_not_positive": np.array([0.2, 0.3, 0.5]),
}


@pytest.mark.parametrize("name", DIRICHLET_ERRORS)
def test_dirichlet_refuses_what_scipy_refuses(name):
    x = DIRICHLET_ERRORS[name]
    alpha = {"wrong_length": ALPHA[:1], "alpha_not_positive": -ALPHA}.get(name, ALPHA)
    with pytest.raises(ValueError):
        scipy.stats.dirichlet.logpdf(x, alpha)
    with pytest.raises(ValueError):
        scipy_stats.dirichlet_logpdf(tensor(x), alpha)
