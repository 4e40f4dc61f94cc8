"""`np.linalg` decompositions in compiled code: `eigh`, `eigvalsh`, `svd`, `qr`, `lstsq`,
`matrix_rank`, `pinv`, `cond`, and `norm` with `ord` (`norm_with_ord`, called by
`array_functions._norm`).

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
  other number) and matrix ords ('fro', 'nuc', 1, -1, 2, -2, inf, -inf; 2, -2 and 'nuc' on
  2-D matrices only), written once in `adlite.derivatives.decompositions.norm`;
- `matrix_rank(A, tol=None, hermitian=False, rtol=None)`, `pinv(a, rcond=None,
  hermitian=False, rtol=...)` and `cond(x, p=None)` (p None, 2 or -2) follow numpy's code
  through the singular values (hermitian=True refused); `matrix_rank` returns an int and has
  no derivative, `pinv` and `cond` differentiate through `svd` (distinct singular values).
Refusals and numpy's errors are reported at the call's line.
"""

from __future__ import annotations

import numpy as np

from adlite.derivatives import decompositions
from adlite.derivatives.decompositions import layout, unpack

from ..ir.builder import const
from ..ir.core import F32, F64, I64
from ..primitives.vocabulary import BuilderOps
from .functions import bind, register_with_keywords


def _bind(conv, fn, args, kwargs, node) -> dict:
    """The arguments of numpy's `fn` by parameter name, numpy's defaults filled in (numbers
    as constants), by `fn`'s own signature."""
    return bind(conv, fn, f"np.linalg.{fn.__name__}", args, kwargs, node)


def _matrix(conv, value, node, ndim=2):
    """(float64 operand, dtype of the results); at least `ndim` dimensions."""
    x = conv.as_float(value, node)
    if len(x.type.shape or ()) < ndim:
        raise conv.source.error(node, f"{len(x.type.shape or ())}-dimensional array given. "
                                      f"Array must be at least {('one', 'two')[ndim - 1]}"
                                      "-dimensional")
    out = F32 if x.type.scalar == F32 else F64
    return conv.to_type(x, F64), out


def _decompose(conv, name, operands, node, **params):
    packed = conv.b.op(name, *operands, **params)
    parts = layout(name, [a.type.shape for a in operands], params)
    return unpack(BuilderOps(conv.b), packed, parts)


def _guard(conv, x, node, message, hint):
    error = conv.source.error(node, message, hint)
    refusal = (error.message, error.filename, error.line, error.col, error.source_line,
               error.hint)
    return conv.b.op("no_derivative", x, refusal=refusal)


def _static_choice(conv, value, name, choices, node):
    value = conv.static(value, node)
    if value not in choices:
        raise conv.source.error(node, f"{name}={value!r} is not supported here",
                                f"use one of {', '.join(map(repr, choices))}")
    return value


def _symmetric(conv, a, uplo):
    """`a` rebuilt from its lower (uplo 'L') or upper triangle."""
    b = conv.b
    n = a.type.shape[0]
    rows = b.reshape(b.op("arange", n=n, dtype=F64), shape=(n, 1))
    columns = b.reshape(b.op("arange", n=n, dtype=F64), shape=(1, n))
    keep = b.ge(rows, columns) if uplo == "L" else b.le(rows, columns)
    return b.select(b.broadcast_to(keep, shape=(n, n)), a, b.transpose(a, axes=(1, 0)))


def _square(conv, a, node):
    shape = a.type.shape
    if len(shape) == 2 and shape[0] != shape[1]:
        raise conv.source.error(node, "Last 2 dimensions of the array must be square")


def _eigh(name):
    def lower(conv, args, kwargs, node):
        p = _bind(conv, getattr(np.linalg, name), args, kwargs, node)
        a, out = _matrix(conv, p["a"], node)
        uplo = _static_choice(conv, p["UPLO"], "UPLO", ("L", "U"), node)
        _square(conv, a, node)
        if len(a.type.shape) == 2:
            a = _symmetric(conv, a, uplo)
        parts = _decompose(conv, name, [a], node, uplo=uplo)
        parts = [conv.to_type(x, out) for x in parts]
        return tuple(parts) if name == "eigh" else parts[0]

    return lower


def _svd(conv, args, kwargs, node):
    p = _bind(conv, np.linalg.svd, args, kwargs, node)
    a, out = _matrix(conv, p["a"], node)
    full, compute_uv, hermitian = (bool(conv.static(p[k], node)) for k in
                                   ("full_matrices", "compute_uv", "hermitian"))
    if hermitian:
        raise conv.source.error(node, "svd(hermitian=True) is not supported in compiled code",
                                "leave hermitian out (the general SVD gives the same values)")
    if not compute_uv:
        return conv.to_type(_decompose(conv, "svdvals", [a], node)[0], out)
    u, s, vt = _decompose(conv, "svd", [a], node, full=full)
    m, n = a.type.shape
    hint = "pass full_matrices=False: its singular vectors have unique derivatives"
    if full and m > n:
        u = _guard(conv, u, node, "svd(full_matrices=True) of a matrix with more rows than "
                                  "columns: U's derivative is not unique", hint)
    if full and n > m:
        vt = _guard(conv, vt, node, "svd(full_matrices=True) of a matrix with more columns "
                                    "than rows: Vt's derivative is not unique", hint)
    return tuple(conv.to_type(x, out) for x in (u, s, vt))


def _qr(conv, args, kwargs, node):
    p = _bind(conv, np.linalg.qr, args, kwargs, node)
    a, out = _matrix(conv, p["a"], node)
    mode = conv.static(p["mode"], node)
    if mode == "raw":
        raise conv.source.error(node, "qr(mode='raw') is not supported in compiled code",
                                "use mode='reduced', 'complete' or 'r'")
    mode = _static_choice(conv, mode, "mode", ("reduced", "complete", "r"), node)
    q, r = _decompose(conv, "qr", [a], node, complete=mode == "complete")
    m, n = a.type.shape
    if m < n:
        message = "the derivative of qr is supported for matrices with rows >= columns only"
        hint = "differentiate the QR decomposition of a.T, or use another factorization"
        q, r = (_guard(conv, x, node, message, hint) for x in (q, r))
    elif mode == "complete" and m > n:
        q = _guard(conv, q, node, "qr(mode='complete') of a matrix with more rows than "
                                  "columns: Q's derivative is not unique",
                   "use mode='reduced': its Q has a unique derivative")
    if mode == "r":
        return conv.to_type(r, out)
    return conv.to_type(q, out), conv.to_type(r, out)


def _lstsq(conv, args, kwargs, node):
    p = _bind(conv, np.linalg.lstsq, args, kwargs, node)
    (a, out_a), (rhs, out_b) = _matrix(conv, p["a"], node), _matrix(conv, p["b"], node, 1)
    out = F64 if F64 in (out_a, out_b) else F32
    if len(a.type.shape) != 2:
        raise conv.source.error(node, f"{len(a.type.shape)}-dimensional array given. Array "
                                      "must be two-dimensional")
    m, n = a.type.shape
    rcond = conv.static(p["rcond"], node)
    rcond = float(np.finfo(np.float64).eps * max(m, n) if rcond is None else rcond)
    x, residuals, s, rank = _decompose(conv, "lstsq", [a, rhs], node, rcond=rcond)
    b = conv.b
    if len(rhs.type.shape) == 1:
        x = b.reshape(x, shape=(n,))
    if m <= n:
        residuals = b.full(const(0.0, F64), shape=(0,), dtype=F64)
    else:
        residuals = b.op("full_rank_residuals", residuals, rank, n=n)
    if m < n:
        x = _guard(conv, x, node, "the derivative of lstsq is supported for matrices with "
                                  "rows >= columns only", "use np.linalg.pinv(a) @ b")
    rank = conv.to_type(BuilderOps(b).reshape(rank, ()), I64)
    return conv.to_type(x, out), conv.to_type(residuals, out), rank, conv.to_type(s, out)


def _svdvals(conv, a, node):
    return _decompose(conv, "svdvals", [a], node)[0]


def _has_nan(o, x):
    return o.gt(o.reduce_max(o.select(o.ne(x, x), 1.0, 0.0), None, False), 0.0)


def _matrix_rank(conv, args, kwargs, node):
    p = _bind(conv, np.linalg.matrix_rank, args, kwargs, node)
    a, out = _matrix(conv, p["A"], node, 1)
    tol, hermitian, rtol = (conv.static(p[k], node) for k in ("tol", "hermitian", "rtol"))
    if hermitian:
        raise conv.source.error(node, "matrix_rank(hermitian=True) is not supported in "
                                      "compiled code", "leave hermitian out")
    if tol is not None and rtol is not None:
        raise conv.source.error(node, "`tol` and `rtol` can't be both set.")
    o = BuilderOps(conv.b)
    if len(a.type.shape) < 2:
        return conv.to_type(o.reduce_max(o.select(o.ne(a, 0.0), 1.0, 0.0), None, False), I64)
    s = conv.to_type(_svdvals(conv, a, node), out)
    if tol is None:
        eps = float(np.finfo(np.float32 if out == F32 else np.float64).eps)
        tol = o.mul(o.reduce_max(s, None, False), max(a.type.shape) * eps if rtol is None
                    else float(rtol))
    above = o.select(o.gt(s, tol), 1.0, 0.0)
    return conv.to_type(o.reduce_sum(above, None, False), I64)


def _pinv(conv, args, kwargs, node):
    p = _bind(conv, np.linalg.pinv, args, kwargs, node)
    a, out = _matrix(conv, p["a"], node)
    hermitian = conv.static(p["hermitian"], node)
    if hermitian:
        raise conv.source.error(node, "pinv(hermitian=True) is not supported in compiled "
                                      "code", "leave hermitian out")
    rcond = conv.static(p["rcond"], node)
    rtol = p["rtol"] if p["rtol"] is np._NoValue else conv.static(p["rtol"], node)
    if rcond is not None and rtol is not np._NoValue:
        raise conv.source.error(node, "`rtol` and `rcond` can't be both set.")
    if rcond is None:
        eps = float(np.finfo(np.float32 if out == F32 else np.float64).eps)
        rcond = 1e-15 if rtol is np._NoValue else max(a.type.shape) * eps if rtol is None \
            else rtol
    u, s, vt = (conv.to_type(x, out) for x in _decompose(conv, "svd", [a], node))
    o = BuilderOps(conv.b)
    cutoff = o.mul(conv.to_type(o.reduce_max(s, None, False), F64), float(rcond))
    large = o.gt(conv.to_type(s, F64), cutoff)
    return decompositions.pinv(o, u, s, vt, large, min(a.type.shape))


def _cond(conv, args, kwargs, node):
    p = _bind(conv, np.linalg.cond, args, kwargs, node)
    x, out = _matrix(conv, p["x"], node)
    order = conv.static(p["p"], node)
    if order not in (None, 2, -2):
        raise conv.source.error(node, f"cond(p={order!r}) is not supported in compiled code",
                                "use p=None, 2 or -2 (through the singular values)")
    s = conv.to_type(_svdvals(conv, x, node), out)
    o = BuilderOps(conv.b)
    return decompositions.cond(o, s, min(x.type.shape), order, _has_nan(o, x))


# ---- norm -----------------------------------------------------------------------------------

def norm_with_ord(conv, x, order, axis, keepdims, node):
    """np.linalg.norm(x, ord, axis, keepdims) for an `ord` given (compile-time values)."""
    f32 = x.type.scalar == F32

    def singular_values(matrix):
        if len(matrix.type.shape) != 2:
            raise ValueError(f"norm(ord={order!r}) of batched matrices is not supported")
        return conv.to_type(_svdvals(conv, conv.to_type(matrix, F64), node), x.type.scalar)

    try:
        return decompositions.norm(BuilderOps(conv.b), x, x.type.shape or (), order, axis,
                                   bool(keepdims), f32, singular_values)
    except ValueError as e:
        raise conv.source.error(node, str(e)) from None


register_with_keywords([np.linalg.eigh], _eigh("eigh"))
register_with_keywords([np.linalg.eigvalsh], _eigh("eigvalsh"))
register_with_keywords([np.linalg.svd], _svd)
register_with_keywords([np.linalg.qr], _qr)
register_with_keywords([np.linalg.lstsq], _lstsq)
register_with_keywords([np.linalg.matrix_rank], _matrix_rank)
register_with_keywords([np.linalg.pinv], _pinv)
register_with_keywords([np.linalg.cond], _cond)
