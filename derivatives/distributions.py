"""Densities of scipy.stats distributions, composites of primitives.

They are written against `Ops` and the primitive words `gammaln`, `floor`, `not_` and
`stop_gradient`, which the compiler's `BuilderOps` answers (the eager tape computes these
densities in `runtime/scipy_stats.py`, its own functions).
Contract: each function takes float64 operands of one shape (the callers broadcast them) and
gives scipy's values elementwise, in scipy's formulas:
- `t_logpdf(x, df, loc, scale)`: log poch(df/2, 1/2) - (log df + log pi)/2
  - (df + 1)/2 log1p(z^2 / df) - log scale, z = (x - loc) / scale; the normal's where
  df = inf (scipy's); log poch(a, 1/2) is gammaln(a + 1/2) - gammaln(a) up to
  `POCH_SERIES_FROM` and its asymptotic series above (the difference cancels there), where
  scipy's poch switches too;
- `chi2_logpdf(x, df, loc, scale)`: xlogy(df/2 - 1, y) - y/2 - gammaln(df/2) - df/2 log 2;
- `gamma_logpdf(x, a, loc, scale)`: xlogy(a - 1, y) - y - gammaln(a);
- `beta_logpdf(x, a, b, loc, scale)`: xlogy(a - 1, y) + xlog1py(b - 1, -y) - betaln(a, b)
  (each minus log scale, y = (x - loc) / scale);
- `poisson_logpmf(k, mu, loc)`: xlogy(k, mu) - gammaln(k + 1) - mu at k - loc (the count
  is not differentiated: no derivative flows into `k` or `loc`);
- `mvn_entropy(cov, d)`: scipy.stats.multivariate_normal's entropy, (d (log 2 pi + 1)
  + log det cov) / 2, log det cov = 2 log |det L| of L = cholesky(cov) (LinAlgError when cov
  is not positive definite);
- `dirichlet_logpdf(x, alpha)`: sum_i xlogy(alpha_i - 1, x_i) - sum gammaln(alpha)
  + gammaln(sum alpha), x of shape (K,) or (K, N) (its categories along the first axis, all
  K of them), alpha of shape (K,): scipy's argument checks are the caller's.
As scipy's `rv_continuous` / `rv_discrete` methods: NaN where a parameter is invalid (`df`,
`a`, `b`, `scale` not > 0, `mu` not >= 0, NaN) or the standardized x is NaN, -inf outside the
support ([0, inf) for chi2 and gamma, [0, 1] for beta, integers >= 0 for poisson; the
support's ends included, where the formulas give scipy's +-inf or finite values). The
formulas read stand-ins (1, 1/2) where they are not taken, so that no NaN or infinity of an
untaken element reaches a derivative; every continuous argument is differentiable.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .special import norm_logpdf, xlogy
from .vocabulary import Ops

POCH_SERIES_FROM = 1e4
_LOG_PI = math.log(math.pi)
_LOG_2 = math.log(2.0)
_LOG_2PI = math.log(2.0 * math.pi)


def _log_poch_half(o: Ops, a: Any) -> Any:
    """log(Gamma(a + 1/2) / Gamma(a)) for a > 0: gammaln's difference, or for a > 1e4 the
    series 1/2 log a - 1/(8a) + 1/(192 a^3) (the next term, -1/(640 a^5), is below 1e-22)."""
    large = o.gt(a, POCH_SERIES_FROM)
    small = o.select(large, 1.0, a)
    big = o.select(large, a, POCH_SERIES_FROM)
    series = o.add(o.sub(o.mul(0.5, o.log(big)), o.div(0.125, big)),
                   o.div(1.0 / 192.0, o.mul(big, o.mul(big, big))))
    return o.select(large, series, o.sub(o.gammaln(o.add(small, 0.5)), o.gammaln(small)))


def _xlog1py(o: Ops, x: Any, y: Any) -> Any:
    """scipy's xlog1py: 0 where x == 0 and y is not NaN, else x log1p(y)."""
    zero = o.and_(o.eq(x, 0.0), o.eq(y, y))
    return o.select(zero, 0.0, o.mul(x, o.log1p(y)))


def _masked(o: Ops, value: Any, valid: Any, inside: Any) -> Any:
    """`value` where the parameters are `valid` and x `inside` the support, -inf outside it,
    NaN for invalid parameters."""
    return o.select(valid, o.select(inside, value, -math.inf), math.nan)


def _located(o: Ops, x: Any, loc: Any, scale: Any, valid: Any,
             support: Callable[[Any], Any], stand_in: float,
             logpdf: Callable[[Any], Any]) -> Any:
    """scipy's `rv_continuous.logpdf`: `logpdf(y) - log(scale)` at y = (x - loc) / scale where
    the shape parameters are `valid`, `scale` > 0 and y inside the `support`; the formula
    reads `stand_in` elsewhere."""
    valid = o.and_(valid, o.gt(scale, 0.0))
    scale = o.select(valid, scale, 1.0)
    y = o.div(o.sub(x, loc), scale)
    inside = support(y)
    value = o.sub(logpdf(o.select(o.and_(valid, inside), y, stand_in)), o.log(scale))
    return _masked(o, value, o.and_(valid, o.eq(y, y)), inside)


def _everywhere(o: Ops, y: Any) -> Any:
    return o.eq(y, y)


def _positive_axis(o: Ops, y: Any) -> Any:
    return o.ge(y, 0.0)


def _unit_interval(o: Ops, y: Any) -> Any:
    return o.and_(o.ge(y, 0.0), o.le(y, 1.0))


def t_logpdf(o: Ops, x: Any, df: Any, loc: Any, scale: Any) -> Any:
    valid = o.gt(df, 0.0)
    infinite = o.eq(df, math.inf)
    nu = o.select(o.and_(valid, o.not_(infinite)), df, 1.0)

    def logpdf(z):
        student = o.sub(o.sub(_log_poch_half(o, o.mul(0.5, nu)),
                              o.mul(0.5, o.add(o.log(nu), _LOG_PI))),
                        o.mul(o.mul(0.5, o.add(nu, 1.0)), o.log1p(o.div(o.mul(z, z), nu))))
        return o.select(infinite, norm_logpdf(o, z, 0.0, 1.0), student)

    return _located(o, x, loc, scale, valid, lambda y: _everywhere(o, y), 0.0, logpdf)


def chi2_logpdf(o: Ops, x: Any, df: Any, loc: Any, scale: Any) -> Any:
    valid = o.gt(df, 0.0)
    half = o.mul(0.5, o.select(valid, df, 1.0))

    def logpdf(y):
        return o.sub(o.sub(o.sub(xlogy(o, o.sub(half, 1.0), y), o.mul(0.5, y)),
                           o.gammaln(half)), o.mul(_LOG_2, half))

    return _located(o, x, loc, scale, valid, lambda y: _positive_axis(o, y), 1.0, logpdf)


def gamma_logpdf(o: Ops, x: Any, a: Any, loc: Any, scale: Any) -> Any:
    valid = o.gt(a, 0.0)
    a = o.select(valid, a, 1.0)

    def logpdf(y):
        return o.sub(o.sub(xlogy(o, o.sub(a, 1.0), y), y), o.gammaln(a))

    return _located(o, x, loc, scale, valid, lambda y: _positive_axis(o, y), 1.0, logpdf)


def beta_logpdf(o: Ops, x: Any, a: Any, b: Any, loc: Any, scale: Any) -> Any:
    valid = o.and_(o.gt(a, 0.0), o.gt(b, 0.0))
    a, b = o.select(valid, a, 1.0), o.select(valid, b, 1.0)
    log_beta = o.sub(o.add(o.gammaln(a), o.gammaln(b)), o.gammaln(o.add(a, b)))

    def logpdf(y):
        return o.sub(o.add(_xlog1py(o, o.sub(b, 1.0), o.neg(y)), xlogy(o, o.sub(a, 1.0), y)),
                     log_beta)

    return _located(o, x, loc, scale, valid, lambda y: _unit_interval(o, y), 0.5, logpdf)


def poisson_logpmf(o: Ops, k: Any, mu: Any, loc: Any) -> Any:
    k = o.stop_gradient(o.sub(k, loc))
    valid = o.ge(mu, 0.0)
    inside = o.and_(o.ge(k, 0.0), o.eq(o.floor(k), k))
    k_, mu_ = o.select(inside, k, 0.0), o.select(valid, mu, 1.0)
    value = o.sub(o.sub(xlogy(o, k_, mu_), o.gammaln(o.add(k_, 1.0))), mu_)
    return _masked(o, value, o.and_(valid, o.eq(k, k)), inside)


def dirichlet_logpdf(o: Ops, x: Any, alpha: Any, shape: tuple[int, ...]) -> Any:
    """x of `shape` (K,) or (K, N), alpha (K,): a number, or a vector of N."""
    weights = o.sub(alpha, 1.0)
    if len(shape) == 2:
        weights = o.expand(weights, shape, (1,))
    log_norm = o.sub(o.reduce_sum(o.gammaln(alpha), None, False),
                     o.gammaln(o.reduce_sum(alpha, None, False)))
    return o.sub(o.reduce_sum(xlogy(o, weights, x), (0,), False), log_norm)


def mvn_entropy(o: Ops, cov: Any, d: int) -> Any:
    return o.mul(0.5, o.add(d * (_LOG_2PI + 1.0), o.mul(2.0, o.slogdet(o.cholesky(cov)))))


SINGULAR_CUTOFF = 1e6 * 2.220446049250313e-16  # scipy's: eigenvalues below it times the largest


def mvn_logpdf_pseudo(o: Ops, x: Any, mean: Any, s: Any, u: Any) -> Any:
    """scipy.stats.multivariate_normal.logpdf(allow_singular=True) at the rows of x (n, d),
    from the eigen-decomposition (s, u) of cov: eigenvalues at most `eps` = 1e6 machine
    epsilons times the largest |s| count as zero; -(rank log(2 pi) + log pdet + |dev U|^2) / 2
    with U = u / sqrt(s) over the others (the pseudo-inverse's factor, zero columns for the
    rest), pdet their product, dev = x - mean; -inf where dev leaves the support (the norm
    of its components along the null eigenvectors is 1e3 eps or more). A vector of n."""
    eps = o.mul(SINGULAR_CUTOFF, o.reduce_max(o.abs(s), None, False))
    positive = o.gt(s, eps)
    kept = o.select(positive, s, 1.0)
    factor = o.mul(u, o.select(positive, o.sqrt(o.div(1.0, kept)), 0.0))
    dev = o.sub(x, mean)
    maha = o.reduce_sum(o.mul(o.matmul(dev, factor), o.matmul(dev, factor)), (1,), False)
    rank = o.reduce_sum(o.select(positive, 1.0, 0.0), None, False)
    log_pdet = o.reduce_sum(o.select(positive, o.log(kept), 0.0), None, False)
    value = o.mul(-0.5, o.add(o.add(o.mul(rank, _LOG_2PI), log_pdet), maha))
    along = o.matmul(dev, u)
    null = o.reduce_sum(o.select(positive, 0.0, o.mul(along, along)), (1,), False)
    return o.select(o.lt(o.sqrt(null), o.mul(1e3, eps)), value, -math.inf)
