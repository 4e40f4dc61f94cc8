"""numpy's and math's elementwise functions, ufuncs called by name included.

Contract: registers the rules of the functions of one or two numbers or arrays (elementwise,
numpy's type promotion): the unary primitives (`exp`, `sqrt`, `sin` ... `arctan`, `cbrt`,
`log2`, `log10`, `sign`; math's names too, of one number, raising Python's ValueError /
OverflowError where numpy gives NaN / inf (`_math_errors`); `np.arcsinh`, `np.arccosh`,
`np.arctanh`), `np.log` / `math.log` (with a base: `composites.log_base`, numpy's values),
`abs` (`np.abs`, `np.fabs`, `math.fabs`, builtin `abs`), `np.square` and `hypot`
(composites of `adlite.derivatives.composites`, which the tape runs too),
`power` (`np.power`: ints stay ints, numpy's ValueError for a negative int exponent;
`math.pow` with Python's errors; builtin `pow` as `**`), `np.maximum` / `np.minimum` (NaN
propagating), `np.fmax` / `np.fmin` (NaN ignoring: `derivatives.takes_first`), rounding
(`np.floor` / `np.ceil`; math's give ints; `np.round` / `np.around` and builtin `round`
through `rounding_to_digits`), `np.add`, `np.subtract`, `np.multiply`, `np.divide` /
`np.true_divide` (a float quotient, as numpy's), `np.negative`, `np.positive`,
`np.floor_divide`, `np.mod` (Python's sign of the divisor), `np.fmod` (C's sign of the
dividend, floats; a primitive), the comparisons `np.greater` ... `np.not_equal`,
`np.logical_and/or/xor/not` (nonzero is true), `np.isnan`, `np.isinf`, `np.isfinite` (and
math's: bool results, nothing flows back through them), `np.arctan2` / `math.atan2` (a
primitive), `np.exp2`, `np.reciprocal` (floats), `np.sinc`, `np.heaviside`, `np.logaddexp`,
`np.logaddexp2` (composites), `math.erf`, `math.erfc`, `math.lgamma` and `math.gamma`
(`exp(lgamma)` with the sign of Gamma; zero and negative integers raise Python's ValueError
"math domain error", a finite argument with an infinite result Python's OverflowError "math
range error", when run; `gamma` is within a few hundred ulp of Python's: exp(lgamma) loses
|lgamma(x)| ulp), `np.isclose(a, b, rtol, atol, equal_nan)` (numpy's test
`|a - b| <= atol + rtol * |b|` where b is finite, or a == b; tolerances may be run-time
numbers) and `np.allclose` (all of it, a bool). Keyword arguments (`out=`, `where=`) of the
ufuncs are refused by name. `unary(prim)`
is the rule of a one-argument float primitive.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from adlite import derivatives
from adlite.derivatives import composites

from ...errors import AdliteValueError
from ...ir.builder import const
from ...ir.core import I64, Const
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from .registry import REQUIRED, bind_params, lookup, param, register


def unary(prim):
    """The rule `(cx, args, node)` of the one-argument float primitive `prim`."""

    def lower(cx: CallContext, args, node):
        return cx.b.op(prim, cx.as_float(cx.one(args, node), node))

    return lower


def _elementwise_extremum(prim):
    """np.maximum / np.minimum: NaN-propagating, elementwise."""

    def lower(cx: CallContext, args, node):
        return cx.b.op(prim, *cx.promote(*cx.exactly(args, 2, node), node))

    return lower


def _nan_ignoring_extremum(compare):
    """np.fmax / np.fmin: `a if (a >= b or isnan(b)) else b` (fmin: `<=`), so a NaN operand
    yields the other one (both NaN: NaN) and the gradient follows the select (torch.fmax)."""

    def lower(cx: CallContext, args, node):
        a, b = cx.promote(*cx.exactly(args, 2, node), node)
        if a.type.is_float:
            first = derivatives.takes_first(cx.b, compare, a, b)  # the tape's fmax rule's too
        else:
            first = cx.b.op(compare, a, b)  # no NaN among ints
        return cx.b.select(first, a, b)

    return lower


def _round_half_even(cx: CallContext, x):
    """numpy's rint: the nearest integer, ties to even (exact: x - floor(x) is exact), with
    x's sign when it is zero (rint(-0.5) is -0.0: x * 0.0 keeps the sign)."""
    b = cx.b
    low = b.floor(x)
    frac = b.sub(x, low)
    odd = b.eq(b.mod(low, const(2.0, x.type.scalar)), const(1.0, x.type.scalar))
    up = b.or_(b.gt(frac, const(0.5, x.type.scalar)),
               b.and_(b.eq(frac, const(0.5, x.type.scalar)), odd))
    rounded = b.select(up, b.add(low, const(1.0, x.type.scalar)), low)
    zero = const(0.0, x.type.scalar)
    return b.select(b.eq(rounded, zero), b.mul(x, zero), rounded)


def rounding_to_digits(builtin: bool):
    """Builtin round(x) of a float: the nearest int, ties to even (ValueError for NaN,
    OverflowError for infinities, as Python); of an int: itself; of an array: numpy's
    TypeError when run. np.round(x) (np.around): the same float (arrays elementwise).
    round(x, n) (n known when compiling) as numpy rounds float64 scalars and arrays:
    rint(x * 10**n) / 10**n (Python's float.__round__ rounds the exact decimal expansion
    instead, which differs at a few halfway cases such as round(2.675, 2))."""

    def lower(cx: CallContext, args, node):
        if not 1 <= len(args) <= 2:
            raise cx.source.error(node, f"round() takes 1 or 2 arguments, {len(args)} given")
        x = cx.numeric(args[0], node)
        if builtin and x.type.is_array:
            cx.b.emit("check", [const(False)], error="TypeError",
                      args=(("str", ("type numpy.ndarray doesn't define __round__ method",)),))
            return x
        digits = cx.static(args[1], node, "its `ndigits`", "option") if len(args) == 2 \
            else None
        if digits is not None and not isinstance(digits, int):
            raise cx.source.error(node, f"round(): ndigits must be an int, got {digits!r}")
        if not x.type.is_float:
            return x
        if digits is None:
            rounded = _round_half_even(cx, x)
            return cx.b.convert(rounded, to=I64) if builtin else rounded
        scale = const(10.0 ** abs(digits), x.type.scalar)
        if digits >= 0:
            return cx.b.div(_round_half_even(cx, cx.b.mul(x, scale)), scale)
        return cx.b.mul(_round_half_even(cx, cx.b.div(x, scale)), scale)

    return lower


def _abs(cx: CallContext, args, node):
    x = cx.numeric(cx.one(args, node), node)
    return cx.b.op("abs", x)  # elementwise on arrays


def _square(cx: CallContext, args, node):
    x = cx.as_float(cx.one(args, node), node)
    return composites.square(BuilderOps(cx.b), x)


def _log(cx: CallContext, args, node):
    if len(args) == 2:
        x, base = (cx.as_float(a, node) for a in args)
        return composites.log_base(BuilderOps(cx.b), x, base)
    return cx.b.log(cx.as_float(cx.one(args, node), node))


def _math_log(cx: CallContext, args, node):
    """math.log(x) with Python's ValueError at x <= 0; math.log(x, base) as numpy's
    formula (its errors are not Python's: see the README)."""
    return _log(cx, args, node) if len(args) == 2 else \
        _math_errors(_log, False)(cx, args, node)


def _hypot(cx: CallContext, args, node):
    x, y = (cx.as_float(a, node) for a in cx.exactly(args, 2, node))
    return composites.hypot(BuilderOps(cx.b), x, y)


def _rounding(prim, to_int):
    def lower(cx: CallContext, args, node):
        x = cx.one(args, node)
        if x.type == I64:
            return x
        y = cx.b.op(prim, cx.as_float(x, node))
        return cx.b.convert(y, to=I64) if to_int else y

    return lower


def _float_pow(cx: CallContext, args, node):
    x, y = (cx.as_float(a, node) for a in cx.exactly(args, 2, node))
    return cx.b.pow(*cx.promote(x, y, node))


def _python_pow(cx: CallContext, args, node):
    """Builtin `pow(x, y)` as `x ** y`: ints stay ints for an exponent known to be >= 0
    (Python gives a float for a negative one, so a run-time int exponent gives a float)."""
    x, y = cx.promote(*cx.exactly(args, 2, node), node)
    if not x.type.is_float and isinstance(y, Const) and y.value >= 0:
        return cx.b.pow(x, y)
    return _float_pow(cx, [x, y], node)


def _numpy_power(cx: CallContext, args, node):
    """`np.power`: ints stay ints (numpy's), a negative int exponent is numpy's ValueError
    (when compiling for a constant, when run otherwise)."""
    x, y = cx.promote(*cx.exactly(args, 2, node), node)
    if x.type.is_float:
        return cx.b.pow(x, y)
    message = "Integers to negative integer powers are not allowed."
    if isinstance(y, Const):
        if y.value < 0:
            raise cx.source.error(node, message, "use a float: np.power(x, -1.0)",
                                  kind=AdliteValueError)
    else:
        lowest_negated = BuilderOps(cx.b).reduce_max(cx.b.neg(y), None, False) \
            if y.type.is_array else cx.b.neg(y)
        raise_where(cx, cx.b.gt(lowest_negated, Const(0, I64)), "ValueError", message)
    return cx.b.pow(x, y)


def _math_pow(cx: CallContext, args, node):
    """math.pow with Python's errors (CPython's math_pow): a NaN from numbers that are not
    NaN is ValueError, an infinity from finite numbers ValueError for 0 ** negative, else
    OverflowError."""
    b = cx.b
    x, y = (cx.scalar(cx.as_float(a, node), node) for a in cx.exactly(args, 2, node))
    x, y = cx.promote(x, y, node)
    result = b.pow(x, y)
    inf = const(math.inf, x.type.scalar)
    finite = b.and_(b.lt(b.abs(x), inf), b.lt(b.abs(y), inf))
    infinite = b.and_(b.eq(b.abs(result), inf), finite)
    zero = b.eq(x, const(0.0, x.type.scalar))
    _domain_error(cx, b.or_(b.and_(b.ne(result, result), b.and_(b.eq(x, x), b.eq(y, y))),
                            b.and_(infinite, zero)))
    raise_where(cx, b.and_(infinite, b.not_(zero)), "OverflowError", "math range error")
    return result


def _binary(prim, floats=False):
    def lower(cx: CallContext, args, node):
        x, y = cx.exactly(args, 2, node)
        if floats:
            x, y = cx.as_float(x, node), cx.as_float(y, node)
        return cx.b.op(prim, *cx.promote(x, y, node))

    return lower


def _integer_division(prim):
    def lower(cx: CallContext, args, node):
        x, y = cx.promote(*cx.exactly(args, 2, node), node)
        if not y.type.is_float and getattr(y, "value", None) == 0:
            raise cx.source.error(node, "integer division by zero")
        return cx.b.op(prim, x, y)

    return lower


def _fmod(cx: CallContext, args, node):
    x, y = cx.promote(*cx.exactly(args, 2, node), node)
    if not x.type.is_float:
        raise cx.source.error(node, "np.fmod of integers", "use np.fmod(float(x), y) or %")
    return cx.b.op("fmod", x, y)


def _negative(cx: CallContext, args, node):
    return cx.b.neg(cx.numeric(cx.one(args, node), node))


def _positive(cx: CallContext, args, node):
    return cx.numeric(cx.one(args, node), node)


def _truth(cx: CallContext, x, node):
    x = cx.value(x, node)
    return x if x.type.name == "bool" else cx.b.ne(x, const(0, x.type.scalar))


def _logical(prim):
    def lower(cx: CallContext, args, node):
        x, y = (_truth(cx, a, node) for a in cx.exactly(args, 2, node))
        return cx.b.op(prim, x, y)

    return lower


def _logical_not(cx: CallContext, args, node):
    return cx.b.not_(_truth(cx, cx.one(args, node), node))


def _float_test(kind):
    """isnan (`x != x`), isinf (`|x| == inf`), isfinite (`x - x == 0`); ints: never NaN or
    infinite."""

    def lower(cx: CallContext, args, node):
        x = cx.numeric(cx.one(args, node), node)
        if not x.type.is_float:
            return cx.b.eq(x, x) if kind == "isfinite" else cx.b.ne(x, x)
        if kind == "isnan":
            return cx.b.ne(x, x)
        if kind == "isinf":
            return cx.b.eq(cx.b.abs(x), const(math.inf, x.type.scalar))
        return cx.b.eq(cx.b.sub(x, x), const(0.0, x.type.scalar))

    return lower


def _close(cx: CallContext, args, kwargs, node, name: str = "isclose"):
    """np.isclose, as numpy computes it: b as a float, `(|a - b| <= atol + rtol * |b|) &
    isfinite(b) | (a == b)`, then `| isnan(a) & isnan(b)` with `equal_nan`."""
    p = bind_params(cx, name, args, kwargs, {"a": REQUIRED, "b": REQUIRED, "rtol": 1e-05,
                                             "atol": 1e-08, "equal_nan": False}, node)
    b, x, y = cx.b, cx.numeric(p["a"], node), cx.as_float(p["b"], node)

    def op(prim, u, v):
        return b.op(prim, *cx.promote(u, v, node))

    bound = op("add", p["atol"], op("mul", p["rtol"], b.abs(y)))
    finite = b.eq(b.sub(y, y), const(0.0, y.type.scalar))
    result = b.or_(b.and_(op("le", b.abs(op("sub", x, y)), bound), finite), op("eq", x, y))
    if param(cx, p, "equal_nan", node):
        result = b.or_(result, b.and_(b.ne(x, x), b.ne(y, y)))
    return result


def _allclose(cx: CallContext, args, kwargs, node):
    return lookup(np.all)(cx, [_close(cx, args, kwargs, node, "allclose")], {}, node)


def _composite(fn, arity=1):
    """A float composite of `adlite.derivatives.composites` (the tape's too)."""

    def lower(cx: CallContext, args, node):
        values = [cx.as_float(a, node) for a in cx.exactly(args, arity, node)]
        if arity == 2:
            values = cx.promote(*values, node)
        return fn(BuilderOps(cx.b), *values)

    return lower


def _reciprocal(cx: CallContext, args, node):
    x = cx.numeric(cx.one(args, node), node)
    if not x.type.is_float:
        raise cx.source.error(node, "np.reciprocal of integers (numpy truncates 1/x to an int)",
                              "use 1.0 / x")
    return composites.reciprocal(BuilderOps(cx.b), x)


def raise_where(cx: CallContext, bad, error, message):
    """A run-time check: `error(message)` is raised where `bad` holds (Python's errors of
    math and cmath's functions)."""
    cx.b.emit("check", [cx.b.not_(bad)], error=error, args=(("str", (message,)),))


def raise_at(cx: CallContext, node, bad, error, message):
    """`raise_where`, the message led by the user's file:line of `node`: a run-time refusal
    of what compiling could not decide (a result's type that depends on the values)."""
    where = cx.source.error(node, "")
    raise_where(cx, bad, error, f"{where.filename}:{where.line}: {message}")


def _domain_error(cx: CallContext, bad):
    raise_where(cx, bad, "ValueError", "math domain error")


def _range_error(cx: CallContext, x, result):
    """Python raises OverflowError where a finite argument gives an infinite result."""
    b, inf = cx.b, const(math.inf, x.type.scalar)
    infinite = b.eq(b.abs(result), inf)
    raise_where(cx, b.and_(infinite, b.lt(b.abs(x), inf)), "OverflowError",
                 "math range error")
    return result


def _at_poles(cx: CallContext, x):
    """x is zero or a negative integer (where Gamma has its poles) or -inf."""
    b, t = cx.b, x.type.scalar
    return b.and_(b.le(x, const(0.0, t)), b.eq(b.floor(x), x))


def _lgamma(cx: CallContext, args, node):
    x = cx.scalar(cx.as_float(cx.one(args, node), node), node)
    _domain_error(cx, _at_poles(cx, x))
    return _range_error(cx, x, cx.b.gammaln(x))


def _gamma(cx: CallContext, args, node):
    """Gamma(x) = sign * exp(lgamma(x)); the sign is negative for x < 0 with floor(x) odd."""
    b, x = cx.b, cx.scalar(cx.as_float(cx.one(args, node), node), node)
    t = x.type.scalar
    _domain_error(cx, _at_poles(cx, x))
    odd = b.eq(b.mod(b.floor(x), const(2.0, t)), const(1.0, t))
    negative = b.and_(b.lt(x, const(0.0, t)), odd)
    magnitude = b.exp(b.gammaln(x))
    return _range_error(cx, x, b.select(negative, b.neg(magnitude), magnitude))


def _math_errors(rule, can_overflow: bool):
    """A one-argument function of `math` with Python's errors (CPython's `math_1`): a NaN
    from a number that is not NaN raises ValueError "math domain error" (`math.sqrt(-1.0)`,
    `math.sin(inf)`), an infinity from a finite number OverflowError "math range error" where
    the function can overflow (`math.exp(1000.0)`), else ValueError (`math.log(0.0)`);
    numpy's same function (the rule, on the number) gives NaN / inf instead."""

    def lower(cx: CallContext, args, node):
        b = cx.b
        x = cx.scalar(cx.as_float(cx.one(args, node), node), node)
        result = rule(cx, [x], node)
        inf = const(math.inf, x.type.scalar)
        from_finite = b.and_(b.eq(b.abs(result), inf), b.lt(b.abs(x), inf))
        domain = b.and_(b.ne(result, result), b.eq(x, x))
        if can_overflow:
            raise_where(cx, from_finite, "OverflowError", "math range error")
        else:
            domain = b.or_(domain, from_finite)
        _domain_error(cx, domain)
        return result

    return lower


# math's functions that raise OverflowError for a finite argument with an infinite result
_OVERFLOWING = ("exp", "expm1", "sinh", "cosh")


def _scalar_unary(prim):
    def lower(cx: CallContext, args, node):
        return cx.b.op(prim, cx.scalar(cx.as_float(cx.one(args, node), node), node))

    return lower


def _register_all() -> None:
    for name in ["exp", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "log1p", "expm1",
                 "cbrt"]:
        register([getattr(np, name)], unary(name), keywords=False)
        register([getattr(math, name)], _math_errors(unary(name), name in _OVERFLOWING),
                 keywords=False)
    for np_name, math_name in [("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"),
                               ("log2", "log2"), ("log10", "log10")]:
        register([getattr(np, np_name)], unary(np_name), keywords=False)
        register([getattr(math, math_name)], _math_errors(unary(np_name), False),
                 keywords=False)
    for name in ["arcsinh", "arccosh", "arctanh"]:  # math's raise where numpy gives NaN
        register([getattr(np, name)], unary(name), keywords=False)
    table = [
        ([np.log], _log), ([math.log], _math_log),
        ([np.abs, np.absolute, np.fabs, math.fabs, builtins.abs], _abs),
        ([np.square], _square), ([np.hypot, math.hypot], _hypot),
        ([np.power], _numpy_power), ([math.pow], _math_pow), ([builtins.pow], _python_pow),
        ([np.maximum], _elementwise_extremum("maximum")),
        ([np.minimum], _elementwise_extremum("minimum")),
        ([np.fmax], _nan_ignoring_extremum("ge")), ([np.fmin], _nan_ignoring_extremum("le")),
        ([np.round, np.around], rounding_to_digits(False)), ([np.sign], unary("sign")),
        ([np.floor], _rounding("floor", False)), ([np.ceil], _rounding("ceil", False)),
        ([math.floor], _rounding("floor", True)), ([math.ceil], _rounding("ceil", True)),
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
        ([np.logaddexp2], _composite(composites.logaddexp2, 2)),
        ([math.erf], _scalar_unary("erf")), ([math.erfc], _scalar_unary("erfc")),
        ([math.lgamma], _lgamma), ([math.gamma], _gamma),
    ]
    for objects, rule in table:
        register(objects, rule, keywords=False)
    register([np.isclose], _close)
    register([np.allclose], _allclose)


_register_all()
