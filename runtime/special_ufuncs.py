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
a program called on a Tensor (for `numpy_protocol`), these and `special`'s;
`scipy_takes_complex(ufunc)` says whether it takes complex tensors (`erf`, `erfc`);
`NUMPY_UFUNCS` numpy's three (all three take complex tensors: `primitives`).
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

from adlite import derivatives
from adlite.derivatives import special as shared

from . import functional as F
from . import special
from .primitive import PRIMITIVES
from .primitives import _elementwise, _quiet, primitive
from .special import _each
from .tensor import Tensor

Partials = Callable[..., tuple[Any, ...]]


def _scipy(name: str) -> Callable[..., np.ndarray]:
    """scipy.special's `name`, looked up when first computed (scipy is an optional extra)."""
    return lambda *arrays: getattr(importlib.import_module("scipy.special"), name)(*arrays)


def scipy_function(name: str, node_name: str, partials: Partials | None = None,
                   fixed: tuple[int, ...] = (), impl: Callable[..., np.ndarray] | None = None
                   ) -> Callable[..., Any]:
    """Register primitive `name` (`impl` on the arrays, by default scipy.special's `name`)
    whose cotangents come from the formula shared with the compiler (`adlite.derivatives`)
    where there is one, else are `g` times `partials(*inputs, output)` (None for the `fixed`
    inputs), and return its tape function, which refuses a `fixed` input that requires grad."""
    quiet = _quiet(impl or _scipy(name))
    if name in derivatives.FORMULAS:
        _elementwise(name, node_name, quiet)
    else:
        @primitive(name, node_name, quiet, inputs=True, output=True)
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


def _order(name: str, node_name: str, derivative: Callable[[Any, Any, Any], Any] | None = None
           ) -> Callable[..., Any]:
    """A function of an order (not differentiated) and x."""
    partials = None if derivative is None else \
        (lambda v, x, out: (None, derivative(v, x, out)))
    return scipy_function(name, node_name, partials, fixed=(0,))


iv = _order("iv", "IvBackward0")
ive = _order("ive", "IveBackward0")
jv = _order("jv", "JvBackward0")
yv = _order("yv", "YvBackward0",  # jv's rule (the compiler has no yv)
            lambda v, x, out: (yv(v - 1.0, x) - yv(v + 1.0, x)) / 2.0)
yn = _order("yn", "YnBackward0")
polygamma = _order("polygamma", "PolygammaBackward1",
                   lambda n, x, out: polygamma(n + 1.0, x))
i0, i1, j0, j1, y0, y1, gamma, rgamma, gammasgn = (
    scipy_function(name, node) for name, node in (
        ("i0", "I0Backward0"), ("i1", "I1Backward0"), ("j0", "J0Backward0"),
        ("j1", "J1Backward0"), ("y0", "Y0Backward0"), ("y1", "Y1Backward0"),
        ("gamma", "GammaBackward0"), ("rgamma", "RgammaBackward0"),
        ("gammasgn", "GammasgnBackward0")))
trigamma = scipy_function("trigamma", "PolygammaBackward0",
                          lambda x, out: (polygamma(2.0, x),), impl=_each(shared.trigamma_scalar))
gammainc = scipy_function("gammainc", "GammaincBackward0", fixed=(0,))
gammaincc = scipy_function("gammaincc", "GammainccBackward0", fixed=(0,))
beta = scipy_function("beta", "BetaBackward0")
betaln = scipy_function("betaln", "BetalnBackward0")
betainc = scipy_function("betainc", "BetaincBackward0", fixed=(0, 1))


def _numpy(name: str) -> Callable[..., Any]:
    def call(x: Any) -> Any:
        return F.apply(name, x)

    call.__name__ = call.__qualname__ = name
    return call


arccosh, arcsinh, arctanh = (_numpy(n) for n in ("arccosh", "arcsinh", "arctanh"))
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


def scipy_takes_complex(ufunc: Any) -> bool:
    """Whether `ufunc` is a `scipy.special` ufunc whose tape function takes complex tensors
    (its primitive's `takes_complex`: `erf`, `erfc`)."""
    if scipy_ufunc(ufunc) is None:
        return False
    prim = PRIMITIVES.get(ufunc.__name__)
    return prim is not None and prim.takes_complex
