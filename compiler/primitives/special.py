"""Special functions as elementwise primitives: `erf`, `erfc`, `gammaln` (log |Gamma|),
`digamma`, `trigamma`, `erfinv`, `erfcinv`, `sigmoid` (scipy's `expit`), with their numpy
references.

Contract: each is registered like the math primitives of `scalar` (float operands, numpy
broadcasting, derivatives from the shared formulas of `adlite.derivatives.special`, and
`sigmoid`'s from `elementwise`). `erfinv` and `erfcinv` run
`adlite.derivatives.special.erfinv_scalar` / `erfcinv_scalar` on each element (the LLVM backend
emits the same algorithm). The references use the C library's `erf`, `erfc`, `lgamma`
(Python's `math`), which the LLVM backend calls too, so both backends agree bit for bit;
`gammaln` is +inf at the poles (0, -1, -2, ...) as scipy's. `digamma` and `trigamma` apply
`adlite.derivatives.special.digamma_scalar` / `trigamma_scalar` to each element, whose
algorithm the LLVM backend emits too (`backends/llvm/special.py`).
`trigamma` has no derivative: differentiating it (third derivatives of `gammaln`) raises
NotImplementedError. `sigmoid` is 1 / (1 + exp(-x)), scipy's formula.
"""

from __future__ import annotations

import math

import numpy as np

from adlite import derivatives
from adlite.derivatives import special

from ..ir.primitive import Primitive, register
from .scalar import define_unary, float_only


def _gammaln_scalar(x: float) -> float:
    if x <= 0.0 and x == math.floor(x):
        return math.inf
    return math.lgamma(x) if math.isfinite(x) else abs(x) if x == x else x


def _elementwise(scalar_fn):
    """`scalar_fn` on floats applied to a number or each element of an array (keeping a
    float32 array's dtype)."""

    def apply(x):
        if isinstance(x, np.ndarray):
            flat = [scalar_fn(float(v)) for v in x.ravel()]
            return np.array(flat, dtype=np.float64).astype(x.dtype).reshape(x.shape)
        value = scalar_fn(float(x))
        return x.dtype.type(value) if isinstance(x, np.floating) else np.float64(value)

    return apply


erf = _elementwise(math.erf)
erfc = _elementwise(math.erfc)
gammaln = _elementwise(_gammaln_scalar)
digamma = _elementwise(special.digamma_scalar)
trigamma = _elementwise(special.trigamma_scalar)
erfinv = _elementwise(special.erfinv_scalar)
erfcinv = _elementwise(special.erfcinv_scalar)


def expit(x):
    one = x.dtype.type(1) if isinstance(x, np.ndarray | np.floating) else 1.0
    with np.errstate(over="ignore"):
        return one / (one + np.exp(-x))


for _name, _fn in [("erf", erf), ("erfc", erfc), ("gammaln", gammaln), ("digamma", digamma),
                   ("erfinv", erfinv), ("erfcinv", erfcinv)]:
    define_unary(_name, _fn, f"_rt.special.{_name}({{0}})", derivatives.FORMULAS[_name])
define_unary("sigmoid", expit, "_rt.special.expit({0})", derivatives.FORMULAS["sigmoid"])


def _no_derivative(*args):
    raise NotImplementedError("the derivative of trigamma (third derivatives of "
                              "scipy.special.gammaln) is not supported")


register(Primitive("trigamma", float_only, lambda x: (trigamma(x),), _no_derivative,
                   _no_derivative, lambda args, e: f"_rt.special.trigamma({args[0]})",
                   elementwise=True))
