"""`np.linalg` on the eager tape: `solve`, `inv`, `det`, `slogdet`, `cholesky` (and
`tril_halfdiag`, used by the Cholesky derivatives); scipy.linalg's `solve_triangular`,
`cholesky` (`scipy_cholesky`, `lower=False` by default as scipy's), `cho_factor`, `cho_solve`
(with `triangle` and `check_finite`, which their derivatives and scipy's checks use).

Contract: each is a tape primitive whose VJP is the shared formula of `adlite.derivatives.linalg`
(saving what the formula reads), with numpy's function as its implementation (so a singular
matrix raises numpy's LinAlgError). `slogdet(a)` returns `(sign, logabsdet)`: the sign is a
constant tensor (it has no derivative), `logabsdet` the primitive `slogdet`. The scipy
functions take scipy's arguments (`check_finite=True` checks the operands), with the
references of `adlite.derivatives.linalg`, which import scipy when called. numpy's
`np.linalg.*` called with a Tensor dispatch here (`numpy_protocol`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adlite import derivatives
from adlite.derivatives import linalg as references

from . import functional as F
from .primitives import RuleContext, _register_shared, _shared_linear
from .vocabulary import TENSOR_OPS


def _matrix(name: str, node_name: str, impl) -> None:
    formula = derivatives.FORMULAS[name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        return tuple(formula.vjp(TENSOR_OPS, [g], ctx.inputs, [ctx.output], ctx.shapes,
                                 **ctx.params))

    _register_shared(name, node_name, impl, vjp, formula)


def _tril_halfdiag(x: np.ndarray) -> np.ndarray:
    return np.tril(x) - 0.5 * np.diag(np.diag(x))


_matrix("solve", "LinalgSolveExBackward0", np.linalg.solve)
_matrix("inv", "LinalgInvExBackward0", np.linalg.inv)
_matrix("det", "LinalgDetBackward0", lambda a: np.asarray(np.linalg.det(a)))
_matrix("slogdet", "LinalgSlogdetBackward0", lambda a: np.asarray(np.linalg.slogdet(a)[1]))
_matrix("cholesky", "LinalgCholeskyExBackward0", np.linalg.cholesky)
_shared_linear("tril_halfdiag", "TrilHalfdiagBackward0", _tril_halfdiag)
_matrix("scipy_cholesky", "LinalgCholeskyExBackward0", references.scipy_cholesky)
_matrix("solve_triangular", "LinalgSolveTriangularBackward0", references.solve_triangular)
_matrix("check_finite", "CheckFiniteBackward0", lambda x: np.array(references.check_finite(x)))
_shared_linear("triangle", "TriangleBackward0", references.triangle)


def solve(a, b):
    return F.apply("solve", a, b)


def inv(a):
    return F.apply("inv", a)


def det(a):
    return F.apply("det", a)


def slogdet(a):
    sign = F.constant(np.linalg.slogdet(F.constant(a).data)[0])
    return sign, F.apply("slogdet", a)


def cholesky(a, upper: bool = False):
    lower = F.apply("cholesky", a)
    return F.transpose(lower) if upper else lower


def _checked(a, check_finite: bool):
    return F.apply("check_finite", a) if check_finite else a


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     check_finite: bool = True):
    """scipy.linalg.solve_triangular (trans 0, 1 or 2, or 'N', 'T', 'C')."""
    trans = {"N": 0, "T": 1, "C": 2}.get(trans, trans)
    a, b = _checked(a, check_finite), _checked(b, check_finite)
    return F.apply("solve_triangular", a, b, trans=trans, lower=lower,
                   unit_diagonal=unit_diagonal)


def scipy_cholesky(a, lower: bool = False, check_finite: bool = True):
    """scipy.linalg.cholesky: the upper factor by default (of the upper triangle of `a`)."""
    return F.apply("scipy_cholesky", _checked(a, check_finite), lower=lower)


def cho_factor(a, lower: bool = False, check_finite: bool = True):
    """scipy.linalg.cho_factor: the factor, with what `a` has in the other triangle."""
    factor = scipy_cholesky(a, lower, check_finite)
    return F.add(factor, F.apply("triangle", a, lower=not lower, diagonal=0.0)), lower


def cho_solve(c_and_lower, b, check_finite: bool = True):
    """scipy.linalg.cho_solve: two triangular solves with the factor."""
    c, lower = c_and_lower
    c, b = _checked(c, check_finite), _checked(b, check_finite)
    first = F.apply("solve_triangular", c, b, trans=0 if lower else 1, lower=lower,
                    unit_diagonal=False)
    return F.apply("solve_triangular", c, first, trans=1 if lower else 0, lower=lower,
                   unit_diagonal=False)


FUNCTIONS = {np.linalg.solve: solve, np.linalg.inv: inv, np.linalg.det: det,
             np.linalg.slogdet: slogdet, np.linalg.cholesky: cholesky}
