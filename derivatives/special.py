"""Special functions (scipy.special, scipy.stats.norm): the partial derivatives of the
elementwise primitives `erf`, `erfc`, `gammaln`, `digamma` (see `vocabulary.Formula`), and the
functions both sides build from primitives, each written once against `Ops`.

Primitives: erf' = 2/sqrt(pi) exp(-x^2), erfc' = -erf', gammaln' = digamma,
digamma' = trigamma (`trigamma` has no derivative: third derivatives of `gammaln` are refused).
`expit` is the `sigmoid` primitive (`elementwise`).
The values of `digamma` and `trigamma` (both sides' references; the LLVM backend emits the same
algorithm): `digamma_scalar` / `trigamma_scalar`, the recurrence psi(x) = psi(x + 1) - 1/x
(psi1(x) = psi1(x + 1) + 1/x^2) up to x >= `ASYMPTOTIC_FROM`, then the asymptotic series with
the Bernoulli coefficients `DIGAMMA_SERIES` / `TRIGAMMA_SERIES`, after the reflection formulas
for x < 0 (x reduced exactly mod 1 for the trigonometric part). At the poles: NaN, but
digamma(0) = -inf and trigamma(0) = +inf (scipy's).
Composites (scipy's definitions):
- `ndtr(x)` as scipy computes it: 0.5 + 0.5 erf(x/sqrt 2) where |x/sqrt 2| < 1/sqrt 2, else
  0.5 erfc(|x|/sqrt 2), reflected (1 - that) for x > 0;
- `log_ndtr(x)`, accurate in both tails (three pieces, see there);
- `logit(x)` as scipy's (two pieces, see there);
- `xlogy(x, y)` = 0 where x == 0 and y is not NaN, else x log(y) (the derivative there is 0,
  PyTorch's convention);
- `norm_pdf`, `norm_logpdf`, `norm_cdf` (scipy.stats.norm with `loc` and `scale`):
  z = (x - loc) / scale, pdf = exp(-z^2/2) / sqrt(2 pi) / scale,
  logpdf = -z^2/2 - log(sqrt(2 pi)) - log(scale), cdf = ndtr(z), sf = ndtr(-z),
  logsf = log_ndtr(-z), ppf = ndtri(q) scale + loc, isf = -ndtri(q) scale + loc;
- `mvn_shapes`, `mvn_logpdf`: scipy.stats.multivariate_normal (see there);
- `erfinv_scalar`, `erfcinv_scalar` (the primitives' values; the LLVM backend emits the same
  algorithm): Halley's iteration on the C library's erf (|x| <= 1/2, from the Maclaurin
  series' first terms) or erfc (the tails, from the asymptotic start), `HALLEY_STEPS` steps;
  `ndtri(p)` = -sqrt(2) erfcinv(2p). Measured: within 1 ulp of the exact values (mpmath),
  within 6 ulps of scipy's (Cephes' erfcinv/ndtri are themselves up to 4 ulps off).
"""

from __future__ import annotations

import math
from typing import Any

from .vocabulary import Formula, Ops, define

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT1_2 = math.sqrt(0.5)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT_PI_2 = math.sqrt(math.pi) / 2.0
_SQRT2 = math.sqrt(2.0)


def _erf_partial(o, x, out):
    return (o.mul(TWO_OVER_SQRT_PI, o.exp(o.neg(o.mul(x, x)))),)


def _erfc_partial(o, x, out):
    return (o.mul(-TWO_OVER_SQRT_PI, o.exp(o.neg(o.mul(x, x)))),)


define(Formula("erf", _erf_partial, reads_inputs=True))
define(Formula("erfc", _erfc_partial, reads_inputs=True))
define(Formula("gammaln", lambda o, x, out: (o.digamma(x),), reads_inputs=True))
define(Formula("digamma", lambda o, x, out: (o.trigamma(x),), reads_inputs=True))
define(Formula("erfinv", lambda o, x, out: (o.mul(_SQRT_PI_2, o.exp(o.mul(out, out))),),
               reads_output=True))
define(Formula("erfcinv", lambda o, x, out: (o.mul(-_SQRT_PI_2, o.exp(o.mul(out, out))),),
               reads_output=True))


ASYMPTOTIC_FROM = 10.0
# psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k), k = 1..7 (coefficients of z = 1/x^2)
DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
# psi1(x) ~ 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1), k = 1..8 (coefficients of z = 1/x^2)
TRIGAMMA_SERIES = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def _series(coefficients: tuple[float, ...], z: float) -> float:
    """sum_k c_k z^(k+1), Horner's scheme from the last coefficient."""
    total = 0.0
    for c in reversed(coefficients):
        total = (total + c) * z
    return total


def digamma_scalar(x: float) -> float:
    if math.isnan(x) or (x <= 0.0 and (math.isinf(x) or x == math.floor(x))):
        return -math.copysign(math.inf, x) if x == 0.0 else math.nan  # scipy's psi(-0.0) = inf
    shift = 0.0
    if x < 0.0:  # psi(x) = psi(1 - x) - pi cot(pi x), with x reduced exactly mod 1
        shift = -math.pi / math.tan(math.pi * (x - math.floor(x)))
        x = 1.0 - x
    while x < ASYMPTOTIC_FROM:
        shift -= 1.0 / x
        x += 1.0
    return math.log(x) - 0.5 / x - _series(DIGAMMA_SERIES, 1.0 / (x * x)) + shift


def trigamma_scalar(x: float) -> float:
    if math.isnan(x) or (x <= 0.0 and (math.isinf(x) or x == math.floor(x))):
        return math.inf if x == 0.0 else math.nan
    sign, shift = 1.0, 0.0
    if x < 0.0:  # psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x)
        s = math.sin(math.pi * (x - math.floor(x)))
        sign, shift = -1.0, math.pi * math.pi / (s * s)
        x = 1.0 - x
    total = 0.0
    while x < ASYMPTOTIC_FROM:
        total += 1.0 / (x * x)
        x += 1.0
    total += 1.0 / x + 0.5 / (x * x) + _series(TRIGAMMA_SERIES, 1.0 / (x * x)) / x
    return shift + sign * total


# erfinv(z) = w + sum_k c_k w^(2k+1), w = sqrt(pi)/2 z (Maclaurin series; coefficients of w^2)
ERFINV_SERIES = (1 / 3, 7 / 30, 127 / 630, 4369 / 22680)
HALLEY_STEPS = 4  # from the starting points below: relative error < 1e-5 -> exact after 2


def _halley(y: float, target: float, fn, sign: float) -> float:
    """Halley's iteration for fn(y) = target, fn = erf (sign 1) or erfc (sign -1), whose
    derivative is sign 2/sqrt(pi) exp(-y^2) and second derivative -2y times that: the step is
    u / (1 + y u) with u the Newton step."""
    for _ in range(HALLEY_STEPS):
        u = (fn(y) - target) / (sign * TWO_OVER_SQRT_PI * math.exp(-y * y))
        y -= u / (1.0 + y * u)
    return y


def inverse_erf_central(a: float) -> float:
    """erfinv(a) for 0 <= a <= 1/2: the series' first terms, then Halley on erf."""
    w = _SQRT_PI_2 * a
    return _halley(w + w * _series(ERFINV_SERIES, w * w), a, math.erf, 1.0)


def inverse_erfc_tail(q: float) -> float:
    """erfcinv(q) for 0 < q <= 1/2: the asymptotic start y^2 = t - log(sqrt(pi t)),
    t = -log q (from erfc(y) ~ exp(-y^2) / (y sqrt(pi))), then Halley on erfc."""
    t = -math.log(q)
    return _halley(math.sqrt(t - math.log(math.sqrt(math.pi * t))), q, math.erfc, -1.0)


def erfinv_scalar(x: float) -> float:
    """scipy's erfinv: NaN outside [-1, 1], +-inf at +-1; |x| > 1/2 through erfcinv(1 - |x|)
    (1 - |x| is exact there)."""
    if not abs(x) < 1.0:
        return math.copysign(math.inf, x) if abs(x) == 1.0 else math.nan
    a = abs(x)
    return math.copysign(inverse_erf_central(a) if a <= 0.5 else inverse_erfc_tail(1.0 - a), x)


def erfcinv_scalar(q: float) -> float:
    """scipy's erfcinv: NaN outside [0, 2], inf at 0, -inf at 2; q > 1 by -erfcinv(2 - q),
    1/2 <= q <= 1 by erfinv(1 - q) (both differences exact)."""
    if not 0.0 < q < 2.0:
        return (math.inf if q == 0.0 else -math.inf) if q in (0.0, 2.0) else math.nan
    if q > 1.0:
        return -erfcinv_scalar(2.0 - q)
    return inverse_erf_central(1.0 - q) if q >= 0.5 else inverse_erfc_tail(q)


def ndtri(o: Ops, p: Any) -> Any:
    """The standard normal quantile, -sqrt(2) erfcinv(2p) (0 - ... so that ndtri(1/2) is
    +0.0 as scipy's)."""
    return o.sub(0.0, o.mul(_SQRT2, o.erfcinv(o.mul(p, 2.0))))


def ndtr(o: Ops, x: Any) -> Any:
    z = o.mul(x, _SQRT1_2)
    small = o.add(0.5, o.mul(0.5, o.erf(z)))
    tail = o.mul(0.5, o.erfc(o.abs(z)))
    large = o.select(o.gt(z, 0.0), o.sub(1.0, tail), tail)
    return o.select(o.lt(o.abs(z), _SQRT1_2), small, large)


_LOG_NDTR_TERMS = 12  # the asymptotic series' terms: the 12th is below 1e-20 for x <= -20


def log_ndtr(o: Ops, x: Any) -> Any:
    """Three pieces: log1p(-ndtr(-x)) for x > 0, log(ndtr(x)) for -20 < x <= 0, and for
    x <= -20 scipy's asymptotic series
    log(pdf(x) / -x) + log(sum_i (-1)^i (2i - 1)!! / x^(2i)). Each piece reads its operand
    only where it is taken (elsewhere a harmless stand-in), so no NaN or infinity reaches the
    derivative through a piece that is not taken."""
    upper = o.gt(x, 0.0)
    lower = o.le(x, -20.0)
    right = o.log1p(o.neg(ndtr(o, o.neg(o.select(upper, x, 1.0)))))
    middle = o.log(ndtr(o, o.select(o.or_(upper, lower), 0.0, x)))
    far = o.select(lower, x, -30.0)
    head = o.sub(o.sub(o.div(o.neg(o.mul(far, far)), 2.0), o.log(o.neg(far))), _LOG_SQRT_2PI)
    step = o.div(1.0, o.mul(far, far))
    total, term = 1.0, 1.0
    for i in range(1, _LOG_NDTR_TERMS + 1):
        term = o.mul(term, o.mul(step, -(2.0 * i - 1.0)))
        total = o.add(total, term)
    tail = o.add(head, o.log(total))
    return o.select(upper, right, o.select(lower, tail, middle))


def logit(o: Ops, x: Any) -> Any:
    """scipy's: log(x / (1 - x)) outside [0.3, 0.65], log1p(s) - log1p(-s) with s = 2x - 1
    inside (where the quotient would lose precision)."""
    middle = o.and_(o.ge(x, 0.3), o.le(x, 0.65))
    s = o.mul(2.0, o.sub(o.select(middle, x, 0.5), 0.5))
    outside = o.select(middle, 0.25, x)
    return o.select(middle, o.sub(o.log1p(s), o.log1p(o.neg(s))),
                    o.log(o.div(outside, o.sub(1.0, outside))))


def xlogy(o: Ops, x: Any, y: Any) -> Any:
    zero = o.and_(o.eq(x, 0.0), o.eq(y, y))
    return o.select(zero, 0.0, o.mul(x, o.log(y)))


def _standardized(o: Ops, x: Any, loc: Any, scale: Any) -> Any:
    return o.div(o.sub(x, loc), scale)


def norm_pdf(o: Ops, x: Any, loc: Any, scale: Any) -> Any:
    z = _standardized(o, x, loc, scale)
    return o.div(o.div(o.exp(o.div(o.neg(o.mul(z, z)), 2.0)), _SQRT_2PI), scale)


def norm_logpdf(o: Ops, x: Any, loc: Any, scale: Any) -> Any:
    z = _standardized(o, x, loc, scale)
    return o.sub(o.sub(o.div(o.neg(o.mul(z, z)), 2.0), _LOG_SQRT_2PI), o.log(scale))


def norm_cdf(o: Ops, x: Any, loc: Any, scale: Any) -> Any:
    return ndtr(o, _standardized(o, x, loc, scale))


def norm_logcdf(o: Ops, x: Any, loc: Any, scale: Any) -> Any:
    """log of the normal cdf, accurate in both tails (`log_ndtr` of the standardized x)."""
    return log_ndtr(o, _standardized(o, x, loc, scale))


def mvn_shapes(x: tuple[int, ...], mean: tuple[int, ...] | None,
               cov: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """scipy's `multivariate_normal` shapes: the dimension d (the mean's size, else from
    `cov`: its rows for a matrix, else 1, when a cov of more elements is scipy's ValueError)
    and the shape of the result (x's points are its last axis, or x's elements when d = 1; a
    lone point gives a number, numpy's squeeze). ValueError with scipy's message for shapes it
    rejects."""
    d = math.prod(mean) if mean is not None else cov[0] if len(cov) >= 2 else 1
    if d == 1 and math.prod(cov) != 1:  # scipy reshapes cov to (1, 1)
        raise ValueError(f"cannot reshape array of size {math.prod(cov)} into shape (1,1)")
    if len(cov) > 2:
        raise ValueError(f"Array 'cov' must be at most two-dimensional, but cov.ndim = "
                         f"{len(cov)}")
    if len(cov) == 2 and cov[0] != cov[1]:
        raise ValueError(f"Array 'cov' must be square if it is two dimensional, but cov.shape "
                         f"= {cov}.")
    if mean is not None and len(mean) > 1:
        raise ValueError(f"Array 'mean' must be a vector of length {d}.")
    if cov and cov[0] != d:
        what = f"is of shape {cov}" if len(cov) == 2 else f"is a vector of length {cov[0]}"
        raise ValueError(f"Dimension mismatch: array 'cov' {what}, but 'mean' is a vector of "
                         f"length {d}.")
    if d != 1 or len(x) > 1:
        if not x or x[-1] != d:
            raise ValueError(f"x has {x[-1] if x else 1} coordinates where the distribution "
                             f"has {d}")
        x = x[:-1]
    return d, tuple(n for n in x if n != 1)


_LOG_2PI = math.log(2.0 * math.pi)


def mvn_logpdf(o: Ops, x: Any, mean: Any, cov: Any, d: int) -> Any:
    """The log density at the rows of x (n, d): -(d log(2 pi) + log det cov + |z|^2) / 2 with
    z = solve(L, x - mean), L = cholesky(cov) (LinAlgError when cov is not positive definite,
    only its lower triangle read) and log det cov = 2 log |det L|; a vector of n."""
    lower = o.cholesky(cov)
    z = o.solve(lower, o.transpose(o.sub(x, mean), (1, 0)))
    maha = o.reduce_sum(o.mul(z, z), (0,), False)
    return o.mul(-0.5, o.add(o.add(maha, d * _LOG_2PI), o.mul(2.0, o.slogdet(lower))))


def norm_sf(o: Ops, x: Any, loc: Any, scale: Any) -> Any:
    return ndtr(o, o.neg(_standardized(o, x, loc, scale)))


def norm_logsf(o: Ops, x: Any, loc: Any, scale: Any) -> Any:
    return log_ndtr(o, o.neg(_standardized(o, x, loc, scale)))


def norm_ppf(o: Ops, z: Any, loc: Any, scale: Any) -> Any:
    """From z = ndtri(q), which the callers compute at q's dtype as scipy does (a float32 q
    gives a float32 ndtri): z * scale + loc, scipy's order."""
    return o.add(o.mul(z, scale), loc)


def norm_isf(o: Ops, z: Any, loc: Any, scale: Any) -> Any:
    """From z = ndtri(q) as for `norm_ppf`: -z * scale + loc."""
    return o.add(o.mul(o.neg(z), scale), loc)
