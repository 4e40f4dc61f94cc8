"""The derivatives of the linear-algebra primitives of square matrices, each written once (see
`vocabulary.Matrix`): `solve`, `inv`, `det`, `slogdet` (its `logabsdet`; the sign is
piecewise constant), `cholesky` and `scipy_cholesky` (the lower factor, or the upper one
`U = L.T` read from the upper triangle), `solve_triangular`, `check_finite` (the identity),
and the linear `tril_halfdiag` the Cholesky rules use and `triangle` (`tril` / `triu` with
the diagonal kept or dropped) the triangular solve uses.

Stacks: every rule holds for one matrix (2-D operands, all the compiler gives) and for stacks
of matrices as numpy and scipy take them (operands `(..., n, n)`, results over the same
batch axes: `(...,)` for `det` and `logabsdet`), written once with the words of `Stack`
(`A.T` below is each matrix transposed, products broadcast over the batch axes). `solve`'s
and `solve_triangular`'s `B` is a vector `(n,)` with one matrix `A` (the tape solves a vector
against a stack as one column) or a stack `(..., n, k)` whose batch axes broadcast with
`A`'s: the cotangents are summed back over the axes broadcasting added. The references below
compute stacks too.

Notation: `A` the matrix operand, `g` the output cotangent, `t` a tangent, `X = solve(A, B)`,
`Ai = inv(A)`. Reverse mode (the textbook rules, e.g. Giles 2008, Murray 2016):
- solve: `gB = solve(A.T, g)`, `gA = -gB X.T` (an outer product when `B` is a vector);
- inv: `gA = -Ai.T g Ai.T`; both hold for complex matrices with conjugate transposes
  (`Stack.h`: the tape's complex `solve` and `inv`);
- det: `gA = g det(A) inv(A).T`;  logabsdet: `gA = g inv(A).T`;
- cholesky: the derivative of the function numpy computes, which reads the lower triangle
  only: `L = chol(sym(A))`, `sym(A) = tril(A) + tril(A, -1).T`. With `P = phi(L.T g)` and
  `S = inv(L).T P inv(L)` (computed as JAX does, by two triangular solves: `S.T =
  solve_triangular(L, solve_triangular(L, P, trans=1).T, trans=1)`), `gA = tril(S + S.T, -1)
  + diag(S)`: zero above the diagonal (those
  entries are never read), an entry below it counted for both places it stands for, where
  `phi` keeps the lower triangle and halves the diagonal (`tril_halfdiag`). JAX and PyTorch
  return the symmetric `(S + S.T) / 2` instead (the derivative along symmetric changes only:
  both agree with this one along them). scipy's upper factor reads the upper triangle: the
  transposes of these.
- solve_triangular (`op(T) X = B`, `T` the triangle of `A` it reads, `op` the transpose when
  `trans`, 1 or 2 (the conjugate transpose: the same for reals)):
  `gB = solve_triangular(A, g, not trans)`, `gA = triangle(-gB X.T)` (transposed
  first when `trans`), zero on the diagonal when `unit_diagonal`.
Forward mode: `dX = solve(A, dB - dA X)`, `dAi = -Ai dA Ai`, `d det = det sum(inv(A).T * dA)`,
`d logabsdet = sum(inv(A).T * dA)`, `dL = L phi(inv(L) sym(dA) inv(L).T)`,
`dX = solve_triangular(A, dB - op(triangle(dA)) X)`.
The references of the scipy primitives, shared by the compiler and the tape, are here too:
`scipy_cholesky`, `solve_triangular`, `check_finite` (scipy's check: ValueError "array must
not contain infs or NaNs") and `triangle`, and the tape's `tril_halfdiag`; the scipy ones
import scipy when called.
`shapes` are the operands' shapes. At a singular matrix the rules that need `inv(A)` raise
numpy's LinAlgError (numpy's det is 0 there, but its derivative is not defined by these
formulas).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .vocabulary import Linear, Matrix, define

Shape = tuple[int, ...]


class Stack:
    """The words a rule needs besides the vocabulary's for values stacked over the batch axes
    `batch` (() for one matrix, where each word emits what the 2-D rules always did):
    matrices of shape `batch + (m, n)`, vectors `batch + (k,)` (one per matrix) and scalars
    of shape `batch`. The broadcasting words (`matmul`, `solve`, the elementwise ones) serve
    stacks as they are."""

    def __init__(self, o: Any, batch: Shape) -> None:
        self.o, self.batch = o, tuple(batch)

    def axis(self, i: int) -> int:
        """The axis of the stack that is axis `i` (0: rows, 1: columns) of each matrix."""
        return len(self.batch) + i

    def t(self, x: Any) -> Any:
        """Each matrix transposed (the last two axes swapped)."""
        rows = len(self.batch)
        return self.o.transpose(x, (*range(rows), rows + 1, rows))

    def h(self, x: Any) -> Any:
        """Each matrix's conjugate transpose (its transpose for real values)."""
        return self.o.conj(self.t(x))

    def row(self, v: Any, k: int) -> Any:
        """A vector per matrix standing as a row (it scales the columns of a matrix)."""
        return self.o.reshape(v, (*self.batch, 1, k)) if self.batch else v

    def column(self, v: Any, k: int) -> Any:
        """A vector per matrix standing as a column (it scales the rows of a matrix)."""
        return self.o.reshape(v, (*self.batch, k, 1))

    def scalar(self, v: Any) -> Any:
        """A scalar per matrix standing against its matrix."""
        return self.o.reshape(v, (*self.batch, 1, 1)) if self.batch else v

    def total(self, x: Any) -> Any:
        """The sum of each matrix's entries."""
        return self.o.reduce_sum(x, (self.axis(0), self.axis(1)) if self.batch else None,
                                 False)


def stack_of(o: Any, shape: Shape) -> Stack:
    """The stack of a matrix operand of `shape`."""
    return Stack(o, shape[:-2])


def _solution_stack(o: Any, shapes: list[Shape]) -> Stack:
    """The stack of `X = solve(A, B)`: one matrix for a vector `B`, else the batch axes of `A`
    and `B` broadcast."""
    a, b = shapes
    return Stack(o, () if len(b) == 1 else np.broadcast_shapes(a[:-2], b[:-2]))


def _operand_cotangents(o, xs, ga, gb, shapes):
    """The cotangents of `A` and `B` from theirs over the solution's batch axes: summed over
    those broadcasting added."""
    return [g if (*xs.batch, *shape[-2:]) == shape else o.sum_to(g, shape)
            for g, shape in zip((ga, gb), shapes, strict=True)]


def _scipy_cholesky_vjp(o, cts, inputs, outputs, shapes, *, lower):
    """The upper factor U of A is the lower one of A.T, transposed (so is the cotangent of A,
    which lies in the triangle read)."""
    if lower or cts[0] is None:
        return _cholesky_vjp(o, cts, inputs, outputs, shapes)
    st = stack_of(o, shapes[0])
    (ga,) = _cholesky_vjp(o, [st.t(cts[0])], inputs, [st.t(outputs[0])], shapes)
    return [st.t(ga)]


def _scipy_cholesky_jvp(o, tangents, inputs, outputs, shapes, *, lower):
    if lower or tangents[0] is None:
        return _cholesky_jvp(o, tangents, inputs, outputs, shapes)
    st = stack_of(o, shapes[0])
    (dl,) = _cholesky_jvp(o, [st.t(tangents[0])], inputs, [st.t(outputs[0])], shapes)
    return [st.t(dl)]


def _outer(o, xs, gb, x, shapes):
    """gB X^H, for a vector or matrix right-hand side (`xs` the solution's stack)."""
    if len(shapes[1]) == 1:
        n = shapes[1][0]
        return o.mul(o.reshape(gb, (n, 1)), o.reshape(o.conj(x), (1, n)))
    return o.matmul(gb, xs.h(x))


def _minus(o, tb, moved):
    """tb - moved, either None (zero)."""
    return tb if moved is None else o.neg(moved) if tb is None else o.sub(tb, moved)


def _solve_vjp(o, cts, inputs, outputs, shapes):
    (g,), (a, _), (x,) = cts, inputs, outputs
    if g is None:
        return [None, None]
    xs = _solution_stack(o, shapes)
    gb = o.solve(stack_of(o, shapes[0]).h(a), g)
    return _operand_cotangents(o, xs, o.neg(_outer(o, xs, gb, x, shapes)), gb, shapes)


def _solve_jvp(o, tangents, inputs, outputs, shapes):
    (ta, tb), (a, _), (x,) = tangents, inputs, outputs
    rhs = _minus(o, tb, None if ta is None else o.matmul(ta, x))
    return [None if rhs is None else o.solve(a, rhs)]


def _triangle_of(o, x, lower, unit_diagonal):
    return o.triangle(x, lower=lower, diagonal=0.0 if unit_diagonal else 1.0)


def _solve_triangular_vjp(o, cts, inputs, outputs, shapes, *, trans, lower, unit_diagonal):
    (g,), (a, _), (x,) = cts, inputs, outputs
    if g is None:
        return [None, None]
    xs = _solution_stack(o, shapes)
    gb = o.solve_triangular(a, g, trans=0 if trans else 1, lower=lower,
                            unit_diagonal=unit_diagonal)
    outer = _outer(o, xs, gb, x, shapes)
    ga = _triangle_of(o, xs.t(outer) if trans else outer, lower, unit_diagonal)
    return _operand_cotangents(o, xs, o.neg(ga), gb, shapes)


def _solve_triangular_jvp(o, tangents, inputs, outputs, shapes, *, trans, lower,
                          unit_diagonal):
    (ta, tb), (a, _), (x,) = tangents, inputs, outputs
    moved = None
    if ta is not None:
        t = _triangle_of(o, ta, lower, unit_diagonal)
        moved = o.matmul(stack_of(o, shapes[0]).t(t) if trans else t, x)
    rhs = _minus(o, tb, moved)
    return [None if rhs is None else o.solve_triangular(
        a, rhs, trans=trans, lower=lower, unit_diagonal=unit_diagonal)]


def _inv_vjp(o, cts, inputs, outputs, shapes):
    (g,), (ai,) = cts, outputs
    if g is None:
        return [None]
    ait = stack_of(o, shapes[0]).h(ai)
    return [o.neg(o.matmul(o.matmul(ait, g), ait))]


def _inv_jvp(o, tangents, inputs, outputs, shapes):
    (t,), (ai,) = tangents, outputs
    return [None if t is None else o.neg(o.matmul(o.matmul(ai, t), ai))]


def _inverse_transposed(st, a):
    return st.t(st.o.inv(a))


def _det_vjp(o, cts, inputs, outputs, shapes):
    (g,), (a,), (d,) = cts, inputs, outputs
    st = stack_of(o, shapes[0])
    return [None if g is None else o.mul(st.scalar(o.mul(g, d)), _inverse_transposed(st, a))]


def _trace_against(st, a, t):
    """trace(inv(A) t) = sum(inv(A).T * t), per matrix."""
    return st.total(st.o.mul(_inverse_transposed(st, a), t))


def _det_jvp(o, tangents, inputs, outputs, shapes):
    (t,), (a,), (d,) = tangents, inputs, outputs
    return [None if t is None else o.mul(d, _trace_against(stack_of(o, shapes[0]), a, t))]


def _logabsdet_vjp(o, cts, inputs, outputs, shapes):
    (g,), (a,) = cts, inputs
    st = stack_of(o, shapes[0])
    return [None if g is None else o.mul(st.scalar(g), _inverse_transposed(st, a))]


def _logabsdet_jvp(o, tangents, inputs, outputs, shapes):
    (t,), (a,) = tangents, inputs
    return [None if t is None else _trace_against(stack_of(o, shapes[0]), a, t)]


def _cholesky_vjp(o, cts, inputs, outputs, shapes):
    (g,), (lower,) = cts, outputs
    if g is None:
        return [None]
    st = stack_of(o, shapes[0])
    p = o.tril_halfdiag(o.matmul(st.t(lower), g))
    # S.T = inv(L).T (inv(L).T P).T by two triangular solves (no inverse, no products)
    y = o.solve_triangular(lower, p, trans=1, lower=True, unit_diagonal=False)
    s_t = o.solve_triangular(lower, st.t(y), trans=1, lower=True, unit_diagonal=False)
    # S + S.T is the cotangent of the symmetric matrix the triangle stands for; the entry
    # A[i, j] below the diagonal stands for both of its (i, j) and (j, i)
    return [o.triangle(o.add(s_t, st.t(s_t)), lower=True, diagonal=0.5)]


def _cholesky_jvp(o, tangents, inputs, outputs, shapes):
    (t,), (lower,) = tangents, outputs
    if t is None:
        return [None]
    st = stack_of(o, shapes[0])
    li = o.inv(lower)
    symmetric = o.add(o.triangle(t, lower=True, diagonal=1.0),
                      st.t(o.triangle(t, lower=True, diagonal=0.0)))
    return [o.matmul(lower, o.tril_halfdiag(o.matmul(o.matmul(li, symmetric), st.t(li))))]


define(Matrix("solve", _solve_vjp, _solve_jvp, reads_inputs=True, reads_output=True))
define(Matrix("inv", _inv_vjp, _inv_jvp, reads_output=True))
define(Matrix("det", _det_vjp, _det_jvp, reads_inputs=True, reads_output=True))
define(Matrix("slogdet", _logabsdet_vjp, _logabsdet_jvp, reads_inputs=True))
define(Matrix("cholesky", _cholesky_vjp, _cholesky_jvp, reads_output=True))
define(Matrix("scipy_cholesky", _scipy_cholesky_vjp, _scipy_cholesky_jvp, reads_output=True))
define(Matrix("solve_triangular", _solve_triangular_vjp, _solve_triangular_jvp,
              reads_inputs=True, reads_output=True))
define(Matrix("check_finite", lambda o, cts, inputs, outputs, shapes: list(cts),
              lambda o, tangents, inputs, outputs, shapes: list(tangents)))
# phi is self-adjoint: <phi(x), y> = sum_{i > j} x_ij y_ij + sum_i x_ii y_ii / 2 = <x, phi(y)>
define(Linear("tril_halfdiag", lambda o, g, shapes: [o.tril_halfdiag(g)]))
# a mask: self-adjoint too
define(Linear("triangle", lambda o, g, shapes, *, lower, diagonal: [
    o.triangle(g, lower=lower, diagonal=diagonal)]))


def scipy_cholesky(a: np.ndarray, *, lower: bool) -> np.ndarray:
    import scipy.linalg

    return scipy.linalg.cholesky(a, lower=lower, check_finite=False)


def solve_triangular(a: np.ndarray, b: np.ndarray, *, trans: int, lower: bool,
                     unit_diagonal: bool) -> np.ndarray:
    import scipy.linalg

    return scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower,
                                         unit_diagonal=unit_diagonal, check_finite=False)


def check_finite(x: np.ndarray) -> np.ndarray:
    if not np.isfinite(x).all():
        raise ValueError("array must not contain infs or NaNs")
    return x


def _diagonal_scaled(x: np.ndarray, factor: float) -> np.ndarray:
    """Each matrix's diagonal times `factor`, zeros elsewhere."""
    return np.where(np.eye(x.shape[-1], dtype=bool), factor * x, 0.0)


def triangle(x: np.ndarray, *, lower: bool, diagonal: float) -> np.ndarray:
    kept = np.tril(x, -1) if lower else np.triu(x, 1)
    return kept + _diagonal_scaled(x, diagonal) if diagonal else kept


def tril_halfdiag(x: np.ndarray) -> np.ndarray:
    """The lower triangle with the diagonal halved."""
    return np.tril(x) - _diagonal_scaled(x, 0.5)
