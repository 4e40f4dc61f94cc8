"""`np.linalg` on the eager tape: `solve`, `inv`, `det`, `slogdet`, `cholesky` (and
`tril_halfdiag`, used by the Cholesky derivatives).

Contract: each is a tape primitive whose VJP is the shared formula of `adlite.derivatives.linalg`
(saving what the formula reads), with numpy's function as its implementation (so a singular
matrix raises numpy's LinAlgError). `slogdet(a)` returns `(sign, logabsdet)`: the sign is a
constant tensor (it has no derivative), `logabsdet` the primitive `slogdet`. numpy's
`np.linalg.*` called with a Tensor dispatch here (`numpy_protocol`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adlite import derivatives

from . import functional as F
from .primitives import RuleContext, _register_shared, _shared_linear
from .vocabulary import TENSOR_OPS


def _matrix(name: str, node_name: str, impl) -> None:
    formula = derivatives.FORMULAS[name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        return tuple(formula.vjp(TENSOR_OPS, [g], ctx.inputs, [ctx.output], ctx.shapes))

    _register_shared(name, node_name, impl, vjp, formula)


def _tril_halfdiag(x: np.ndarray) -> np.ndarray:
    return np.tril(x) - 0.5 * np.diag(np.diag(x))


_matrix("solve", "LinalgSolveExBackward0", np.linalg.solve)
_matrix("inv", "LinalgInvExBackward0", np.linalg.inv)
_matrix("det", "LinalgDetBackward0", lambda a: np.asarray(np.linalg.det(a)))
_matrix("slogdet", "LinalgSlogdetBackward0", lambda a: np.asarray(np.linalg.slogdet(a)[1]))
_matrix("cholesky", "LinalgCholeskyExBackward0", np.linalg.cholesky)
_shared_linear("tril_halfdiag", "TrilHalfdiagBackward0", _tril_halfdiag)


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


FUNCTIONS = {np.linalg.solve: solve, np.linalg.inv: inv, np.linalg.det: det,
             np.linalg.slogdet: slogdet, np.linalg.cholesky: cholesky}
