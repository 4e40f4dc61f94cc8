"""LLVM lowering of the special functions (`primitives/special.py`), per element, made table
entries like the rules of `ops.py` (`elements.py`).

Contract: every function is computed in double, a float32 operand widened and the result
rounded (scipy's float32 loops of these functions do the same), except `sigmoid`, 1 / (1 +
exp(-x)) in the operand's type (scipy's float32 expit is), with `ops.py`'s exp (so arrays get
the vectorisable one). `erf`, `erfc` call the C library's, `gammaln` its `lgamma` (+inf at the
poles, as scipy's); `digamma`, `trigamma`, `erfinv`, `erfcinv` call internal functions
`__adlite_<name>_f64` emitted once per module, running the algorithms of
`adlite.derivatives.special` with its constants: for the polygammas reflection for x < 0, the
recurrence up to `ASYMPTOTIC_FROM`, the asymptotic series, NaN at the poles (digamma(+-0) =
-+inf as scipy's, trigamma(0) = +inf); for the inverses `HALLEY_STEPS` Halley steps on erf
(`__adlite_erfinv_central_f64`, |x| <= 1/2) or erfc (`__adlite_erfcinv_tail_f64`) from the
series / asymptotic start, each branch run only where taken, scipy's values at and outside the
ends. `polygamma` of order n calls `__adlite_polygamma<n>_f64`, the recurrence and series of
`adlite.derivatives.special_functions.polygamma_scalar` (the result is double: its operand is,
see `primitives/special.py`). The helper names start with `__adlite_`, which no symbol of a
compiled function (`__adlite_<hex digest>_<name>`, `adlite_<name>`) can equal.
scipy's C functions (`iv`, `gammainc`, ...) are lowered by `scipy_capi`, merged here.
"""

from __future__ import annotations

import math

from llvmlite import ir

from adlite.derivatives.special import (
    ASYMPTOTIC_FROM,
    DIGAMMA_SERIES,
    ERFINV_SERIES,
    HALLEY_STEPS,
    TRIGAMMA_SERIES,
)
from adlite.derivatives.special_functions import polygamma_coefficients, polygamma_from

from . import scipy_capi
from .declarations import function
from .ops import F64
from .ops import LOWERINGS as _OPS

I1 = ir.IntType(1)
_EXP = _OPS["exp"]  # the array version for array results (vector_math.py)


def _float(value: float):
    return ir.Constant(F64, value)


def _series(b, coefficients, z):
    total = _float(0.0)
    for c in reversed(coefficients):
        total = b.fmul(b.fadd(total, _float(c)), z)
    return total


def _recurrence(b, fn, x, init, step, limit: float = ASYMPTOTIC_FROM):
    """Loop `while x < limit: acc = step(acc, x); x += 1` from acc = `init`; returns the final
    (x, acc)."""
    pre = b.block
    head, body, done = (fn.append_basic_block(n) for n in ("rec.head", "rec.body", "rec.done"))
    b.branch(head)
    b.position_at_end(head)
    xv, acc = b.phi(F64), b.phi(F64)
    xv.add_incoming(x, pre)
    acc.add_incoming(init, pre)
    b.cbranch(b.fcmp_ordered("<", xv, _float(limit)), body, done)
    b.position_at_end(body)
    acc.add_incoming(step(acc, xv), body)
    xv.add_incoming(b.fadd(xv, _float(1.0)), body)
    b.branch(head)
    b.position_at_end(done)
    return xv, acc


def _polygamma_function(module: ir.Module, order: int) -> ir.Function:
    """`double __adlite_{di,tri}gamma_f64(double)`."""
    name = f"__adlite_{('digamma', 'trigamma')[order]}_f64"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(F64, [F64]), name)
    fn.linkage = "internal"
    (x,) = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def call(symbol, *args):
        return b.call(function(module, symbol, F64, [F64] * len(args)), list(args))

    floor = call("llvm.floor.f64", x)
    pole = b.and_(b.fcmp_ordered("<=", x, _float(0.0)), b.fcmp_ordered("==", x, floor))
    negative = b.fcmp_ordered("<", x, _float(0.0))
    angle = b.fmul(_float(math.pi), b.fsub(x, floor))  # x reduced exactly mod 1
    y = b.select(negative, b.fsub(_float(1.0), x), x)
    if order == 0:
        reflection = b.fdiv(_float(-math.pi), call("tan", angle))
        start = b.select(negative, reflection, _float(0.0))
        y, shift = _recurrence(b, fn, y, start,
                               lambda acc, v: b.fsub(acc, b.fdiv(_float(1.0), v)))
        z = b.fdiv(_float(1.0), b.fmul(y, y))
        value = b.fsub(b.fsub(call("llvm.log.f64", y), b.fdiv(_float(0.5), y)),
                       _series(b, DIGAMMA_SERIES, z))
        value = b.fadd(value, shift)
        at_pole = b.select(b.fcmp_ordered("==", x, _float(0.0)),  # -inf at +0, +inf at -0
                           call("llvm.copysign.f64", _float(math.inf), b.fneg(x)),
                           _float(math.nan))
    else:
        s = call("sin", angle)
        reflection = b.fdiv(_float(math.pi * math.pi), b.fmul(s, s))
        y, total = _recurrence(b, fn, y, _float(0.0),
                               lambda acc, v: b.fadd(acc, b.fdiv(_float(1.0), b.fmul(v, v))))
        z = b.fdiv(_float(1.0), b.fmul(y, y))
        tail = b.fadd(b.fdiv(_float(1.0), y), b.fdiv(_float(0.5), b.fmul(y, y)))
        total = b.fadd(total, b.fadd(tail, b.fdiv(_series(b, TRIGAMMA_SERIES, z), y)))
        value = b.select(negative, b.fsub(reflection, total), total)
        at_pole = b.select(b.fcmp_ordered("==", x, _float(0.0)), _float(math.inf),
                           _float(math.nan))
    b.ret(b.select(pole, at_pole, value))
    return fn


def _higher_polygamma_function(module: ir.Module, n: int) -> ir.Function:
    """`double __adlite_polygamma<n>_f64(double)`: `polygamma_scalar(n, x)`, n >= 1."""
    name = f"__adlite_polygamma{n}_f64"
    if (made := _internal(module, name)) is None:
        return module.globals[name]
    fn, x, b, call = made
    sign = 1.0 if n % 2 else -1.0
    pole = b.or_(b.and_(b.fcmp_ordered("<=", x, _float(0.0)),
                        b.fcmp_ordered("==", x, call("llvm.floor.f64", x))),
                 b.fcmp_ordered("==", x, _float(-math.inf)))
    start = b.select(pole, _float(polygamma_from(n)), x)  # no loop at the poles
    power = _float(n + 1.0)
    y, total = _recurrence(
        b, fn, start, _float(0.0),
        lambda acc, v: b.fadd(acc, b.fdiv(_float(1.0), call("llvm.pow.f64", v, power))),
        polygamma_from(n))
    series = _series(b, polygamma_coefficients(n), b.fdiv(_float(1.0), b.fmul(y, y)))
    tail = b.fadd(b.fadd(_float(math.factorial(n - 1)),
                         b.fdiv(_float(math.factorial(n) * 0.5), y)), series)
    tail = b.fdiv(tail, call("llvm.pow.f64", y, _float(float(n))))
    value = b.fmul(_float(sign), b.fadd(b.fmul(_float(math.factorial(n)), total), tail))
    b.ret(b.select(pole, _float(sign * math.inf), value))
    return fn


def _polygamma(cx, args, eqn):
    n = eqn.params["order"]
    return _in_double(lambda module: _higher_polygamma_function(module, n))(cx, args, eqn)


def _internal(module: ir.Module, name: str):
    """A new internal `double name(double)`, its argument and a builder at its entry, and a
    caller of the C library's / LLVM's double functions inside it; None if defined already."""
    if name in module.globals:
        return None
    fn = ir.Function(module, ir.FunctionType(F64, [F64]), name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def call(symbol, *args):
        return b.call(function(module, symbol, F64, [F64] * len(args)), list(args))

    return fn, fn.args[0], b, call


def _halley(b, call, y, target, symbol: str, sign: float):
    """`HALLEY_STEPS` steps of `adlite.derivatives.special._halley` for symbol(y) = target."""
    for _ in range(HALLEY_STEPS):
        slope = b.fmul(_float(sign * 2.0 / math.sqrt(math.pi)),
                       call("llvm.exp.f64", b.fneg(b.fmul(y, y))))
        u = b.fdiv(b.fsub(call(symbol, y), target), slope)
        y = b.fsub(y, b.fdiv(u, b.fadd(_float(1.0), b.fmul(y, u))))
    return y


def _central_function(module: ir.Module) -> ir.Function:
    """`__adlite_erfinv_central_f64`: `inverse_erf_central` (0 <= a <= 1/2)."""
    name = "__adlite_erfinv_central_f64"
    if (made := _internal(module, name)) is None:
        return module.globals[name]
    fn, a, b, call = made
    w = b.fmul(_float(math.sqrt(math.pi) / 2.0), a)
    start = b.fadd(w, b.fmul(w, _series(b, ERFINV_SERIES, b.fmul(w, w))))
    b.ret(_halley(b, call, start, a, "erf", 1.0))
    return fn


def _tail_function(module: ir.Module) -> ir.Function:
    """`__adlite_erfcinv_tail_f64`: `inverse_erfc_tail` (0 < q <= 1/2)."""
    name = "__adlite_erfcinv_tail_f64"
    if (made := _internal(module, name)) is None:
        return module.globals[name]
    fn, q, b, call = made
    t = b.fneg(call("llvm.log.f64", q))
    shift = call("llvm.log.f64", call("llvm.sqrt.f64", b.fmul(_float(math.pi), t)))
    start = call("llvm.sqrt.f64", b.fsub(t, shift))
    b.ret(_halley(b, call, start, q, "erfc", -1.0))
    return fn


def _branches(b, fn, central, a, q):
    """`inverse_erf_central(a)` where `central` (an i1) holds, else `inverse_erfc_tail(q)`,
    each called on its branch only."""
    pre_central, pre_tail, done = (fn.append_basic_block(n) for n in ("inv.c", "inv.t", "inv.d"))
    b.cbranch(central, pre_central, pre_tail)
    values = []
    for block, callee, arg in ((pre_central, _central_function, a), (pre_tail, _tail_function, q)):
        b.position_at_end(block)
        values.append((b.call(callee(fn.module), [arg]), b.block))
        b.branch(done)
    b.position_at_end(done)
    y = b.phi(F64)
    for value, block in values:
        y.add_incoming(value, block)
    return y


def _erfinv_function(module: ir.Module) -> ir.Function:
    """`__adlite_erfinv_f64`: `erfinv_scalar`."""
    name = "__adlite_erfinv_f64"
    if (made := _internal(module, name)) is None:
        return module.globals[name]
    fn, x, b, call = made
    a = call("llvm.fabs.f64", x)
    y = _branches(b, fn, b.fcmp_ordered("<=", a, _float(0.5)), a, b.fsub(_float(1.0), a))
    edge = b.select(b.fcmp_ordered("==", a, _float(1.0)),
                    call("llvm.copysign.f64", _float(math.inf), x), _float(math.nan))
    b.ret(b.select(b.fcmp_ordered("<", a, _float(1.0)), call("llvm.copysign.f64", y, x), edge))
    return fn


def _erfcinv_function(module: ir.Module) -> ir.Function:
    """`__adlite_erfcinv_f64`: `erfcinv_scalar`."""
    name = "__adlite_erfcinv_f64"
    if (made := _internal(module, name)) is None:
        return module.globals[name]
    fn, q, b, call = made
    upper = b.fcmp_ordered(">", q, _float(1.0))
    r = b.select(upper, b.fsub(_float(2.0), q), q)
    y = _branches(b, fn, b.fcmp_ordered(">=", r, _float(0.5)), b.fsub(_float(1.0), r), r)
    y = b.select(upper, b.fneg(y), y)
    edge = b.select(b.fcmp_ordered("==", q, _float(0.0)), _float(math.inf),
                    b.select(b.fcmp_ordered("==", q, _float(2.0)), _float(-math.inf),
                             _float(math.nan)))
    inside = b.and_(b.fcmp_ordered(">", q, _float(0.0)), b.fcmp_ordered("<", q, _float(2.0)))
    b.ret(b.select(inside, y, edge))
    return fn


def _libm_double(symbol: str):
    return lambda module: function(module, symbol, F64, [F64])


def _in_double(make_function):
    """Lower to a call of the double function `make_function(module)`; float32 operands are
    widened and the result rounded (scipy's float32 loops compute these in double)."""

    def lower(cx, args, eqn):
        (x,) = args
        b = cx.b
        wide = x.type != F64
        value = b.call(make_function(cx.module), [b.fpext(x, F64) if wide else x])
        return [b.fptrunc(value, x.type) if wide else value]

    return lower


def _sigmoid(cx, args, eqn):
    (x,) = args
    one = ir.Constant(x.type, 1.0)
    e = _EXP(cx, [cx.b.fneg(x)], eqn)[0]
    return [cx.b.fdiv(one, cx.b.fadd(one, e))]


LOWERINGS = {
    "erf": _in_double(_libm_double("erf")),
    "erfc": _in_double(_libm_double("erfc")),
    "gammaln": _in_double(_libm_double("lgamma")),
    "digamma": _in_double(lambda module: _polygamma_function(module, 0)),
    "trigamma": _in_double(lambda module: _polygamma_function(module, 1)),
    "erfinv": _in_double(_erfinv_function),
    "erfcinv": _in_double(_erfcinv_function),
    "sigmoid": _sigmoid,
    "polygamma": _polygamma,
    **scipy_capi.LOWERINGS,
}
