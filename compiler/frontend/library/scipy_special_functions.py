"""scipy.special's Bessel, gamma, beta, incomplete gamma/beta and distribution functions in
compiled code (the rules; `scipy_special_stats` registers them when the user's program has
imported `scipy.special`).

Contract: `rules(special_module)` gives (function, rule) pairs for
- the ufuncs of `primitives/special.SCIPY_FUNCTIONS` (`iv`, `ive`, `jv` (and its alias `jn`),
  `yn`, `i0`, `i1`, `j0`, `j1`, `y0`, `y1`, `gamma`, `rgamma`, `gammasgn`, `gammainc`,
  `gammaincc`, `beta`, `betaln`, `betainc`, `betaincc`, `stdtr`, `chdtr`, `chdtrc`, `pdtr`,
  `pdtrc`; not `erfcx`, `erfi`, `dawsn`, which take complex operands too: their rules are
  `scipy_special_complex`'s): positional operands only, numbers or arrays broadcast together,
  ints as float64, all converted to their common float type as numpy's type resolution picks
  the ufunc's loop (a float32 array with Python numbers: float32; `yn` with an int order:
  float64, its 'ld->d' loop), one primitive of that name;
- `polygamma(n, x)`: `n` an integer >= 0 known when compiling (else a refusal at the call's
  line), x in double (scipy's polygamma returns float64): `digamma` or the `polygamma`
  primitive of order n.
Derivatives: those of `adlite.derivatives.special_functions` (orders and shape parameters
that autograd does not differentiate get none).
"""

from __future__ import annotations

from adlite.derivatives.complex_special import FUNCTIONS as COMPLEX_FUNCTIONS

from ...ir.core import F64
from ...primitives.special import SCIPY_FUNCTIONS
from ..context import CallContext


def common(cx: CallContext, values: list, node) -> list:
    """`values` converted to their common type (numpy 2's promotion, pairwise)."""
    first = values[0]
    for value in values[1:]:
        first = cx.promote(first, value, node)[0]
    return [cx.to_type(v, first.type.scalar) for v in values]


# ufuncs whose first loop takes an int first operand (`yn`: 'ld->d'): an int order, number or
# array, picks it, so the result is float64 whatever x's dtype
_INT_ORDER_LOOPS = {"yn"}


def _ufunc(prim: str, arity: int):
    def lower(cx: CallContext, args, node):
        values = [cx.value(a, node) for a in cx.exactly(args, arity, node)]
        int_order = prim in _INT_ORDER_LOOPS and not values[0].type.is_float
        values = common(cx, [cx.as_float(v, node) for v in values], node)
        if int_order:
            values = [cx.to_type(v, F64) for v in values]
        return cx.b.op(prim, *values)

    return lower


def _polygamma(cx: CallContext, args, node):
    n, x = cx.exactly(args, 2, node)
    order = cx.static(n, node, "its order `n`", "option")
    if isinstance(order, bool) or not isinstance(order, int | float) or order < 0 \
            or order != int(order):
        raise cx.source.error(node, f"polygamma's order n = {order!r} is not supported",
                              "give an integer n >= 0 (scipy returns NaN for the others)")
    x, order = cx.to_type(cx.as_float(x, node), F64), int(order)
    return cx.b.op("digamma", x) if order == 0 else cx.b.op("polygamma", x, order=order)


def rules(special_module) -> list[tuple[object, object]]:
    """(function, rule) pairs of `special_module` (scipy.special) lowered here."""
    pairs = [(getattr(special_module, name), _ufunc(name, arity))
             for name, arity in SCIPY_FUNCTIONS.items() if name not in COMPLEX_FUNCTIONS]
    return [*pairs, (special_module.jn, _ufunc("jv", 2)),
            (special_module.polygamma, _polygamma)]
