"""scipy.linalg in compiled code: `solve_triangular`, `cholesky`, `cho_factor`, `cho_solve`.

Contract: `lowerings()` (registered by `scipy_special_stats` once the program has imported
`scipy.linalg`) gives the (function, lowering) pairs. Arguments bind as scipy's signatures
bind them (by position or keyword); the options are known when compiling:
- `solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
  check_finite=True)`: the primitive `solve_triangular` (`trans` 0, 1 or 2 for 'N', 'T',
  'C');
- `cholesky(a, lower=False, overwrite_a=False, check_finite=True)`: `scipy_cholesky`, the
  upper factor by default (read from the upper triangle), as scipy's;
- `cho_factor(a, lower=False, overwrite_a=False, check_finite=True)`: `(c, lower)`, `c` the
  factor with what `a` has in the other triangle (scipy before 1.18) or zeros there (1.18 on),
  as the installed scipy's;
- `cho_solve((c, lower), b, overwrite_b=False, check_finite=True)`: two triangular solves
  with the factor.
`check_finite=True` (scipy's default) checks every matrix operand (`check_finite`: scipy's
ValueError for a NaN or infinity); `overwrite_a` / `overwrite_b` must be False (compiled
code never writes into the caller's arrays). Operands of two float dtypes promote as
numpy's, int arrays become float64; shapes scipy rejects are refused at the call's line with
scipy's message, and failures raise scipy's LinAlgError (`primitives/linalg.py`).
"""

from __future__ import annotations

import functools

from ...ir.builder import const
from ..context import CallContext
from .registry import refuse_keywords

_REQUIRED = object()
_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def _bind(cx: CallContext, args, kwargs, node, signature: dict) -> dict:
    """The arguments by parameter name, as Python binds them to `signature` (name: default)."""
    names = list(signature)
    refuse_keywords(cx, kwargs, node, names)
    if len(args) > len(names):
        raise cx.source.error(node, f"expected at most {len(names)} arguments, got "
                              f"{len(args)}")
    given = dict(zip(names, args, strict=False))
    for name in kwargs:
        if name in given:
            raise cx.source.error(node, f"got multiple values for argument {name!r}")
    given |= kwargs
    missing = [n for n, d in signature.items() if d is _REQUIRED and n not in given]
    if missing:
        raise cx.source.error(node, f"missing required argument {missing[0]!r}")
    return {n: given[n] if n in given else const(d) for n, d in signature.items()}


def _flag(cx: CallContext, bound, name, node) -> bool:
    value = cx.static(bound[name], node, f"its `{name}`", "option")
    if not isinstance(value, bool | int):
        raise cx.source.error(node, f"`{name}` must be True or False, got {value!r}")
    if name.startswith("overwrite_") and value:
        raise cx.source.error(node, f"{name}=True is not supported in compiled code",
                              "compiled code never writes into its arguments: leave it False")
    return bool(value)


def _operands(cx: CallContext, bound, names, node) -> list:
    """The float matrix operands `names`, promoted to one dtype, checked when scipy would."""
    values = [cx.as_float(bound[n], node) for n in names]
    if len(values) == 2:
        values = list(cx.promote(*values, node))
    if _flag(cx, bound, "check_finite", node):
        values = [cx.b.op("check_finite", v) for v in values]
    return values


def _solve_triangular(cx: CallContext, args, kwargs, node):
    bound = _bind(cx, args, kwargs, node, {
        "a": _REQUIRED, "b": _REQUIRED, "trans": 0, "lower": False, "unit_diagonal": False,
        "overwrite_b": False, "check_finite": True})
    trans = cx.static(bound["trans"], node, "its `trans`", "option")
    if isinstance(trans, bool) or trans not in _TRANS:
        raise cx.source.error(node, f"solve_triangular: `trans` must be 0, 1, 2, 'N', 'T' "
                              f"or 'C', got {trans!r}")
    _flag(cx, bound, "overwrite_b", node)
    a, b = _operands(cx, bound, ("a", "b"), node)
    return cx.b.op("solve_triangular", a, b, trans=_TRANS[trans],
                   lower=_flag(cx, bound, "lower", node),
                   unit_diagonal=_flag(cx, bound, "unit_diagonal", node))


_FACTOR_SIGNATURE = {"a": _REQUIRED, "lower": False, "overwrite_a": False,
                     "check_finite": True}


def _factor(cx: CallContext, args, kwargs, node):
    """(the factor, lower) of scipy's `cholesky` / `cho_factor` signature."""
    bound = _bind(cx, args, kwargs, node, _FACTOR_SIGNATURE)
    _flag(cx, bound, "overwrite_a", node)
    lower = _flag(cx, bound, "lower", node)
    (a,) = _operands(cx, bound, ("a",), node)
    return cx.b.op("scipy_cholesky", a, lower=lower), lower, a


def _cholesky(cx: CallContext, args, kwargs, node):
    return _factor(cx, args, kwargs, node)[0]


def _cho_factor(cx: CallContext, args, kwargs, node):
    factor, lower, a = _factor(cx, args, kwargs, node)
    if not _keeps_the_other_triangle():
        return factor, const(lower)
    other = cx.b.op("triangle", a, lower=not lower, diagonal=0.0)
    return cx.b.add(factor, other), const(lower)


@functools.cache
def _keeps_the_other_triangle() -> bool:
    """Whether this scipy's cho_factor leaves what `a` had in the triangle it does not
    compute (before 1.18) or zeros it."""
    import numpy as np
    import scipy.linalg

    return scipy.linalg.cho_factor(np.array([[4.0, 1.0], [3.0, 9.0]]))[0][1, 0] == 3.0


def _cho_solve(cx: CallContext, args, kwargs, node):
    bound = _bind(cx, args, kwargs, node, {
        "c_and_lower": _REQUIRED, "b": _REQUIRED, "overwrite_b": False, "check_finite": True})
    pair = bound["c_and_lower"]
    if not isinstance(pair, tuple) or len(pair) != 2:
        raise cx.source.error(node, "cho_solve: expected the pair (c, lower) of cho_factor")
    _flag(cx, bound, "overwrite_b", node)
    lower = _flag(cx, {"lower": pair[1]}, "lower", node)
    c, b = _operands(cx, {**bound, "c": pair[0]}, ("c", "b"), node)
    first, second = (0, 1) if lower else (1, 0)  # L L.T x = b, or U.T U x = b
    y = cx.b.op("solve_triangular", c, b, trans=first, lower=lower, unit_diagonal=False)
    return cx.b.op("solve_triangular", c, y, trans=second, lower=lower, unit_diagonal=False)


def lowerings() -> list:
    import scipy.linalg as la

    return [(la.solve_triangular, _solve_triangular), (la.cholesky, _cholesky),
            (la.cho_factor, _cho_factor), (la.cho_solve, _cho_solve)]
