"""scipy.special's Bessel, gamma-family and incomplete gamma/beta functions, numpy's inverse
hyperbolic ufuncs and `trigamma` as tape primitives.

Contract: each primitive's value is the library's own function on the arrays (scipy.special's
`iv`, `ive`, `i0`, `i1`, `jv`, `j0`, `j1`, `yv`, `yn`, `y0`, `y1`, `gamma`, `rgamma`,
`gammasgn`, `gammainc`, `gammaincc`, `beta`, `betaln`, `betainc`, `polygamma`;
numpy's `arccosh`, `arcsinh`, `arctanh`; `trigamma` from `adlite.derivatives.special`, the
compiler's reference), so dtypes, NaN and inf are theirs. The derivatives are the
functions' own identities, written with these tape functions, so that they are recorded and
derivatives of any order follow: iv' = (iv(v-1) + iv(v+1)) / 2, ive' = (ive(v-1) +
ive(v+1)) / 2 - sign(x) ive, jv' = (jv(v-1) - jv(v+1)) / 2 (yv, yn likewise), i0' = i1,
j0' = -j1, y0' = -y1, gamma' = gamma digamma, rgamma' = -rgamma digamma, gammasgn' = 0,
d/dx gammainc(a, x) = exp(-x) x^(a-1) / Gamma(a) (gammaincc: its negative), beta and betaln
in both parameters through digamma, d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / B(a, b),
polygamma(n, x)' = polygamma(n + 1, x) (so trigamma' = polygamma(2, x): third derivatives
through `gammaln` run). Orders, `a` of gammainc/gammaincc, `a`, `b` of betainc and `n` of
polygamma are not differentiated: a Tensor there that requires grad
raises NotImplementedError when the function is called (never a silent zero).
`scipy_function(name, node_name, partials, fixed)` registers more such primitives
(`scipy_stats`' `stdtr`). `scipy_ufunc(ufunc)` is the tape function of a scipy.special ufunc
a program called on a Tensor (for `numpy_protocol`), these and `special`'s; `NUMPY_UFUNCS`
numpy's three.
scipy is optional: it is imported when one of its functions is first computed (a program
that calls them has imported it already); only ufuncs of a `scipy.special` the program has
imported are recognised.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from adlite.derivatives import special as shared

from . import functional as F
from . import special
from .primitives import _quiet, primitive
from .special import _each
from .tensor import Tensor

Partials = Callable[..., tuple[Any, ...]]


def _scipy(name: str) -> Callable[..., np.ndarray]:
    """scipy.special's `name`, looked up when first computed (scipy is an optional extra)."""
    return lambda *arrays: getattr(importlib.import_module("scipy.special"), name)(*arrays)


def scipy_function(name: str, node_name: str, partials: Partials, fixed: tuple[int, ...] = (),
                   impl: Callable[..., np.ndarray] | None = None) -> Callable[..., Any]:
    """Register primitive `name` (`impl` on the arrays, by default scipy.special's `name`)
    whose cotangents are `g` times `partials(*inputs, output)` (None for the `fixed` inputs),
    and return its tape function, which refuses a `fixed` input that requires grad."""

    @primitive(name, node_name, _quiet(impl or _scipy(name)), inputs=True, output=True)
    def _vjp(ctx, g):
        parts = partials(*ctx.inputs, ctx.output)
        return tuple(None if i in fixed or p is None else F.sum_to(g * p, shape)
                     for i, (p, shape) in enumerate(zip(parts, ctx.shapes, strict=True)))

    def call(*args: Any) -> Any:
        for i in fixed:
            if isinstance(args[i], Tensor) and args[i].requires_grad:
                raise NotImplementedError(
                    f"the derivative of {name} with respect to its argument {i} is not "
                    "supported: pass it as a number or array, or detach() it")
        return F.apply(name, *args)

    call.__name__ = call.__qualname__ = name
    return call


def _unary(name: str, node_name: str, derivative: Callable[[Any, Any], Any],
           impl: Callable[..., np.ndarray] | None = None) -> Callable[..., Any]:
    return scipy_function(name, node_name, lambda x, out: (derivative(x, out),), impl=impl)


def _order(name: str, node_name: str, derivative: Callable[[Any, Any, Any], Any]
           ) -> Callable[..., Any]:
    """A function of an order (not differentiated) and x."""
    return scipy_function(name, node_name, lambda v, x, out: (None, derivative(v, x, out)),
                          fixed=(0,))


def _sign(x: Any) -> Any:
    return F.constant(np.sign(x.data))


iv = _order("iv", "IvBackward0", lambda v, x, out: (iv(v - 1.0, x) + iv(v + 1.0, x)) / 2.0)
ive = _order("ive", "IveBackward0",
             lambda v, x, out: (ive(v - 1.0, x) + ive(v + 1.0, x)) / 2.0 - _sign(x) * ive(v, x))
jv = _order("jv", "JvBackward0", lambda v, x, out: (jv(v - 1.0, x) - jv(v + 1.0, x)) / 2.0)
yv = _order("yv", "YvBackward0", lambda v, x, out: (yv(v - 1.0, x) - yv(v + 1.0, x)) / 2.0)
yn = _order("yn", "YnBackward0", lambda n, x, out: (yn(n - 1.0, x) - yn(n + 1.0, x)) / 2.0)
polygamma = _order("polygamma", "PolygammaBackward1",
                   lambda n, x, out: polygamma(n + 1.0, x))
i0 = _unary("i0", "I0Backward0", lambda x, out: i1(x))
i1 = _unary("i1", "I1Backward0", lambda x, out: (i0(x) + iv(2.0, x)) / 2.0)
j0 = _unary("j0", "J0Backward0", lambda x, out: -j1(x))
j1 = _unary("j1", "J1Backward0", lambda x, out: (j0(x) - jv(2.0, x)) / 2.0)
y0 = _unary("y0", "Y0Backward0", lambda x, out: -y1(x))
y1 = _unary("y1", "Y1Backward0", lambda x, out: (y0(x) - yv(2.0, x)) / 2.0)
gamma = _unary("gamma", "GammaBackward0", lambda x, out: out * special.digamma(x))
rgamma = _unary("rgamma", "RgammaBackward0", lambda x, out: -out * special.digamma(x))
gammasgn = _unary("gammasgn", "GammasgnBackward0", lambda x, out: F.zeros_like(x))
trigamma = _unary("trigamma", "PolygammaBackward0", lambda x, out: polygamma(2.0, x),
                  _each(shared.trigamma_scalar))
arccosh = _unary("arccosh", "AcoshBackward0",
                 lambda x, out: 1.0 / F.sqrt((x - 1.0) * (x + 1.0)), np.arccosh)
arcsinh = _unary("arcsinh", "AsinhBackward0",
                 lambda x, out: 1.0 / F.hypot(x, 1.0), np.arcsinh)
arctanh = _unary("arctanh", "AtanhBackward0",
                 lambda x, out: 1.0 / ((1.0 - x) * (1.0 + x)), np.arctanh)


def _lower_gamma_density(a: Any, x: Any) -> Any:
    """exp(-x) x^(a-1) / Gamma(a), the x-derivative of the regularised gammainc(a, x)."""
    return F.exp(special.xlogy(a - 1.0, x) - x - special.gammaln(a))


gammainc = scipy_function("gammainc", "GammaincBackward0",
                          lambda a, x, out: (None, _lower_gamma_density(a, x)), fixed=(0,))
gammaincc = scipy_function("gammaincc", "GammainccBackward0",
                           lambda a, x, out: (None, -_lower_gamma_density(a, x)), fixed=(0,))


def _beta_partials(a: Any, b: Any, scale: Any) -> tuple[Any, Any]:
    """`scale` times the partials of log B(a, b)."""
    both = special.digamma(a + b)
    return scale * (special.digamma(a) - both), scale * (special.digamma(b) - both)


beta = scipy_function("beta", "BetaBackward0", lambda a, b, out: _beta_partials(a, b, out))
betaln = scipy_function("betaln", "BetalnBackward0", lambda a, b, out: _beta_partials(a, b, 1.0))
betainc = scipy_function(
    "betainc", "BetaincBackward0",
    lambda a, b, x, out: (None, None, F.exp(special.xlogy(a - 1.0, x)
                                            + special.xlogy(b - 1.0, 1.0 - x) - betaln(a, b))),
    fixed=(0, 1))

NUMPY_UFUNCS = {np.arccosh: arccosh, np.arcsinh: arcsinh, np.arctanh: arctanh}
_SPECIAL = {"erf": special.erf, "erfc": special.erfc, "gammaln": special.gammaln,
            "psi": special.digamma, "ndtr": special.ndtr,
            "log_ndtr": special.log_ndtr, "expit": F.sigmoid, "logit": special.logit,
            "xlogy": special.xlogy, "erfinv": special.erfinv, "erfcinv": special.erfcinv,
            "ndtri": special.ndtri, "iv": iv, "ive": ive, "jv": jv, "yv": yv, "yn": yn,
            "i0": i0, "i1": i1, "j0": j0, "j1": j1, "y0": y0, "y1": y1, "gamma": gamma,
            "rgamma": rgamma, "gammasgn": gammasgn, "gammainc": gammainc,
            "gammaincc": gammaincc, "beta": beta, "betaln": betaln, "betainc": betainc}


def scipy_ufunc(ufunc: Any) -> Callable[..., Any] | None:
    """The tape function of a `scipy.special` ufunc, or None."""
    sc = sys.modules.get("scipy.special")
    if sc is None:
        return None
    name = getattr(ufunc, "__name__", None)
    return _SPECIAL.get(name) if getattr(sc, name or "", None) is ufunc else None
