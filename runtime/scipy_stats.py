"""Log-densities of scipy.stats distributions on the eager tape, for programs that call them
on Tensors (scipy's own methods convert their arguments with `np.asarray`: see `foreign`).

Contract: `t_logpdf(x, df, loc, scale)`, `gamma_logpdf(x, a, loc, scale)`,
`beta_logpdf(x, a, b, loc, scale)`, `poisson_logpmf(k, mu, loc)` and
`dirichlet_logpdf(x, alpha)`, `chi2_logpdf(x, df, loc, scale)` and the distribution functions
`t_cdf`, `gamma_cdf`, `beta_cdf`, `poisson_cdf`, `chi2_cdf` (the same arguments) take scipy's
arguments (tensors, arrays or numbers, broadcast
against each other) and give scipy's values in double: the log-density inside the support,
`-inf` outside it (`x` out of range, a non-integer or negative count; a distribution
function: 0 below the support, 1 above it), NaN for invalid
parameters (`df`, `a`, `b`, `scale` not positive; `mu` negative); `dirichlet_logpdf` takes
`x` with the categories along its first axis (one vector or columns of them; one category
fewer than `alpha`: the last is 1 minus the others' sum, as scipy) and raises scipy's
ValueError when `x` does not match `alpha`, is not on the simplex or `alpha` not positive.
They are composites of the tape's functions (`gammaln`, `xlogy`, `log1p`, `where`), so every
continuous argument of a density is differentiable, to any order; the distribution functions
are scipy's own (`stdtr`, a primitive here whose derivative in `t` is the density, and
`special_ufuncs`' `gammainc`, `gammaincc`, `betainc`), differentiable in `x`, `loc`,
`scale` and the Poisson `mu`, not in the shape parameters (NotImplementedError when one
requires grad). Elements
outside the support or with invalid parameters take constants through `where`, whose
gradient there is 0; `xlogy(0, 0)` is 0 without numpy's warnings, as scipy's.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import functional as F
from . import special, special_ufuncs

_NAN, _NEG_INF = np.float64(math.nan), np.float64(-math.inf)


def _quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` without numpy's warnings for the `0 * log(0)` that `xlogy` selects away."""

    @functools.wraps(fn)
    def call(*args: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return fn(*args)

    return call


def _doubles(*values: Any) -> list[Any]:
    tensors = [F.astype(F.constant(v), np.float64) for v in values]
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    return [F.broadcast_to(t, shape) for t in tensors]


def _safe(value: Any, ok: np.ndarray, fill: float) -> Any:
    """`value` where `ok`, `fill` elsewhere (so that nothing outside the domain is computed)."""
    return F.where(ok, value, np.float64(fill))


def _masked(value: Any, valid: np.ndarray, inside: np.ndarray) -> Any:
    """`value` where the parameters are `valid` and x is `inside` the support; -inf outside
    it, NaN for invalid parameters."""
    return F.where(valid, F.where(inside, value, _NEG_INF), _NAN)


def _standardized(x: Any, loc: Any, scale: Any, positive: np.ndarray) -> Any:
    return (x - loc) / _safe(scale, positive, 1.0)


@_quiet
def t_logpdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """scipy.stats.t.logpdf."""
    x, df, loc, scale = _doubles(x, df, loc, scale)
    valid = (df.data > 0) & (scale.data > 0)
    df_ = _safe(df, valid, 1.0)
    z = _standardized(x, loc, scale, valid)
    value = (special.gammaln((df_ + 1.0) / 2.0) - special.gammaln(df_ / 2.0)
             - 0.5 * F.log(df_ * math.pi) - (df_ + 1.0) / 2.0 * F.log1p(z * z / df_)
             - F.log(_safe(scale, valid, 1.0)))
    return _masked(value, valid, np.ones(value.shape, bool))


@_quiet
def gamma_logpdf(x: Any, a: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """scipy.stats.gamma.logpdf."""
    x, a, loc, scale = _doubles(x, a, loc, scale)
    valid = (a.data > 0) & (scale.data > 0)
    y = _standardized(x, loc, scale, valid)
    inside = y.data >= 0
    a_, y_ = _safe(a, valid, 1.0), _safe(y, inside, 1.0)
    value = (special.xlogy(a_ - 1.0, y_) - y_ - special.gammaln(a_)
             - F.log(_safe(scale, valid, 1.0)))
    return _masked(value, valid, inside)


@_quiet
def beta_logpdf(x: Any, a: Any, b: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """scipy.stats.beta.logpdf."""
    x, a, b, loc, scale = _doubles(x, a, b, loc, scale)
    valid = (a.data > 0) & (b.data > 0) & (scale.data > 0)
    y = _standardized(x, loc, scale, valid)
    inside = (y.data >= 0) & (y.data <= 1)
    a_, b_, y_ = _safe(a, valid, 1.0), _safe(b, valid, 1.0), _safe(y, inside, 0.5)
    log_beta = special.gammaln(a_) + special.gammaln(b_) - special.gammaln(a_ + b_)
    value = (special.xlogy(a_ - 1.0, y_) + special.xlogy(b_ - 1.0, 1.0 - y_) - log_beta
             - F.log(_safe(scale, valid, 1.0)))
    return _masked(value, valid, inside)


@_quiet
def poisson_logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """scipy.stats.poisson.logpmf (the count `k` is not differentiated)."""
    k, mu, loc = _doubles(k, mu, loc)
    k = F.constant(k.data - loc.data)
    valid = mu.data >= 0
    inside = (k.data >= 0) & (k.data == np.floor(k.data))
    k_, mu_ = _safe(k, inside, 0.0), _safe(mu, valid, 1.0)
    value = special.xlogy(k_, mu_) - special.gammaln(k_ + 1.0) - mu_
    return _masked(value, valid, inside)


@_quiet
def dirichlet_logpdf(x: Any, alpha: Any) -> Any:
    """scipy.stats.dirichlet.logpdf: `x` of shape (K,) or (K, N), `alpha` of shape (K,)."""
    x, alpha = (F.astype(F.constant(v), np.float64) for v in (x, alpha))
    if alpha.ndim == 1 and x.ndim in (1, 2) and x.shape[0] + 1 == alpha.shape[0]:
        x = F.concatenate([x, 1.0 - F.sum(x, axis=0, keepdims=True)], 0)  # scipy's last entry
    if alpha.ndim != 1 or x.ndim not in (1, 2) or x.shape[0] != alpha.shape[0]:
        raise ValueError(f"Vector 'x' must have either the same number of entries as, or one "
                         f"entry fewer than, parameter vector 'a', but alpha.shape = "
                         f"{alpha.shape} and x.shape = {x.shape}.")
    if np.min(x.data) < 0 or np.max(x.data) > 1:
        raise ValueError("Each entry in 'x' must be between zero and one.")
    if np.any(np.abs(np.sum(x.data, axis=0) - 1.0) > 10e-10):
        raise ValueError("The input vector 'x' must lie within the normal simplex. but "
                         f"np.sum(x, 0) = {np.sum(x.data, axis=0)}.")
    if np.any(alpha.data <= 0):
        raise ValueError("All parameters must be greater than 0")
    weights = F.reshape(alpha, alpha.shape + (1,) * (x.ndim - 1)) - 1.0
    log_norm = F.sum(special.gammaln(alpha)) - special.gammaln(F.sum(alpha))
    return F.sum(special.xlogy(weights, x), axis=0) - log_norm


stdtr = special_ufuncs.scipy_function(
    "stdtr", "StdtrBackward0", lambda df, t, out: (None, F.exp(t_logpdf(t, df))), fixed=(0,))


def _cdf(value: Any, valid: np.ndarray, below: np.ndarray, above: np.ndarray) -> Any:
    """A distribution function: `value` inside the support, 0 below it, 1 above it, NaN for
    invalid parameters."""
    inside = F.where(below, np.float64(0.0), F.where(above, np.float64(1.0), value))
    return F.where(valid, inside, _NAN)


@_quiet
def t_cdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """scipy.stats.t.cdf (`df` is not differentiated)."""
    x, df, loc, scale = _doubles(x, df, loc, scale)
    valid = (df.data > 0) & (scale.data > 0)
    z = _standardized(x, loc, scale, valid)
    never = np.zeros(z.shape, bool)
    return _cdf(stdtr(_safe(df, valid, 1.0), z), valid, never, never)


@_quiet
def gamma_cdf(x: Any, a: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """scipy.stats.gamma.cdf (`a` is not differentiated)."""
    x, a, loc, scale = _doubles(x, a, loc, scale)
    valid = (a.data > 0) & (scale.data > 0)
    y = _standardized(x, loc, scale, valid)
    below = y.data < 0
    value = special_ufuncs.gammainc(_safe(a, valid, 1.0), _safe(y, ~below, 1.0))
    return _cdf(value, valid, below, np.zeros(y.shape, bool))


@_quiet
def beta_cdf(x: Any, a: Any, b: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """scipy.stats.beta.cdf (`a` and `b` are not differentiated)."""
    x, a, b, loc, scale = _doubles(x, a, b, loc, scale)
    valid = (a.data > 0) & (b.data > 0) & (scale.data > 0)
    y = _standardized(x, loc, scale, valid)
    below, above = y.data < 0, y.data > 1
    value = special_ufuncs.betainc(_safe(a, valid, 1.0), _safe(b, valid, 1.0),
                                   _safe(y, ~(below | above), 0.5))
    return _cdf(value, valid, below, above)


@_quiet
def poisson_cdf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """scipy.stats.poisson.cdf: gammaincc(floor(k - loc) + 1, mu) (`k` is not
    differentiated)."""
    k, mu, loc = _doubles(k, mu, loc)
    count = np.floor(k.data - loc.data)
    valid, below = mu.data >= 0, count < 0
    value = special_ufuncs.gammaincc(F.constant(np.where(below, 0.0, count) + 1.0),
                                     _safe(mu, valid, 1.0))
    return _cdf(value, valid, below, np.zeros(count.shape, bool))


def chi2_logpdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """scipy.stats.chi2.logpdf: the gamma distribution of shape df/2 and scale 2 scale."""
    return gamma_logpdf(x, F.constant(df) / 2.0, loc, F.constant(scale) * 2.0)


def chi2_cdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """scipy.stats.chi2.cdf (`df` is not differentiated)."""
    return gamma_cdf(x, F.constant(df) / 2.0, loc, F.constant(scale) * 2.0)
