"""`np.linalg` decompositions on the eager tape: `eigh`, `eigvalsh`, `eig`, `eigvals`, `svd`,
`qr`, `lstsq`, `pinv`, `cond` (p None, 2, -2) and `norm` with `ord`.

Complex matrices: `eigh` / `eigvalsh` (Hermitian, rebuilt from the triangle numpy reads,
the diagonal's imaginary part dropped), `svd`, `eig` and `eigvals` take them (those of
`COMPLEX_PARTS`; the shared rules hold with conjugate transposes), in PyTorch's convention
as the rest of the tape. `eig` / `eigvals` return complex arrays, real ones for a real matrix
whose eigenvalues are all real, as numpy decides from the values.

Contract: the packed primitives of `adlite.derivatives.decompositions` (numpy's functions,
its `REFERENCES`, as implementations, so they raise numpy's LinAlgError), whose VJP is the
shared formula; these functions convert the operand to float64 and the parts back to float32
for a float32 operand, as numpy computes, and return numpy's tuples (plain tuples).
`eigh(a, UPLO)` / `eigvalsh` rebuild the symmetric matrix from the triangle numpy reads (the
other gets no gradient).
`svd(a, full_matrices=True, compute_uv=True)`: with `full_matrices` on a non-square matrix the
gradient treats the extra singular vectors as constants (the compiler refuses to differentiate
them). `qr(a, mode)`: 'reduced', 'complete' or 'r'; its gradient needs rows >= columns.
`lstsq(a, b, rcond=None)` returns numpy's `(x, residuals, rank, s)` (residuals empty as
numpy's: the tape runs eagerly); its gradients need rows >= columns and full rank.
`norm`, `pinv`, `cond` run the shared composites of `adlite.derivatives.decompositions`.
numpy's `np.linalg.*` called with a Tensor dispatch here (`numpy_protocol`).

Stacks: `eigh`, `eigvalsh`, `svd`, `qr`, `pinv`, `cond` and the matrix norms (`axis` naming
the two matrix axes of a stack) take stacks of matrices `(..., m, n)` as numpy does, with
numpy's values, and differentiate them per matrix (the shared rules are written for stacks);
`lstsq` takes matrices only, as numpy's.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from adlite import derivatives
from adlite.derivatives import decompositions
from adlite.derivatives.decompositions import (
    COMPLEX_PARTS,
    REFERENCES,
    layout,
    real_parts,
    unpack,
)

from . import functional as F
from .primitive import PRIMITIVES
from .primitives import RuleContext, _register_shared
from .vocabulary import TENSOR_OPS


def _decomposition(name: str) -> None:
    formula = derivatives.FORMULAS[name]

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        return tuple(formula.vjp(TENSOR_OPS, [g], ctx.inputs, [ctx.output], ctx.shapes,
                                 ctx.params))

    prim = _register_shared(name, f"Linalg{name.capitalize()}Backward0", REFERENCES[name], vjp,
                            formula)
    if name in COMPLEX_PARTS:  # its shared rules hold for complex matrices
        PRIMITIVES[name] = dataclasses.replace(prim, takes_complex=True)

for _name in REFERENCES:
    _decomposition(_name)


def _operand(a, takes_complex: bool = False) -> tuple[Any, np.dtype]:
    """`a` in float64 (complex128 where `takes_complex`, for a complex `a`) and the dtype
    of the results (numpy's: float32 / complex64 for single-precision input)."""
    a = F.constant(a)
    if F.is_complex(a) and takes_complex:
        return F.astype(a, np.complex128), np.dtype(np.complex64 if a.dtype == np.complex64
                                                    else np.complex128)
    out = np.dtype(np.float32) if a.dtype == np.float32 else np.dtype(np.float64)
    return F.astype(a, np.float64), out


def _parts(name: str, a, out: np.dtype, *more, **params) -> list[Any]:
    """The parts of decomposition `name` in `out`; eigenvalues and singular values real."""
    packed = F.apply(name, a, *more, **params)
    parts = unpack(TENSOR_OPS, packed, layout(name, [a.shape] + [b.shape for b in more],
                                              params))
    real_out = out.type(0).real.dtype
    return [F.astype(F.real(p) if F.is_complex(p) else p, real_out) if i in real_parts(name)
            else F.astype(p, out) for i, p in enumerate(parts)]


def _symmetric(a, uplo: str):
    """The Hermitian (real: symmetric) matrix of the triangle `uplo` of `a`, as LAPACK
    reads it (a complex diagonal's imaginary part is ignored)."""
    lower = np.tri(a.shape[-1], dtype=bool)
    a_h = F.swapaxes(a, -1, -2)
    if F.is_complex(a):
        a_h = F.conj(a_h)
    h = F.where(lower if uplo == "L" else lower.T, a, a_h)
    return F.where(np.eye(a.shape[-1], dtype=bool), F.real(h), h) if F.is_complex(a) else h


def eigh(a, UPLO: str = "L"):  # noqa: N803 - numpy's parameter name
    a, out = _operand(a, True)
    return tuple(_parts("eigh", _symmetric(a, UPLO), out, uplo=UPLO))


def eigvalsh(a, UPLO: str = "L"):  # noqa: N803 - numpy's parameter name
    a, out = _operand(a, True)
    return _parts("eigvalsh", _symmetric(a, UPLO), out, uplo=UPLO)[0]


def _general_eigen(name: str, a) -> list[Any]:
    """numpy's eig / eigvals: complex results, real ones for a real matrix whose eigenvalues
    are all real (as numpy decides, from the values)."""
    a, out = _operand(a, True)
    parts = _parts(name, a, np.result_type(out, np.complex64))
    if not F.is_complex(a) and not np.any(parts[0].data.imag):
        return [F.real(p) for p in parts]
    return parts


def eig(a):
    return tuple(_general_eigen("eig", a))


def eigvals(a):
    return _general_eigen("eigvals", a)[0]


def svd(a, full_matrices: bool = True, compute_uv: bool = True):
    a, out = _operand(a, True)
    if not compute_uv:
        return _parts("svdvals", a, out)[0]
    return tuple(_parts("svd", a, out, full=bool(full_matrices)))


def qr(a, mode: str = "reduced"):
    a, out = _operand(a)
    if mode not in ("reduced", "complete", "r"):
        raise NotImplementedError(f"np.linalg.qr(mode={mode!r}) on tensors")
    q, r = _parts("qr", a, out, complete=mode == "complete")
    return r if mode == "r" else (q, r)


def lstsq(a, b, rcond=None):
    a, out_a = _operand(a)
    b, out_b = _operand(b)
    m, n = a.shape
    out = np.result_type(out_a, out_b)
    rcond = float(np.finfo(np.float64).eps * max(m, n) if rcond is None else rcond)
    x, residuals, s, rank = _parts("lstsq", a, out, b, rcond=rcond)
    if b.ndim == 1:
        x = F.reshape(x, (n,))
    rank = int(rank.data[0])
    if m <= n or rank != n:
        residuals = F.constant(np.zeros(0, out))
    return x, residuals, rank, s


def _singular_values(a):
    a, out = _operand(a)
    return _parts("svdvals", a, out)[0]


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - numpy's parameter name
    if ord is None:
        return F.norm(x, ord, axis, keepdims)
    x = F.astype(x, np.float64) if not np.issubdtype(F.constant(x).dtype, np.floating) else \
        F.constant(x)
    axis = tuple(axis) if isinstance(axis, list) else axis
    return decompositions.norm(TENSOR_OPS, x, x.shape, ord, axis, bool(keepdims),
                               x.dtype == np.float32, _singular_values)


def pinv(a, rcond=None):
    a, out = _operand(a)
    u, s, vt = _parts("svd", a, out)
    rcond = np.asarray(1e-15 if rcond is None else rcond)
    cutoff = rcond[..., np.newaxis] * np.max(s.data, axis=-1, keepdims=True)  # numpy's
    large = F.constant(s.data > cutoff)
    return decompositions.pinv(TENSOR_OPS, u, s, vt, large, min(a.shape[-2:]), a.shape[:-2])


def cond(x, p=None):
    if p not in (None, 2, -2):
        raise NotImplementedError(f"np.linalg.cond(p={p!r}) on tensors")
    s = _singular_values(x)
    has_nan = F.constant(np.isnan(F.constant(x).data).any(axis=(-2, -1)))
    with np.errstate(all="ignore"):
        return decompositions.cond(TENSOR_OPS, s, s.shape[-1], p, has_nan, s.shape[:-1])


FUNCTIONS = {np.linalg.eig: eig, np.linalg.eigvals: eigvals, np.linalg.eigh: eigh,
             np.linalg.eigvalsh: eigvalsh,
             np.linalg.svd: svd, np.linalg.qr: qr, np.linalg.lstsq: lstsq, np.linalg.norm: norm,
             np.linalg.pinv: pinv, np.linalg.cond: cond}
