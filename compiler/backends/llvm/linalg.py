"""LLVM lowering of the linear algebra (`primitives/linalg.py`): calls of the LAPACK in numpy's
OpenBLAS (`lapack.py`), as numpy and scipy make them, or the loops of `linalg_loops.py` when
numpy ships no OpenBLAS (`arrays.blas()` is None).

Contract (mixed into `FunctionLowering` as `LinalgLowering`, next to `ArrayLowering`):
- with LAPACK, each primitive calls the routine numpy's (scipy's) function calls, on operands
  laid out as numpy lays them out (column-major copies; values are immutable; float32 in
  float64 for numpy's functions, scipy's float32 in float32), so the values are numpy's to
  the bit: `solve` and `inv` `?gesv` (`inv` with the identity as right-hand
  side), `det` / `slogdet` / `det_sign` `?getrf`, `cholesky` and `scipy_cholesky` `?potrf`
  ('L', or 'U' for scipy's upper factor), `solve_triangular` `?trtrs` on the transposed
  matrix as scipy calls it on a C-ordered one (the triangle and `trans` flipped; `trans` 2,
  'C', on a column-major copy, as scipy);
- `slogdet` / `det_sign` are numpy's from the LU factors: sign = (-1)^(row swaps) prod
  sign(u_ii), logabsdet = sum log |u_ii| in order, (0, -inf) when a pivot is zero; `det` =
  sign exp(logabsdet) as numpy computes it;
- failures leave with the statuses that raise what numpy / scipy raise: `solve` and `inv`
  `status.SINGULAR_MATRIX`, `cholesky` `NOT_POSITIVE_DEFINITE`, `scipy_cholesky`
  `NOT_POSITIVE_MINOR + k` (k the order of the failing minor), `solve_triangular`
  `SINGULAR_DIAGONAL + k` (k the first zero diagonal element), `check_finite` `NOT_FINITE`
  (any NaN or infinity; it returns its operand).
Both entry points raise these statuses through `jit.raise_for_status`.
"""

from __future__ import annotations

from llvmlite import ir

from ... import status
from . import arrays
from .arrays import element_type
from .declarations import function
from .lapack import Lapack
from .linalg_loops import (
    cholesky_function,
    lu_function,
    lu_solve_function,
    suffix,
    trsolve_function,
)
from .ops import F64, I1, I64
from .registry import lowers

I32 = ir.IntType(32)


class LinalgLowering:
    """Needs `b`, `entry`, `alloc`, `copy_array`, `check`, `loop_nest`, `element`, `load`,
    `store`, `offset` and `module` of `FunctionLowering`."""

    def _with_status(self, base: int, info, shift: int = 0):
        """The i32 status `base + info + shift` (computed before its check)."""
        return self.b.add(ir.Constant(I32, base + shift), self.b.trunc(info, I32))

    def _factor(self, env, a):
        """(LU factors, pivots, info, first pivot index, their element type) of a copy of
        matrix operand `a`."""
        elem = element_type(a.type)
        n = a.type.shape[0]
        piv = self.alloc((n,), I64)
        if arrays.blas():
            lu = Lapack(self).column_major(env[id(a)], n, n, elem, F64)
            return lu, piv, Lapack(self).call("getrf", F64, [n, n, lu, n, piv]), 1, F64
        lu = self.copy_array(env[id(a)], a.type)
        return lu, piv, self.b.call(lu_function(self.module, elem),
                                    [lu, ir.Constant(I64, n), piv]), 0, elem

    def _solve(self, env, a, x, x_type):
        """inv(A) x for the vector or matrix `x` of type `x_type` (left as it is)."""
        n, elem = a.type.shape[0], element_type(a.type)
        columns = 1 if len(x_type.shape) == 1 else x_type.shape[1]
        zero = ir.Constant(I64, 0)
        if not arrays.blas():
            lu, piv, info, _, _ = self._factor(env, a)
            self.check(self.b.icmp_signed("==", info, zero), status.SINGULAR_MATRIX)
            out = self.copy_array(x, x_type)
            self.b.call(lu_solve_function(self.module, elem),
                        [lu, ir.Constant(I64, n), piv, out, ir.Constant(I64, columns)])
            return out
        lapack = Lapack(self)
        lu = lapack.column_major(env[id(a)], n, n, elem, F64)
        rhs = lapack.column_major(x, n, columns, elem, F64)
        info = lapack.call("gesv", F64, [n, columns, lu, n, self.alloc((n,), I64), rhs, n])
        self.check(self.b.icmp_signed("==", info, zero), status.SINGULAR_MATRIX)
        return lapack.column_major(rhs, columns, n, F64, elem)

    @lowers("solve")
    def lower_solve(self, eqn, env):
        a, rhs = eqn.inputs
        return [self._solve(env, a, env[id(rhs)], rhs.type)]

    @lowers("inv")
    def lower_inv(self, eqn, env):
        a = eqn.inputs[0]
        n = a.type.shape[0]
        elem = element_type(a.type)
        x = self.alloc((n, n), elem)
        b = self.b
        self.loop_nest((n, n), lambda co: self.store(x, a.type, self.offset((n, n), co), b.select(
            b.icmp_signed("==", co[0], co[1]), ir.Constant(elem, 1.0), ir.Constant(elem, 0.0))))
        return [self._solve(env, a, x, a.type)]

    def _slogdet(self, env, a):
        """numpy's (sign, logabsdet) of matrix operand `a`."""
        elem = element_type(a.type)
        n = a.type.shape[0]
        lu, piv, info, first, work = self._factor(env, a)
        b = self.b
        result, elem = elem, work
        one = ir.Constant(elem, 1.0)
        sign = self.entry.alloca(elem)
        logdet = self.entry.alloca(elem)
        b.store(one, sign)
        b.store(ir.Constant(elem, 0.0), logdet)
        fabs = function(self.module, f"llvm.fabs.{suffix(elem)}", elem, [elem])
        log = function(self.module, f"llvm.log.{suffix(elem)}", elem, [elem])

        def diagonal(co):
            (i,) = co
            u = b.load(b.gep(lu, [b.add(b.mul(i, ir.Constant(I64, n)), i)], source_etype=elem),
                       typ=elem)
            pivot = b.load(b.gep(piv, [i], source_etype=I64), typ=I64)
            swapped = b.icmp_signed("!=", pivot, b.add(i, ir.Constant(I64, first)))
            flip = b.xor(swapped, b.fcmp_ordered("<", u, ir.Constant(elem, 0.0)))
            current = b.load(sign, typ=elem)
            b.store(b.select(flip, b.fneg(current), current), sign)
            b.store(b.fadd(b.load(logdet, typ=elem), b.call(log, [b.call(fabs, [u])])), logdet)

        self.loop_nest((n,), diagonal)
        regular = b.icmp_signed("==", info, ir.Constant(I64, 0))
        return (b.select(regular, b.load(sign, typ=elem), ir.Constant(elem, 0.0)),
                b.select(regular, b.load(logdet, typ=elem), ir.Constant(elem, float("-inf"))),
                result)

    def _narrowed(self, value, elem):
        return value if value.type == elem else self.b.fptrunc(value, elem)

    @lowers("slogdet")
    def lower_slogdet(self, eqn, env):
        _, logdet, elem = self._slogdet(env, eqn.inputs[0])
        return [self._narrowed(logdet, elem)]

    @lowers("det_sign")
    def lower_det_sign(self, eqn, env):
        sign, _, elem = self._slogdet(env, eqn.inputs[0])
        return [self._narrowed(sign, elem)]

    @lowers("det")
    def lower_det(self, eqn, env):
        sign, logdet, elem = self._slogdet(env, eqn.inputs[0])
        exp = function(self.module, f"llvm.exp.{suffix(sign.type)}", sign.type, [sign.type])
        return [self._narrowed(self.b.fmul(sign, self.b.call(exp, [logdet])), elem)]

    def _cholesky(self, env, a, failure, work=None, lower=True):
        """The lower (`lower`) or upper factor of matrix operand `a` (read from that
        triangle), computed in element type `work` (default: `a`'s); `failure(info)` is the
        status to leave with when the `info`-th leading minor is not positive definite."""
        n = a.type.shape[0]
        elem = element_type(a.type)
        b = self.b
        if arrays.blas():
            lapack = Lapack(self)
            work = work or elem
            factor = lapack.column_major(env[id(a)], n, n, elem, work)
            info = lapack.call("potrf", work, [n, factor, n], chars="L" if lower else "U")
        else:  # the upper factor is the lower one of the transpose, transposed
            work = elem
            operand = env[id(a)] if lower else Lapack(self).column_major(env[id(a)], n, n, elem)
            factor = self.alloc((n, n), elem)
            info = b.call(cholesky_function(self.module, elem),
                          [operand, ir.Constant(I64, n), factor])
            if lower:
                factor = Lapack(self).column_major(factor, n, n, elem)
        self.check(b.icmp_signed("==", info, ir.Constant(I64, 0)), failure(info))
        out = self.alloc((n, n), elem)

        def move(co):  # the factor back to row-major, zeros in the other triangle (as numpy)
            i, j = co
            src = b.gep(factor, [b.add(b.mul(j, ir.Constant(I64, n)), i)], source_etype=work)
            value = b.select(b.icmp_signed("<=" if lower else ">=", j, i),
                             self._narrowed(b.load(src, typ=work), elem),
                             ir.Constant(elem, 0.0))
            self.store(out, a.type, self.offset((n, n), co), value)

        self.loop_nest((n, n), move)
        return out

    @lowers("cholesky")
    def lower_cholesky(self, eqn, env):
        return [self._cholesky(env, eqn.inputs[0], lambda info: status.NOT_POSITIVE_DEFINITE,
                               F64)]

    @lowers("scipy_cholesky")
    def lower_scipy_cholesky(self, eqn, env):
        return [self._cholesky(env, eqn.inputs[0],
                               lambda info: self._with_status(status.NOT_POSITIVE_MINOR, info),
                               lower=eqn.params["lower"])]

    @lowers("solve_triangular")
    def lower_solve_triangular(self, eqn, env):
        a, rhs = eqn.inputs
        n, elem = a.type.shape[0], element_type(a.type)
        columns = 1 if len(rhs.type.shape) == 1 else rhs.type.shape[1]
        lower, trans = eqn.params["lower"], eqn.params["trans"]
        unit = eqn.params["unit_diagonal"]
        b = self.b
        if arrays.blas():  # scipy's calls: trtrs of the transpose of a C-ordered matrix
            lapack = Lapack(self)
            x = lapack.column_major(env[id(rhs)], n, columns, elem)
            diag = "U" if unit else "N"
            if trans == 2:  # 'C': of a Fortran-ordered copy, as scipy does
                matrix, chars = lapack.column_major(env[id(a)], n, n, elem), "LT" if lower else "UT"
            else:
                matrix, chars = env[id(a)], ("U" if lower else "L") + ("N" if trans else "T")
            info = lapack.call("trtrs", elem, [n, columns, matrix, n, x, n], chars=chars + diag)
        else:
            matrix = env[id(a)]
            if trans:  # solve with the transposed triangle
                matrix = self.alloc((n, n), elem)
                self.loop_nest((n, n), lambda co: self.store(
                    matrix, a.type, self.offset((n, n), co),
                    self.load(env[id(a)], a.type, self.offset((n, n), co[::-1]))))
            x = self.copy_array(env[id(rhs)], rhs.type)
            info = b.call(trsolve_function(self.module, elem),
                          [matrix, ir.Constant(I64, n), x, ir.Constant(I64, columns),
                           ir.Constant(I64, int(lower != bool(trans))),
                           ir.Constant(I64, int(unit))])
        self.check(b.icmp_signed("==", info, ir.Constant(I64, 0)),
                   self._with_status(status.SINGULAR_DIAGONAL, info, -1))
        if arrays.blas() and columns > 1:
            return [Lapack(self).column_major(x, columns, n, elem)]
        return [x]

    @lowers("check_finite")
    def lower_check_finite(self, eqn, env):
        x = eqn.inputs[0]
        elem = element_type(x.type)
        b = self.b
        finite = self.entry.alloca(I1)
        b.store(ir.Constant(I1, 1), finite)
        fabs = function(self.module, f"llvm.fabs.{suffix(elem)}", elem, [elem])
        inf = ir.Constant(elem, float("inf"))
        self.loop_nest(x.type.shape, lambda co: b.store(b.and_(
            b.load(finite, typ=I1),
            b.fcmp_ordered("<", b.call(fabs, [self.element(env, x, co)]), inf)), finite))
        self.check(b.load(finite, typ=I1), status.NOT_FINITE)
        return [env[id(x)]]

    @lowers("triangle")
    def lower_triangle(self, eqn, env):
        x = eqn.inputs[0]
        lower, diagonal = eqn.params["lower"], eqn.params["diagonal"]
        return [self._masked(env, x, "<" if lower else ">", diagonal)]

    @lowers("tril_halfdiag")
    def lower_tril_halfdiag(self, eqn, env):
        return [self._masked(env, eqn.inputs[0], "<", 0.5)]

    def _masked(self, env, x, keep, diagonal):
        """x where j `keep` i (strictly), `diagonal` times x on the diagonal, 0 elsewhere."""
        shape = x.type.shape
        elem = element_type(x.type)
        out = self.alloc(shape, elem)
        b = self.b

        def body(co):
            v = self.element(env, x, co)
            i, j = co
            scaled = v if diagonal == 1.0 else ir.Constant(elem, 0.0) if diagonal == 0.0 \
                else b.fmul(v, ir.Constant(elem, diagonal))
            value = b.select(b.icmp_signed(keep, j, i), v, b.select(
                b.icmp_signed("==", i, j), scaled, ir.Constant(elem, 0.0)))
            self.store(out, x.type, self.offset(shape, co), value)

        self.loop_nest(shape, body)
        return out
