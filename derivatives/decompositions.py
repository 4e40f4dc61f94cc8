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
- `eig(a)`: `[w (n,), V (n, n)]`, complex (of a real matrix too: the compiler's layout is
  `pair_ops`'s), V's columns of unit norm as LAPACK's; `eigvals(a)`: `w` (LAPACK computes
  them without the vectors, as numpy's `eigvals`: not always the same bits as `eig`'s), its
  derivatives `dw = diag(V^-1 dA V)`, `gA = V^-H diag(gw) V^H` from the recomputed vectors.
- `svd(a, full)`: `[U (m, p), s (k,), Vt (q, n)]`, k = min(m, n), p = q = k, or p = m and
  q = n with `full`; `svdvals(a)`: `s`.
- `qr(a, complete)`: `[Q (m, p), R (p, n)]`, p = k, or m with `complete`.
- `lstsq(a, b, rcond)`: `[x (n, r), residuals (r,), s (k,), rank (1,)]` (b of shape (m, r)
  or (m,), then x has shape (n,) and r = 1); `residuals` are NaN where numpy's are empty
  (rank < n or m <= n), `rank` is a float.
Stacks: `eigh`, `eigvalsh`, `svd`, `svdvals` and `qr` take a stack of matrices `(..., m, n)`
too, as numpy does (the compiler gives 2-D operands only): each part then has the operand's
batch axes in front (`w (..., n)`, `V (..., n, n)`, ...) and is raveled whole, and the
rules below hold per matrix, written once with the words of `linalg.Stack`. `lstsq` takes
matrices only (numpy's does).

Derivatives (`FORMULAS[name]`, a `Decomposition`: `vjp(ops, cts, inputs, outputs, shapes,
params)` and `jvp(ops, tangents, ...)`, the tangents and cotangents packed like the result):
- eigh (Giles 2008): with `F_ij = 1/(w_j - w_i)` (0 where `w_j == w_i`, on the diagonal and at
  repeated eigenvalues, where the eigenvectors' derivative is not unique),
  `gA = sym(V (diag(gw) + F * (V^T gV)) V^T)`, `dw = diag(V^T dA V)`,
  `dV = V (F * (V^T dA V))`, `sym(x) = (x + x^T) / 2`.
- eig (complex numbers, JAX's JVP): with `F_ij = 1/(w_j - w_i)` (0 where equal),
  `P = V^-1 dA V`, `dw = diag(P)`, `dV = V (F * P)` less `V diag(Re(diag(V^H V (F * P))))`
  (the eigenvectors keep unit norm; their phase is LAPACK's choice, so only
  phase-invariant functions of V have a derivative); the VJP is its transpose,
  `gA = V^-H (diag(gw) + conj(F) * (V^H gV')) V^H` with `gV' = gV - V diag(Re(diag(V^H gV)))`.
  The rules of eigh and svd hold for complex matrices as written, with conjugate
  transposes (`Stack.h`), real parts of the diagonals that give eigenvalues and singular
  values, and for svd the phase term `U diag(i Im(diag(U^H dA V)) / s)` of dU (JAX's).
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

`REFERENCES[name]` are numpy's functions packed as above (the tape's implementations, the
compiler's Python backend and constant folding), with `complex` (the matrix given
interleaved, `(m, n, 2)`) and `pairs` (complex parts packed interleaved) for the compiler's
forms after `complex_pairs`; `COMPLEX_PARTS[name]` says which parts of a complex matrix's
decomposition are complex (`real_parts(name)` the others: eigenvalues, singular values).

Composites written once for both sides: `norm(ops, x, shape, ord, axis, keepdims, f32,
singular_values)` is `np.linalg.norm` with an `ord` (numpy's formulas and ValueError
messages; the matrix norms of a stack too, `axis` naming its matrix axes),
`pinv(ops, u, s, vt, large, k, batch)` and `cond(ops, s, k, p, has_nan, batch)` numpy's
pseudo-inverse and condition number from the singular value decomposition, of one matrix
(`batch` ()) or of each matrix of a stack.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import composites
from .linalg import Shape, Stack, stack_of
from .vocabulary import define


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
    """The shapes of the parts of the packed result of decomposition `name` (over the batch
    axes of the operand, but `lstsq`'s, which takes matrices only)."""
    *batch, m, n = shapes[0]
    k = min(m, n)
    if name in ("eigh", "eig"):
        return [(*batch, n), (*batch, n, n)]
    if name in ("eigvalsh", "svdvals", "eigvals"):
        return [(*batch, k)]
    if name == "svd":
        full = params.get("full", False)
        return [(*batch, m, m if full else k), (*batch, k), (*batch, n if full else k, n)]
    if name == "qr":
        p = m if params.get("complete", False) else k
        return [(*batch, m, p), (*batch, p, n)]
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


# the parts of the packed decomposition of a complex matrix that are complex (eigenvalues and
# singular values are real)
COMPLEX_PARTS = {"eigh": (False, True), "svd": (True, False, True), "eig": (True, True),
                 "eigvalsh": (False,), "svdvals": (False,), "eigvals": (True,)}


def real_parts(name: str) -> tuple[int, ...]:
    """The indices of the parts of decomposition `name` that are real for a complex matrix."""
    return tuple(i for i, c in enumerate(COMPLEX_PARTS.get(name, ())) if not c)


# ---- numpy's references (the tape's implementations, the compiler's Python backend) ---------

def _pack(*parts) -> np.ndarray:
    return np.concatenate([np.ravel(p) for p in parts])


def _complex_matrix(a: np.ndarray) -> np.ndarray:
    return a[..., 0] + 1j * a[..., 1]


def _interleaved(z: np.ndarray) -> np.ndarray:
    return np.stack([z.real, z.imag], axis=-1)


def eigh_packed(a: np.ndarray, uplo: str = "L", complex: bool = False,
                pairs: bool = False) -> np.ndarray:
    if pairs:
        w, v = np.linalg.eigh(_complex_matrix(a), UPLO=uplo)
        return _pack(w, _interleaved(v))
    return _pack(*np.linalg.eigh(a, UPLO=uplo))


def eigvalsh_packed(a: np.ndarray, uplo: str = "L", complex: bool = False,
                    pairs: bool = False) -> np.ndarray:
    return np.linalg.eigvalsh(_complex_matrix(a) if complex else a, UPLO=uplo)


def eig_packed(a: np.ndarray, complex: bool = False, pairs: bool = False) -> np.ndarray:
    """numpy's eig (LAPACK's dgeev for a real matrix, zgeev for a complex one: numpy's
    order of eigenvalues), complex; with `pairs` its parts interleaved."""
    w, v = (p.astype(np.complex128) for p in np.linalg.eig(_complex_matrix(a) if complex
                                                            else a))
    return _pack(_interleaved(w), _interleaved(v)) if pairs else _pack(w, v)


def eigvals_packed(a: np.ndarray, complex: bool = False, pairs: bool = False) -> np.ndarray:
    """numpy's eigvals (geev without vectors), complex; with `pairs` interleaved."""
    w = np.linalg.eigvals(_complex_matrix(a) if complex else a).astype(np.complex128)
    return np.ravel(_interleaved(w)) if pairs else w


def svd_packed(a: np.ndarray, full: bool = False, complex: bool = False,
               pairs: bool = False) -> np.ndarray:
    if pairs:
        u, s, vt = np.linalg.svd(_complex_matrix(a), full_matrices=full)
        return _pack(_interleaved(u), s, _interleaved(vt))
    return _pack(*np.linalg.svd(a, full_matrices=full))


def svdvals_packed(a: np.ndarray, complex: bool = False, pairs: bool = False) -> np.ndarray:
    return np.linalg.svd(_complex_matrix(a) if complex else a, compute_uv=False)


def qr_packed(a: np.ndarray, complete: bool = False) -> np.ndarray:
    return _pack(*np.linalg.qr(a, mode="complete" if complete else "reduced"))


def lstsq_packed(a: np.ndarray, b: np.ndarray, rcond: float) -> np.ndarray:
    x, residuals, rank, s = np.linalg.lstsq(a, b, rcond=rcond)
    columns = 1 if b.ndim == 1 else b.shape[1]
    if residuals.size == 0:
        residuals = np.full(columns, np.nan)
    return _pack(x, residuals, s, float(rank))


REFERENCES = {"eigh": eigh_packed, "eigvalsh": eigvalsh_packed, "svd": svd_packed,
              "svdvals": svdvals_packed, "qr": qr_packed, "lstsq": lstsq_packed,
              "eig": eig_packed, "eigvals": eigvals_packed}


def _hermitian(st: Stack, x: Any) -> Any:
    """`(x + x^H) / 2` (the symmetric part of a real `x`)."""
    return st.o.mul(st.o.add(x, st.h(x)), 0.5)


def _gaps(st: Stack, d: Any, k: int) -> Any:
    """`F_ij = 1 / (d_j - d_i)`, 0 where `d_j == d_i` (no inf reaches a derivative)."""
    o = st.o
    gap = o.sub(o.reshape(d, (*st.batch, 1, k)), st.column(d, k))
    apart = o.ne(gap, 0.0)
    return o.select(apart, o.div(1.0, o.select(apart, gap, 1.0)), 0.0)


def _column_dots(st: Stack, u: Any, x: Any) -> Any:
    """`diag(u^H x)` without forming `u^H x`."""
    o = st.o
    return o.reduce_sum(o.mul(o.conj(u), x), (st.axis(0),), False)


def _diag_of(st: Stack, u: Any, x: Any, v: Any) -> Any:
    """`diag(u^H x v)` without forming it (complex: the diagonal's real part, where the
    derivatives of real eigenvalues and singular values are)."""
    return st.o.real(_column_dots(st, u, st.o.matmul(x, v)))


def _imaginary_diagonal(st: Stack, u: Any, x: Any, s: Any, k: int) -> Any:
    """`i Im(diag(u^H x)) / s` as a row of each matrix: the change of phase of the left
    singular vectors that a complex SVD's gauge (real diagonal of `U^H dA V`) needs."""
    o = st.o
    d = _column_dots(st, u, x)
    return st.row(o.div(o.mul(o.sub(d, o.conj(d)), 0.5), s), k)


# ---- eigh ----------------------------------------------------------------------------------

def _eigh_parts(o, shapes, packed):
    """(w, V); w real (a complex result packs it with the vectors)."""
    w, v = unpack(o, packed, layout("eigh", shapes, {}))
    return o.real(w), v


def _eigh_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (packed,) = cts, outputs
    if g is None:
        return [None]
    st, n = stack_of(o, shapes[0]), shapes[0][-1]
    w, v = _eigh_parts(o, shapes, packed)
    gw, gv = _eigh_parts(o, shapes, g)
    inner = o.mul(_gaps(st, w, n), o.matmul(st.h(v), gv))
    return [_hermitian(st, o.matmul(o.add(o.matmul(v, inner), o.mul(v, st.row(gw, n))),
                                    st.h(v)))]


def _eigh_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (packed,) = tangents, outputs
    if t is None:
        return [None]
    st, n = stack_of(o, shapes[0]), shapes[0][-1]
    t = _hermitian(st, t)
    w, v = _eigh_parts(o, shapes, packed)
    p = o.matmul(st.h(v), o.matmul(t, v))
    dw = _diag_of(st, v, t, v)
    dv = o.matmul(v, o.mul(_gaps(st, w, n), p))
    return [pack(o, [dw, dv], layout("eigh", shapes, params))]


def _eigenvectors(o, a, shapes):
    return _eigh_parts(o, shapes, o.eigh(a))[1]


def _eigvalsh_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (a,) = cts, inputs
    if g is None:
        return [None]
    st, n = stack_of(o, shapes[0]), shapes[0][-1]
    v = _eigenvectors(o, a, shapes)
    return [o.matmul(o.mul(v, st.row(o.real(g), n)), st.h(v))]


def _eigvalsh_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (a,) = tangents, inputs
    if t is None:
        return [None]
    st = stack_of(o, shapes[0])
    v = _eigenvectors(o, a, shapes)
    return [_diag_of(st, v, _hermitian(st, t), v)]


# ---- svd ------------------------------------------------------------------------------------

def _svd_parts(st, shapes, params, packed):
    """(U, s, Vt) of the reduced decomposition, from a packed (full or reduced) result; s
    real (a complex result packs it with the vectors)."""
    m, n = shapes[0][-2:]
    k = min(m, n)
    u, s, vt = unpack(st.o, packed, layout("svd", shapes, params))
    if params.get("full", False):
        u = u if m == k else st.o.slice_along(u, st.axis(1), 0, k)
        vt = vt if n == k else st.o.slice_along(vt, st.axis(0), 0, k)
    return u, st.o.real(s), vt


def _svd_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (packed,) = cts, outputs
    if g is None:
        return [None]
    st = stack_of(o, shapes[0])
    m, n = shapes[0][-2:]
    k = min(m, n)
    u, s, vt = _svd_parts(st, shapes, params, packed)
    gu, gs, gvt = _svd_parts(st, shapes, params, g)
    v, gv = st.h(vt), st.h(gvt)
    s_row = st.row(s, k)
    f = _gaps(st, o.mul(s, s), k)
    j = o.mul(f, o.sub(o.matmul(st.h(u), gu), o.matmul(st.h(gu), u)))
    kk = o.mul(f, o.sub(o.matmul(vt, gv), o.matmul(gvt, v)))
    inner = o.add(o.mul(j, s_row), o.mul(st.column(s, k), kk))
    scale = st.row(gs, k)
    if o.is_complex(u):
        scale = o.add(scale, _imaginary_diagonal(st, u, gu, s, k))
    ga = o.matmul(o.add(o.matmul(u, inner), o.mul(u, scale)), vt)
    if m > k:
        off = o.sub(gu, o.matmul(u, o.matmul(st.h(u), gu)))
        ga = o.add(ga, o.matmul(o.div(off, s_row), vt))
    if n > k:
        off = o.sub(gvt, o.matmul(o.matmul(gvt, v), vt))
        ga = o.add(ga, o.matmul(o.div(u, s_row), off))
    return [ga]


def _padded(st, x, whole, start, stop, axis):
    """`x` followed along matrix axis `axis` by zeros for the entries `start:stop` of `whole`
    there: the tangents of the extra vectors of a full decomposition, held constant."""
    o = st.o
    extra = o.mul(o.slice_along(whole, st.axis(axis), start, stop), 0.0)
    return o.concatenate([x, extra], st.axis(axis))


def _svd_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (packed,) = tangents, outputs
    if t is None:
        return [None]
    st = stack_of(o, shapes[0])
    m, n = shapes[0][-2:]
    k = min(m, n)
    parts = layout("svd", shapes, params)
    u_all, _, vt_all = unpack(o, packed, parts)
    u, s, vt = _svd_parts(st, shapes, params, packed)
    v = st.h(vt)
    s_row = st.row(s, k)
    tv = o.matmul(t, v)
    dp = o.matmul(st.h(u), tv)
    ds = _diag_of(st, u, t, v)
    f = _gaps(st, o.mul(s, s), k)
    dps, sdp = o.mul(dp, s_row), o.mul(st.column(s, k), dp)
    du = o.matmul(u, o.mul(f, o.add(dps, st.h(dps))))
    if o.is_complex(u):
        du = o.add(du, o.mul(u, _imaginary_diagonal(st, u, tv, s, k)))
    dv = o.matmul(v, o.mul(f, o.add(sdp, st.h(sdp))))
    if m > k:
        du = o.add(du, o.div(o.sub(tv, o.matmul(u, dp)), s_row))
    if n > k:
        dv = o.add(dv, o.div(o.sub(o.matmul(st.h(t), u), o.matmul(v, st.h(dp))), s_row))
    dvt = st.h(dv)
    if parts[0][-1] != k:
        du = _padded(st, du, u_all, k, m, 1)
    if parts[2][-2] != k:
        dvt = _padded(st, dvt, vt_all, k, n, 0)
    return [pack(o, [du, ds, dvt], parts)]


def _singular_vectors(o, a, shapes):
    u, _, vt = unpack(o, o.svd(a), layout("svd", shapes, {}))
    return u, vt


def _svdvals_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (a,) = cts, inputs
    if g is None:
        return [None]
    st = stack_of(o, shapes[0])
    u, vt = _singular_vectors(o, a, shapes)
    return [o.matmul(o.mul(u, st.row(o.real(g), min(shapes[0][-2:]))), vt)]


def _svdvals_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (a,) = tangents, inputs
    if t is None:
        return [None]
    st = stack_of(o, shapes[0])
    u, vt = _singular_vectors(o, a, shapes)
    return [_diag_of(st, u, t, st.h(vt))]


define(Decomposition("eigh", _eigh_vjp, _eigh_jvp, reads_output=True))
define(Decomposition("eigvalsh", _eigvalsh_vjp, _eigvalsh_jvp, reads_inputs=True))
define(Decomposition("svd", _svd_vjp, _svd_jvp, reads_output=True))
define(Decomposition("svdvals", _svdvals_vjp, _svdvals_jvp, reads_inputs=True))


# ---- eig ------------------------------------------------------------------------------------

def _complex_gaps(st: Stack, d: Any, k: int) -> Any:
    """`F_ij = 1 / (d_j - d_i)` of complex numbers `d`, 0 where `d_j == d_i`."""
    o = st.o
    gap = o.sub(o.reshape(d, (*st.batch, 1, k)), st.column(d, k))
    size = o.real(o.mul(gap, o.conj(gap)))
    apart = o.ne(size, 0.0)
    return o.mul(o.conj(gap), o.select(apart, o.div(1.0, o.select(apart, size, 1.0)), 0.0))


def _unit_columns(st: Stack, v: Any, x: Any, n: int) -> Any:
    """`x` less `v diag(Re(diag(v^H x)))`: a tangent of unit eigenvectors `v` keeps their
    norms (and so does its transpose, the cotangent's part along them)."""
    o = st.o
    return o.sub(x, o.mul(v, st.row(o.real(_column_dots(st, v, x)), n)))


def _eig_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (packed,) = cts, outputs
    if g is None:
        return [None]
    st, n = stack_of(o, shapes[0]), shapes[0][-1]
    w, v = unpack(o, packed, layout("eig", shapes, params))
    gw, gv = unpack(o, g, layout("eig", shapes, params))
    gv = _unit_columns(st, v, gv, n)
    inner = o.mul(o.conj(_complex_gaps(st, w, n)), o.matmul(st.h(v), gv))
    vinv_h = st.h(o.inv(v))
    ga = o.matmul(o.add(o.mul(vinv_h, st.row(gw, n)), o.matmul(vinv_h, inner)), st.h(v))
    return [ga]


def _eig_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (packed,) = tangents, outputs
    if t is None:
        return [None]
    st, n = stack_of(o, shapes[0]), shapes[0][-1]
    w, v = unpack(o, packed, layout("eig", shapes, params))
    vinv = o.inv(v)
    tv = o.matmul(t, v)
    dw = _column_dots(st, st.h(vinv), tv)
    dv = o.matmul(v, o.mul(_complex_gaps(st, w, n), o.matmul(vinv, tv)))
    return [pack(o, [dw, _unit_columns(st, v, dv, n)], layout("eig", shapes, params))]


define(Decomposition("eig", _eig_vjp, _eig_jvp, reads_output=True))


def _eigenvalue_frame(o, a, shapes):
    """(stack, V, V^-1) of `a`'s eigenvectors (recomputed: `eigvals` keeps none)."""
    st = stack_of(o, shapes[0])
    _, v = unpack(o, o.eig(a), layout("eig", shapes, {}))
    return st, v, o.inv(v)


def _eigvals_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (a,) = cts, inputs
    if g is None:
        return [None]
    st, v, vinv = _eigenvalue_frame(o, a, shapes)
    return [o.matmul(o.mul(st.h(vinv), st.row(g, shapes[0][-1])), st.h(v))]


def _eigvals_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (a,) = tangents, inputs
    if t is None:
        return [None]
    st, v, vinv = _eigenvalue_frame(o, a, shapes)
    return [_column_dots(st, st.h(vinv), o.matmul(t, v))]


define(Decomposition("eigvals", _eigvals_vjp, _eigvals_jvp, reads_inputs=True))


# ---- qr -------------------------------------------------------------------------------------

def _qr_parts(st, shapes, params, packed):
    """(Q, R) of the reduced decomposition (m >= n), from a packed result."""
    m, n = shapes[0][-2:]
    q, r = unpack(st.o, packed, layout("qr", shapes, params))
    if params.get("complete", False) and m > n:
        q, r = st.o.slice_along(q, st.axis(1), 0, n), st.o.slice_along(r, st.axis(0), 0, n)
    return q, r


def _right_inverse(st, x, r):
    """`x R^-1`."""
    return st.t(st.o.solve(st.t(r), st.t(x)))


def _skew_lower(st, c):
    """`L(c) - L(c)^T` (L: the strictly lower part)."""
    h = st.o.tril_halfdiag(c)
    return st.o.sub(h, st.t(h))


def _qr_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (packed,) = cts, outputs
    m, n = shapes[0][-2:]
    if g is None or m < n:
        return [None]
    st = stack_of(o, shapes[0])
    q, r = _qr_parts(st, shapes, params, packed)
    gq, gr = _qr_parts(st, shapes, params, g)
    mm = o.sub(o.matmul(gr, st.t(r)), o.matmul(st.t(q), gq))
    n_ = o.add(o.sub(mm, o.tril_halfdiag(mm)), o.tril_halfdiag(st.t(mm)))
    y = o.add(gq, o.matmul(q, n_))
    return [st.t(o.solve(r, st.t(y)))]


def _qr_jvp(o, tangents, inputs, outputs, shapes, params):
    (t,), (packed,) = tangents, outputs
    m, n = shapes[0][-2:]
    if t is None:
        return [None]
    if m < n:
        return [o.mul(packed, 0.0)]
    st = stack_of(o, shapes[0])
    q, r = _qr_parts(st, shapes, params, packed)
    x = _right_inverse(st, t, r)
    c = o.matmul(st.t(q), x)
    rest = o.sub(c, _skew_lower(st, c))
    dr = o.matmul(rest, r)
    dq = o.sub(x, o.matmul(q, rest))
    parts = layout("qr", shapes, params)
    if parts[0][-1] != n:
        q_all, r_all = unpack(o, packed, parts)
        dq, dr = _padded(st, dq, q_all, n, m, 1), _padded(st, dr, r_all, n, m, 0)
    return [pack(o, [dq, dr], parts)]


define(Decomposition("qr", _qr_vjp, _qr_jvp, reads_output=True))


# ---- lstsq ----------------------------------------------------------------------------------

def _columns(o, b, shapes):
    """`b` as a matrix (a vector is one column)."""
    return o.reshape(b, (shapes[1][0], 1)) if len(shapes[1]) == 1 else b


def _lstsq_vjp(o, cts, inputs, outputs, shapes, params):
    (g,), (a, b), (packed,) = cts, inputs, outputs
    m, n = shapes[0]
    st = stack_of(o, shapes[0])  # one matrix: numpy's lstsq takes no stack
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
    y = o.solve(o.matmul(st.t(a), a), gx)
    ay = o.matmul(a, y)
    weighted = o.mul(r, o.mul(gres, 2.0))
    gb = o.add(ay, weighted)
    ga = o.add(ga, o.sub(o.matmul(r, st.t(y)), o.matmul(o.add(ay, weighted), st.t(x))))
    return [ga, o.reshape(gb, shapes[1])]


def _lstsq_jvp(o, tangents, inputs, outputs, shapes, params):
    (ta, tb), (a, b), (packed,) = tangents, inputs, outputs
    if ta is None and tb is None:
        return [None]
    m, n = shapes[0]
    st = stack_of(o, shapes[0])
    parts = layout("lstsq", shapes, params)
    x, res, _, rank = unpack(o, packed, parts)
    ta = o.mul(a, 0.0) if ta is None else ta
    u, vt = _singular_vectors(o, a, shapes)
    ds = _diag_of(st, u, ta, st.t(vt))
    if m < n:
        dx, dres = o.mul(x, 0.0), o.mul(res, 0.0)
    else:
        bm = _columns(o, b, shapes)
        moved = o.neg(o.matmul(ta, x)) if tb is None else \
            o.sub(_columns(o, tb, shapes), o.matmul(ta, x))
        r = o.sub(bm, o.matmul(a, x))
        rhs = o.add(o.matmul(st.t(ta), r), o.matmul(st.t(a), moved))
        dx = o.solve(o.matmul(st.t(a), a), rhs)
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


def _matrices_last(o: Any, x: Any, ndim: int, axes: tuple[int, int]) -> Any:
    """`x` with its matrix axes `axes` (rows, columns) moved last, the others in order."""
    order = (*(i for i in range(ndim) if i not in axes), *axes)
    return x if order == tuple(range(ndim)) else o.transpose(x, order)


def _matrix_norm(o, x, shape, order, axes, singular_values):
    row, col = axes
    if order in (2, -2, "nuc"):
        s = singular_values(_matrices_last(o, x, len(shape), axes))
        over = (len(shape) - 2,) if len(shape) > 2 else None
        return o.reduce_sum(s, over, False) if order == "nuc" else \
            o.reduce_max(s, over, False) if order == 2 else _least(o, s, over, False)
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
    messages (ValueError); `singular_values(matrices)` gives those of a 2-D operand, or of
    each matrix of a stack (the matrix axes last), in its dtype."""
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

def pinv(o: Any, u: Any, s: Any, vt: Any, large: Any, k: int, batch: Shape = ()) -> Any:
    """numpy's `pinv` from the reduced SVD: `Vt^T (1/s U^T)`, 1/s replaced by 0 where not
    `large` (no inf reaches a derivative); of each matrix of a stack over `batch`."""
    st = Stack(o, batch)
    inverse = o.select(large, o.div(1.0, o.select(large, s, 1.0)), 0.0)
    return o.matmul(st.t(vt), o.mul(st.column(inverse, k), st.t(u)))


def cond(o: Any, s: Any, k: int, p: Any, has_nan: Any, batch: Shape = ()) -> Any:
    """numpy's `cond` for p None, 2 or -2 from the singular values: NaN (0 / 0) becomes inf
    unless the matrix has a NaN (`has_nan`, a boolean); of each matrix of a stack over `batch`
    (`s` and `has_nan` one per matrix)."""
    first, last = (o.reshape(o.slice_along(s, len(batch), i, i + 1), batch)
                   for i in (0, k - 1))
    r = o.div(last, first) if p == -2 else o.div(first, last)
    return o.select(o.and_(o.ne(r, r), o.eq(has_nan, False)), math.inf, r)
