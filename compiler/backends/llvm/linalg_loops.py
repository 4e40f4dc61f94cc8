"""The linear algebra as loops, for when numpy ships no OpenBLAS (`linalg.py` calls LAPACK
otherwise): LU with partial pivoting, Cholesky and triangular solves, in internal functions
emitted once per module and element type.

Contract:
- `__adlite_lu_<t>(a, n, piv) -> info` factors the n x n row-major matrix `a` in place
  (P A = L U, unit L below the diagonal, U on and above it; `piv[k]` the row swapped with row
  k at step k, 0-based, LAPACK's getrf without blocking); `info` is 0, or k + 1 for the first
  zero pivot (that column is left as it is, as getrf does).
- `__adlite_lu_solve_<t>(a, n, piv, x, m)` overwrites the n x m matrix `x` with
  inv(A) x from the factors.
- `__adlite_cholesky_<t>(a, n, l) -> info` writes the lower factor of `a` (reading its lower
  triangle only, as LAPACK's potrf) into `l` (zero above the diagonal); `info` is j + 1 where
  the j-th pivot is <= 0 (a NaN pivot goes on, giving NaNs, as OpenBLAS's potrf does).
- `__adlite_trsolve_<t>(a, n, x, m, lower, unit) -> info` overwrites the n x m matrix `x`
  with inv(T) x, T the lower (`lower` = 1) or upper triangle of `a` (with ones on the
  diagonal when `unit` = 1); `info` is k + 1 for the first zero diagonal element k (x is then
  left as it is), as LAPACK's trtrs.
"""


from __future__ import annotations

from llvmlite import ir

from .declarations import function
from .internal_functions import InternalFunction, for_range
from .ops import I64

PTR = ir.PointerType()
I32 = ir.IntType(32)


def suffix(elem) -> str:
    return "f32" if isinstance(elem, ir.FloatType) else "f64"


class _Kernel(InternalFunction):
    """An internal function under construction, with counted loops and mutable slots."""

    def __init__(self, module, name, ret, args, elem) -> None:
        super().__init__(module, name, ir.FunctionType(ret, args))
        self.module, self.elem = module, elem

    def slot(self, typ, value):
        """A mutable variable (an alloca of the entry block), set to `value` here."""
        return self.new_slot(typ, value)

    def get(self, slot, typ=None):
        return self.b.load(slot, typ=typ or self.elem)

    def loop(self, start, stop, body) -> None:
        """for i in range(start, stop): body(i) (i64 bounds)."""
        for_range(self.b, self.fn, start, stop, body)

    def when(self, cond, body) -> None:
        with self.b.if_then(cond):
            body()

    def at(self, ptr, i, j, cols, elem=None):
        b = self.b
        return b.gep(ptr, [b.add(b.mul(i, cols), j)], inbounds=True,
                     source_etype=elem or self.elem)

    def load(self, ptr, i, j, cols):
        return self.b.load(self.at(ptr, i, j, cols), typ=self.elem)

    def store(self, value, ptr, i, j, cols) -> None:
        self.b.store(value, self.at(ptr, i, j, cols))

    def intrinsic(self, name):
        return function(self.module, f"llvm.{name}.{suffix(self.elem)}", self.elem, [self.elem])

    def const(self, value):
        return ir.Constant(self.elem, value)


def _once_per_module(kind: str, ret, params):
    """`build(kernel)` defines the function `kind` for one element type; the decorated
    `(module, elem)` returns it, emitted once per module."""

    def wrap(build):
        def get(module: ir.Module, elem) -> ir.Function:
            name = f"__adlite_{kind}_{suffix(elem)}"
            if name not in module.globals:
                build(_Kernel(module, name, ret, params, elem))
            return module.globals[name]

        return get

    return wrap


@_once_per_module("lu", I64, [PTR, I64, PTR])
def lu_function(k: _Kernel) -> None:
    a, n, piv = k.fn.args
    b, one = k.b, ir.Constant(I64, 1)
    fabs = k.intrinsic("fabs")
    info = k.slot(I64, ir.Constant(I64, 0))
    best, row = k.entry.alloca(k.elem), k.entry.alloca(I64)

    def step(c):
        b.store(b.call(fabs, [k.load(a, c, c, n)]), best)
        b.store(c, row)

        def search(i):
            v = b.call(fabs, [k.load(a, i, c, n)])
            larger = b.fcmp_ordered(">", v, b.load(best, typ=k.elem))
            b.store(b.select(larger, v, b.load(best, typ=k.elem)), best)
            b.store(b.select(larger, i, b.load(row, typ=I64)), row)

        k.loop(b.add(c, one), n, search)
        p = b.load(row, typ=I64)
        b.store(p, b.gep(piv, [c], inbounds=True, source_etype=I64))
        zero = b.fcmp_ordered("==", b.load(best, typ=k.elem), k.const(0.0))
        with b.if_else(zero) as (singular, regular):
            with singular:
                first = b.icmp_signed("==", b.load(info, typ=I64), ir.Constant(I64, 0))
                b.store(b.select(first, b.add(c, one), b.load(info, typ=I64)), info)
            with regular:
                def swap(j):
                    top, other = k.load(a, c, j, n), k.load(a, p, j, n)
                    k.store(other, a, c, j, n)
                    k.store(top, a, p, j, n)

                k.loop(ir.Constant(I64, 0), n, swap)
                pivot = k.load(a, c, c, n)

                def eliminate(i):
                    factor = b.fdiv(k.load(a, i, c, n), pivot)
                    k.store(factor, a, i, c, n)
                    k.loop(b.add(c, one), n, lambda j: k.store(
                        b.fsub(k.load(a, i, j, n), b.fmul(factor, k.load(a, c, j, n))),
                        a, i, j, n))

                k.loop(b.add(c, one), n, eliminate)

    k.loop(ir.Constant(I64, 0), n, step)
    b.ret(b.load(info, typ=I64))


@_once_per_module("lu_solve", ir.VoidType(), [PTR, I64, PTR, PTR, I64])
def lu_solve_function(k: _Kernel) -> None:
    a, n, piv, x, m = k.fn.args
    b, zero, one = k.b, ir.Constant(I64, 0), ir.Constant(I64, 1)

    def permute(i):
        p = b.load(b.gep(piv, [i], inbounds=True, source_etype=I64), typ=I64)

        def swap(c):
            top, other = k.load(x, i, c, m), k.load(x, p, c, m)
            k.store(other, x, i, c, m)
            k.store(top, x, p, c, m)

        k.loop(zero, m, swap)

    def subtract(i, j):  # row i of x -= a[i, j] * row j of x
        factor = k.load(a, i, j, n)
        k.loop(zero, m, lambda c: k.store(
            b.fsub(k.load(x, i, c, m), b.fmul(factor, k.load(x, j, c, m))), x, i, c, m))

    def backward(r):
        i = b.sub(b.sub(n, one), r)
        k.loop(b.add(i, one), n, lambda j: subtract(i, j))
        pivot = k.load(a, i, i, n)
        k.loop(zero, m, lambda c: k.store(b.fdiv(k.load(x, i, c, m), pivot), x, i, c, m))

    k.loop(zero, n, permute)
    k.loop(zero, n, lambda i: k.loop(zero, i, lambda j: subtract(i, j)))
    k.loop(zero, n, backward)
    b.ret_void()


@_once_per_module("cholesky", I64, [PTR, I64, PTR])
def cholesky_function(k: _Kernel) -> None:
    a, n, lower = k.fn.args
    b, zero, one = k.b, ir.Constant(I64, 0), ir.Constant(I64, 1)
    total = k.entry.alloca(k.elem)
    k.loop(zero, n, lambda i: k.loop(zero, n, lambda j: k.store(k.const(0.0), lower, i, j, n)))

    def dot_from(i, j):
        """a[i, j] - sum_{c < j} l[i, c] l[j, c], into `total`."""
        b.store(k.load(a, i, j, n), total)
        k.loop(zero, j, lambda c: b.store(
            b.fsub(b.load(total, typ=k.elem), b.fmul(k.load(lower, i, c, n),
                                                     k.load(lower, j, c, n))), total))
        return b.load(total, typ=k.elem)

    def column(j):
        d = dot_from(j, j)
        fail = k.fn.append_basic_block("not_positive")
        ok = k.fn.append_basic_block("positive")
        b.cbranch(b.fcmp_ordered("<=", d, k.const(0.0)), fail, ok)  # NaN goes on, as potrf
        b.position_at_end(fail)
        b.ret(b.add(j, one))
        b.position_at_end(ok)
        diagonal = b.call(k.intrinsic("sqrt"), [d])
        k.store(diagonal, lower, j, j, n)
        k.loop(b.add(j, one), n, lambda i: k.store(b.fdiv(dot_from(i, j), diagonal),
                                                    lower, i, j, n))

    k.loop(zero, n, column)
    b.ret(zero)


@_once_per_module("trsolve", I64, [PTR, I64, PTR, I64, I64, I64])
def trsolve_function(k: _Kernel) -> None:
    a, n, x, m, lower, unit = k.fn.args
    b, zero, one = k.b, ir.Constant(I64, 0), ir.Constant(I64, 1)
    is_lower = b.icmp_signed("!=", lower, zero)
    regular = b.icmp_signed("==", unit, zero)

    def check(i):
        singular = b.and_(regular, b.fcmp_ordered("==", k.load(a, i, i, n), k.const(0.0)))
        fail = k.fn.append_basic_block("singular")
        ok = k.fn.append_basic_block("nonzero")
        b.cbranch(singular, fail, ok)
        b.position_at_end(fail)
        b.ret(b.add(i, one))
        b.position_at_end(ok)

    def row(r):  # rows in the order their unknowns are found
        i = b.select(is_lower, r, b.sub(b.sub(n, one), r))
        start, stop = b.select(is_lower, zero, b.add(i, one)), b.select(is_lower, i, n)

        def subtract(j):  # row i of x -= a[i, j] * row j of x
            factor = k.load(a, i, j, n)
            k.loop(zero, m, lambda c: k.store(
                b.fsub(k.load(x, i, c, m), b.fmul(factor, k.load(x, j, c, m))), x, i, c, m))

        k.loop(start, stop, subtract)
        with b.if_then(regular):
            pivot = k.load(a, i, i, n)
            k.loop(zero, m, lambda c: k.store(b.fdiv(k.load(x, i, c, m), pivot), x, i, c, m))

    k.loop(zero, n, check)
    k.loop(zero, n, row)
    b.ret(zero)
