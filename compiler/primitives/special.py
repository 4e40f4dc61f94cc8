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
`sigmoid` is 1 / (1 + exp(-x)), scipy's formula.

`polygamma` (param `order` n >= 1) applies
`adlite.derivatives.special_functions.polygamma_scalar` to each element, in double (scipy's
polygamma returns float64 whatever x's dtype), scipy's `polygamma(n, x)`: unlike `trigamma`
(which derivatives use), +inf at every pole for n = 1; trigamma' = polygamma(order 2), and
polygamma(n)' = polygamma(n + 1).

scipy's C functions (`SCIPY_FUNCTIONS`: `iv`, `ive`, `i0`, `i1`, `j0`, `j1`, `jv`, `y0`, `y1`,
`yn`, `gamma`, `rgamma`, `gammasgn`, `gammainc`, `gammaincc`, `beta`, `betaln`, `betainc`,
`betaincc`, the distribution functions `stdtr`, `chdtr`, `chdtrc`, `pdtr`, `pdtrc`, and the
error functions `erfcx`, `erfi`, `dawsn` of real numbers (of complex ones: `complex_special`)): one
float elementwise primitive each, of the arity given there, operands of one dtype (the
frontend promotes them), derivatives from `adlite.derivatives.special_functions`; the
quantiles `SCIPY_QUANTILES` (`gammaincinv`, `betaincinv`) alike but not differentiable;
forward mode raises NotImplementedError (naming the line) for a tangent of a shape parameter
(`SHAPE_PARAMETERS`); reverse mode gives it the cotangent `missing_cotangent(g)`, a primitive
no backend lowers: where the derivative is not needed (the parameter does not depend on the
differentiated arguments) dead-code elimination removes it, and where one survives the
optimisations the expansion before lowering (`passes/custom_calls.expand`) raises the same
NotImplementedError (`no_derivative_message`). Their
reference and the Python backend's code call `scipy.special`'s ufunc of the same name
(`scipy_function(name)`, imported on first use, so scipy stays optional), whose float32 loops
the LLVM backend follows (`backends/llvm/scipy_capi.py`).
"""

from __future__ import annotations

import importlib
import math

import numpy as np

from adlite import derivatives
from adlite.derivatives import special
from adlite.derivatives.special_functions import polygamma_scalar

from ..ir.primitive import Primitive, register
from .scalar import define_unary, float_only
from .vocabulary import BuilderOps


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


def _polygamma_vjp(b, eqn, cts):
    return [b.mul(cts[0], _next_order(b, eqn))]


def _polygamma_jvp(b, eqn, tangents):
    return [None if tangents[0] is None else b.mul(tangents[0], _next_order(b, eqn))]


def _next_order(b, eqn):
    """The derivative of `eqn` (trigamma or polygamma of some order): the next order."""
    return b.polygamma(eqn.inputs[0], order=eqn.params.get("order", 1) + 1)


def polygamma(x, order: int):
    return _elementwise(lambda v: polygamma_scalar(order, v))(x)


def _polygamma_type(in_types, params):
    if not isinstance(params.get("order"), int) or params["order"] < 1:
        raise TypeError("polygamma's order must be an int >= 1 (0: digamma)")
    return float_only(in_types, params)


register(Primitive("trigamma", float_only, lambda x: (trigamma(x),), _polygamma_vjp,
                   _polygamma_jvp, lambda args, e: f"_rt.special.trigamma({args[0]})",
                   elementwise=True))
register(Primitive("polygamma", _polygamma_type,
                   lambda x, order: (polygamma(x, order),), _polygamma_vjp, _polygamma_jvp,
                   lambda args, e: f"_rt.special.polygamma({args[0]}, {e.params['order']})",
                   elementwise=True))

SCIPY_FUNCTIONS = {"iv": 2, "ive": 2, "i0": 1, "i1": 1, "j0": 1, "j1": 1, "jv": 2, "y0": 1,
                   "y1": 1, "yn": 2, "gamma": 1, "rgamma": 1, "gammasgn": 1, "gammainc": 2,
                   "gammaincc": 2, "beta": 2, "betaln": 2, "betainc": 3, "betaincc": 3,
                   "stdtr": 2, "chdtr": 2, "chdtrc": 2, "pdtr": 2, "pdtrc": 2, "erfcx": 1,
                   "erfi": 1, "dawsn": 1}
# not differentiable: scipy.stats' cumulative methods take their medians from them
SCIPY_QUANTILES = {"gammaincinv": 2, "betaincinv": 3}
# the shape parameters autograd does not differentiate (it raises): forward mode refuses a
# tangent there; reverse mode, which does not know which operands depend on the
# differentiated arguments, gives them no cotangent
SHAPE_PARAMETERS = {"gammainc": {0: "a"}, "gammaincc": {0: "a"}, "betainc": {0: "a", 1: "b"},
                    "betaincc": {0: "a", 1: "b"}, "stdtr": {0: "df"}, "chdtr": {0: "v"},
                    "chdtrc": {0: "v"}}


def no_derivative_message(params: dict) -> str:
    """The error of a `missing_cotangent` equation that survived to lowering."""
    line = params.get("line")
    return (f"scipy.special.{params['function']} is not differentiable with respect to its "
            f"argument {params['argument']}" + (f" (line {line})" if line else ""))


def _same_type(in_types, params):
    return [in_types[0]]


def _refused(b, e, cotangents):
    raise NotImplementedError(no_derivative_message(e.params))


# the cotangent of an argument with no derivative: never folded (its impl gives None) nor
# lowered (`passes/custom_calls.expand` raises); elementwise, so vmap maps it as it is
register(Primitive("missing_cotangent", _same_type, lambda *args, **params: None, _refused,
                   _refused, None, elementwise=True))


def scipy_function(name: str):
    """scipy.special's ufunc `name` (scipy imported on first use)."""
    return getattr(importlib.import_module("scipy.special"), name)


def _arity(name: str, n: int):
    def rule(in_types, params):
        if len(in_types) != n:
            raise TypeError(f"{name} takes {n} operand(s), got {len(in_types)}")
        return float_only(in_types, params)

    return rule


def _scipy_primitive(name: str, n: int) -> None:
    def impl(*args):
        with np.errstate(all="ignore"):
            return (scipy_function(name)(*args),)

    def py(args, eqn):
        return f"_rt.special.scipy_function({name!r})({', '.join(args)})"

    formula = derivatives.FORMULAS.get(name)
    vjp = jvp = None
    if formula is not None:
        def vjp(b, e, cts):
            bars = derivatives.vjp(formula, BuilderOps(b), cts[0], e.inputs, e.outputs[0])
            for k, parameter in SHAPE_PARAMETERS.get(name, {}).items():
                bars[k] = b.emit("missing_cotangent", [cts[0]], function=name,
                                 argument=parameter, line=e.loc)[0]
            return bars

        def jvp(b, e, t):
            for k, parameter in SHAPE_PARAMETERS.get(name, {}).items():
                if t[k] is not None:
                    raise NotImplementedError(
                        f"scipy.special.{name} is not differentiable with respect to its "
                        f"argument {parameter}" + (f" (line {e.loc})" if e.loc else ""))
            return [derivatives.jvp(formula, BuilderOps(b), t, e.inputs, e.outputs[0])]

    register(Primitive(name, _arity(name, n), impl, vjp, jvp, py, elementwise=True,
                       formula=formula, differentiable=formula is not None))


for _name, _n in {**SCIPY_FUNCTIONS, **SCIPY_QUANTILES}.items():
    _scipy_primitive(_name, _n)
