"""LLVM lowering of every elementwise primitive, per element (`elements.py` makes each rule the
primitive's `llvm` entry in the table).

Contract: `LOWERINGS[name](cx, args, eqn) -> list of llvm values`: the element of the result
for the operand elements `args`, where `cx` is the lowering context (`context.py`: `cx.b`
the llvmlite IRBuilder, `cx.intrinsic(name, type)` and `cx.libm(name, n_args, type)` declare
math functions for double or float, `cx.check`).
Floating-point code has no fast-math flags, so results are bit-for-bit IEEE like numpy's
(exp, expm1, log, log1p and tanh of arrays are `vector_math.py`'s, within its bounds):
`maximum`/`minimum` propagate NaN as `np.maximum` does, `//` and `%` follow Python's floor
semantics, integer division by zero and float -> int overflow jump to the error exit
(`cx.check`) instead of trapping. Scalar int `+ - * // ** neg abs` and float -> int
conversions are checked (LLVM's `llvm.s*.with.overflow` intrinsics): a result outside int64
leaves with `status.INT_OVERFLOW` instead of wrapping, so compiled ints are Python's ints or
an OverflowError; int arrays wrap as numpy's do.
"""

from __future__ import annotations

from llvmlite import ir

from ... import status
from ...ir import dtypes
from .integers import int_pow, int_truediv, overflow_intrinsic
from .vector_math import in_arrays

F64 = ir.DoubleType()
I64 = ir.IntType(64)
I1 = ir.IntType(1)
I32 = ir.IntType(32)
INT64_MIN = ir.Constant(I64, -(2 ** 63))


def _is_float(v) -> bool:
    return isinstance(v.type, ir.DoubleType | ir.FloatType)


def _checks_ints(eqn) -> bool:
    """Scalar int results are range-checked; int arrays wrap, as numpy's do."""
    return not eqn.outputs[0].type.is_array


def checked(cx, op: str, x, y):
    """x op y on i64, leaving through `status.INT_OVERFLOW` when the exact result does not
    fit."""
    result = cx.b.call(overflow_intrinsic(cx.module, op), [x, y])
    cx.check(cx.b.not_(cx.b.extract_value(result, 1)), status.INT_OVERFLOW)
    return cx.b.extract_value(result, 0)


def _arith(float_op, int_op, overflow_op):
    def lower(cx, args, eqn):
        x, y = args
        if _is_float(x):
            return [getattr(cx.b, float_op)(x, y)]
        if x.type == I64 and _checks_ints(eqn):
            return [checked(cx, overflow_op, x, y)]
        return [getattr(cx.b, int_op)(x, y)]

    return lower


def _float_unary_intrinsic(name):
    return lambda cx, args, eqn: [cx.b.call(cx.intrinsic(name, args[0].type), args)]


def _libm(name):
    return lambda cx, args, eqn: [cx.b.call(cx.libm(name, len(args), args[0].type), args)]


def _not_int64_min(cx, x, eqn) -> None:
    """-x and abs(x) overflow for x = -2**63 only."""
    if _checks_ints(eqn):
        cx.check(cx.b.icmp_signed("!=", x, INT64_MIN), status.INT_OVERFLOW)


def _neg(cx, args, eqn):
    (x,) = args
    if _is_float(x):
        return [cx.b.fneg(x)]
    _not_int64_min(cx, x, eqn)
    return [cx.b.neg(x)]


def _abs(cx, args, eqn):
    (x,) = args
    if _is_float(x):
        return [cx.b.call(cx.intrinsic("llvm.fabs", x.type), [x])]
    _not_int64_min(cx, x, eqn)
    return [cx.b.select(cx.b.icmp_signed("<", x, ir.Constant(I64, 0)), cx.b.neg(x), x)]


def _sign(cx, args, eqn):
    (x,) = args
    b = cx.b
    zero, one = ir.Constant(x.type, 0.0), ir.Constant(x.type, 1.0)
    inner = b.select(b.fcmp_ordered("==", x, zero), zero, x)  # 0 for +-0, nan stays nan
    return [b.select(b.fcmp_ordered(">", x, zero), one,
                     b.select(b.fcmp_ordered("<", x, zero), ir.Constant(x.type, -1.0), inner))]


def _extremum(float_pred, int_pred):
    """np.maximum / np.minimum as numpy computes them: `x if (x > y or x != x) else y` (NaN
    propagates; at a tie, signed zeros included, the second operand is returned)."""

    def lower(cx, args, eqn):
        x, y = args
        b = cx.b
        if _is_float(x):
            keep = b.or_(b.fcmp_ordered(float_pred, x, y), b.fcmp_unordered("uno", x, x))
        else:
            keep = b.icmp_signed(int_pred, x, y)
        return [b.select(keep, x, y)]

    return lower


def _clip(cx, args, eqn):
    """np.clip(x, lo, hi): `t = lo if x < lo else x`, then `hi if t > hi else t`, where a NaN
    operand (x, lo or hi) gives NaN."""
    x, lo, hi = args
    b = cx.b
    if not _is_float(x):
        t = b.select(b.icmp_signed("<", x, lo), lo, x)
        return [b.select(b.icmp_signed(">", t, hi), hi, t)]
    t = b.select(b.or_(b.fcmp_ordered("<", x, lo), b.fcmp_unordered("uno", lo, lo)), lo, x)
    return [b.select(b.or_(b.fcmp_ordered(">", t, hi), b.fcmp_unordered("uno", hi, hi)), hi, t)]


def _nonzero_divisor(cx, y):
    cx.check(cx.b.icmp_signed("!=", y, ir.Constant(I64, 0)), status.ZERO_DIVISION)


def _int_divmod(cx, x, y, eqn):
    """Python's x // y and x % y for ints: truncating division and remainder corrected
    toward -inf. Only (-2**63) // -1 overflows; the caller checks it. A zero divisor raises
    ZeroDivisionError for numbers, as Python; elements of int arrays give 0 there, as numpy's
    (which also warns)."""
    b = cx.b
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
    if _checks_ints(eqn):
        _nonzero_divisor(cx, y)
        by_zero = None
    else:
        by_zero = b.icmp_signed("==", y, zero)
        y = b.select(by_zero, one, y)
    by_minus_one = b.icmp_signed("==", y, ir.Constant(I64, -1))
    safe_y = b.select(by_minus_one, one, y)  # sdiv/srem of -2**63 by -1 would trap
    q = b.select(by_minus_one, b.neg(x), b.sdiv(x, safe_y))
    r = b.srem(x, safe_y)  # x % 1 == x % -1 == 0
    adjust = b.and_(b.icmp_signed("!=", r, zero), b.icmp_signed("<", b.xor(r, y), zero))
    q, r = b.select(adjust, b.sub(q, one), q), b.select(adjust, b.add(r, y), r)
    if by_zero is None:
        return q, r
    return b.select(by_zero, zero, q), b.select(by_zero, zero, r)


def _float_divmod(cx, x, y):
    """numpy's / CPython's float divmod (npy_divmod)."""
    b = cx.b
    t = x.type
    zero = ir.Constant(t, 0.0)
    raw_mod = mod = b.frem(x, y)
    div = b.fdiv(b.fsub(x, mod), y)
    nonzero_mod = b.fcmp_unordered("!=", mod, zero)
    fix = b.and_(nonzero_mod, b.xor(b.fcmp_ordered("<", y, zero), b.fcmp_ordered("<", mod, zero)))
    mod = b.select(fix, b.fadd(mod, y), mod)
    div = b.select(fix, b.fsub(div, ir.Constant(t, 1.0)), div)
    copysign = cx.intrinsic("llvm.copysign", t)
    mod = b.select(nonzero_mod, mod, b.call(copysign, [zero, y]))
    floor = b.call(cx.intrinsic("llvm.floor", t), [div])
    floor = b.select(b.fcmp_ordered(">", b.fsub(div, floor), ir.Constant(t, 0.5)),
                     b.fadd(floor, ir.Constant(t, 1.0)), floor)
    nonzero_div = b.fcmp_unordered("!=", div, zero)
    floordiv = b.select(nonzero_div, floor, b.call(copysign, [zero, b.fdiv(x, y)]))
    by_zero = b.fcmp_ordered("==", y, zero)  # numpy: x / 0 and fmod(x, 0)
    return b.select(by_zero, b.fdiv(x, y), floordiv), b.select(by_zero, raw_mod, mod)


def _floordiv(cx, args, eqn):
    x, y = args
    if _is_float(x):
        return [_float_divmod(cx, x, y)[0]]
    if _checks_ints(eqn):  # -2**63 // -1 == 2**63
        b = cx.b
        cx.check(b.not_(b.and_(b.icmp_signed("==", x, INT64_MIN),
                               b.icmp_signed("==", y, ir.Constant(I64, -1)))),
                 status.INT_OVERFLOW)
    return [_int_divmod(cx, x, y, eqn)[0]]


def _mod(cx, args, eqn):
    x, y = args
    if _is_float(x):
        return [_float_divmod(cx, x, y)[1]]
    return [_int_divmod(cx, x, y, eqn)[1]]


def _pow(cx, args, eqn):
    x, y = args
    if _is_float(x):
        return [cx.b.call(cx.intrinsic("llvm.pow", x.type), [x, y])]
    result = cx.b.call(int_pow(cx.module), [x, y])
    if _checks_ints(eqn):
        cx.check(cx.b.not_(cx.b.extract_value(result, 1)), status.INT_OVERFLOW)
    return [cx.b.extract_value(result, 0)]


def _int_truediv(cx, args, eqn):
    """Python's int / int: ZeroDivisionError for a zero divisor, else the correctly rounded
    quotient (one float division when both operands are exact doubles)."""
    x, y = args
    b = cx.b
    cx.check(b.icmp_signed("!=", y, ir.Constant(I64, 0)), status.FLOAT_ZERO_DIVISION)

    def exact_double(v):  # -2**53 <= v <= 2**53
        shifted = b.add(v, ir.Constant(I64, 2 ** 53))
        return b.icmp_unsigned("<=", shifted, ir.Constant(I64, 2 ** 54))

    fast = b.or_(b.and_(exact_double(x), exact_double(y)),
                 b.icmp_signed("==", x, ir.Constant(I64, 0)))
    with b.if_else(fast) as (then, otherwise):
        with then:
            quick = b.fdiv(b.sitofp(x, F64), b.sitofp(y, F64))
            quick_block = b.block
        with otherwise:
            slow = b.call(int_truediv(cx.module), [x, y])
            slow_block = b.block
    result = b.phi(F64)
    result.add_incoming(quick, quick_block)
    result.add_incoming(slow, slow_block)
    return [result]


def _range_len(cx, args, eqn):
    """len(range(start, stop, step)) computed with unsigned differences (never overflows),
    capped at INT64_MAX; a zero step leaves with `status.RANGE_STEP_ZERO`."""
    start, stop, step = args
    b = cx.b
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
    cx.check(b.icmp_signed("!=", step, zero), status.RANGE_STEP_ZERO)
    up = b.icmp_signed(">", step, zero)
    nonempty = b.select(up, b.icmp_signed("<", start, stop), b.icmp_signed(">", start, stop))
    distance = b.select(up, b.sub(stop, start), b.sub(start, stop))  # exact as unsigned
    stride = b.select(up, step, b.neg(step))  # 2**63 for step = -2**63, as unsigned
    n = b.add(b.udiv(b.sub(distance, one), stride), one)
    n = b.select(b.icmp_signed("<", n, zero), ir.Constant(I64, 2 ** 63 - 1), n)
    return [b.select(nonempty, n, zero)]


def _compare(op):
    def lower(cx, args, eqn):
        x, y = args
        b = cx.b
        if _is_float(x):
            if op == "!=":
                return [b.fcmp_unordered("!=", x, y)]  # nan != nan is True, as in Python
            return [b.fcmp_ordered(op, x, y)]
        return [b.icmp_signed(op, x, y) if x.type == I64 else b.icmp_unsigned(op, x, y)]

    return lower


FLOATS = {dtypes.F64: F64, dtypes.F32: ir.FloatType()}


def _convert(cx, args, eqn):
    (x,) = args
    b = cx.b
    target = eqn.params["to"].dtype
    source = eqn.inputs[0].type.dtype
    if source == target:
        return [x]
    if target in FLOATS:
        t = FLOATS[target]
        if source in FLOATS:
            return [b.fpext(x, t) if target == dtypes.F64 else b.fptrunc(x, t)]
        return [b.sitofp(x, t) if source == dtypes.I64 else b.uitofp(x, t)]
    if target == dtypes.BOOL:
        return [b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0)) if source in FLOATS
                else b.icmp_signed("!=", x, ir.Constant(I64, 0))]
    if source == dtypes.BOOL:
        return [b.zext(x, I64)]
    # int(x) for every float in [-2**63, 2**63); Python's errors for nan and inf
    in_range = b.and_(b.fcmp_ordered(">=", x, ir.Constant(x.type, -2.0 ** 63)),
                      b.fcmp_ordered("<", x, ir.Constant(x.type, 2.0 ** 63)))
    infinite = b.fcmp_ordered("==", b.call(cx.intrinsic("llvm.fabs", x.type), [x]),
                              ir.Constant(x.type, float("inf")))
    code = b.select(b.fcmp_unordered("uno", x, x), ir.Constant(I32, status.FLOAT_NAN_TO_INT),
                    b.select(infinite, ir.Constant(I32, status.FLOAT_INFINITY_TO_INT),
                             ir.Constant(I32, status.INT_OVERFLOW)))
    cx.check(in_range, code)
    return [b.fptosi(x, I64)]


LOWERINGS = {
    "add": _arith("fadd", "add", "sadd"),
    "sub": _arith("fsub", "sub", "ssub"),
    "mul": _arith("fmul", "mul", "smul"),
    "div": lambda cx, args, eqn: [cx.b.fdiv(*args)],
    "int_truediv": _int_truediv,
    "range_len": _range_len,
    "pow": _pow,
    "floordiv": _floordiv,
    "mod": _mod,
    "maximum": _extremum(">", ">"),
    "minimum": _extremum("<", "<"),
    "clip": _clip,
    "neg": _neg,
    "abs": _abs,
    "sign": _sign,
    "exp": in_arrays("exp", _float_unary_intrinsic("llvm.exp")),
    "log": in_arrays("log", _float_unary_intrinsic("llvm.log")),
    "log2": _float_unary_intrinsic("llvm.log2"),
    "log10": _float_unary_intrinsic("llvm.log10"),
    "sqrt": _float_unary_intrinsic("llvm.sqrt"),
    "sin": _float_unary_intrinsic("llvm.sin"),
    "cos": _float_unary_intrinsic("llvm.cos"),
    "floor": _float_unary_intrinsic("llvm.floor"),
    "ceil": _float_unary_intrinsic("llvm.ceil"),
    "tan": _libm("tan"),
    "tanh": in_arrays("tanh", _libm("tanh")),
    "sinh": _libm("sinh"),
    "cosh": _libm("cosh"),
    "arcsin": _libm("asin"),
    "arccos": _libm("acos"),
    "arctan": _libm("atan"),
    "arcsinh": _libm("asinh"),
    "arccosh": _libm("acosh"),
    "arctanh": _libm("atanh"),
    "arctan2": _libm("atan2"),
    "fmod": lambda cx, args, eqn: [cx.b.frem(*args)],  # C's fmod, exact
    "log1p": in_arrays("log1p", _libm("log1p")),
    "expm1": in_arrays("expm1", _libm("expm1")),
    "cbrt": _libm("cbrt"),
    "lt": _compare("<"), "le": _compare("<="), "gt": _compare(">"), "ge": _compare(">="),
    "eq": _compare("=="), "ne": _compare("!="),
    "and_": lambda cx, args, eqn: [cx.b.and_(*args)],
    "or_": lambda cx, args, eqn: [cx.b.or_(*args)],
    "not_": lambda cx, args, eqn: [cx.b.not_(args[0])],
    "select": lambda cx, args, eqn: [cx.b.select(*args)],
    "convert": _convert,
}
