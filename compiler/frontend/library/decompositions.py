"""`np.linalg` decompositions in compiled code: `eigh`, `eigvalsh`, `svd`, `qr`, `lstsq`,
`matrix_rank`, `pinv`, `cond`, and `norm` with `ord` (`norm_with_ord`, called by
`linalg._norm`).

Contract: the operand (int arrays become float64) is computed in float64 as numpy does, the
results rounded back to float32 for a float32 operand; each call emits one packed primitive of
`primitives/decompositions.py` and splits it into numpy's tuple (a Python tuple: unpack it or
index it; the named fields of numpy's result objects are not supported). Options are
compile-time values:
- `eigh(a, UPLO='L')` / `eigvalsh`: the matrix is rebuilt symmetric from the triangle numpy
  reads (`where(i >= j, a, a.T)` for 'L'), so the other triangle gets no derivative, as its
  values have no influence;
- `svd(a, full_matrices=True, compute_uv=True, hermitian=False)` (hermitian=True refused);
  with `full_matrices` on a non-square matrix, differentiating U (m > n) or Vt (m < n) is
  refused at the call's line (the extra singular vectors are not unique);
- `qr(a, mode='reduced')`, also 'complete' and 'r' ('raw' refused); derivatives need m >= n
  (refused otherwise) and, with 'complete' and m > n, are refused for Q;
- `lstsq(a, b, rcond=None)`: `(x, residuals, rank, s)`; `rank` is an int, `residuals` is
  numpy's empty array when m <= n; when m > n it has shape (r,) ((1,) for a vector b), and
  reading it raises `numpy.linalg.LinAlgError` at run time where numpy would return an empty
  array (rank < n). Derivatives of x and residuals need m >= n (refused otherwise) and
  assume full column rank;
- `norm(x, ord, axis, keepdims)`: numpy's formulas for vector ords (inf, -inf, 0, 1, 2, any
  other number) and matrix ords ('fro', 'nuc', 1, -1, 2, -2, inf, -inf; 2, -2 and 'nuc' of
  a stack through the singular values of each matrix), written once in
  `adlite.derivatives.decompositions.norm`;
- `matrix_rank(A, tol=None, hermitian=False, rtol=None)`, `pinv(a, rcond=None,
  hermitian=False, rtol=...)` and `cond(x, p=None)` (p None, 2 or -2) follow numpy's code
  through the singular values (hermitian=True refused); `matrix_rank` returns an int and has
  no derivative, `pinv` and `cond` differentiate through `svd` (distinct singular values).
Refusals and numpy's errors are reported at the call's line.
"""

from __future__ import annotations

import numpy as np

from adlite.derivatives import decompositions
from adlite.derivatives.decompositions import layout, real_parts, unpack

from ...ir.builder import const
from ...ir.core import C64, C128, F32, F64, I64, Type
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from .elementwise import raise_at
from .reductions import truth_reduce
from .registry import bind, param, register
from .stacks import stacked


def _bind(cx: CallContext, fn, args, kwargs, node) -> dict:
    """The arguments of numpy's `fn` by parameter name, numpy's defaults filled in (numbers
    as constants), by `fn`'s own signature."""
    return bind(cx, fn, f"np.linalg.{fn.__name__}", args, kwargs, node)


def _matrix(cx: CallContext, value, node, ndim=2, takes_complex=False):
    """(float64 operand, dtype of the results); at least `ndim` dimensions. Where
    `takes_complex`, a complex operand is complex128 (the results complex64 for complex64)."""
    x = cx.as_float(value, node)
    if len(x.type.shape or ()) < ndim:
        raise cx.source.error(node, f"{len(x.type.shape or ())}-dimensional array given. "
                              f"Array must be at least {('one', 'two')[ndim - 1]}"
                              "-dimensional")
    if takes_complex and x.type.is_complex:
        return cx.to_type(x, C128), C64 if x.type.scalar == C64 else C128
    out = F32 if x.type.scalar == F32 else F64
    return cx.to_type(x, F64), out


def _results(cx: CallContext, name, parts, out):
    """The parts of decomposition `name` in the results' dtype `out`; its eigenvalues or
    singular values (`real_parts`) real, a complex decomposition's by their real parts."""
    real_out = out.scalar.dtype.real_dtype if out.is_complex else out
    return [cx.to_type(cx.b.op("real", x) if x.type.is_complex else x, Type(real_out.name))
            if i in real_parts(name) else cx.to_type(x, out) for i, x in enumerate(parts)]


def _decompose(cx: CallContext, name, operands, node, **params):
    packed = cx.b.op(name, *operands, **params)
    parts = layout(name, [a.type.shape for a in operands], params)
    return unpack(BuilderOps(cx.b), packed, parts)


def _guard(cx: CallContext, x, node, message, hint):
    error = cx.source.error(node, message, hint)
    refusal = (error.message, error.filename, error.line, error.col, error.source_line,
               error.hint)
    return cx.b.op("no_derivative", x, refusal=refusal)


def _static_choice(cx: CallContext, value, name, choices, node):
    value = cx.static(value, node, f"its `{name}`", "option")
    if value not in choices:
        raise cx.source.error(node, f"{name}={value!r} is not supported here",
                              f"use one of {', '.join(map(repr, choices))}")
    return value


def _symmetric(cx: CallContext, a, uplo):
    """`a` rebuilt from its lower (uplo 'L') or upper triangle; a complex `a` Hermitian, its
    diagonal's imaginary part dropped (LAPACK does not read it)."""
    b = cx.b
    n = a.type.shape[0]
    rows = b.reshape(b.op("arange", n=n, dtype=F64), shape=(n, 1))
    columns = b.reshape(b.op("arange", n=n, dtype=F64), shape=(1, n))
    keep = b.ge(rows, columns) if uplo == "L" else b.le(rows, columns)
    mirrored = b.transpose(a, axes=(1, 0))
    if a.type.is_complex:
        mirrored = b.op("conj", mirrored)
    h = b.select(b.broadcast_to(keep, shape=(n, n)), a, mirrored)
    if not a.type.is_complex:
        return h
    diagonal = b.broadcast_to(b.eq(rows, columns), shape=(n, n))
    return b.select(diagonal, cx.to_type(b.op("real", h), a.type.scalar), h)


def _square(cx: CallContext, a, node):
    shape = a.type.shape
    if len(shape) == 2 and shape[0] != shape[1]:
        raise cx.source.error(node, "Last 2 dimensions of the array must be square")


def _eigh(name):
    def lower(cx: CallContext, args, kwargs, node):
        p = _bind(cx, getattr(np.linalg, name), args, kwargs, node)
        a, out = _matrix(cx, p["a"], node, takes_complex=True)
        uplo = _static_choice(cx, p["UPLO"], "UPLO", ("L", "U"), node)
        _square(cx, a, node)
        if len(a.type.shape) == 2:
            a = _symmetric(cx, a, uplo)
        parts = _results(cx, name, _decompose(cx, name, [a], node, uplo=uplo), out)
        return tuple(parts) if name == "eigh" else parts[0]

    return lower


def _general_eigen(name):
    def of_matrices(cx: CallContext, args, kwargs, node):
        a, out = _matrix(cx, args[0], node, takes_complex=True)
        _square(cx, a, node)
        complex_out = Type(out.scalar.dtype.complex_dtype.name)
        return tuple(cx.to_type(x, complex_out) for x in _decompose(cx, name, [a], node))

    stacked_rule = stacked(of_matrices)

    def lower(cx: CallContext, args, kwargs, node):
        """np.linalg.eig(a) / eigvals(a): complex eigenvalues (and unit eigenvectors) by
        LAPACK's geev, as numpy. numpy returns real arrays for a real matrix whose
        eigenvalues are all real, a type known only when the code runs: then compiled code
        raises TypeError there."""
        a = _bind(cx, getattr(np.linalg, name), args, kwargs, node)["a"]
        parts = stacked_rule(cx, [a], {}, node)
        if not cx.as_float(a, node).type.is_complex:
            some_complex = truth_reduce(cx, "any", cx.b.op("imag", parts[0]), None, False,
                                        node)
            raise_at(cx, node, cx.b.not_(some_complex), "TypeError",
                     f"np.linalg.{name} of a real matrix whose eigenvalues are all real: "
                     "numpy returns real arrays here, compiled code complex ones (the type "
                     "depends on the values); pass a complex matrix (a + 0j), whose results "
                     "are always complex, or use np.linalg.eigh for a symmetric matrix")
        return parts if name == "eig" else parts[0]

    return lower


def _svd(cx: CallContext, args, kwargs, node):
    p = _bind(cx, np.linalg.svd, args, kwargs, node)
    a, out = _matrix(cx, p["a"], node, takes_complex=True)
    full, compute_uv, hermitian = (bool(param(cx, p, k, node)) for k in
                                   ("full_matrices", "compute_uv", "hermitian"))
    if hermitian:
        raise cx.source.error(node, "svd(hermitian=True) is not supported in compiled code",
                              "leave hermitian out (the general SVD gives the same values)")
    if not compute_uv:
        return _results(cx, "svdvals", _decompose(cx, "svdvals", [a], node), out)[0]
    u, s, vt = _decompose(cx, "svd", [a], node, full=full)
    m, n = a.type.shape
    hint = "pass full_matrices=False: its singular vectors have unique derivatives"
    if full and m > n:
        u = _guard(cx, u, node, "svd(full_matrices=True) of a matrix with more rows than "
                                  "columns: U's derivative is not unique", hint)
    if full and n > m:
        vt = _guard(cx, vt, node, "svd(full_matrices=True) of a matrix with more columns "
                                    "than rows: Vt's derivative is not unique", hint)
    return tuple(_results(cx, "svd", (u, s, vt), out))


def _qr(cx: CallContext, args, kwargs, node):
    p = _bind(cx, np.linalg.qr, args, kwargs, node)
    a, out = _matrix(cx, p["a"], node)
    mode = param(cx, p, "mode", node)
    if mode == "raw":
        raise cx.source.error(node, "qr(mode='raw') is not supported in compiled code",
                              "use mode='reduced', 'complete' or 'r'")
    mode = _static_choice(cx, mode, "mode", ("reduced", "complete", "r"), node)
    q, r = _decompose(cx, "qr", [a], node, complete=mode == "complete")
    m, n = a.type.shape
    if m < n:
        message = "the derivative of qr is supported for matrices with rows >= columns only"
        hint = "differentiate the QR decomposition of a.T, or use another factorization"
        q, r = (_guard(cx, x, node, message, hint) for x in (q, r))
    elif mode == "complete" and m > n:
        q = _guard(cx, q, node, "qr(mode='complete') of a matrix with more rows than "
                                  "columns: Q's derivative is not unique",
                   "use mode='reduced': its Q has a unique derivative")
    if mode == "r":
        return cx.to_type(r, out)
    return cx.to_type(q, out), cx.to_type(r, out)


def _lstsq(cx: CallContext, args, kwargs, node):
    p = _bind(cx, np.linalg.lstsq, args, kwargs, node)
    (a, out_a), (rhs, out_b) = _matrix(cx, p["a"], node), _matrix(cx, p["b"], node, 1)
    out = F64 if F64 in (out_a, out_b) else F32
    if len(a.type.shape) != 2:
        raise cx.source.error(node, f"{len(a.type.shape)}-dimensional array given. Array "
                              "must be two-dimensional")
    m, n = a.type.shape
    rcond = param(cx, p, "rcond", node)
    rcond = float(np.finfo(np.float64).eps * max(m, n) if rcond is None else rcond)
    x, residuals, s, rank = _decompose(cx, "lstsq", [a, rhs], node, rcond=rcond)
    b = cx.b
    if len(rhs.type.shape) == 1:
        x = b.reshape(x, shape=(n,))
    if m <= n:
        residuals = b.full(const(0.0, F64), shape=(0,), dtype=F64)
    else:
        residuals = b.op("full_rank_residuals", residuals, rank, n=n)
    if m < n:
        x = _guard(cx, x, node, "the derivative of lstsq is supported for matrices with "
                                  "rows >= columns only", "use np.linalg.pinv(a) @ b")
    rank = cx.to_type(BuilderOps(b).reshape(rank, ()), I64)
    return cx.to_type(x, out), cx.to_type(residuals, out), rank, cx.to_type(s, out)


def _svdvals(cx: CallContext, a, node):
    return _decompose(cx, "svdvals", [a], node)[0]


# the singular values of a matrix or of each matrix of a stack (the matrix axes last)
_stacked_svdvals = stacked(lambda cx, args, kwargs, node: _svdvals(cx, args[0], node))


def _has_nan(o, x):
    return o.gt(o.reduce_max(o.select(o.ne(x, x), 1.0, 0.0), None, False), 0.0)


def _matrix_rank(cx: CallContext, args, kwargs, node):
    p = _bind(cx, np.linalg.matrix_rank, args, kwargs, node)
    a, out = _matrix(cx, p["A"], node, 1)
    tol, hermitian, rtol = (param(cx, p, k, node) for k in ("tol", "hermitian", "rtol"))
    if hermitian:
        raise cx.source.error(node, "matrix_rank(hermitian=True) is not supported in "
                              "compiled code", "leave hermitian out")
    if tol is not None and rtol is not None:
        raise cx.source.error(node, "`tol` and `rtol` can't be both set.")
    o = BuilderOps(cx.b)
    if len(a.type.shape) < 2:
        return cx.to_type(o.reduce_max(o.select(o.ne(a, 0.0), 1.0, 0.0), None, False), I64)
    s = cx.to_type(_svdvals(cx, a, node), out)
    if tol is None:
        eps = float(np.finfo(np.float32 if out == F32 else np.float64).eps)
        tol = o.mul(o.reduce_max(s, None, False), max(a.type.shape) * eps if rtol is None
                    else float(rtol))
    above = o.select(o.gt(s, tol), 1.0, 0.0)
    return cx.to_type(o.reduce_sum(above, None, False), I64)


def _pinv(cx: CallContext, args, kwargs, node):
    p = _bind(cx, np.linalg.pinv, args, kwargs, node)
    a, out = _matrix(cx, p["a"], node)
    hermitian = param(cx, p, "hermitian", node)
    if hermitian:
        raise cx.source.error(node, "pinv(hermitian=True) is not supported in compiled "
                              "code", "leave hermitian out")
    rcond = param(cx, p, "rcond", node)
    rtol = p["rtol"] if p["rtol"] is np._NoValue else param(cx, p, "rtol", node)
    if rcond is not None and rtol is not np._NoValue:
        raise cx.source.error(node, "`rtol` and `rcond` can't be both set.")
    if rcond is None:
        eps = float(np.finfo(np.float32 if out == F32 else np.float64).eps)
        rcond = 1e-15 if rtol is np._NoValue else max(a.type.shape) * eps if rtol is None \
            else rtol
    u, s, vt = (cx.to_type(x, out) for x in _decompose(cx, "svd", [a], node))
    o = BuilderOps(cx.b)
    cutoff = o.mul(cx.to_type(o.reduce_max(s, None, False), F64), float(rcond))
    large = o.gt(cx.to_type(s, F64), cutoff)
    return decompositions.pinv(o, u, s, vt, large, min(a.type.shape))


def _cond(cx: CallContext, args, kwargs, node):
    p = _bind(cx, np.linalg.cond, args, kwargs, node)
    x, out = _matrix(cx, p["x"], node)
    order = param(cx, p, "p", node)
    if order not in (None, 2, -2):
        raise cx.source.error(node, f"cond(p={order!r}) is not supported in compiled code",
                              "use p=None, 2 or -2 (through the singular values)")
    s = cx.to_type(_svdvals(cx, x, node), out)
    o = BuilderOps(cx.b)
    return decompositions.cond(o, s, min(x.type.shape), order, _has_nan(o, x))


# ---- norm -----------------------------------------------------------------------------------

def norm_with_ord(cx: CallContext, x, order, axis, keepdims, node):
    """np.linalg.norm(x, ord, axis, keepdims) for an `ord` given (compile-time values)."""
    f32 = x.type.scalar == F32

    def singular_values(matrices):
        s = _stacked_svdvals(cx, [cx.to_type(matrices, F64)], {}, node)
        return cx.to_type(s, x.type.scalar)

    try:
        return decompositions.norm(BuilderOps(cx.b), x, x.type.shape or (), order, axis,
                                   bool(keepdims), f32, singular_values)
    except ValueError as e:
        raise cx.source.error(node, str(e)) from None


register([np.linalg.eigh], stacked(_eigh("eigh")))
register([np.linalg.eigvalsh], stacked(_eigh("eigvalsh")))
register([np.linalg.svd], stacked(_svd))
register([np.linalg.eig], _general_eigen("eig"))
register([np.linalg.eigvals], _general_eigen("eigvals"))
register([np.linalg.qr], stacked(_qr))
register([np.linalg.lstsq], _lstsq)
register([np.linalg.matrix_rank], stacked(_matrix_rank))
register([np.linalg.pinv], stacked(_pinv))
register([np.linalg.cond], stacked(_cond))
