"""Linear algebra of square matrices (`np.linalg`): `solve`, `inv`, `det`, `slogdet` (the log
of |det|) with `det_sign` (the sign slogdet returns beside it), `cholesky`, and
`tril_halfdiag` (the lower triangle with the diagonal halved, which the Cholesky derivatives
use); from `scipy.linalg`: `solve_triangular(A, B, trans=0|1|2, lower, unit_diagonal)`,
`scipy_cholesky(A, lower)` (scipy's factor: the upper one `U` with A = U.T U by
default), `check_finite` (the identity, or
scipy's ValueError for a NaN or infinity: scipy's `check_finite=True`), and `triangle`
(`tril` (`lower`) or `triu` with the diagonal scaled by `diagonal`, 1 or 0), which the
triangular solve's derivatives use. Their references are those of `adlite.derivatives.linalg`
(shared with the tape), which import scipy when called (the frontend emits them only for
programs that imported scipy).

Contract: operands are 2-D float64 or float32 arrays of one dtype (no batches); `solve(A, B)`
takes a vector or a matrix `B`. `solve` and `inv` also take complex operands before
`passes/complex_pairs.py`, which rewrites them into the real system of twice the size
(`pair_ops.embedded`); so do `det`, `slogdet` and `det_sign`, which it rewrites into
`complex_slogdet` (`complex_linalg.py`). Shapes numpy rejects raise numpy's own message (`TypeError`
from the type rule, which the frontend reports at the user's line). The references are
numpy's functions, so the Python backend raises numpy's LinAlgError ("Singular matrix" from
`solve` and `inv`, "Matrix is not positive definite" from `cholesky`, which reads the lower
triangle only); the LLVM backend's LU and Cholesky kernels (`backends/llvm/linalg.py`) leave
with the statuses that raise the same. `det` of a singular matrix is 0 and `slogdet` gives
(0, -inf), as numpy's. scipy's errors are scipy's: "singular matrix: resolution failed at
diagonal k", "k-th leading minor of the array is not positive definite" (LinAlgError), and
its messages for shapes it rejects. The VJP and JVP rules are the shared formulas of
`adlite.derivatives.linalg`, run with the IR builder; `det_sign` is not differentiable.
"""

from __future__ import annotations

import numpy as np

from adlite import derivatives
from adlite.derivatives.linalg import check_finite, scipy_cholesky, solve_triangular, triangle

from ..ir.core import Type
from ..ir.primitive import Primitive, register
from .arrays import _linear_rules as linear_rules
from .vocabulary import BuilderOps


def _numpy_message(fn, *types: Type) -> str:
    """What numpy (or scipy) says calling `fn` on operands of these shapes (identity-like
    matrices)."""
    batched = ("batched (more than 2-D) matrices are not supported in compiled code: loop "
               "over the matrices (for k in range(a.shape[0]))")
    if any(len(t.shape or ()) > 2 for t in types):  # numpy would compute them
        return batched
    probes = [np.eye(*t.shape) if len(t.shape or ()) == 2 else np.zeros(t.shape or ())
              for t in types]
    try:
        fn(*probes)
    except ValueError as e:  # LinAlgError included
        return str(e)
    return batched


def _float(t: Type, name: str, takes_complex: bool = False) -> None:
    if not (t.is_float or takes_complex and t.is_complex):
        raise TypeError(f"{name}: expected a float matrix, got {t}")


def _square_type(fn, name, takes_complex=False):
    def rule(in_types, params):
        (a,) = in_types
        _float(a, name, takes_complex)
        if not a.is_array or len(a.shape) != 2 or a.shape[0] != a.shape[1]:
            raise TypeError(_numpy_message(fn, a))
        return [a]

    return rule


def _scalar_of(rule):
    return lambda in_types, params: [rule(in_types, params)[0].scalar]


def _real_scalar_of(rule):
    """A scalar of the operand's real type (slogdet's logabsdet of a complex matrix too)."""
    return lambda in_types, params: [Type(rule(in_types, params)[0].scalar.dtype.real_dtype
                                          .name)]


def _solver_type(name: str, reference):
    """The type rule of `name(A, B)` (a square matrix, a vector or matrix of its rows): B's
    type; `reference()` gives the library function whose message a bad shape gets."""

    def rule(in_types, params):
        a, b = in_types
        _float(a, name, name == "solve")
        if a.name != b.name:
            raise TypeError(f"{name}: operands of one dtype expected, got {a} and {b}")
        ok = (a.is_array and b.is_array and len(a.shape) == 2 and a.shape[0] == a.shape[1]
              and len(b.shape) in (1, 2) and b.shape[0] == a.shape[0])
        if not ok:
            raise TypeError(_numpy_message(reference(), a, b))
        return [b]

    return rule


def _scipy_solve_triangular():
    import scipy.linalg

    return scipy.linalg.solve_triangular


def tril_halfdiag(x: np.ndarray) -> np.ndarray:
    return np.tril(x) - 0.5 * np.diag(np.diag(x))


def _rules(name: str) -> dict:
    formula = derivatives.FORMULAS[name]

    def shapes(e):
        return [a.type.shape for a in e.inputs]

    def vjp(b, e, cts):
        return formula.vjp(BuilderOps(b), cts, e.inputs, e.outputs, shapes(e), **e.params)

    def jvp(b, e, t):
        return formula.jvp(BuilderOps(b), t, e.inputs, e.outputs, shapes(e), **e.params)

    return {"vjp": vjp, "jvp": jvp, "formula": formula}


def _define(name, type_rule, impl, template, rules=True):
    register(Primitive(name, type_rule, lambda *xs: (impl(*xs),), py=lambda args, e:
                       template.format(*args), differentiable=rules,
                       **(_rules(name) if rules else {"vjp": None, "jvp": None})))


_define("solve", _solver_type("solve", lambda: np.linalg.solve), np.linalg.solve,
        "np.linalg.solve({0}, {1})")
_define("inv", _square_type(np.linalg.inv, "inv", takes_complex=True), np.linalg.inv,
        "np.linalg.inv({0})")
_define("det", _scalar_of(_square_type(np.linalg.det, "det", takes_complex=True)),
        np.linalg.det, "np.linalg.det({0})")
_define("slogdet", _real_scalar_of(_square_type(np.linalg.slogdet, "slogdet",
                                                takes_complex=True)),
        lambda a: np.linalg.slogdet(a)[1], "np.linalg.slogdet({0})[1]")
_define("det_sign", _scalar_of(_square_type(np.linalg.slogdet, "slogdet", takes_complex=True)),
        lambda a: np.linalg.slogdet(a)[0], "np.linalg.slogdet({0})[0]", rules=False)
_define("cholesky", _square_type(np.linalg.cholesky, "cholesky"), np.linalg.cholesky,
        "np.linalg.cholesky({0})")
register(Primitive("tril_halfdiag", _square_type(tril_halfdiag, "tril_halfdiag"),
                   lambda x: (tril_halfdiag(x),),
                   py=lambda args, e: f"_rt.linalg.tril_halfdiag({args[0]})",
                   **linear_rules("tril_halfdiag")))


def _scipy_cholesky_type(in_types, params):
    import scipy.linalg

    if not in_types[0].is_array:  # scipy makes a number a 1 x 1 matrix
        raise TypeError("cholesky: expected a matrix in compiled code, got a number")
    return _square_type(scipy.linalg.cholesky, "cholesky")(in_types, params)


def _same_type(in_types, params):
    return [in_types[0]]


def _call(name, keys=()):
    """The Python lowering: the reference `name` of this module, with parameters `keys`."""
    def py(args, e):
        return f"_rt.linalg.{name}({', '.join([*args, *(f'{k}={e.params[k]!r}' for k in keys)])})"

    return py


register(Primitive("scipy_cholesky", _scipy_cholesky_type,
                   lambda a, **p: (scipy_cholesky(a, **p),),
                   py=_call("scipy_cholesky", ("lower",)), **_rules("scipy_cholesky")))
_define("check_finite", _same_type, check_finite, "_rt.linalg.check_finite({0})")
register(Primitive("solve_triangular",
                   _solver_type("solve_triangular", _scipy_solve_triangular),
                   lambda a, b, **p: (solve_triangular(a, b, **p),),
                   py=_call("solve_triangular", ("trans", "lower", "unit_diagonal")),
                   **_rules("solve_triangular")))
register(Primitive("triangle", _same_type, lambda x, **p: (triangle(x, **p),),
                   py=_call("triangle", ("lower", "diagonal")), **linear_rules("triangle")))
