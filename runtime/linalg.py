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

Stacks: each takes a stack of matrices `(..., n, n)` as numpy (and scipy) do, with the same
values, and differentiates it (to any order: the shared rules are written for stacks).
`solve`'s, `solve_triangular`'s and `cho_solve`'s `b` is one vector for every matrix when
`b.ndim == 1` (numpy 2's and scipy's rule: passed to a stack, the primitives get it as a
column), else a stack `(..., n, k)` whose batch axes broadcast with the matrices'.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from adlite import derivatives
from adlite.derivatives import linalg as references

from . import functional as F
from .primitive import PRIMITIVES
from .primitives import RuleContext, _register_shared, _shared_linear
from .vocabulary import TENSOR_OPS


def _matrix(name: str, node_name: str, impl) -> None:
    formula = derivatives.FORMULAS[name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        return tuple(formula.vjp(TENSOR_OPS, [g], ctx.inputs, [ctx.output], ctx.shapes,
                                 **ctx.params))

    _register_shared(name, node_name, impl, vjp, formula)


_matrix("solve", "LinalgSolveExBackward0", np.linalg.solve)
_matrix("inv", "LinalgInvExBackward0", np.linalg.inv)
# their rules hold for complex matrices (conjugate transposes)
for _name in ("solve", "inv"):
    PRIMITIVES[_name] = dataclasses.replace(PRIMITIVES[_name], takes_complex=True)
_matrix("det", "LinalgDetBackward0", lambda a: np.asarray(np.linalg.det(a)))
_matrix("slogdet", "LinalgSlogdetBackward0", lambda a: np.asarray(np.linalg.slogdet(a)[1]))
_matrix("cholesky", "LinalgCholeskyExBackward0", np.linalg.cholesky)
_shared_linear("tril_halfdiag", "TrilHalfdiagBackward0", references.tril_halfdiag)
_matrix("scipy_cholesky", "LinalgCholeskyExBackward0", references.scipy_cholesky)
_matrix("solve_triangular", "LinalgSolveTriangularBackward0", references.solve_triangular)
_matrix("check_finite", "CheckFiniteBackward0", lambda x: np.array(references.check_finite(x)))
_shared_linear("triangle", "TriangleBackward0", references.triangle)


def _by_columns(solve: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """`solve(a, b)`; a vector `b` against a stack of matrices `a` solved as one column (the
    primitives take a vector with one matrix only)."""
    if F.constant(b).ndim != 1 or F.constant(a).ndim == 2:
        return solve(a, b)
    x = solve(a, F.reshape(b, (-1, 1)))
    return F.reshape(x, x.shape[:-1])


def solve(a, b):
    return _by_columns(functools.partial(F.apply, "solve"), a, b)


def inv(a):
    return F.apply("inv", a)


def det(a):
    return F.apply("det", a)


def slogdet(a):
    sign = F.constant(np.linalg.slogdet(F.constant(a).data)[0])
    return sign, F.apply("slogdet", a)


def cholesky(a, upper: bool = False):
    """numpy's: the lower factor of the lower triangle, or with `upper` the upper factor of the
    upper triangle (the lower one of `a`'s transpose, transposed)."""
    if not upper:
        return F.apply("cholesky", a)
    return F.swapaxes(F.apply("cholesky", F.swapaxes(a, -1, -2)), -1, -2)


def _checked(a, check_finite: bool):
    return F.apply("check_finite", a) if check_finite else a


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     check_finite: bool = True):
    """scipy.linalg.solve_triangular (trans 0, 1 or 2, or 'N', 'T', 'C')."""
    trans = {"N": 0, "T": 1, "C": 2}.get(trans, trans)
    a, b = _checked(a, check_finite), _checked(b, check_finite)
    return _by_columns(functools.partial(F.apply, "solve_triangular", trans=trans, lower=lower,
                                         unit_diagonal=unit_diagonal), a, b)


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
    return _by_columns(functools.partial(_cho_solve, lower=lower), c, b)


def _cho_solve(c, b, *, lower: bool):
    first = F.apply("solve_triangular", c, b, trans=0 if lower else 1, lower=lower,
                    unit_diagonal=False)
    return F.apply("solve_triangular", c, first, trans=1 if lower else 0, lower=lower,
                   unit_diagonal=False)


FUNCTIONS = {np.linalg.solve: solve, np.linalg.inv: inv, np.linalg.det: det,
             np.linalg.slogdet: slogdet, np.linalg.cholesky: cholesky}
