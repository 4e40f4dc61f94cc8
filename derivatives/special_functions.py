"""scipy.special's Bessel, gamma, beta and incomplete functions and distributions: the
partial derivatives of their elementwise primitives (values: scipy's C functions, see
`adlite.compiler.primitives.special`), each written once against `Ops`, and the values of
`polygamma` of any order.

Differentiable arguments: those autograd differentiates. The orders (`v` of `iv`, `ive`,
`jv`, `n` of `yn`), the shape parameters of `gammainc`, `gammaincc` (`a`), `betainc`,
`betaincc` (`a`, `b`), the degrees of freedom of `stdtr`, `chdtr`, `chdtrc` and the counts of
`pdtr`, `pdtrc` get no derivative (None: a symbolic zero), as
autograd treats them as constants.

- Bessel: iv' = (iv(v-1) + iv(v+1)) / 2, ive' = (ive(v-1) + ive(v+1)) / 2 - sign(x) ive(v),
  jv' = (jv(v-1) - jv(v+1)) / 2, yn' = (yn(n-1) - yn(n+1)) / 2, i0' = i1,
  i1' = (i0 + iv(2)) / 2, j0' = -j1, j1' = (j0 - jv(2)) / 2, y0' = -y1, y1' = (y0 - yn(2)) / 2;
- gamma' = gamma digamma, rgamma' = -rgamma digamma, gammasgn' = 0;
- d/dx gammainc(a, x) = exp(-x) x^(a-1) / Gamma(a) (computed as exp of its logarithm,
  `xlogy` so that x = 0 with a = 1 gives 1), gammaincc the opposite;
- beta: d/da = beta (digamma(a) - digamma(a+b)), betaln: digamma(a) - digamma(a+b) (b alike);
- d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / beta(a, b), betaincc the opposite;
- chdtr(k, x) = gammainc(k/2, x/2), pdtr(k, m) = gammaincc(floor(k) + 1, m) (chdtrc,
  pdtrc: the complements): the derivatives of those;
- d/dt stdtr(df, t) = Student's t density;
- erfcx' = 2 x erfcx(x) - 2/sqrt(pi), erfi' = 2/sqrt(pi) exp(x^2),
  dawsn' = 1 - 2 x dawsn(x);
- polygamma(n, x)' = polygamma(n + 1, x): `polygamma_scalar(n, x)` (n >= 1) is the
  recurrence psi_n(x) = psi_n(x + 1) + (-1)^(n+1) n! / x^(n+1) up to x >= `polygamma_from(n)`,
  then the asymptotic series (-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1))
  + sum_k B_2k (2k+n-1)! / (2k)! / x^(2k+n)] with the Bernoulli numbers `BERNOULLI`; for
  x < 0 the same recurrence (scipy's Hurwitz zeta gives these values), +-inf at the poles
  (0, -1, ..., and -inf) with the sign (-1)^(n+1), as scipy's.
"""

from __future__ import annotations

import math
from typing import Any

from .special import TWO_OVER_SQRT_PI, _series, xlogy
from .vocabulary import Formula, Ops, define

# B_2k, k = 1..8
BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_LOG_PI = math.log(math.pi)


def polygamma_from(n: int) -> float:
    """Where the asymptotic series of order `n` starts (later for higher orders, whose terms
    grow with n)."""
    return 10.0 + 2.0 * n


def polygamma_coefficients(n: int) -> tuple[float, ...]:
    """The series' coefficients of z = 1/x^2 (before the factor 1/x^n): B_2k (2k+n-1)!/(2k)!."""
    return tuple(b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
                 for k, b in enumerate(BERNOULLI, start=1))


def polygamma_scalar(n: int, x: float) -> float:
    sign = 1.0 if n % 2 else -1.0
    if math.isnan(x):
        return x
    if x == -math.inf or (x <= 0.0 and x == math.floor(x)):
        return sign * math.inf
    total, power = 0.0, n + 1
    while x < polygamma_from(n):
        total += 1.0 / x ** power
        x += 1.0
    series = _series(polygamma_coefficients(n), 1.0 / (x * x))
    tail = (math.factorial(n - 1) + math.factorial(n) * 0.5 / x + series) / x ** n
    return sign * (math.factorial(n) * total + tail)


def _half(o: Ops, left: Any, right: Any, plus: bool) -> Any:
    return o.mul(0.5, o.add(left, right) if plus else o.sub(left, right))


def _order(name: str, plus: bool):
    """d/dx f(v, x) = (f(v-1, x) +- f(v+1, x)) / 2 for the Bessel function `name`."""

    def partials(o, v, x, out):
        f = getattr(o, name)
        return None, _half(o, f(o.sub(v, 1.0), x), f(o.add(v, 1.0), x), plus)

    return partials


def _ive(o, v, x, out):
    plus = _order("ive", True)(o, v, x, out)[1]
    return None, o.sub(plus, o.mul(o.sign(x), out))


def _gammainc_density(o: Ops, a: Any, x: Any) -> Any:
    return o.exp(o.sub(o.sub(xlogy(o, o.sub(a, 1.0), x), x), o.gammaln(a)))


def _chi2_density(o: Ops, k: Any, x: Any) -> Any:
    """chdtr(k, x) = gammainc(k/2, x/2): d/dx is half the gamma density there."""
    return o.mul(0.5, _gammainc_density(o, o.mul(0.5, k), o.mul(0.5, x)))


def _poisson_mass(o: Ops, k: Any, m: Any) -> Any:
    """pdtr(k, m) = gammaincc(floor(k) + 1, m): d/dm is minus the Poisson mass at floor(k)."""
    return _gammainc_density(o, o.add(o.floor(k), 1.0), m)


def _beta(o, a, b, out):
    both = o.digamma(o.add(a, b))
    return o.mul(out, o.sub(o.digamma(a), both)), o.mul(out, o.sub(o.digamma(b), both))


def _betaln(o, a, b, out):
    both = o.digamma(o.add(a, b))
    return o.sub(o.digamma(a), both), o.sub(o.digamma(b), both)


def _betainc(o, a, b, x, out):
    density = o.div(o.mul(o.pow(x, o.sub(a, 1.0)), o.pow(o.sub(1.0, x), o.sub(b, 1.0))),
                    o.beta(a, b))
    return None, None, density


def t_logpdf(o: Ops, df: Any, t: Any) -> Any:
    """log of Student's t density: gammaln((df+1)/2) - gammaln(df/2) - log(df pi)/2
    - (df+1)/2 log1p(t^2/df)."""
    half = o.mul(0.5, o.add(df, 1.0))
    head = o.sub(o.gammaln(half), o.gammaln(o.mul(0.5, df)))
    head = o.sub(head, o.mul(0.5, o.add(o.log(df), _LOG_PI)))
    return o.sub(head, o.mul(half, o.log1p(o.div(o.mul(t, t), df))))


def _unary(name: str, partial, output: bool = False) -> None:
    define(Formula(name, lambda o, x, out: (partial(o, x, out),), reads_inputs=True,
                   reads_output=output))


_unary("i0", lambda o, x, out: o.i1(x))
_unary("i1", lambda o, x, out: _half(o, o.i0(x), o.iv(o.constant(2.0, x), x), True))
_unary("j0", lambda o, x, out: o.neg(o.j1(x)))
_unary("j1", lambda o, x, out: _half(o, o.j0(x), o.jv(o.constant(2.0, x), x), False))
_unary("y0", lambda o, x, out: o.neg(o.y1(x)))
_unary("y1", lambda o, x, out: _half(o, o.y0(x), o.yn(o.constant(2.0, x), x), False))
_unary("gamma", lambda o, x, out: o.mul(out, o.digamma(x)), output=True)
_unary("erfcx", lambda o, x, out: o.sub(o.mul(o.mul(x, out), 2.0), TWO_OVER_SQRT_PI),
       output=True)
_unary("erfi", lambda o, x, out: o.mul(o.exp(o.mul(x, x)), TWO_OVER_SQRT_PI))
_unary("dawsn", lambda o, x, out: o.sub(1.0, o.mul(o.mul(x, out), 2.0)), output=True)
_unary("rgamma", lambda o, x, out: o.neg(o.mul(out, o.digamma(x))), output=True)
define(Formula("gammasgn", lambda o, x, out: (o.constant(0.0, x),),  # zeros reach x
               reads_inputs=True))
for _name, _plus in (("iv", True), ("jv", False), ("yn", False)):
    define(Formula(_name, _order(_name, _plus), reads_inputs=True))
define(Formula("ive", _ive, reads_inputs=True, reads_output=True))
define(Formula("gammainc", lambda o, a, x, out: (None, _gammainc_density(o, a, x)),
               reads_inputs=True))
define(Formula("gammaincc", lambda o, a, x, out: (None, o.neg(_gammainc_density(o, a, x))),
               reads_inputs=True))
define(Formula("beta", _beta, reads_inputs=True, reads_output=True))
define(Formula("betaln", _betaln, reads_inputs=True))
define(Formula("betainc", _betainc, reads_inputs=True))
define(Formula("betaincc", lambda o, a, b, x, out: (None, None,
                                                   o.neg(_betainc(o, a, b, x, out)[2])),
               reads_inputs=True))
define(Formula("chdtr", lambda o, k, x, out: (None, _chi2_density(o, k, x)), reads_inputs=True))
define(Formula("chdtrc", lambda o, k, x, out: (None, o.neg(_chi2_density(o, k, x))),
               reads_inputs=True))
define(Formula("pdtr", lambda o, k, m, out: (None, o.neg(_poisson_mass(o, k, m))),
               reads_inputs=True))
define(Formula("pdtrc", lambda o, k, m, out: (None, _poisson_mass(o, k, m)), reads_inputs=True))
define(Formula("stdtr", lambda o, df, t, out: (None, o.exp(t_logpdf(o, df, t))),
               reads_inputs=True))
