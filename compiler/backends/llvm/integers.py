"""Functions of int64 arithmetic: LLVM's overflow intrinsics, and internal functions emitted
once per module, `int_pow(module)` and `int_truediv(module)` (called by ops.py's rules).

Contract: `overflow_intrinsic(module, op)` declares `llvm.<op>.with.overflow.i64` (op: sadd,
ssub, smul) -> {i64 result, i1 overflowed}; `adlite_ipow(base, exp) -> {power, overflowed}`
for exponents >= 0, the flag set exactly when Python's result does not fit int64;
`adlite_int_truediv(x, y)` is x / y correctly rounded to double, for nonzero x and y.
"""

from __future__ import annotations

from llvmlite import ir

from .declarations import function

F64 = ir.DoubleType()
I64 = ir.IntType(64)
I1 = ir.IntType(1)


def overflow_intrinsic(module: ir.Module, op: str) -> ir.Function:
    """`llvm.<op>.with.overflow.i64` (op: sadd, ssub, smul) -> {i64 result, i1 overflowed}."""
    return function(module, f"llvm.{op}.with.overflow.i64", ir.LiteralStructType([I64, I1]),
                    [I64, I64])


def int_pow(module: ir.Module) -> ir.Function:
    """i64 power by squaring (exponents are non-negative by construction) -> {power,
    overflowed}: a square is taken only when a higher exponent bit still needs it, so
    the flag is set exactly when Python's result does not fit int64."""
    name = "adlite_ipow"
    if name in module.globals:
        return module.globals[name]
    result_type = ir.LiteralStructType([I64, I1])
    fn = ir.Function(module, ir.FunctionType(result_type, [I64, I64]), name)
    fn.linkage = "internal"
    base, exp = fn.args
    entry, loop, square, done = (fn.append_basic_block(n)
                                 for n in ("entry", "loop", "square", "done"))
    b = ir.IRBuilder(entry)
    b.branch(loop)
    b.position_at_end(loop)
    acc, x, e, failed = b.phi(I64), b.phi(I64), b.phi(I64), b.phi(I1)
    acc.add_incoming(ir.Constant(I64, 1), entry)
    x.add_incoming(base, entry)
    e.add_incoming(exp, entry)
    failed.add_incoming(ir.Constant(I1, 0), entry)
    odd = b.trunc(e, I1)
    product = b.call(overflow_intrinsic(module, "smul"), [acc, x])
    acc2 = b.select(odd, b.extract_value(product, 0), acc)
    failed2 = b.or_(failed, b.and_(odd, b.extract_value(product, 1)))
    e2 = b.lshr(e, ir.Constant(I64, 1))
    b.cbranch(b.icmp_signed(">", e2, ir.Constant(I64, 0)), square, done)
    b.position_at_end(square)
    squared = b.call(overflow_intrinsic(module, "smul"), [x, x])
    for phi, value in ((acc, acc2), (x, b.extract_value(squared, 0)), (e, e2),
                       (failed, b.or_(failed2, b.extract_value(squared, 1)))):
        phi.add_incoming(value, square)
    b.branch(loop)
    b.position_at_end(done)
    result = b.insert_value(ir.Constant(result_type, ir.Undefined), acc2, 0)
    b.ret(b.insert_value(result, failed2, 1))
    return fn

def int_truediv(module: ir.Module) -> ir.Function:
    """`double adlite_int_truediv(x, y)`: x / y correctly rounded, for nonzero x and y:
    64 quotient bits of the normalised magnitudes by restoring division, a sticky bit
    for the remainder, one rounding (uitofp), then an exact scaling by a power of 2."""
    name = "adlite_int_truediv"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(F64, [I64, I64]), name)
    fn.linkage = "internal"
    x, y = fn.args
    entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "loop", "done"))
    b = ir.IRBuilder(entry)
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
    ctlz = function(module, "llvm.ctlz.i64", I64, [I64, I1])

    def magnitude(v):  # |v| as unsigned (2**63 for -2**63)
        return b.select(b.icmp_signed("<", v, zero), b.neg(v), v)

    a, d = magnitude(x), magnitude(y)
    shift_a = b.call(ctlz, [a, ir.Constant(I1, 0)])
    shift_d = b.call(ctlz, [d, ir.Constant(I1, 0)])
    top_a, top_d = b.shl(a, shift_a), b.shl(d, shift_d)  # top bits set: ratio in (1/2, 2)
    b.branch(loop)
    b.position_at_end(loop)
    i, q, r = b.phi(I64), b.phi(I64), b.phi(I64)
    first = b.icmp_signed("==", i, zero)
    carry = b.and_(b.not_(first), b.icmp_signed("<", r, zero))  # 2r >= 2**64 > d
    r2 = b.select(first, r, b.shl(r, one))
    take = b.or_(carry, b.icmp_unsigned(">=", r2, top_d))
    q2 = b.or_(b.shl(q, one), b.zext(take, I64))
    r3 = b.select(take, b.sub(r2, top_d), r2)
    i2 = b.add(i, one)
    for phi, start, value in ((i, zero, i2), (q, zero, q2), (r, top_a, r3)):
        phi.add_incoming(start, entry)
        phi.add_incoming(value, loop)
    b.cbranch(b.icmp_signed("<", i2, ir.Constant(I64, 64)), loop, done)
    b.position_at_end(done)
    sticky = b.zext(b.icmp_signed("!=", r3, zero), I64)
    value = b.uitofp(b.or_(q2, sticky), F64)  # q2 >= 2**62: the sticky bit is below
    exponent = b.sub(b.sub(shift_d, shift_a), ir.Constant(I64, 63))  # a/d = q 2**exp
    scale = b.bitcast(b.shl(b.add(exponent, ir.Constant(I64, 1023)), ir.Constant(I64, 52)),
                      F64)
    result = b.fmul(value, scale)
    negative = b.icmp_signed("<", b.xor(x, y), zero)
    b.ret(b.select(negative, b.fneg(result), result))
    return fn
