"""LLVM lowering of the linear algebra (`primitives/linalg.py`): calls of the LAPACK in numpy's
OpenBLAS (`lapack.py`), as numpy and scipy make them, or the loops of `linalg_loops.py` when
numpy ships no OpenBLAS (`arrays.blas()` is None).

Contract (rules registered with `registry.lowers`; they use `b`, `entry`, `alloc`,
`copy_array`, `check`, `loop_nest`, `element`, `load`, `store`, `offset` and `module` of the
lowering `cx`):
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
from .array_rules import operand_buffer, transposed_source
from .arrays import alloc, copy_array, element_type, extent, load, loop_nest, offset, store
from .declarations import function
from .elements import element
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


def _with_status(cx, base: int, info, shift: int = 0):
    """The i32 status `base + info + shift` (computed before its check)."""
    return cx.b.add(ir.Constant(I32, base + shift), cx.b.trunc(info, I32))


def _factor(cx, env, a):
    """(LU factors, pivots, info, first pivot index, their element type) of a copy of
    matrix operand `a`."""
    elem = element_type(a.type)
    n = a.type.shape[0]
    piv = alloc(cx, (n,), I64)
    if arrays.blas():
        lu = Lapack(cx).column_major(env[id(a)], n, n, elem, F64)
        return lu, piv, Lapack(cx).call("getrf", F64, [n, n, lu, n, piv]), 1, F64
    lu = copy_array(cx, env[id(a)], a.type)
    return lu, piv, cx.b.call(lu_function(cx.module, elem),
                              [lu, extent(cx, n), piv]), 0, elem


def _solve(cx, env, a, x, x_type, transposed: bool = False):
    """inv(A) x (inv(A).T x when `transposed`) for the vector or matrix `x` of type `x_type`
    (left as it is). With LAPACK, A's LU factors are computed once per matrix and graph
    level (`cx.factors`): the solves that follow, the adjoint's `solve(A.T, g)` with
    getrs's transpose flag among them, reuse them (gesv is getrf then getrs: the same
    bits)."""
    n, elem = a.type.shape[0], element_type(a.type)
    columns = 1 if len(x_type.shape) == 1 else x_type.shape[1]
    zero = ir.Constant(I64, 0)
    if not arrays.blas():
        lu, piv, info, _, _ = _factor(cx, env, a)
        cx.check(cx.b.icmp_signed("==", info, zero), status.SINGULAR_MATRIX)
        out = copy_array(cx, x, x_type)
        cx.b.call(lu_solve_function(cx.module, elem),
                  [lu, extent(cx, n), piv, out, extent(cx, columns)])
        return out
    lapack = Lapack(cx)
    key = (id(env), id(a))
    if key not in cx.factors:
        lu, piv, info, _, _ = _factor(cx, env, a)
        cx.check(cx.b.icmp_signed("==", info, zero), status.SINGULAR_MATRIX)
        cx.factors[key] = (env, lu, piv)  # env kept alive: its id is not reused
    _, lu, piv = cx.factors[key]
    rhs = lapack.column_major(x, n, columns, elem, F64)
    lapack.call("getrs", F64, [n, columns, lu, n, piv, rhs, n], "T" if transposed else "N")
    return lapack.column_major(rhs, columns, n, F64, elem)


@lowers("solve")
def lower_solve(cx, eqn, env):
    a, rhs = eqn.inputs
    source = transposed_source(env, a)
    if source is not None and arrays.blas():  # A.T: A's factors, solved transposed
        return [_solve(cx, env, source, env[id(rhs)], rhs.type, True)]
    operand_buffer(cx, env, a)  # without LAPACK, A.T is copied
    return [_solve(cx, env, a, env[id(rhs)], rhs.type)]


@lowers("inv")
def lower_inv(cx, eqn, env):
    a = eqn.inputs[0]
    n = a.type.shape[0]
    elem = element_type(a.type)
    x = alloc(cx, (n, n), elem)
    b = cx.b
    loop_nest(cx, (n, n), lambda co: store(cx, x, a.type, offset(cx, (n, n), co), b.select(
        b.icmp_signed("==", co[0], co[1]), ir.Constant(elem, 1.0), ir.Constant(elem, 0.0))))
    return [_solve(cx, env, a, x, a.type)]


def _slogdet(cx, env, a):
    """numpy's (sign, logabsdet) of matrix operand `a`."""
    elem = element_type(a.type)
    n = a.type.shape[0]
    lu, piv, info, first, work = _factor(cx, env, a)
    b = cx.b
    result, elem = elem, work
    one = ir.Constant(elem, 1.0)
    sign = cx.entry.alloca(elem)
    logdet = cx.entry.alloca(elem)
    b.store(one, sign)
    b.store(ir.Constant(elem, 0.0), logdet)
    fabs = function(cx.module, f"llvm.fabs.{suffix(elem)}", elem, [elem])
    log = function(cx.module, f"llvm.log.{suffix(elem)}", elem, [elem])

    def diagonal(co):
        (i,) = co
        u = b.load(b.gep(lu, [b.add(b.mul(i, extent(cx, n)), i)], source_etype=elem),
                   typ=elem)
        pivot = b.load(b.gep(piv, [i], source_etype=I64), typ=I64)
        swapped = b.icmp_signed("!=", pivot, b.add(i, extent(cx, first)))
        flip = b.xor(swapped, b.fcmp_ordered("<", u, ir.Constant(elem, 0.0)))
        current = b.load(sign, typ=elem)
        b.store(b.select(flip, b.fneg(current), current), sign)
        b.store(b.fadd(b.load(logdet, typ=elem), b.call(log, [b.call(fabs, [u])])), logdet)

    loop_nest(cx, (n,), diagonal)
    regular = b.icmp_signed("==", info, ir.Constant(I64, 0))
    return (b.select(regular, b.load(sign, typ=elem), ir.Constant(elem, 0.0)),
            b.select(regular, b.load(logdet, typ=elem), ir.Constant(elem, float("-inf"))),
            result)


def _narrowed(cx, value, elem):
    return value if value.type == elem else cx.b.fptrunc(value, elem)


@lowers("slogdet")
def lower_slogdet(cx, eqn, env):
    _, logdet, elem = _slogdet(cx, env, eqn.inputs[0])
    return [_narrowed(cx, logdet, elem)]


@lowers("det_sign")
def lower_det_sign(cx, eqn, env):
    sign, _, elem = _slogdet(cx, env, eqn.inputs[0])
    return [_narrowed(cx, sign, elem)]


@lowers("det")
def lower_det(cx, eqn, env):
    sign, logdet, elem = _slogdet(cx, env, eqn.inputs[0])
    exp = function(cx.module, f"llvm.exp.{suffix(sign.type)}", sign.type, [sign.type])
    return [_narrowed(cx, cx.b.fmul(sign, cx.b.call(exp, [logdet])), elem)]


def _cholesky(cx, env, a, failure, work=None, lower=True):
    """The lower (`lower`) or upper factor of matrix operand `a` (read from that
    triangle), computed in element type `work` (default: `a`'s); `failure(info)` is the
    status to leave with when the `info`-th leading minor is not positive definite."""
    n = a.type.shape[0]
    elem = element_type(a.type)
    b = cx.b
    if arrays.blas():
        lapack = Lapack(cx)
        work = work or elem
        factor = lapack.column_major(env[id(a)], n, n, elem, work)
        info = lapack.call("potrf", work, [n, factor, n], chars="L" if lower else "U")
    else:  # the upper factor is the lower one of the transpose, transposed
        work = elem
        operand = env[id(a)] if lower else Lapack(cx).column_major(env[id(a)], n, n, elem)
        factor = alloc(cx, (n, n), elem)
        info = b.call(cholesky_function(cx.module, elem),
                      [operand, extent(cx, n), factor])
        if lower:
            factor = Lapack(cx).column_major(factor, n, n, elem)
    cx.check(b.icmp_signed("==", info, ir.Constant(I64, 0)), failure(info))
    out = alloc(cx, (n, n), elem)

    def move(co):  # the factor back to row-major, zeros in the other triangle (as numpy)
        i, j = co
        src = b.gep(factor, [b.add(b.mul(j, extent(cx, n)), i)], source_etype=work)
        value = b.select(b.icmp_signed("<=" if lower else ">=", j, i),
                         _narrowed(cx, b.load(src, typ=work), elem),
                         ir.Constant(elem, 0.0))
        store(cx, out, a.type, offset(cx, (n, n), co), value)

    loop_nest(cx, (n, n), move)
    return out


@lowers("cholesky")
def lower_cholesky(cx, eqn, env):
    return [_cholesky(cx, env, eqn.inputs[0], lambda info: status.NOT_POSITIVE_DEFINITE,
                      F64)]


@lowers("scipy_cholesky")
def lower_scipy_cholesky(cx, eqn, env):
    return [_cholesky(cx, env, eqn.inputs[0],
                      lambda info: _with_status(cx, status.NOT_POSITIVE_MINOR, info),
                      lower=eqn.params["lower"])]


@lowers("solve_triangular")
def lower_solve_triangular(cx, eqn, env):
    a, rhs = eqn.inputs
    n, elem = a.type.shape[0], element_type(a.type)
    columns = 1 if len(rhs.type.shape) == 1 else rhs.type.shape[1]
    lower, trans = eqn.params["lower"], eqn.params["trans"]
    unit = eqn.params["unit_diagonal"]
    b = cx.b
    if arrays.blas():  # scipy's calls: trtrs of the transpose of a C-ordered matrix
        lapack = Lapack(cx)
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
            matrix = alloc(cx, (n, n), elem)
            loop_nest(cx, (n, n), lambda co: store(
                cx, matrix, a.type, offset(cx, (n, n), co),
                load(cx, env[id(a)], a.type, offset(cx, (n, n), co[::-1]))))
        x = copy_array(cx, env[id(rhs)], rhs.type)
        info = b.call(trsolve_function(cx.module, elem),
                      [matrix, extent(cx, n), x, extent(cx, columns),
                       ir.Constant(I64, int(lower != bool(trans))),
                       ir.Constant(I64, int(unit))])
    cx.check(b.icmp_signed("==", info, ir.Constant(I64, 0)),
             _with_status(cx, status.SINGULAR_DIAGONAL, info, -1))
    if arrays.blas() and columns > 1:
        return [Lapack(cx).column_major(x, columns, n, elem)]
    return [x]


@lowers("check_finite")
def lower_check_finite(cx, eqn, env):
    x = eqn.inputs[0]
    elem = element_type(x.type)
    b = cx.b
    finite = cx.entry.alloca(I1)
    b.store(ir.Constant(I1, 1), finite)
    fabs = function(cx.module, f"llvm.fabs.{suffix(elem)}", elem, [elem])
    inf = ir.Constant(elem, float("inf"))
    loop_nest(cx, x.type.shape, lambda co: b.store(b.and_(
        b.load(finite, typ=I1),
        b.fcmp_ordered("<", b.call(fabs, [element(cx, env, x, co)]), inf)), finite))
    cx.check(b.load(finite, typ=I1), status.NOT_FINITE)
    return [env[id(x)]]


@lowers("triangle")
def lower_triangle(cx, eqn, env):
    x = eqn.inputs[0]
    lower, diagonal = eqn.params["lower"], eqn.params["diagonal"]
    return [_masked(cx, env, x, "<" if lower else ">", diagonal)]


@lowers("tril_halfdiag")
def lower_tril_halfdiag(cx, eqn, env):
    return [_masked(cx, env, eqn.inputs[0], "<", 0.5)]


def _masked(cx, env, x, keep, diagonal):
    """x where j `keep` i (strictly), `diagonal` times x on the diagonal, 0 elsewhere."""
    shape = x.type.shape
    elem = element_type(x.type)
    out = alloc(cx, shape, elem)
    b = cx.b

    def body(co):
        v = element(cx, env, x, co)
        i, j = co
        scaled = v if diagonal == 1.0 else ir.Constant(elem, 0.0) if diagonal == 0.0 \
            else b.fmul(v, ir.Constant(elem, diagonal))
        value = b.select(b.icmp_signed(keep, j, i), v, b.select(
            b.icmp_signed("==", i, j), scaled, ir.Constant(elem, 0.0)))
        store(cx, out, x.type, offset(cx, shape, co), value)

    loop_nest(cx, shape, body)
    return out
