"""The derivatives of the linear-algebra primitives of square matrices, each written once (see
`vocabulary.Matrix`): `solve`, `inv`, `det`, `slogdet` (its `logabsdet`; the sign is
piecewise constant), `cholesky`, and the linear `tril_halfdiag` the Cholesky rules use.

Notation: `A` the matrix operand, `g` the output cotangent, `t` a tangent, `X = solve(A, B)`,
`Ai = inv(A)`. Reverse mode (the textbook rules, e.g. Giles 2008, Murray 2016):
- solve: `gB = solve(A.T, g)`, `gA = -gB X.T` (an outer product when `B` is a vector);
- inv: `gA = -Ai.T g Ai.T`;  det: `gA = g det(A) inv(A).T`;  logabsdet: `gA = g inv(A).T`;
- cholesky (`A = L L.T`, only the lower triangle read): with `P = phi(L.T g)`,
  `S = inv(L).T P inv(L)`, `gA = (S + S.T) / 2` (a symmetric cotangent), where `phi` keeps the
  lower triangle and halves the diagonal (`tril_halfdiag`).
Forward mode: `dX = solve(A, dB - dA X)`, `dAi = -Ai dA Ai`, `d det = det sum(inv(A).T * dA)`,
`d logabsdet = sum(inv(A).T * dA)`, `dL = L phi(inv(L) dA inv(L).T)`.
`shapes` are the operands' shapes. At a singular matrix the rules that need `inv(A)` raise
numpy's LinAlgError (numpy's det is 0 there, but its derivative is not defined by these
formulas).
"""

from __future__ import annotations

from .vocabulary import Linear, Matrix, define

T = (1, 0)


def _solve_vjp(o, cts, inputs, outputs, shapes):
    (g,), (a, _), (x,) = cts, inputs, outputs
    if g is None:
        return [None, None]
    gb = o.solve(o.transpose(a, T), g)
    if len(shapes[1]) == 1:
        n = shapes[1][0]
        ga = o.mul(o.reshape(gb, (n, 1)), o.reshape(x, (1, n)))
    else:
        ga = o.matmul(gb, o.transpose(x, T))
    return [o.neg(ga), gb]


def _solve_jvp(o, tangents, inputs, outputs, shapes):
    (ta, tb), (a, _), (x,) = tangents, inputs, outputs
    moved = None if ta is None else o.matmul(ta, x)
    rhs = tb if moved is None else o.neg(moved) if tb is None else o.sub(tb, moved)
    return [None if rhs is None else o.solve(a, rhs)]


def _inv_vjp(o, cts, inputs, outputs, shapes):
    (g,), (ai,) = cts, outputs
    if g is None:
        return [None]
    ait = o.transpose(ai, T)
    return [o.neg(o.matmul(o.matmul(ait, g), ait))]


def _inv_jvp(o, tangents, inputs, outputs, shapes):
    (t,), (ai,) = tangents, outputs
    return [None if t is None else o.neg(o.matmul(o.matmul(ai, t), ai))]


def _inverse_transposed(o, a):
    return o.transpose(o.inv(a), T)


def _det_vjp(o, cts, inputs, outputs, shapes):
    (g,), (a,), (d,) = cts, inputs, outputs
    return [None if g is None else o.mul(o.mul(g, d), _inverse_transposed(o, a))]


def _trace_against(o, a, t):
    """trace(inv(A) t) = sum(inv(A).T * t)."""
    return o.reduce_sum(o.mul(_inverse_transposed(o, a), t), None, False)


def _det_jvp(o, tangents, inputs, outputs, shapes):
    (t,), (a,), (d,) = tangents, inputs, outputs
    return [None if t is None else o.mul(d, _trace_against(o, a, t))]


def _logabsdet_vjp(o, cts, inputs, outputs, shapes):
    (g,), (a,) = cts, inputs
    return [None if g is None else o.mul(g, _inverse_transposed(o, a))]


def _logabsdet_jvp(o, tangents, inputs, outputs, shapes):
    (t,), (a,) = tangents, inputs
    return [None if t is None else _trace_against(o, a, t)]


def _cholesky_vjp(o, cts, inputs, outputs, shapes):
    (g,), (lower,) = cts, outputs
    if g is None:
        return [None]
    li = o.inv(lower)
    p = o.tril_halfdiag(o.matmul(o.transpose(lower, T), g))
    s = o.matmul(o.matmul(o.transpose(li, T), p), li)
    return [o.mul(0.5, o.add(s, o.transpose(s, T)))]


def _cholesky_jvp(o, tangents, inputs, outputs, shapes):
    (t,), (lower,) = tangents, outputs
    if t is None:
        return [None]
    li = o.inv(lower)
    return [o.matmul(lower, o.tril_halfdiag(o.matmul(o.matmul(li, t), o.transpose(li, T))))]


define(Matrix("solve", _solve_vjp, _solve_jvp, reads_inputs=True, reads_output=True))
define(Matrix("inv", _inv_vjp, _inv_jvp, reads_output=True))
define(Matrix("det", _det_vjp, _det_jvp, reads_inputs=True, reads_output=True))
define(Matrix("slogdet", _logabsdet_vjp, _logabsdet_jvp, reads_inputs=True))
define(Matrix("cholesky", _cholesky_vjp, _cholesky_jvp, reads_output=True))
# phi is self-adjoint: <phi(x), y> = sum_{i > j} x_ij y_ij + sum_i x_ii y_ii / 2 = <x, phi(y)>
define(Linear("tril_halfdiag", lambda o, g, shapes: [o.tril_halfdiag(g)]))
