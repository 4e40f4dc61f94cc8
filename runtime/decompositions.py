"""`np.linalg` decompositions on the eager tape: `eigh`, `eigvalsh`, `svd`, `qr`.

Contract: the packed primitives of `adlite.derivatives.decompositions` (numpy's functions as
implementations, so they raise numpy's LinAlgError), whose VJP is the shared formula; these
functions convert the operand to float64 and the parts back to float32 for a float32 operand,
as numpy computes, and return numpy's tuples (plain tuples). `eigh(a, UPLO)` / `eigvalsh`
rebuild the symmetric matrix from the triangle numpy reads (the other gets no gradient).
`svd(a, full_matrices=True, compute_uv=True)`: with `full_matrices` on a non-square matrix the
gradient treats the extra singular vectors as constants (the compiler refuses to differentiate
them). `qr(a, mode)`: 'reduced', 'complete' or 'r'; its gradient needs rows >= columns.
numpy's `np.linalg.*` called with a Tensor dispatch here (`numpy_protocol`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adlite import derivatives
from adlite.derivatives.decompositions import layout, unpack

from . import functional as F
from .primitives import RuleContext, _register_shared
from .vocabulary import TENSOR_OPS

_IMPLS = {"eigh": lambda a, uplo="L": np.concatenate([np.ravel(p) for p in
                                                      np.linalg.eigh(a, UPLO=uplo)]),
          "eigvalsh": lambda a, uplo="L": np.linalg.eigvalsh(a, UPLO=uplo),
          "svd": lambda a, full=False: np.concatenate(
              [np.ravel(p) for p in np.linalg.svd(a, full_matrices=full)]),
          "svdvals": lambda a: np.linalg.svd(a, compute_uv=False),
          "qr": lambda a, complete=False: np.concatenate(
              [np.ravel(p) for p in np.linalg.qr(a, "complete" if complete else "reduced")])}


def _decomposition(name: str) -> None:
    formula = derivatives.FORMULAS[name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        return tuple(formula.vjp(TENSOR_OPS, [g], ctx.inputs, [ctx.output], ctx.shapes,
                                 ctx.params))

    _register_shared(name, f"Linalg{name.capitalize()}Backward0", _IMPLS[name], vjp, formula)


for _name in _IMPLS:
    _decomposition(_name)


def _operand(a) -> tuple[Any, np.dtype]:
    a = F.constant(a)
    out = np.dtype(np.float32) if a.dtype == np.float32 else np.dtype(np.float64)
    return F.astype(a, np.float64), out


def _parts(name: str, a, out: np.dtype, **params) -> list[Any]:
    packed = F.apply(name, a, **params)
    parts = unpack(TENSOR_OPS, packed, layout(name, [a.shape], params))
    return [F.astype(p, out) for p in parts]


def _symmetric(a, uplo: str):
    lower = np.tri(a.shape[0], dtype=bool)
    return F.where(lower if uplo == "L" else lower.T, a, F.transpose(a))


def eigh(a, UPLO: str = "L"):  # noqa: N803 - numpy's parameter name
    a, out = _operand(a)
    return tuple(_parts("eigh", _symmetric(a, UPLO), out, uplo=UPLO))


def eigvalsh(a, UPLO: str = "L"):  # noqa: N803 - numpy's parameter name
    a, out = _operand(a)
    return _parts("eigvalsh", _symmetric(a, UPLO), out, uplo=UPLO)[0]


def svd(a, full_matrices: bool = True, compute_uv: bool = True):
    a, out = _operand(a)
    if not compute_uv:
        return _parts("svdvals", a, out)[0]
    return tuple(_parts("svd", a, out, full=bool(full_matrices)))


def qr(a, mode: str = "reduced"):
    a, out = _operand(a)
    if mode not in ("reduced", "complete", "r"):
        raise NotImplementedError(f"np.linalg.qr(mode={mode!r}) on tensors")
    q, r = _parts("qr", a, out, complete=mode == "complete")
    return r if mode == "r" else (q, r)


FUNCTIONS = {np.linalg.eigh: eigh, np.linalg.eigvalsh: eigvalsh, np.linalg.svd: svd,
             np.linalg.qr: qr}
