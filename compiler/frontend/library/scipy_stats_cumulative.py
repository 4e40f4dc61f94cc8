"""The cumulative methods `cdf`, `logcdf`, `sf`, `logsf` of scipy.stats' `t`, `chi2`, `gamma`,
`beta` and `poisson` in compiled code (`scipy_special_stats` registers them as methods when
the user's program has imported `scipy.stats`).

Contract: `methods(stats_module)` gives {(owner type, method name): lowering}. A lowering takes
scipy's arguments by position or keyword: `x` (`k` for poisson), the shape parameters (t,
chi2: `df`; gamma: `a`; beta: `a`, `b`; poisson: `mu`), `loc=0` and (continuous) `scale=1`,
all run-time numbers or arrays broadcast together, computed in double whatever their dtype,
as scipy.stats computes; the result follows scipy's generic methods:
- continuous: z = (x - loc) / scale; NaN where a shape parameter is not > 0, scale <= 0 or z
  is NaN; at or below the support's lower end cdf 0 and sf 1, at or above its upper end cdf 1
  and sf 0 (t: the real line; chi2, gamma: (0, inf); beta: (0, 1)); inside, scipy's own
  `_cdf` / `_sf`: t `stdtr(df, z)` / `stdtr(df, -z)`, chi2 `chdtr` / `chdtrc`, gamma
  `gammainc` / `gammaincc`, beta `betainc` / `betaincc`;
- poisson: k = floor(k - loc); NaN where mu < 0 or k is NaN; below 0 cdf 0 and sf 1, at +inf
  cdf 1 and sf 0; else `pdtr(k, mu)` / `pdtrc(k, mu)`;
- `logcdf`, `logsf`: poisson's the log of those (log(0) = -inf, log(1) = 0; logcdf 0 at
  k = inf even where mu < 0, as scipy's); the continuous ones scipy's too: outside the support
  the log of the values above, inside log(cdf) below the median and log1p(-sf) above it (logsf
  the mirror), the median scipy's `_ppf(0.5)`: t 0, chi2 2 gammaincinv(df/2, 1/2), gamma
  gammaincinv(a, 1/2), beta betaincinv(a, b, 1/2) (primitives with no derivative: they only
  pick the piece).
The functions are the primitives of `primitives/special.py`; each reads its operands only
inside the support (elsewhere a harmless stand-in), so no NaN reaches a derivative from where
its value is not taken. Derivatives: with respect to x, loc and scale through z (the shape
parameters, as in autograd, and poisson's k get none; mu does: `pdtr`'s).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ...ir.builder import const
from ...ir.core import F64
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from .scipy_stats_densities import bind


@dataclass(frozen=True)
class _Family:
    """A distribution: its shape parameters, support, a point inside it and scipy's
    functions (primitive names) for cdf and sf, and whether it is discrete."""

    shapes: tuple[str, ...]
    lower: float
    upper: float
    inside: float
    cdf: str
    sf: str
    discrete: bool = False


_FAMILIES = {
    "t": _Family(("df",), -math.inf, math.inf, 0.0, "stdtr", "stdtr"),
    "chi2": _Family(("df",), 0.0, math.inf, 1.0, "chdtr", "chdtrc"),
    "gamma": _Family(("a",), 0.0, math.inf, 1.0, "gammainc", "gammaincc"),
    "beta": _Family(("a", "b"), 0.0, 1.0, 0.5, "betainc", "betaincc"),
    "poisson": _Family(("mu",), 0.0, math.inf, 0.0, "pdtr", "pdtrc", discrete=True),
}


def _arguments(cx: CallContext, args, kwargs, node, family: _Family) -> list:
    """x, the shape parameters, loc (and scale), in double, by position or keyword."""
    names = ("k" if family.discrete else "x", *family.shapes, "loc",
             *(() if family.discrete else ("scale",)))
    given = bind(cx, args, kwargs, node, names, 1 + len(family.shapes), keywords_from=0)
    defaults = {"loc": const(0.0), "scale": const(1.0)}
    return [cx.to_type(cx.as_float(given.get(n, defaults.get(n)), node), F64) for n in names]


def _core(o: BuilderOps, family: _Family, upper_tail: bool, z, shapes):
    """scipy's `_cdf` (`_sf` when `upper_tail`) at standardized z."""
    if family.cdf == "stdtr" and upper_tail:
        return o.stdtr(*shapes, o.neg(z))
    operands = (z, *shapes) if family.discrete else (*shapes, z)  # pdtr(k, mu), stdtr(df, t)
    return getattr(o, family.sf if upper_tail else family.cdf)(*operands)


def _median(o: BuilderOps, family: _Family, shapes):
    """scipy's `_ppf(0.5)` (t: 0, which `stdtrit(df, 0.5)` is exactly)."""
    if family.cdf == "gammainc":
        return o.gammaincinv(*shapes, 0.5)
    if family.cdf == "chdtr":
        return o.mul(2.0, o.gammaincinv(o.mul(0.5, shapes[0]), 0.5))
    if family.cdf == "betainc":
        return o.betaincinv(*shapes, 0.5)
    return 0.0


def _log_inside(o: BuilderOps, family: _Family, upper_tail: bool, z, shapes):
    """scipy's continuous `_logcdf` (`_logsf`): log(cdf) below the median (logsf: log(sf)
    above it), log1p(-sf) (log1p(-cdf)) on the other side; each piece reads z only on its
    side (the median elsewhere)."""
    median = _median(o, family, shapes)
    taken = o.gt(z, median) if upper_tail else o.lt(z, median)
    near, far = o.select(taken, z, median), o.select(taken, median, z)
    return o.select(taken, o.log(_core(o, family, upper_tail, near, shapes)),
                    o.log1p(o.neg(_core(o, family, not upper_tail, far, shapes))))


def _method(family: _Family, upper_tail: bool, log: bool) -> Callable:
    below, above = (1.0, 0.0) if upper_tail else (0.0, 1.0)
    if log:
        below, above = (math.log(v) if v else -math.inf for v in (below, above))

    def lower(cx: CallContext, args, kwargs, node):
        x, *rest = _arguments(cx, args, kwargs, node, family)
        o = BuilderOps(cx.b)
        if family.discrete:
            mu, loc = rest
            z = o.floor(o.sub(x, loc))
            valid = o.ge(mu, 0.0)
            shapes = [mu]
            inside = o.and_(valid, o.and_(o.ge(z, family.lower), o.lt(z, family.upper)))
        else:
            *shapes, loc, scale = rest
            z = o.div(o.sub(x, loc), scale)
            valid = o.gt(scale, 0.0)
            for p in shapes:
                valid = o.and_(valid, o.gt(p, 0.0))
            inside = o.and_(valid, o.and_(o.gt(z, family.lower), o.lt(z, family.upper)))
        held = [o.select(inside, p, 1.0) for p in shapes]
        z_inside = o.select(inside, z, family.inside)
        if log and not family.discrete:
            value = _log_inside(o, family, upper_tail, z_inside, held)
        else:
            value = _core(o, family, upper_tail, z_inside, held)
            value = o.log(value) if log else value
        beyond = o.lt(z, family.lower) if family.discrete else o.le(z, family.lower)
        value = o.select(inside, value, o.select(beyond, below, above))
        value = o.select(o.and_(valid, o.eq(z, z)), value, math.nan)
        if family.discrete and log and not upper_tail:  # scipy: 0 at k = inf, even for bad mu
            value = o.select(o.ge(z, family.upper), 0.0, value)
        return value

    return lower


def methods(stats_module) -> dict[tuple[type, str], Callable]:
    """The lowerings of the cumulative methods of `stats_module` (scipy.stats)'s families."""
    table = {}
    for name, family in _FAMILIES.items():
        owner = type(getattr(stats_module, name))
        for method, upper_tail, log in (("cdf", False, False), ("logcdf", False, True),
                                        ("sf", True, False), ("logsf", True, True)):
            table[(owner, method)] = _method(family, upper_tail, log)
    return table
