"""numpy's ufuncs called by name and the elementwise functions built from primitives.

Contract: registers, into the table of `functions.py`, lowerings for `np.add`, `np.subtract`,
`np.multiply`, `np.divide` / `np.true_divide` (a float quotient, as numpy's), `np.negative`,
`np.positive`, `np.floor_divide`, `np.mod` (Python's sign of the divisor), `np.fmod` (C's
sign of the dividend, floats; a primitive), the comparisons
`np.greater` ... `np.not_equal`, `np.logical_and/or/xor/not` (nonzero is true), `np.isnan`,
`np.isinf`, `np.isfinite` (and math's: bool results, nothing flows back through them),
`np.arctan2` / `math.atan2` (a primitive), `np.exp2`, `np.reciprocal` (floats), `np.sinc`,
`np.heaviside`, `np.logaddexp` (composites of `adlite.derivatives.composites`, which the
tape runs too), `math.erf`, `math.erfc`,
`math.lgamma` and `math.gamma` (`exp(lgamma)` with the sign of Gamma; zero and negative
integers raise Python's ValueError "math domain error", a finite argument with an infinite
result Python's OverflowError "math range error", when run; `gamma` is within a few hundred
ulp of Python's: exp(lgamma) loses |lgamma(x)| ulp).
Keyword arguments (`out=`, `where=`) are refused by name.
"""

from __future__ import annotations

import math

import numpy as np

from adlite.derivatives import composites

from ..ir.builder import const
from ..primitives.vocabulary import BuilderOps
from .functions import register_with_keywords, without_keywords


def _binary(prim, floats=False):
    def lower(conv, args, node):
        x, y = conv.exactly(args, 2, node)
        if floats:
            x, y = conv.as_float(x, node), conv.as_float(y, node)
        return conv.b.op(prim, *conv.promote(x, y, node))

    return lower


def _integer_division(prim):
    def lower(conv, args, node):
        x, y = conv.promote(*conv.exactly(args, 2, node), node)
        if not y.type.is_float and getattr(y, "value", None) == 0:
            raise conv.source.error(node, "integer division by zero")
        return conv.b.op(prim, x, y)

    return lower


def _fmod(conv, args, node):
    x, y = conv.promote(*conv.exactly(args, 2, node), node)
    if not x.type.is_float:
        raise conv.source.error(node, "np.fmod of integers", "use np.fmod(float(x), y) or %")
    return conv.b.op("fmod", x, y)


def _negative(conv, args, node):
    return conv.b.neg(conv.numeric(conv.one(args, node), node))


def _positive(conv, args, node):
    return conv.numeric(conv.one(args, node), node)


def _truth(conv, x, node):
    x = conv.value(x, node)
    return x if x.type.name == "bool" else conv.b.ne(x, const(0, x.type.scalar))


def _logical(prim):
    def lower(conv, args, node):
        x, y = (_truth(conv, a, node) for a in conv.exactly(args, 2, node))
        return conv.b.op(prim, x, y)

    return lower


def _logical_not(conv, args, node):
    return conv.b.not_(_truth(conv, conv.one(args, node), node))


def _float_test(kind):
    """isnan (`x != x`), isinf (`|x| == inf`), isfinite (`x - x == 0`); ints: never NaN or
    infinite."""

    def lower(conv, args, node):
        x = conv.numeric(conv.one(args, node), node)
        if not x.type.is_float:
            return conv.b.eq(x, x) if kind == "isfinite" else conv.b.ne(x, x)
        if kind == "isnan":
            return conv.b.ne(x, x)
        if kind == "isinf":
            return conv.b.eq(conv.b.abs(x), const(math.inf, x.type.scalar))
        return conv.b.eq(conv.b.sub(x, x), const(0.0, x.type.scalar))

    return lower


def _composite(fn, arity=1):
    """A float composite of `adlite.derivatives.composites` (the tape's too)."""

    def lower(conv, args, node):
        values = [conv.as_float(a, node) for a in conv.exactly(args, arity, node)]
        if arity == 2:
            values = conv.promote(*values, node)
        return fn(BuilderOps(conv.b), *values)

    return lower


def _reciprocal(conv, args, node):
    x = conv.numeric(conv.one(args, node), node)
    if not x.type.is_float:
        raise conv.source.error(node, "np.reciprocal of integers (numpy truncates 1/x to an int)",
                                "use 1.0 / x")
    return composites.reciprocal(BuilderOps(conv.b), x)


def _raise_where(conv, bad, error, message):
    conv.b.emit("check", [conv.b.not_(bad)], error=error, args=(("str", (message,)),))


def _domain_error(conv, bad):
    _raise_where(conv, bad, "ValueError", "math domain error")


def _range_error(conv, x, result):
    """Python raises OverflowError where a finite argument gives an infinite result."""
    b, inf = conv.b, const(math.inf, x.type.scalar)
    infinite = b.eq(b.abs(result), inf)
    _raise_where(conv, b.and_(infinite, b.lt(b.abs(x), inf)), "OverflowError",
                 "math range error")
    return result


def _at_poles(conv, x):
    """x is zero or a negative integer (where Gamma has its poles) or -inf."""
    b, t = conv.b, x.type.scalar
    return b.and_(b.le(x, const(0.0, t)), b.eq(b.floor(x), x))


def _lgamma(conv, args, node):
    x = conv.scalar(conv.as_float(conv.one(args, node), node), node)
    _domain_error(conv, _at_poles(conv, x))
    return _range_error(conv, x, conv.b.gammaln(x))


def _gamma(conv, args, node):
    """Gamma(x) = sign * exp(lgamma(x)); the sign is negative for x < 0 with floor(x) odd."""
    b, x = conv.b, conv.scalar(conv.as_float(conv.one(args, node), node), node)
    t = x.type.scalar
    _domain_error(conv, _at_poles(conv, x))
    odd = b.eq(b.mod(b.floor(x), const(2.0, t)), const(1.0, t))
    negative = b.and_(b.lt(x, const(0.0, t)), odd)
    magnitude = b.exp(b.gammaln(x))
    return _range_error(conv, x, b.select(negative, b.neg(magnitude), magnitude))


def _scalar_unary(prim):
    def lower(conv, args, node):
        return conv.b.op(prim, conv.scalar(conv.as_float(conv.one(args, node), node), node))

    return lower


def _register_all() -> None:
    table = [
        ([np.add], _binary("add")), ([np.subtract], _binary("sub")),
        ([np.multiply], _binary("mul")), ([np.divide, np.true_divide], _binary("div", True)),
        ([np.negative], _negative), ([np.positive], _positive),
        ([np.floor_divide], _integer_division("floordiv")),
        ([np.mod, np.remainder], _integer_division("mod")), ([np.fmod], _fmod),
        ([np.greater], _binary("gt")), ([np.greater_equal], _binary("ge")),
        ([np.less], _binary("lt")), ([np.less_equal], _binary("le")),
        ([np.equal], _binary("eq")), ([np.not_equal], _binary("ne")),
        ([np.logical_and], _logical("and_")), ([np.logical_or], _logical("or_")),
        ([np.logical_xor], _logical("ne")), ([np.logical_not], _logical_not),
        ([np.isnan, math.isnan], _float_test("isnan")),
        ([np.isinf, math.isinf], _float_test("isinf")),
        ([np.isfinite, math.isfinite], _float_test("isfinite")),
        ([np.exp2], _composite(composites.exp2)), ([np.reciprocal], _reciprocal),
        ([np.arctan2, math.atan2], _binary("arctan2", True)),
        ([np.sinc], _composite(composites.sinc)),
        ([np.heaviside], _composite(composites.heaviside, 2)),
        ([np.logaddexp], _composite(composites.logaddexp, 2)),
        ([math.erf], _scalar_unary("erf")), ([math.erfc], _scalar_unary("erfc")),
        ([math.lgamma], _lgamma), ([math.gamma], _gamma),
    ]
    for objects, lowering in table:
        register_with_keywords(objects, without_keywords(lowering))



_register_all()
