"""Densities of scipy.stats distributions in compiled code: the rules `scipy_special_stats`
enters for their methods when the program imported scipy.stats.

Contract: `densities(stats)` gives `(distribution, method, rule)` for
- `t.pdf / logpdf(x, df, loc=0, scale=1)`, `chi2.pdf / logpdf(x, df, loc=0, scale=1)`,
  `gamma.pdf / logpdf(x, a, loc=0, scale=1)`, `beta.pdf / logpdf(x, a, b, loc=0, scale=1)`,
  `poisson.pmf / logpmf(k, mu, loc=0)`: arguments by position or keyword, numbers or
  arrays broadcast together (numpy's error for shapes that do not), computed in double
  whatever their dtype, as scipy's; the composites of `adlite.derivatives.distributions`
  (NaN for invalid parameters, -inf / 0 outside the support); `pdf` / `pmf` is the exp of
  the log (scipy's for all but beta, whose pdf scipy takes from Boost: equal up to rounding);
- `dirichlet.pdf / logpdf(x, alpha)`: alpha a vector of K, x of K (or K - 1: the last is one
  minus the others' sum, as scipy) along its first axis; scipy's ValueErrors for shapes when
  compiling, and at run time, in scipy's order, for alpha not positive, x outside [0, 1],
  x = 0 where alpha < 1, and x off the simplex (sums further than 1e-9 from 1, named in
  the message); the result squeezed as scipy's;
- `multivariate_normal.entropy(mean=None, cov=1)`: 0.5 (d (log 2 pi + 1) + log det cov), the
  covariance factored by Cholesky (numpy's LinAlgError when not positive definite, where
  scipy raises its own LinAlgError), `cov` a matrix, a diagonal or a number.
- `pseudo_logpdf`: `multivariate_normal.logpdf(..., allow_singular=True)` from numpy's eigh
  of the covariance (the composite `distributions.mvn_logpdf_pseudo`), after scipy's checks
  at run time: ValueError for a covariance with infinities or NaNs and for one with an
  eigenvalue below -eps (not positive semidefinite); derivatives w.r.t. the covariance
  assume distinct eigenvalues (eigh's).
`bind` (arguments by position or keyword) and `doubles` are the helpers every scipy.stats
rule uses.
"""

from __future__ import annotations

import math

import numpy as np

from adlite.derivatives import distributions, special

from ...errors import AdliteValueError
from ...ir.builder import const
from ...ir.core import F64
from ...primitives.shapes import broadcast_shapes
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from .building import eye_mask
from .registry import lookup, refuse_keywords


def doubles(cx: CallContext, values, node) -> list:
    """float64 operands: scipy.stats computes in double whatever its arguments' dtype."""
    return [cx.to_type(cx.as_float(v, node), F64) for v in values]


def bind(cx: CallContext, args, kwargs, node, names: tuple[str, ...],
         required: int = 1, keywords_from: int = 1) -> dict:
    """The arguments `names` (the first `required` required), by position or keyword (those
    from `keywords_from` on)."""
    refuse_keywords(cx, kwargs, node, names[keywords_from:])
    if len(args) > len(names):
        raise cx.source.error(node, f"expected at most {len(names)} arguments: "
                                    f"{', '.join(names)}")
    given = dict(zip(names, args, strict=False))
    for name, value in kwargs.items():
        if name in given:
            raise cx.source.error(node, f"got multiple values for argument {name!r}")
        given[name] = value
    missing = [n for n in names[:required] if n not in given]
    if missing:
        raise cx.source.error(node, f"missing required argument(s) {', '.join(missing)}")
    return given


def _shape(value) -> tuple[int, ...]:
    return tuple(value.type.shape or ())


def _broadcast(cx: CallContext, values: list, node) -> list:
    try:
        shape = broadcast_shapes(*(_shape(v) for v in values))
    except ValueError as e:
        raise cx.source.error(node, str(e), kind=AdliteValueError) from None
    return [v if _shape(v) == shape else cx.b.broadcast_to(v, shape=shape) for v in values]


def _univariate(fn, names: tuple[str, ...], required: int, log: bool):
    """`<distribution>.<method>(x, *shapes, loc=0, scale=1)`: the composite `fn` of the
    broadcast double operands, exp of it unless `log`."""

    def lower(cx: CallContext, args, kwargs, node):
        given = bind(cx, args, kwargs, node, names, required)
        values = doubles(cx, [given.get(n, const(_DEFAULTS.get(n, 0.0))) for n in names], node)
        value = fn(BuilderOps(cx.b), *_broadcast(cx, values, node))
        return value if log else cx.b.exp(value)

    return lower


_DEFAULTS = {"loc": 0.0, "scale": 1.0}


def _check(cx: CallContext, failed, message: tuple, operands=()) -> None:
    """A run-time ValueError with the `message` template where `failed` (a bool) holds."""
    cx.b.emit("check", [cx.b.not_(failed), *operands], error="ValueError",
              args=(("str", message),))


def _dirichlet(log: bool):
    def lower(cx: CallContext, args, kwargs, node):
        given = bind(cx, args, kwargs, node, ("x", "alpha"), 2)
        x, alpha = doubles(cx, [given["x"], given["alpha"]], node)
        b, reduce = cx.b, (lambda fn, *a, **k: lookup(fn)(cx, list(a), k, node))
        _check(cx, b.le(reduce(np.min, alpha), const(0.0)),
               ("All parameters must be greater than 0",))
        if len(_shape(alpha)) != 1:
            raise cx.source.error(node, f"Parameter vector 'a' must be one dimensional, but "
                                        f"a.shape = {_shape(alpha)}.", kind=AdliteValueError)
        k, shape = _shape(alpha)[0], _shape(x)
        if not shape or shape[0] not in (k, k - 1):
            raise cx.source.error(node, f"Vector 'x' must have either the same number of "
                                        f"entries as, or one entry fewer than, parameter "
                                        f"vector 'a', but alpha.shape = {_shape(alpha)} and "
                                        f"x.shape = {shape}.", kind=AdliteValueError)
        if shape[0] == k - 1:
            if len(shape) > 2:
                raise cx.source.error(node, "The input must be one dimensional or a two "
                                            "dimensional matrix containing the entries.",
                                      kind=AdliteValueError)
            last = b.sub(const(1.0), reduce(np.sum, x, axis=const(0)))
            x = reduce(np.concatenate, (x, BuilderOps(b).reshape(last, (1, *shape[1:]))))
            shape = _shape(x)
        columns = tuple(range(1, len(shape)))
        _check(cx, b.lt(reduce(np.min, x), const(0.0)),
               ("Each entry in 'x' must be greater than or equal to zero.",))
        _check(cx, b.gt(reduce(np.max, x), const(1.0)),
               ("Each entry in 'x' must be smaller or equal one.",))
        small = b.broadcast_to(b.reshape(b.lt(alpha, const(1.0)), shape=(k,) + (1,) *
                                         len(columns)), shape=shape)
        _check(cx, reduce(np.any, b.and_(b.eq(x, const(0.0)), small)),
               ("Each entry in 'x' must be greater than zero if its alpha is less than one.",))
        sums = reduce(np.sum, x, axis=const(0))
        _check(cx, reduce(np.any, b.gt(b.abs(b.sub(sums, const(1.0))), const(10e-10))),
               ("The input vector 'x' must lie within the normal simplex. but "
                "np.sum(x, 0) = ", (0, None, ()), "."), [sums])
        o = BuilderOps(b)
        value = distributions.dirichlet_logpdf(o, x, alpha, shape)
        squeezed = tuple(n for n in shape[1:] if n != 1)
        if _shape(value) != squeezed:
            value = o.reshape(value, squeezed or None)
        return value if log else b.exp(value)

    return lower


def covariance_matrix(cx: CallContext, cov, d: int):
    """`cov` as a (d, d) matrix: a number or a diagonal on the diagonal."""
    if len(_shape(cov)) == 2:
        return cov
    diagonal = cx.b.broadcast_to(cov, shape=(d, d))
    return cx.b.select(eye_mask(cx, d, d, 0), diagonal, const(0.0, cov.type.scalar))


def _mvn_entropy(cx: CallContext, args, kwargs, node):
    given = bind(cx, args, kwargs, node, ("mean", "cov"), 0)
    mean = given.get("mean")
    cov, *mean = doubles(cx, [given.get("cov", const(1.0)), *([mean] if mean is not None
                                                                else [])], node)
    cov_shape = _shape(cov)
    points = (math.prod(_shape(mean[0])) if mean else cov_shape[0] if len(cov_shape) >= 2
              else 1,)  # x of one point
    try:
        d, _ = special.mvn_shapes(points, _shape(mean[0]) if mean else None, _shape(cov))
    except ValueError as e:
        raise cx.source.error(node, str(e), kind=AdliteValueError) from None
    return distributions.mvn_entropy(BuilderOps(cx.b), covariance_matrix(cx, cov, d), d)


def densities(stats) -> list[tuple[object, str, object]]:
    """(distribution, method name, rule) of the densities above, for the module
    `scipy.stats` given."""
    rules = []
    for distribution, fn, names in [
            (stats.t, distributions.t_logpdf, ("x", "df", "loc", "scale")),
            (stats.chi2, distributions.chi2_logpdf, ("x", "df", "loc", "scale")),
            (stats.gamma, distributions.gamma_logpdf, ("x", "a", "loc", "scale")),
            (stats.beta, distributions.beta_logpdf, ("x", "a", "b", "loc", "scale")),
            (stats.poisson, distributions.poisson_logpmf, ("k", "mu", "loc"))]:
        required = len(names) - (1 if "scale" not in names else 2)
        density = "pmf" if distribution is stats.poisson else "pdf"
        rules += [(distribution, density, _univariate(fn, names, required, log=False)),
                  (distribution, "log" + density, _univariate(fn, names, required, log=True))]
    rules += [(stats.dirichlet, "pdf", _dirichlet(log=False)),
              (stats.dirichlet, "logpdf", _dirichlet(log=True)),
              (stats.multivariate_normal, "entropy", _mvn_entropy)]
    return rules



def pseudo_logpdf(cx: CallContext, points, mean, cov, node):
    """The log density at the rows of `points` (n, d) with a positive semidefinite `cov`."""
    b = cx.b
    _check(cx, b.not_(lookup(np.all)(cx, [lookup(np.isfinite)(cx, [cov], {}, node)], {}, node)),
           ("array must not contain infs or NaNs",))
    s, u = lookup(np.linalg.eigh)(cx, [cov], {}, node)
    o = BuilderOps(b)
    eps = o.mul(distributions.SINGULAR_CUTOFF, o.reduce_max(o.abs(s), None, False))
    _check(cx, b.lt(lookup(np.min)(cx, [s], {}, node), b.neg(eps)),
           ("The input matrix must be symmetric positive semidefinite.",))
    return distributions.mvn_logpdf_pseudo(o, points, mean, s, u)
