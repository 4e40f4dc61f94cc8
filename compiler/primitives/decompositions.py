"""The matrix decompositions of `np.linalg` (`eigh`, `eigvalsh`, `svd`, `svdvals`, `qr`,
`lstsq`, `eig`, `eigvals`) as packed primitives, and `no_derivative`, the identity that refuses
derivatives.

Contract: each decomposition takes 2-D float64 operands (numpy computes float32 input in
float64 too: the frontend converts around the primitive, as numpy rounds the results) and
returns the 1-D packed parts of `adlite.derivatives.decompositions` (its docstring has the
layouts and the derivative formulas, which the `vjp` / `jvp` rules run with the IR builder).
Parameters: `uplo` ("L" or "U", the triangle LAPACK reads) of `eigh` / `eigvalsh`, `full` of
`svd`, `complete` of `qr`, `rcond` (a float, numpy's default already resolved) of `lstsq`.
Shapes numpy rejects raise numpy's message (a `TypeError` of the type rule, which the
frontend reports at the user's line); empty matrices are refused. The references (`IMPLS`:
`adlite.derivatives.decompositions.REFERENCES`, shared with the tape, called by the Python
backend as `_rt.decompositions.IMPLS`) are numpy's functions, so they
raise numpy's LinAlgError when LAPACK does not converge; the LLVM backend
(`backends/llvm/decompositions.py`) calls the same LAPACK routines.
Complex numbers: `eigh`, `eigvalsh`, `svd` and `svdvals` take a complex128 matrix too, and
`eig` / `eigvals` (whose results are complex) a real or complex one; before `complex_pairs`
the packed result is complex128 (laid out as a real one's); the pass rewrites them into the
forms after it (`pairs=True`), whose operand is interleaved, f64 `(m, n, 2)`, where
`complex=True` (a real `eig` / `eigvals` operand stays as it is), whose complex parts are
packed interleaved (`COMPLEX_PARTS`), and whose rules run the shared formulas on
pairs (`PairOps`).
`no_derivative(x, refusal)` is `x`; differentiating it (in either mode) raises the
`AdliteSyntaxError` whose arguments `refusal` holds (the frontend builds it at the user's
line): it guards the results whose derivative is not unique.
"""

from __future__ import annotations

import math

import numpy as np

from adlite import derivatives
from adlite.derivatives.decompositions import COMPLEX_PARTS, REFERENCES, layout, packed_size

from .. import status
from ..errors import AdliteSyntaxError
from ..ir.core import C128, F64, Type
from ..ir.primitive import Primitive, register
from .pair_ops import (
    PairOps,
    deinterleaved,
    interleaved,
    packed_interleaved,
    packed_pair,
)
from .vocabulary import BuilderOps

NUMPY = {"eigh": np.linalg.eigh, "eigvalsh": np.linalg.eigvalsh, "svd": np.linalg.svd,
         "svdvals": np.linalg.svd, "qr": np.linalg.qr, "lstsq": np.linalg.lstsq,
         "eig": np.linalg.eig, "eigvals": np.linalg.eigvals}


LAPACK = frozenset(NUMPY)  # the primitives the LLVM backend lowers to LAPACK calls
IMPLS = REFERENCES  # numpy's functions (`adlite.derivatives.decompositions`)


def _numpy_message(name: str, types: list[Type]) -> str | None:
    """What numpy says calling `name` on operands of these shapes, or None if it accepts."""
    probes = [np.ones(t.shape or ()) for t in types]
    try:
        NUMPY[name](*probes)
    except (ValueError, TypeError) as e:  # LinAlgError included
        return str(e)
    return None


def _complex_type(name: str, t: Type, params: dict) -> Type:
    """The packed result of decomposition `name` with complex parts: complex itself before
    `complex_pairs` (operand c128, or f64 for `eig`), real with its complex parts
    interleaved after (`pairs`; operand f64 (m, n, 2) with `complex`, else f64)."""
    if name not in COMPLEX_PARTS:
        raise TypeError(f"{name}: complex matrices are not supported in compiled code")
    interleaved, before = params.get("complex", False), not params.get("pairs", False)
    if t.scalar not in ((C128, F64) if before else (F64,)) or \
            len(t.shape) != (3 if interleaved else 2) or (interleaved and t.shape[-1] != 2):
        raise TypeError(f"{name}: a float64 or complex128 matrix expected, got {t}")
    shape = t.shape[:2]
    message = _numpy_message(name, [F64.with_shape(shape)])
    if message is not None:
        raise TypeError(message)
    if 0 in shape:
        raise TypeError(f"{name}: empty matrices are not supported in compiled code")
    parts = layout(name, [shape], params)
    if before:
        return C128.with_shape((packed_size(parts),))
    size = sum(math.prod(p) * (2 if c else 1) for p, c in zip(parts, COMPLEX_PARTS[name],
                                                               strict=True))
    return F64.with_shape((size,))


def _type_rule(name: str):
    def rule(in_types, params):
        if in_types[0].is_complex or params.get("pairs", False) or name in ("eig", "eigvals"):
            return [_complex_type(name, in_types[0], params)]
        for t in in_types:
            if not t.is_array or t.scalar != F64:
                raise TypeError(f"{name}: float64 arrays expected, got {t}")
        message = _numpy_message(name, in_types)
        if message is not None:
            raise TypeError(message)
        if len(in_types[0].shape) != 2:
            raise TypeError(f"{name}: batched (more than 2-D) matrices are not supported in "
                            "compiled code")
        if 0 in in_types[0].shape or (name == "lstsq" and 0 in in_types[1].shape):
            raise TypeError(f"{name}: empty matrices are not supported in compiled code")
        parts = layout(name, [t.shape for t in in_types], params)
        return [F64.with_shape((packed_size(parts),))]

    return rule


def _rules(name: str) -> dict:
    formula = derivatives.FORMULAS[name]

    def shapes(e):
        return [a.type.shape for a in e.inputs]

    def vjp(b, e, cts):
        if _paired(e):
            return _complex_vjp(formula, b, e, cts)
        return formula.vjp(BuilderOps(b), cts, e.inputs, e.outputs, shapes(e), e.params)

    def jvp(b, e, t):
        if _paired(e):
            return _complex_jvp(formula, b, e, t)
        return formula.jvp(BuilderOps(b), t, e.inputs, e.outputs, shapes(e), e.params)

    return {"vjp": vjp, "jvp": jvp, "formula": formula}


def _paired(e) -> bool:
    """Whether the result of decomposition equation `e` holds complex parts (interleaved)."""
    return e.params.get("pairs", False)


def _operand(o, e):
    """The matrix of decomposition equation `e` (a complex one as a pair)."""
    a = e.inputs[0]
    return deinterleaved(o, a) if e.params.get("complex", False) else a


def _complex_vjp(formula, b, e, cts):
    """The formula run on the matrix and the parts as `Pair`s (`pair_ops`); a real
    matrix's cotangent is the real part of the complex one."""
    o, shape, name = BuilderOps(b), e.inputs[0].type.shape[:2], e.prim
    (g,) = cts
    if g is None:
        return [None]
    g, out = (packed_pair(o, x, name, shape, e.params) for x in (g, e.outputs[0]))
    (ga,) = formula.vjp(PairOps(o), [g], [_operand(o, e)], [out], [shape], e.params)
    if ga is None or not e.params.get("complex", False):
        return [PairOps(o).real(ga)]
    return [interleaved(o, PairOps(o).as_pair(ga))]


def _complex_jvp(formula, b, e, tangents):
    o, shape, name = BuilderOps(b), e.inputs[0].type.shape[:2], e.prim
    (t,) = tangents
    if t is None:
        return [None]
    if e.params.get("complex", False):
        t = deinterleaved(o, t)
    out = packed_pair(o, e.outputs[0], name, shape, e.params)
    (dt,) = formula.jvp(PairOps(o), [t], [_operand(o, e)], [out], [shape], e.params)
    return [packed_interleaved(o, dt, name, shape, e.params)]


def _py(name: str, params: tuple[str, ...]):
    def source(args, e):
        extra = [repr(e.params[p]) for p in params if p in e.params]
        return f"_rt.decompositions.IMPLS[{name!r}]({', '.join(list(args) + extra)})"

    return source


_PARAMS = {"eigh": ("uplo", "complex", "pairs"), "eigvalsh": ("uplo", "complex", "pairs"),
           "svd": ("full", "complex", "pairs"), "svdvals": ("complex", "pairs"),
           "qr": ("complete",),
           "lstsq": ("rcond",), "eig": ("complex", "pairs"), "eigvals": ("complex", "pairs")}

for _name, _params in _PARAMS.items():
    _impl = IMPLS[_name]
    register(Primitive(_name, _type_rule(_name),
                       lambda *xs, _impl=_impl, **params: (_impl(*xs, **params),),
                       py=_py(_name, _params), **_rules(_name)))


def full_rank_residuals(residuals: np.ndarray, rank: np.ndarray, n: int) -> np.ndarray:
    if rank[0] != n:
        raise np.linalg.LinAlgError(status.LINALG_ERRORS[status.LSTSQ_RANK_DEFICIENT])
    return residuals


def _residuals_type(in_types, params):
    return [in_types[0]]


def _residuals_vjp(b, e, cts):
    return [cts[0], None]


def _residuals_jvp(b, e, tangents):
    return [tangents[0]]


register(Primitive("full_rank_residuals", _residuals_type,
                   lambda r, k, n: (full_rank_residuals(r, k, n),), vjp=_residuals_vjp,
                   jvp=_residuals_jvp, py=lambda args, e: "_rt.decompositions."
                   f"full_rank_residuals({args[0]}, {args[1]}, {e.params['n']})"))


def _refuse(b, e, _):
    raise AdliteSyntaxError(*e.params["refusal"])


register(Primitive("no_derivative", lambda in_types, params: [in_types[0]],
                   lambda x, **params: (x,), vjp=_refuse, jvp=_refuse,
                   py=lambda args, e: args[0]))
