"""LLVM lowering of every scalar primitive (the LLVM column of the primitive table).

Contract: `LOWERINGS[name](cx, args, eqn) -> list of llvm values`, where `cx` is the function
lowering context (`cx.b` the llvmlite IRBuilder, `cx.intrinsic(name, type)` and
`cx.libm(name, n_args, type)` declare math functions for double or float, `cx.check`).
Floating-point code has no fast-math flags, so results are bit-for-bit IEEE like numpy's:
`maximum`/`minimum` propagate NaN as `np.maximum` does, `//` and `%` follow Python's floor
semantics, integer division by zero and float -> int overflow jump to the error exit
(`cx.check`) instead of trapping. Structural primitives (`while`, `cond`, tape) are lowered
by `lower.py`.
"""

from __future__ import annotations

from llvmlite import ir

from . import status

F64 = ir.DoubleType()
I64 = ir.IntType(64)
I1 = ir.IntType(1)



def _is_float(v) -> bool:
    return isinstance(v.type, ir.DoubleType | ir.FloatType)


def _arith(float_op, int_op):
    def lower(cx, args, eqn):
        x, y = args
        op = float_op if _is_float(x) else int_op
        return [getattr(cx.b, op)(x, y)]

    return lower


def _float_unary_intrinsic(name):
    return lambda cx, args, eqn: [cx.b.call(cx.intrinsic(name, args[0].type), args)]


def _libm(name):
    return lambda cx, args, eqn: [cx.b.call(cx.libm(name, len(args), args[0].type), args)]


def _neg(cx, args, eqn):
    (x,) = args
    return [cx.b.fneg(x) if _is_float(x) else cx.b.neg(x)]


def _abs(cx, args, eqn):
    (x,) = args
    if _is_float(x):
        return [cx.b.call(cx.intrinsic("llvm.fabs", x.type), [x])]
    return [cx.b.select(cx.b.icmp_signed("<", x, ir.Constant(I64, 0)), cx.b.neg(x), x)]


def _sign(cx, args, eqn):
    (x,) = args
    b = cx.b
    zero, one = ir.Constant(x.type, 0.0), ir.Constant(x.type, 1.0)
    inner = b.select(b.fcmp_ordered("==", x, zero), zero, x)  # 0 for +-0, nan stays nan
    return [b.select(b.fcmp_ordered(">", x, zero), one,
                     b.select(b.fcmp_ordered("<", x, zero), ir.Constant(x.type, -1.0), inner))]


def _extremum(float_pred, int_pred):
    """np.maximum / np.minimum: `x if (x >= y or x != x) else y` (NaN propagates)."""

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


def _int_floordiv(cx, x, y):
    """Python's x // y for ints: truncating division corrected toward -inf."""
    b = cx.b
    _nonzero_divisor(cx, y)
    minus_one = ir.Constant(I64, -1)
    safe_y = b.select(b.icmp_signed("==", y, minus_one), ir.Constant(I64, 1), y)
    q = b.select(b.icmp_signed("==", y, minus_one), b.neg(x), b.sdiv(x, safe_y))
    r = b.sub(x, b.mul(q, y))
    adjust = b.and_(b.icmp_signed("!=", r, ir.Constant(I64, 0)),
                    b.icmp_signed("<", b.xor(r, y), ir.Constant(I64, 0)))
    return b.select(adjust, b.sub(q, ir.Constant(I64, 1)), q)


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
    return [_int_floordiv(cx, x, y)]


def _mod(cx, args, eqn):
    x, y = args
    if _is_float(x):
        return [_float_divmod(cx, x, y)[1]]
    return [cx.b.sub(x, cx.b.mul(_int_floordiv(cx, x, y), y))]


def _pow(cx, args, eqn):
    x, y = args
    if _is_float(x):
        return [cx.b.call(cx.intrinsic("llvm.pow", x.type), [x, y])]
    return [cx.b.call(cx.int_pow(), [x, y])]


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


FLOATS = {"f64": F64, "f32": ir.FloatType()}


def _convert(cx, args, eqn):
    (x,) = args
    b = cx.b
    target = eqn.params["to"].name
    source = eqn.inputs[0].type.name
    if source == target:
        return [x]
    if target in FLOATS:
        t = FLOATS[target]
        if source in FLOATS:
            return [b.fpext(x, t) if target == "f64" else b.fptrunc(x, t)]
        return [b.sitofp(x, t) if source == "i64" else b.uitofp(x, t)]
    if target == "bool":
        return [b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0)) if source in FLOATS
                else b.icmp_signed("!=", x, ir.Constant(I64, 0))]
    if source == "bool":
        return [b.zext(x, I64)]
    in_range = b.and_(b.fcmp_ordered(">", x, ir.Constant(x.type, -9.2e18)),
                      b.fcmp_ordered("<", x, ir.Constant(x.type, 9.2e18)))
    cx.check(in_range, status.FLOAT_TO_INT)
    return [b.fptosi(x, I64)]


LOWERINGS = {
    "add": _arith("fadd", "add"),
    "sub": _arith("fsub", "sub"),
    "mul": _arith("fmul", "mul"),
    "div": lambda cx, args, eqn: [cx.b.fdiv(*args)],
    "pow": _pow,
    "floordiv": _floordiv,
    "mod": _mod,
    "maximum": _extremum(">=", ">="),
    "minimum": _extremum("<=", "<="),
    "clip": _clip,
    "neg": _neg,
    "abs": _abs,
    "sign": _sign,
    "exp": _float_unary_intrinsic("llvm.exp"),
    "log": _float_unary_intrinsic("llvm.log"),
    "sqrt": _float_unary_intrinsic("llvm.sqrt"),
    "sin": _float_unary_intrinsic("llvm.sin"),
    "cos": _float_unary_intrinsic("llvm.cos"),
    "floor": _float_unary_intrinsic("llvm.floor"),
    "ceil": _float_unary_intrinsic("llvm.ceil"),
    "tan": _libm("tan"),
    "tanh": _libm("tanh"),
    "sinh": _libm("sinh"),
    "cosh": _libm("cosh"),
    "arcsin": _libm("asin"),
    "arccos": _libm("acos"),
    "arctan": _libm("atan"),
    "log1p": _libm("log1p"),
    "expm1": _libm("expm1"),
    "lt": _compare("<"), "le": _compare("<="), "gt": _compare(">"), "ge": _compare(">="),
    "eq": _compare("=="), "ne": _compare("!="),
    "and_": lambda cx, args, eqn: [cx.b.and_(*args)],
    "or_": lambda cx, args, eqn: [cx.b.or_(*args)],
    "not_": lambda cx, args, eqn: [cx.b.not_(args[0])],
    "select": lambda cx, args, eqn: [cx.b.select(*args)],
    "convert": _convert,
}
