"""exp, expm1, log, log1p and tanh as straight-line LLVM IR, for the elementwise loops over
arrays: no branches and, once O3 has inlined the module's one copy of each routine into the
loops (before it vectorises), no calls, so the loop vectoriser turns a loop computing them
into SIMD code (the C library's functions, which the scalar lowering calls, are called once
per element).

Contract: `in_arrays(name, scalar_rule)` is the per-element rule of primitive `name` (one of
FUNCTIONS): an equation whose result is an array is computed here, any other by
`scalar_rule`, so scalar code keeps the C library's bits (Python's `math` module calls the
same functions) and array code follows numpy's semantics within numpy's accuracy.
`function(name)(b, x)` emits the call of the module's one copy of the routine (`routine`)
for a double or float value `x` at builder `b`.

- Accuracy: float64 results are within 0.75 ulp of the exact value (1 ulp for subnormal
  results of exp, rounded twice), so within 1 ulp of the correctly rounded result
  (tests/backends/test_vector_math.py sweeps each domain against 80-bit long double). A float32
  operand is widened, computed in double with the polynomials cut to float32's precision (and
  without the float64 error terms, 2^k in one piece) and rounded: within an ulp of the
  correctly rounded float (numpy's own float32 exp / log are up
  to 2-3 ulp from it).
- Special values as numpy's: NaN in gives NaN; exp overflows to +inf above
  709.782712893384 and gives exact subnormals down to -745.13 (0 below); log(0) = -inf,
  log(x < 0) = NaN, log(inf) = inf, subnormal operands exact; log1p(-1) = -inf, NaN below;
  expm1 saturates at -1; tanh saturates at +-1; signed zeros kept.
- Method: exp reduces x = k ln2 + r, |r| <= ln2 / 2 (Cody-Waite with FMA, the rounding
  error of r kept as r_lo), expm1(r) = r + r^2 P(r) by the Taylor series, and scales by 2^k
  in two exact halves (so the one rounding of a subnormal result is the last FMA). expm1 adds
  2^k - 1 with an exact two-sum. tanh(a) = expm1(2a) / (expm1(2a) + 2) from the unrounded
  two-term expm1, divided with one correction step. log splits x = 2^e m, m in
  [sqrt(1/2), sqrt(2)), and sums log(m) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f),
  f = m - 1 (R: the series of 2 atanh(s)), as fdlibm does; log1p adds the rounding error of
  1 + x divided by 1 + x (its series below 2^-30). In float64 e ln2 + f - f^2/2 is summed
  with two-sums and the rounding errors of r^2, r^2 P(r) and f^2/2 are carried, so results
  are rounded about once. The coefficients are Taylor coefficients (exact rationals rounded
  once); the ln2 split comes from `decimal`. Integer <-> double conversions use the
  1.5 * 2^52 shifter, so AVX2 targets need no 64-bit integer conversions.
- `ORDERED_REDUCTIONS`: the LLVM option that lets reductions use them (set by `jit.py`).
- `ENABLED` (a module flag) switches the array versions off, for comparisons and tests;
  code compiled while it was off is cached under the same key, so flip it only with the
  disk cache off (`ADLITE_CACHE_DIR=off`) or when only printing code (`adlite.show`).
"""

from __future__ import annotations

import decimal
import math
import struct
from collections.abc import Callable
from fractions import Fraction

from llvmlite import ir

from .declarations import function as declare

F64 = ir.DoubleType()
F32 = ir.FloatType()
I64 = ir.IntType(64)
ENABLED = True
# The LLVM option `jit.initialize` sets: loops feeding an in-order float sum are vectorised too,
# the sum itself kept in order (the same bits), so `np.sum(np.tanh(x))` runs the SIMD tanh.
ORDERED_REDUCTIONS = "-force-ordered-reductions=true"


def _ln2_split(free_bits: int) -> tuple[float, float]:
    """ln 2 = hi + lo, hi with its last `free_bits` mantissa bits zero (so small integers
    times hi are exact), lo rounded from the exact remainder."""
    with decimal.localcontext() as context:
        context.prec = 60
        ln2 = decimal.Decimal(2).ln()
        bits = struct.unpack("<q", struct.pack("<d", float(ln2)))[0]
        hi = struct.unpack("<d", struct.pack("<q", bits & -(1 << free_bits)))[0]
        return hi, float(ln2 - decimal.Decimal(hi))


LN2_HI, LN2_LO = _ln2_split(0)  # exp's reduction: FMA makes k * LN2_HI exact
LOG_LN2_HI, LOG_LN2_LO = _ln2_split(21)  # log: e * LOG_LN2_HI exact without FMA
INV_LN2 = 1.4426950408889634
SHIFTER = 1.5 * 2.0 ** 52  # x + SHIFTER holds round(x) in its low mantissa bits, |x| < 2^51
SHIFTER_BITS = struct.unpack("<q", struct.pack("<d", SHIFTER))[0]
SQRT_HALF_BITS = 0x3FE6A09E667F3BCD  # sqrt(1/2)
# Taylor coefficients 1/n!, n = 2..N, of (exp(r) - 1 - r) / r^2 for |r| <= ln2/2, and
# 2/(2n+1), n = 1..N, of R(z) = 2 atanh(s)/s - 2 with z = s^2 <= 0.0295; enough terms for
# float64 (truncation below 2^-62) and for float32 through double (below 2^-36).
EXP_TERMS = {53: 14, 24: 9}
LOG_TERMS = {53: 11, 24: 6}
EXP_COEFFICIENTS = [float(Fraction(1, math.factorial(n))) for n in range(2, 15)]
LOG_COEFFICIENTS = [float(Fraction(2, 2 * n + 1)) for n in range(1, 12)]


class _Emitter:
    """Terse builders of double / i64 arithmetic on (possibly vectorised) values."""

    def __init__(self, b: ir.IRBuilder, precision: int):
        self.b = b
        self.precision = precision

    def c(self, value: float):
        return ir.Constant(F64, value)

    def i(self, value: int):
        return ir.Constant(I64, value)

    def call(self, name: str, *args):
        return self.b.call(declare(self.b.module, name, F64, [F64] * len(args)), list(args))

    def fma(self, x, y, z):
        return self.call("llvm.fma.f64", x, y, z)

    def add(self, x, y):
        return self.b.fadd(x, y)

    def sub(self, x, y):
        return self.b.fsub(x, y)

    def mul(self, x, y):
        return self.b.fmul(x, y)

    def div(self, x, y):
        return self.b.fdiv(x, y)

    def bits(self, x):
        return self.b.bitcast(x, I64)

    def double(self, n):
        return self.b.bitcast(n, F64)

    def select(self, condition, x, y):
        return self.b.select(condition, x, y)

    def lt(self, x, y):  # false for NaN
        return self.b.fcmp_ordered("<", x, y)

    def gt(self, x, y):
        return self.b.fcmp_ordered(">", x, y)

    def eq(self, x, y):
        return self.b.fcmp_ordered("==", x, y)

    def isnan(self, x):
        return self.b.fcmp_unordered("uno", x, x)

    def abs(self, x):
        return self.call("llvm.fabs.f64", x)

    def clamp(self, x, lo: float, hi: float):
        """x limited to [lo, hi]; NaN becomes lo."""
        x = self.select(self.gt(x, self.c(lo)), x, self.c(lo))
        return self.select(self.lt(x, self.c(hi)), x, self.c(hi))

    def power_of_two(self, k):
        """2^k for an i64 k in [-1022, 1023]."""
        return self.double(self.b.shl(self.b.add(k, self.i(1023)), self.i(52)))

    def horner(self, coefficients: list[float], z):
        total = self.c(coefficients[-1])
        for coefficient in reversed(coefficients[:-1]):
            total = self.fma(total, z, self.c(coefficient))
        return total

    def two_sum(self, x, y):
        """(s, e): s = fl(x + y), e = x + y - s exactly."""
        s = self.add(x, y)
        yy = self.sub(s, x)
        return s, self.add(self.sub(x, self.sub(s, yy)), self.sub(y, yy))


def _expm1_reduced(m: _Emitter, x):
    """(k, ph, pl) with exp(x) = 2^k (1 + ph + pl), ph + pl = expm1(r) for the reduced r;
    x must lie in [-1100, 710]."""
    kd = m.fma(x, m.c(INV_LN2), m.c(SHIFTER))
    k = m.b.sub(m.bits(kd), m.i(SHIFTER_BITS))
    kf = m.sub(kd, m.c(SHIFTER))
    minus_k = m.b.fneg(kf)
    r1 = m.fma(minus_k, m.c(LN2_HI), x)  # exact
    r = m.fma(minus_k, m.c(LN2_LO), r1)
    r_lo = m.fma(minus_k, m.c(LN2_LO), m.sub(r1, r))
    poly = m.horner(EXP_COEFFICIENTS[:EXP_TERMS[m.precision] - 1], r)
    r2 = m.mul(r, r)
    s = m.mul(r2, poly)
    ph = m.add(r, s)  # |s| < |r|: the sum's error is exact below
    pl = m.fma(r_lo, r, r_lo)
    if m.precision == 53:  # the rounding errors of r^2 and of s too
        r2_lo = m.fma(r, r, m.b.fneg(r2))
        pl = m.add(pl, m.fma(r2_lo, poly, m.fma(r2, poly, m.b.fneg(s))))
    return k, ph, m.add(m.add(m.sub(r, ph), s), pl)


def _scaled(m: _Emitter, k, ph, pl):
    """2^k (1 + ph + pl) rounded once, k in [-1076, 1024]: 2^k as two normal halves."""
    t = m.add(m.c(1.0), ph)
    correction = m.add(m.add(m.sub(m.c(1.0), t), ph), pl)
    k1 = m.b.ashr(k, m.i(1))
    s1, s2 = m.power_of_two(k1), m.power_of_two(m.b.sub(k, k1))
    return m.fma(m.mul(t, s1), s2, m.mul(m.mul(correction, s1), s2))


def _expm1_parts(m: _Emitter, k, ph, pl):
    """(S, L): 2^k (1 + ph + pl) - 1 = S + L, |L| tiny next to S; k in [-60, 1023]."""
    two_k = m.power_of_two(k)
    a = m.sub(two_k, m.c(1.0))  # exact unless k > 53
    a_error = m.sub(m.sub(two_k, a), m.c(1.0))
    s, e = m.two_sum(a, m.mul(two_k, ph))
    return s, m.add(e, m.fma(two_k, pl, a_error))


def _expm1_single(m: _Emitter, k, ph):
    """2^k (1 + ph) - 1 with one rounding in double, k in [-53, 53]: enough for float32."""
    two_k = m.power_of_two(k)
    return m.fma(two_k, ph, m.sub(two_k, m.c(1.0)))


def _keep_tiny(m: _Emitter, x, result, below: float):
    """x itself where |x| < below (and for NaN), else `result`."""
    return m.select(m.b.or_(m.lt(m.abs(x), m.c(below)), m.isnan(x)), x, result)


def _exp(m: _Emitter, x):
    if m.precision < 53:  # float32 results: 2^k is a normal double, one rounding suffices
        k, ph, _ = _expm1_reduced(m, m.clamp(x, -110.0, 90.0))
        return m.select(m.isnan(x), x, m.mul(m.add(m.c(1.0), ph), m.power_of_two(k)))
    k, ph, pl = _expm1_reduced(m, m.clamp(x, -746.0, 710.0))
    return m.select(m.isnan(x), x, _scaled(m, k, ph, pl))


def _expm1(m: _Emitter, x):
    if m.precision < 53:
        k, ph, _ = _expm1_reduced(m, m.clamp(x, -20.0, 90.0))
        return _keep_tiny(m, x, _expm1_single(m, k, ph), 2.0 ** -54)
    k, ph, pl = _expm1_reduced(m, m.clamp(x, -40.0, 710.0))
    s, lo = _expm1_parts(m, k, ph, pl)
    huge = m.b.icmp_signed(">", k, m.i(1000))  # 2^k overflows: expm1(x) = exp(x)
    return _keep_tiny(m, x, m.select(huge, _scaled(m, k, ph, pl), m.add(s, lo)), 2.0 ** -54)


def _tanh(m: _Emitter, x):
    """tanh(|x|) = em / (em + 2), em = expm1(2|x|) = S + L (S = 2|x|, L = 0 for tiny x), the
    sign copied from x; select-free, NaN running through. For float32 em is rounded once and
    divided plainly."""
    if m.precision < 53:
        a = m.call("llvm.minimum.f64", m.abs(x), m.c(10.0))  # tanh(10) rounds to 1.0f
        em = _expm1_single(m, *_expm1_reduced(m, m.add(a, a))[:2])
        return m.call("llvm.copysign.f64", m.div(em, m.add(em, m.c(2.0))), x)
    a = m.call("llvm.minimum.f64", m.abs(x), m.c(20.0))  # tanh(20) rounds to 1; NaN stays
    s, lo = _expm1_parts(m, *_expm1_reduced(m, m.add(a, a)))
    dh, de = m.two_sum(s, m.c(2.0))
    dl = m.add(de, lo)
    reciprocal = m.div(m.c(1.0), dh)
    q = m.mul(s, reciprocal)
    residual = m.add(m.fma(m.b.fneg(q), dh, s), m.fma(m.b.fneg(q), dl, lo))
    q = m.fma(residual, reciprocal, q)
    return m.call("llvm.copysign.f64", q, x)


def _log_reduced(m: _Emitter, u, exponent_bias, c):
    """log(u) + c for a positive normal u (its exponent lowered by the i64 `exponent_bias`),
    c a small correction."""
    top = m.b.sub(m.bits(u), m.i(SQRT_HALF_BITS))
    e = m.b.ashr(top, m.i(52))
    f = m.sub(m.double(m.b.sub(m.bits(u), m.b.shl(e, m.i(52)))), m.c(1.0))  # m - 1, exact
    ed = m.sub(m.double(m.b.add(m.b.sub(e, exponent_bias), m.i(SHIFTER_BITS))), m.c(SHIFTER))
    s = m.div(f, m.add(m.c(2.0), f))
    z = m.mul(s, s)
    r = m.mul(z, m.horner(LOG_COEFFICIENTS[:LOG_TERMS[m.precision]], z))
    half_f = m.mul(m.c(0.5), f)
    hfsq = m.mul(half_f, f)
    tail = m.fma(s, m.add(hfsq, r), m.fma(ed, m.c(LOG_LN2_LO), c))
    if m.precision < 53:
        return m.fma(ed, m.c(LOG_LN2_HI), m.sub(f, m.sub(hfsq, tail)))
    # e ln2_hi + f - hfsq summed exactly (two-sums), the rounding error of hfsq kept
    high, high_error = m.two_sum(m.mul(ed, m.c(LOG_LN2_HI)), f)
    total, total_error = m.two_sum(high, m.b.fneg(hfsq))
    hfsq_error = m.fma(half_f, f, m.b.fneg(hfsq))
    return m.add(total, m.add(m.add(high_error, total_error), m.sub(tail, hfsq_error)))


def _log_specials(m: _Emitter, u, x, result):
    """numpy's log at the ends: -inf at 0, NaN below, inf at inf, NaN kept (`u` is the
    operand of the logarithm, `x` the primitive's)."""
    result = m.select(m.eq(u, m.c(math.inf)), u, result)
    result = m.select(m.eq(u, m.c(0.0)), m.c(-math.inf), result)
    result = m.select(m.lt(u, m.c(0.0)), m.c(math.nan), result)
    return m.select(m.isnan(x), x, result)


def _log(m: _Emitter, x):
    subnormal = m.lt(x, m.c(2.0 ** -1022))
    u = m.select(subnormal, m.mul(x, m.c(2.0 ** 54)), x)
    bias = m.b.select(subnormal, m.i(54), m.i(0))
    return _log_specials(m, x, x, _log_reduced(m, u, bias, m.c(0.0)))


def _log1p(m: _Emitter, x):
    u = m.add(m.c(1.0), x)
    big = m.b.fcmp_ordered(">=", u, m.c(2.0))
    c = m.select(big, m.sub(m.c(1.0), m.sub(u, x)), m.sub(x, m.sub(u, m.c(1.0))))
    c = m.select(m.lt(m.abs(x), m.c(2.0 ** 53)), m.div(c, u), m.c(0.0))
    c = m.fma(m.mul(m.c(-0.5), c), c, c)  # log(1 + c/u) to second order: 1 + x's rounding error
    result = _log_specials(m, u, x, _log_reduced(m, u, m.i(0), c))
    # |x| < 2^-30: x - x^2/2 + x^3/3 (c/u would be rounded relative to a result near it)
    series = m.fma(m.mul(x, x), m.fma(x, m.c(1.0 / 3.0), m.c(-0.5)), x)
    return m.select(m.lt(m.abs(x), m.c(2.0 ** -30)), series, result)


FUNCTIONS: dict[str, Callable] = {"exp": _exp, "expm1": _expm1, "log": _log, "log1p": _log1p,
                                  "tanh": _tanh}


def function(name: str) -> Callable:
    """`emit(b, x)`: FUNCTIONS[name] of the double or float `x` at builder `b`, as a call of
    the module's one copy of the routine (`routine`)."""
    def emit(b: ir.IRBuilder, x):
        return b.call(routine(b.module, name, x.type), [x])

    return emit


def routine(module: ir.Module, name: str, typ: ir.Type) -> ir.Function:
    """The module's internal function computing FUNCTIONS[name] of a `typ` (double or float),
    defined on first use. It is `alwaysinline`: O3 inlines it into each loop before
    vectorising, as if its code were written there, while the quick tier (no passes)
    generates it once per module instead of once per loop (a third of the IR of array
    programs heavy in exp and tanh)."""
    symbol = f"adlite.math.{name}.{typ}"
    existing = module.globals.get(symbol)
    if existing is not None:
        return existing
    fn = ir.Function(module, ir.FunctionType(typ, [typ]), symbol)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    x = fn.args[0]
    compute = FUNCTIONS[name]
    if typ == F64:
        b.ret(compute(_Emitter(b, 53), x))
    else:
        b.ret(b.fptrunc(compute(_Emitter(b, 24), b.fpext(x, F64)), typ))
    return fn


def in_arrays(name: str, scalar_rule: Callable) -> Callable:
    """The per-element rule of primitive `name`: FUNCTIONS[name] for array results, else
    `scalar_rule`."""
    emit = function(name)

    def lower(cx, args, eqn):
        if ENABLED and eqn.outputs[0].type.is_array:
            return [emit(cx.b, args[0])]
        return scalar_rule(cx, args, eqn)

    return lower
