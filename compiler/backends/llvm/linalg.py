"""LLVM lowering of the linear algebra (`primitives/linalg.py`): LU with partial pivoting and
Cholesky written as loops, in internal functions emitted once per module and element type.

Contract (mixed into `FunctionLowering` as `LinalgLowering`, next to `ArrayLowering`):
- `__adlite_lu_<t>(a, n, piv) -> info` factors the n x n row-major matrix `a` in place
  (P A = L U, unit L below the diagonal, U on and above it; `piv[k]` the row swapped with row
  k at step k, LAPACK's getrf without blocking); `info` is 0, or k + 1 for the first zero
  pivot (that column is left as it is, as getrf does).
- `__adlite_lu_solve_<t>(a, n, piv, x, m)` overwrites the n x m matrix `x` with
  inv(A) x from the factors.
- `__adlite_cholesky_<t>(a, n, l) -> info` writes the lower factor of `a` (reading its lower
  triangle only, as LAPACK's potrf) into `l` (zero above the diagonal); `info` is j + 1 where
  the j-th pivot is <= 0 (a NaN pivot goes on, giving NaNs, as numpy's potrf does).
`solve` and `inv` leave with `status.SINGULAR_MATRIX` when `info` is not 0 and `cholesky`
with `status.NOT_POSITIVE_DEFINITE`: both raise numpy's LinAlgError with numpy's message.
`slogdet` / `det_sign` are numpy's: sign = (-1)^(row swaps) prod sign(u_ii), logabsdet =
sum log |u_ii|, (0, -inf) when a pivot is zero; `det` = sign exp(logabsdet) as numpy computes
it. The operands are copied first (values are immutable). `raises_linalg_errors(module)`
tells whether the code may leave with those statuses (its caller must then raise through
Python, not the CPython entry point, which knows only the built-in exceptions).
"""

from __future__ import annotations

from llvmlite import ir

from ... import status
from .arrays import element_type
from .declarations import function
from .ops import I64

PTR = ir.PointerType()
I32 = ir.IntType(32)
KERNELS = ("lu", "cholesky")


def _suffix(elem) -> str:
    return "f32" if isinstance(elem, ir.FloatType) else "f64"


def raises_linalg_errors(module: ir.Module) -> bool:
    return any(f"__adlite_{k}_{t}" in module.globals for k in KERNELS for t in ("f32", "f64"))


class _Kernel:
    """An internal function under construction, with counted loops and mutable slots."""

    def __init__(self, module, name, ret, args, elem) -> None:
        self.module, self.elem = module, elem
        self.fn = ir.Function(module, ir.FunctionType(ret, args), name)
        self.fn.linkage = "internal"
        self.entry = ir.IRBuilder(self.fn.append_basic_block("entry"))
        start = self.fn.append_basic_block("start")
        self.entry.branch(start)
        self.entry.position_at_start(self.entry.block)
        self.b = ir.IRBuilder(start)

    def slot(self, typ, value):
        """A mutable variable (an alloca of the entry block), set to `value` here."""
        ptr = self.entry.alloca(typ)
        self.b.store(value, ptr)
        return ptr

    def get(self, slot, typ=None):
        return self.b.load(slot, typ=typ or self.elem)

    def loop(self, start, stop, body) -> None:
        """for i in range(start, stop): body(i) (i64 bounds)."""
        b = self.b
        pre = b.block
        head, inner, done = (self.fn.append_basic_block(n) for n in ("for", "body", "end"))
        b.branch(head)
        b.position_at_end(head)
        i = b.phi(I64)
        i.add_incoming(start, pre)
        b.cbranch(b.icmp_signed("<", i, stop), inner, done)
        b.position_at_end(inner)
        body(i)
        i.add_incoming(b.add(i, ir.Constant(I64, 1)), b.block)
        b.branch(head)
        b.position_at_end(done)

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
        return function(self.module, f"llvm.{name}.{_suffix(self.elem)}", self.elem, [self.elem])

    def const(self, value):
        return ir.Constant(self.elem, value)


def _once_per_module(kind: str, ret, params):
    """`build(kernel)` defines the function `kind` for one element type; the decorated
    `(module, elem)` returns it, emitted once per module."""

    def wrap(build):
        def get(module: ir.Module, elem) -> ir.Function:
            name = f"__adlite_{kind}_{_suffix(elem)}"
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


class LinalgLowering:
    """Needs `b`, `alloc`, `copy_array`, `check`, `loop_nest`, `element`, `store`, `offset`
    and `module` of `FunctionLowering`."""

    def _factor(self, env, a):
        """(LU factors, pivots, info) of a copy of matrix operand `a`."""
        elem = element_type(a.type)
        n = ir.Constant(I64, a.type.shape[0])
        lu = self.copy_array(env[id(a)], a.type)
        piv = self.alloc((a.type.shape[0],), I64)
        info = self.b.call(lu_function(self.module, elem), [lu, n, piv])
        return lu, piv, info

    def _solve_into(self, env, a, x, columns):
        lu, piv, info = self._factor(env, a)
        self.check(self.b.icmp_signed("==", info, ir.Constant(I64, 0)), status.SINGULAR_MATRIX)
        self.b.call(lu_solve_function(self.module, element_type(a.type)),
                    [lu, ir.Constant(I64, a.type.shape[0]), piv, x, ir.Constant(I64, columns)])
        return x

    def lower_solve(self, eqn, env):
        a, rhs = eqn.inputs
        x = self.copy_array(env[id(rhs)], rhs.type)
        columns = 1 if len(rhs.type.shape) == 1 else rhs.type.shape[1]
        return [self._solve_into(env, a, x, columns)]

    def lower_inv(self, eqn, env):
        a = eqn.inputs[0]
        n = a.type.shape[0]
        elem = element_type(a.type)
        x = self.alloc((n, n), elem)
        b = self.b
        self.loop_nest((n, n), lambda co: self.store(x, a.type, self.offset((n, n), co), b.select(
            b.icmp_signed("==", co[0], co[1]), ir.Constant(elem, 1.0), ir.Constant(elem, 0.0))))
        return [self._solve_into(env, a, x, n)]

    def _slogdet(self, env, a):
        """numpy's (sign, logabsdet) of matrix operand `a`."""
        elem = element_type(a.type)
        n = a.type.shape[0]
        lu, piv, info = self._factor(env, a)
        b = self.b
        one = ir.Constant(elem, 1.0)
        sign = self.entry.alloca(elem)
        logdet = self.entry.alloca(elem)
        b.store(one, sign)
        b.store(ir.Constant(elem, 0.0), logdet)
        fabs = function(self.module, f"llvm.fabs.{_suffix(elem)}", elem, [elem])
        log = function(self.module, f"llvm.log.{_suffix(elem)}", elem, [elem])

        def diagonal(co):
            (i,) = co
            u = b.load(b.gep(lu, [b.add(b.mul(i, ir.Constant(I64, n)), i)], source_etype=elem),
                       typ=elem)
            swapped = b.icmp_signed("!=", b.load(b.gep(piv, [i], source_etype=I64), typ=I64), i)
            flip = b.xor(swapped, b.fcmp_ordered("<", u, ir.Constant(elem, 0.0)))
            current = b.load(sign, typ=elem)
            b.store(b.select(flip, b.fneg(current), current), sign)
            b.store(b.fadd(b.load(logdet, typ=elem), b.call(log, [b.call(fabs, [u])])), logdet)

        self.loop_nest((n,), diagonal)
        regular = b.icmp_signed("==", info, ir.Constant(I64, 0))
        return (b.select(regular, b.load(sign, typ=elem), ir.Constant(elem, 0.0)),
                b.select(regular, b.load(logdet, typ=elem), ir.Constant(elem, float("-inf"))))

    def lower_slogdet(self, eqn, env):
        return [self._slogdet(env, eqn.inputs[0])[1]]

    def lower_det_sign(self, eqn, env):
        return [self._slogdet(env, eqn.inputs[0])[0]]

    def lower_det(self, eqn, env):
        sign, logdet = self._slogdet(env, eqn.inputs[0])
        exp = function(self.module, f"llvm.exp.{_suffix(sign.type)}", sign.type, [sign.type])
        return [self.b.fmul(sign, self.b.call(exp, [logdet]))]

    def lower_cholesky(self, eqn, env):
        a = eqn.inputs[0]
        n = a.type.shape[0]
        elem = element_type(a.type)
        lower = self.alloc((n, n), elem)
        info = self.b.call(cholesky_function(self.module, elem),
                           [env[id(a)], ir.Constant(I64, n), lower])
        self.check(self.b.icmp_signed("==", info, ir.Constant(I64, 0)),
                   status.NOT_POSITIVE_DEFINITE)
        return [lower]

    def lower_tril_halfdiag(self, eqn, env):
        x = eqn.inputs[0]
        shape = x.type.shape
        elem = element_type(x.type)
        out = self.alloc(shape, elem)
        b = self.b

        def body(co):
            v = self.element(env, x, co)
            i, j = co
            half = b.fmul(v, ir.Constant(elem, 0.5))
            value = b.select(b.icmp_signed(">", i, j), v, b.select(
                b.icmp_signed("==", i, j), half, ir.Constant(elem, 0.0)))
            self.store(out, x.type, self.offset(shape, co), value)

        self.loop_nest(shape, body)
        return [out]
