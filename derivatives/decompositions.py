"""The matrix decompositions of `np.linalg` as packed primitives, and their derivatives, written
once for the compiler and the eager tape.

Contract. A decomposition returning several arrays is one primitive whose result is the 1-D
concatenation of its parts, each raveled in row-major order (so the IR, the tape and both
backends keep one output per primitive); `layout(name, shapes, params)` gives the parts'
shapes from the operands' shapes, and callers split with `unpack`. All operate on float64
(numpy's linalg computes float32 input in float64 too, then rounds):
- `eigh(a, uplo)`: `[w (n,), V (n, n)]` of a symmetric matrix (the caller passes a symmetric
  `a`, built from the triangle numpy reads, so that derivatives see the symmetric matrix);
  `eigvalsh(a, uplo)`: `w`.
- `svd(a, full)`: `[U (m, p), s (k,), Vt (q, n)]`, k = min(m, n), p = q = k, or p = m and
  q = n with `full`; `svdvals(a)`: `s`.
- `qr(a, complete)`: `[Q (m, p), R (p, n)]`, p = k, or m with `complete`.
- `lstsq(a, b, rcond)`: `[x (n, r), residuals (r,), s (k,), rank (1,)]` (b of shape (m, r)
  or (m,), then x has shape (n,) and r = 1); `residuals` are NaN where numpy's are empty
  (rank < n or m <= n), `rank` is a float.

Derivatives (`FORMULAS[name]`, a `Decomposition`: `vjp(ops, cts, inputs, outputs, shapes,
params)` and `jvp(ops, tangents, ...)`, the tangents and cotangents packed like the result):
- eigh (Giles 2008): with `F_ij = 1/(w_j - w_i)` (0 where `w_j == w_i`, on the diagonal and at
  repeated eigenvalues, where the eigenvectors' derivative is not unique),
  `gA = sym(V (diag(gw) + F * (V^T gV)) V^T)`, `dw = diag(V^T dA V)`,
  `dV = V (F * (V^T dA V))`, `sym(x) = (x + x^T) / 2`.
- svd (Townsend 2016; the JVP is JAX's): with `F_ij = 1/(s_j^2 - s_i^2)` (0 where equal),
  `dP = U^T dA V`, `ds = diag(dP)`, `dU = U (F * (dP S + S dP^T)) + (I - U U^T) dA V / s`,
  `dV = V (F * (S dP + dP^T S)) + (I - V V^T) dA^T U / s`; the VJP is its transpose. With
  `full` on a non-square matrix the rules read the first k columns of U and rows of Vt and
  give the others a zero tangent: their derivative is not unique and the frontend refuses it.
- qr (m >= n; for m < n the rules give zeros, the frontend refuses those derivatives):
  `C = Q^T dA R^-1`, `Omega = L(C) - L(C)^T` (L: strictly lower part),
  `dR = (C - Omega) R`, `dQ = dA R^-1 - Q (C - Omega)`; transposed:
  `M = gR R^T - Q^T gQ`, `gA = (gQ + Q (M - L(M) + L(M^T))) R^-T`. `L(x) - L(x)^T` and
  `L(x) - L(x^T)` are written with `tril_halfdiag` (the diagonals cancel).
- lstsq (full column rank, m >= n; for m < n the rules give x and the residuals zeros, the
  frontend refuses those derivatives): `x` solves the normal equations `A^T A x = A^T b`, so
  with `r = b - A x` and `G = A^T A`, `dx = G^-1 (dA^T r + A^T (db - dA x))`,
  `gb = A G^-1 gx`, `gA = r (G^-1 gx)^T - A G^-1 gx x^T`; the residuals `sum(r^2)` give
  `gA = -2 g r x^T`, `gb = 2 g r` (`A^T r = 0`); `s` is svd's. The rank has no derivative.
  At a rank-deficient matrix (m >= n) these rules raise numpy's "Singular matrix".

Composites written once for both sides: `norm(ops, x, shape, ord, axis, keepdims, f32,
singular_values)` is `np.linalg.norm` with an `ord` (numpy's formulas and ValueError
messages), `pinv(ops, u, s, vt, large, k)` and `cond(ops, s, k, p, has_nan)` numpy's
pseudo-inverse and condition number from the singular value decomposition.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import composites
from .vocabulary import define

T = (1, 0)
Shape = tuple[int, ...]


@dataclass(frozen=True)
class Decomposition:
    """`vjp(ops, cts, inputs, outputs, shapes, params)` gives the operands' cotangents
    (None = zero) from the packed output's; `jvp(ops, tangents, inputs, outputs, shapes,
    params)` the packed output's tangent."""

    name: str
    vjp: Callable[..., list[Any]]
    jvp: Callable[..., list[Any]]
    reads_inputs: bool = False
    reads_output: bool = False


def layout(name: str, shapes: Sequence[Shape], params: dict) -> list[Shape]:
    """The shapes of the parts of the packed result of decomposition `name`."""
    m, n = shapes[0]
    k = min(m, n)
    if name == "eigh":
        return [(n,), (n, n)]
    if name in ("eigvalsh", "svdvals"):
        return [(k,)]
    if name == "svd":
        full = params.get("full", False)
        return [(m, m if full else k), (k,), (n if full else k, n)]
    if name == "qr":
        p = m if params.get("complete", False) else k
        return [(m, p), (p, n)]
    if name == "lstsq":
        r = shapes[1][1] if len(shapes[1]) == 2 else 1
        return [(n, r), (r,), (k,), (1,)]
    raise KeyError(name)


def packed_size(parts: Sequence[Shape]) -> int:
    return sum(math.prod(p) for p in parts)


def unpack(o: Any, packed: Any, parts: Sequence[Shape]) -> list[Any]:
    out, start = [], 0
    for shape in parts:
        size = math.prod(shape)
        out.append(o.reshape(o.slice_along(packed, 0, start, start + size), shape))
        start += size
    return out


def pack(o: Any, values: Sequence[Any], parts: Sequence[Shape]) -> Any:
    return o.concatenate([o.reshape(v, (math.prod(p),)) for v, p in zip(values, parts,
                                                                          strict=True)], 0)


def _t(o: Any, x: Any) -> Any:
    return o.transpose(x, T)


def _sym(o: Any, x: Any) -> Any:
    return o.mul(o.add(x, _t(o, x)), 0.5)


def _gaps(o: Any, d: Any, k: int) -> Any:
    """`F_ij = 1 / (d_j - d_i)`, 0 where `d_j == d_i` (no inf reaches a derivative)."""
    gap = o.sub(o.reshape(d, (1, k)), o.reshape(d, (k, 1)))
    apart = o.ne(gap, 0.0)
    return o.select(apart, o.div(1.0, o.select(apart, gap, 1.0)), 0.0)


def _diag_of(o: Any, u: Any, x: Any, v: Any) -> Any:
    """`diag(u^T x v)` without forming it."""
    return o.reduce_sum(o.mul(u, o.matmul(x, v)), (0,), False)


# ---- eigh -----------------------------------------------------------------------------------

def _eigh_parts(o, shapes, packed):
    return unpack(o, packed, layout("eigh", shapes, {}))


def _eigh_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (packed,) = cts, outputs
    if g is None:
        return [None]
    n = shapes[0][0]
    w, v = _eigh_parts(o, shapes, packed)
    gw, gv = _eigh_parts(o, shapes, g)
    inner = o.mul(_gaps(o, w, n), o.matmul(_t(o, v), gv))
    return [_sym(o, o.matmul(o.add(o.matmul(v, inner), o.mul(v, gw)), _t(o, v)))]


def _eigh_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (packed,) = tangents, outputs
    if t is None:
        return [None]
    n = shapes[0][0]
    t = _sym(o, t)
    w, v = _eigh_parts(o, shapes, packed)
    p = o.matmul(_t(o, v), o.matmul(t, v))
    dw = _diag_of(o, v, t, v)
    dv = o.matmul(v, o.mul(_gaps(o, w, n), p))
    return [pack(o, [dw, dv], layout("eigh", shapes, params))]


def _eigenvectors(o, a, shapes):
    return _eigh_parts(o, shapes, o.eigh(a))[1]


def _eigvalsh_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (a,) = cts, inputs
    if g is None:
        return [None]
    v = _eigenvectors(o, a, shapes)
    return [o.matmul(o.mul(v, g), _t(o, v))]


def _eigvalsh_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (a,) = tangents, inputs
    if t is None:
        return [None]
    v = _eigenvectors(o, a, shapes)
    return [_diag_of(o, v, _sym(o, t), v)]


# ---- svd ------------------------------------------------------------------------------------

def _svd_parts(o, shapes, params, packed):
    """(U, s, Vt) of the reduced decomposition, from a packed (full or reduced) result."""
    m, n = shapes[0]
    k = min(m, n)
    u, s, vt = unpack(o, packed, layout("svd", shapes, params))
    if params.get("full", False):
        u = u if m == k else o.slice_along(u, 1, 0, k)
        vt = vt if n == k else o.slice_along(vt, 0, 0, k)
    return u, s, vt


def _svd_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (packed,) = cts, outputs
    if g is None:
        return [None]
    m, n = shapes[0]
    k = min(m, n)
    u, s, vt = _svd_parts(o, shapes, params, packed)
    gu, gs, gvt = _svd_parts(o, shapes, params, g)
    v, gv = _t(o, vt), _t(o, gvt)
    f = _gaps(o, o.mul(s, s), k)
    j = o.mul(f, o.sub(o.matmul(_t(o, u), gu), o.matmul(_t(o, gu), u)))
    kk = o.mul(f, o.sub(o.matmul(vt, gv), o.matmul(gvt, v)))
    inner = o.add(o.mul(j, s), o.mul(o.reshape(s, (k, 1)), kk))
    ga = o.matmul(o.add(o.matmul(u, inner), o.mul(u, gs)), vt)
    if m > k:
        off = o.sub(gu, o.matmul(u, o.matmul(_t(o, u), gu)))
        ga = o.add(ga, o.matmul(o.div(off, s), vt))
    if n > k:
        off = o.sub(gvt, o.matmul(o.matmul(gvt, v), vt))
        ga = o.add(ga, o.matmul(o.div(u, s), off))
    return [ga]


def _svd_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (packed,) = tangents, outputs
    if t is None:
        return [None]
    m, n = shapes[0]
    k = min(m, n)
    parts = layout("svd", shapes, params)
    u_all, _, vt_all = unpack(o, packed, parts)
    u, s, vt = _svd_parts(o, shapes, params, packed)
    v = _t(o, vt)
    tv = o.matmul(t, v)
    dp = o.matmul(_t(o, u), tv)
    ds = _diag_of(o, u, t, v)
    f = _gaps(o, o.mul(s, s), k)
    col = o.reshape(s, (k, 1))
    dps, sdp = o.mul(dp, s), o.mul(col, dp)
    du = o.matmul(u, o.mul(f, o.add(dps, _t(o, dps))))
    dv = o.matmul(v, o.mul(f, o.add(sdp, _t(o, sdp))))
    if m > k:
        du = o.add(du, o.div(o.sub(tv, o.matmul(u, dp)), s))
    if n > k:
        dv = o.add(dv, o.div(o.sub(o.matmul(_t(o, t), u), o.matmul(v, _t(o, dp))), s))
    dvt = _t(o, dv)
    if parts[0] != (m, k):
        du = o.concatenate([du, o.mul(o.slice_along(u_all, 1, k, m), 0.0)], 1)
    if parts[2] != (k, n):
        dvt = o.concatenate([dvt, o.mul(o.slice_along(vt_all, 0, k, n), 0.0)], 0)
    return [pack(o, [du, ds, dvt], parts)]


def _singular_vectors(o, a, shapes):
    u, _, vt = unpack(o, o.svd(a), layout("svd", shapes, {}))
    return u, vt


def _svdvals_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (a,) = cts, inputs
    if g is None:
        return [None]
    u, vt = _singular_vectors(o, a, shapes)
    return [o.matmul(o.mul(u, g), vt)]


def _svdvals_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (a,) = tangents, inputs
    if t is None:
        return [None]
    u, vt = _singular_vectors(o, a, shapes)
    return [_diag_of(o, u, t, _t(o, vt))]


define(Decomposition("eigh", _eigh_vjp, _eigh_jvp, reads_output=True))
define(Decomposition("eigvalsh", _eigvalsh_vjp, _eigvalsh_jvp, reads_inputs=True))
define(Decomposition("svd", _svd_vjp, _svd_jvp, reads_output=True))
define(Decomposition("svdvals", _svdvals_vjp, _svdvals_jvp, reads_inputs=True))


# ---- qr -------------------------------------------------------------------------------------

def _qr_parts(o, shapes, params, packed):
    """(Q, R) of the reduced decomposition (m >= n), from a packed result."""
    m, n = shapes[0]
    q, r = unpack(o, packed, layout("qr", shapes, params))
    if params.get("complete", False) and m > n:
        q, r = o.slice_along(q, 1, 0, n), o.slice_along(r, 0, 0, n)
    return q, r


def _right_inverse(o, x, r):
    """`x R^-1`."""
    return _t(o, o.solve(_t(o, r), _t(o, x)))


def _skew_lower(o, c):
    """`L(c) - L(c)^T` (L: the strictly lower part)."""
    h = o.tril_halfdiag(c)
    return o.sub(h, _t(o, h))


def _qr_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (packed,) = cts, outputs
    m, n = shapes[0]
    if g is None or m < n:
        return [None]
    q, r = _qr_parts(o, shapes, params, packed)
    gq, gr = _qr_parts(o, shapes, params, g)
    mm = o.sub(o.matmul(gr, _t(o, r)), o.matmul(_t(o, q), gq))
    n_ = o.add(o.sub(mm, o.tril_halfdiag(mm)), o.tril_halfdiag(_t(o, mm)))
    y = o.add(gq, o.matmul(q, n_))
    return [_t(o, o.solve(r, _t(o, y)))]


def _qr_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (packed,) = tangents, outputs
    m, n = shapes[0]
    if t is None:
        return [None]
    if m < n:
        return [o.mul(packed, 0.0)]
    q, r = _qr_parts(o, shapes, params, packed)
    x = _right_inverse(o, t, r)
    c = o.matmul(_t(o, q), x)
    rest = o.sub(c, _skew_lower(o, c))
    dr = o.matmul(rest, r)
    dq = o.sub(x, o.matmul(q, rest))
    parts = layout("qr", shapes, params)
    if parts[0] != (m, n):
        q_all, r_all = unpack(o, packed, parts)
        dq = o.concatenate([dq, o.mul(o.slice_along(q_all, 1, n, m), 0.0)], 1)
        dr = o.concatenate([dr, o.mul(o.slice_along(r_all, 0, n, m), 0.0)], 0)
    return [pack(o, [dq, dr], parts)]


define(Decomposition("qr", _qr_vjp, _qr_jvp, reads_output=True))


# ---- lstsq ----------------------------------------------------------------------------------

def _columns(o, b, shapes):
    """`b` as a matrix (a vector is one column)."""
    return o.reshape(b, (shapes[1][0], 1)) if len(shapes[1]) == 1 else b


def _lstsq_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (a, b), (packed,) = cts, inputs, outputs
    m, n = shapes[0]
    if g is None:
        return [None, None]
    parts = layout("lstsq", shapes, params)
    gx, gres, gs, _ = unpack(o, g, parts)
    u, vt = _singular_vectors(o, a, shapes)
    ga = o.matmul(o.mul(u, gs), vt)
    if m < n:
        return [ga, None]
    x = unpack(o, packed, parts)[0]
    bm = _columns(o, b, shapes)
    r = o.sub(bm, o.matmul(a, x))
    y = o.solve(o.matmul(_t(o, a), a), gx)
    ay = o.matmul(a, y)
    weighted = o.mul(r, o.mul(gres, 2.0))
    gb = o.add(ay, weighted)
    ga = o.add(ga, o.sub(o.matmul(r, _t(o, y)), o.matmul(o.add(ay, weighted), _t(o, x))))
    return [ga, o.reshape(gb, shapes[1])]


def _lstsq_jvp(o, tangents, inputs, outputs, shapes, params):
    (ta, tb), (a, b), (packed,) = tangents, inputs, outputs
    if ta is None and tb is None:
        return [None]
    m, n = shapes[0]
    parts = layout("lstsq", shapes, params)
    x, res, _, rank = unpack(o, packed, parts)
    ta = o.mul(a, 0.0) if ta is None else ta
    u, vt = _singular_vectors(o, a, shapes)
    ds = _diag_of(o, u, ta, _t(o, vt))
    if m < n:
        dx, dres = o.mul(x, 0.0), o.mul(res, 0.0)
    else:
        bm = _columns(o, b, shapes)
        moved = o.neg(o.matmul(ta, x)) if tb is None else \
            o.sub(_columns(o, tb, shapes), o.matmul(ta, x))
        r = o.sub(bm, o.matmul(a, x))
        rhs = o.add(o.matmul(_t(o, ta), r), o.matmul(_t(o, a), moved))
        dx = o.solve(o.matmul(_t(o, a), a), rhs)
        dres = o.mul(o.reduce_sum(o.mul(r, moved), (0,), False), 2.0)
    return [pack(o, [dx, dres, ds, o.mul(rank, 0.0)], parts)]


define(Decomposition("lstsq", _lstsq_vjp, _lstsq_jvp, reads_inputs=True, reads_output=True))


# ---- norm with ord --------------------------------------------------------------------------

def _least(o, x, axis, keepdims):
    return o.neg(o.reduce_max(o.neg(x), axis, keepdims))


def _vector_norm(o, x, order, axis, keepdims, f32):
    if order == math.inf:
        return o.reduce_max(o.abs(x), axis, keepdims)
    if order == -math.inf:
        return _least(o, o.abs(x), axis, keepdims)
    if order == 0:
        return o.reduce_sum(o.select(o.ne(x, 0.0), o.constant(1.0, x), o.constant(0.0, x)),
                            axis, keepdims)
    if order == 1:
        return o.reduce_sum(o.abs(x), axis, keepdims)
    if order == 2:
        return composites.norm(o, x, axis, keepdims)
    exponent, root = (order, 1.0 / order) if not f32 else _float32_pair(order)
    return o.pow(o.reduce_sum(o.pow(o.abs(x), exponent), axis, keepdims), root)


def _float32_pair(order: float) -> tuple[float, float]:
    """`order` and numpy's float32 `reciprocal(order)`, as Python floats."""
    p = struct.unpack("f", struct.pack("f", order))[0]
    return p, struct.unpack("f", struct.pack("f", 1.0 / p))[0]


def _matrix_norm(o, x, shape, order, axes, singular_values):
    row, col = axes
    if order in (2, -2, "nuc"):
        if len(shape) != 2:
            raise ValueError(f"norm(ord={order!r}) of batched matrices is not supported")
        s = singular_values(x if axes == (0, 1) else o.transpose(x, T))
        return o.reduce_sum(s, None, False) if order == "nuc" else \
            o.reduce_max(s, None, False) if order == 2 else _least(o, s, None, False)
    if order in (1, -1, math.inf, -math.inf):
        first, second = (row, col) if order in (1, -1) else (col, row)
        second -= second > first
        total = o.reduce_sum(o.abs(x), (first,), False)
        return o.reduce_max(total, (second,), False) if order > 0 else \
            _least(o, total, (second,), False)
    if order in ("fro", "f"):
        return composites.norm(o, x, tuple(sorted(axes)), False)
    raise ValueError("Invalid norm order for matrices.")


def norm(o: Any, x: Any, shape: Shape, order: Any, axis: Any, keepdims: bool, f32: bool,
         singular_values: Callable[[Any], Any]) -> Any:
    """`np.linalg.norm(x, ord, axis, keepdims)` with `ord` given, numpy's formulas and error
    messages (ValueError); `singular_values(matrix)` gives a 2-D operand's, in its dtype."""
    ndim = len(shape)
    if axis is None:
        if ndim not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axes = tuple(range(ndim))
    else:
        axes = axis if isinstance(axis, tuple) else (axis,)
        if not all(isinstance(a, int) and -ndim <= a < ndim for a in axes):
            raise ValueError(f"axis {axis} is out of bounds for an array of dimension {ndim}")
        axes = tuple(a % ndim for a in axes)
    if len(axes) == 1:
        if isinstance(order, str):
            raise ValueError(f"Invalid norm order '{order}' for vectors")
        return _vector_norm(o, x, order, axes, keepdims, f32)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    if axes[0] == axes[1]:
        raise ValueError("Duplicate axes given.")
    value = _matrix_norm(o, x, shape, order, axes, singular_values)
    if keepdims:
        value = o.reshape(value, tuple(1 if i in axes else d for i, d in enumerate(shape)))
    return value


# ---- pinv and cond --------------------------------------------------------------------------

def pinv(o: Any, u: Any, s: Any, vt: Any, large: Any, k: int) -> Any:
    """numpy's `pinv` from the reduced SVD: `Vt^T (1/s U^T)`, 1/s replaced by 0 where not
    `large` (no inf reaches a derivative)."""
    inverse = o.select(large, o.div(1.0, o.select(large, s, 1.0)), 0.0)
    return o.matmul(_t(o, vt), o.mul(o.reshape(inverse, (k, 1)), _t(o, u)))


def cond(o: Any, s: Any, k: int, p: Any, has_nan: Any) -> Any:
    """numpy's `cond` for p None, 2 or -2 from the singular values: NaN (0 / 0) becomes inf
    unless the matrix has a NaN (`has_nan`, a boolean)."""
    first, last = (o.reshape(o.slice_along(s, 0, i, i + 1), ()) for i in (0, k - 1))
    r = o.div(last, first) if p == -2 else o.div(first, last)
    return o.select(o.and_(o.ne(r, r), o.eq(has_nan, False)), math.inf, r)
