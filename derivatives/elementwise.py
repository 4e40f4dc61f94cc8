"""The partial derivatives of the elementwise primitives, each written once (see `vocabulary`).

Each `_formula` call is one primitive: `o` is the `Ops`, then the inputs, then the output.
Conventions at ties (PyTorch's; the compiler and the eager tape both run these formulas):
- `maximum` / `minimum` (torch.maximum): each operand gets half the gradient at a tie;
- `np.fmax` / `np.fmin` (torch.fmax): the value and the derivative are the first operand's
  where `x >= y` (fmin: `<=`) or `y` is NaN (`takes_first`), else the second's; the compiler
  lowers them to a select on `takes_first`, the tape has them as primitives;
- `clip(x, lo, hi)` (torch.clamp): `x` gets it where `lo <= x <= hi` (bounds inclusive), `lo`
  where `x < lo < hi`, `hi` where `x > hi` or `hi < lo` (then numpy returns `hi`); nothing
  where an operand is NaN.
"""

from __future__ import annotations

import math

from .vocabulary import MINUS_ONE, ONE, Formula, Mask, define


def _formula(name: str, partials, inputs: bool = False, output: bool = False,
             conditions: int = 0, selects: bool = False) -> None:
    define(Formula(name, partials, inputs, output, conditions, selects))


# ---- unary: d out / d x -----------------------------------------------------------------------

def _unary(name: str, derivative, inputs: bool = False, output: bool = False) -> None:
    _formula(name, lambda o, x, out: (derivative(o, x, out),), inputs, output)


def _one_over_sqrt_one_minus_square(o, x):
    return o.div(1.0, o.sqrt(o.sub(1.0, o.mul(x, x))))


_formula("neg", lambda o, x, out: (MINUS_ONE,))
_unary("exp", lambda o, x, out: out, output=True)
_unary("log", lambda o, x, out: o.div(1.0, x), inputs=True)
_unary("log2", lambda o, x, out: o.div(1.0 / math.log(2.0), x), inputs=True)
_unary("log10", lambda o, x, out: o.div(1.0 / math.log(10.0), x), inputs=True)
_unary("sqrt", lambda o, x, out: o.div(0.5, out), output=True)
_unary("cbrt", lambda o, x, out: o.div(1.0, o.mul(3.0, o.mul(out, out))), output=True)
_unary("sin", lambda o, x, out: o.cos(x), inputs=True)
_unary("cos", lambda o, x, out: o.neg(o.sin(x)), inputs=True)
_unary("tan", lambda o, x, out: o.add(1.0, o.mul(out, out)), output=True)
_unary("tanh", lambda o, x, out: o.sub(1.0, o.mul(out, out)), output=True)
_unary("sinh", lambda o, x, out: o.cosh(x), inputs=True)
_unary("cosh", lambda o, x, out: o.sinh(x), inputs=True)
_unary("arcsin", lambda o, x, out: _one_over_sqrt_one_minus_square(o, x), inputs=True)
_unary("arccos", lambda o, x, out: o.neg(_one_over_sqrt_one_minus_square(o, x)), inputs=True)
_unary("arctan", lambda o, x, out: o.div(1.0, o.add(1.0, o.mul(x, x))), inputs=True)
_unary("arcsinh", lambda o, x, out: o.div(1.0, o.sqrt(o.add(o.mul(x, x), 1.0))), inputs=True)
_unary("arccosh", lambda o, x, out: o.div(1.0, o.sqrt(o.sub(o.mul(x, x), 1.0))), inputs=True)
_unary("arctanh", lambda o, x, out: o.div(1.0, o.sub(1.0, o.mul(x, x))), inputs=True)
_unary("log1p", lambda o, x, out: o.div(1.0, o.add(1.0, x)), inputs=True)
_unary("expm1", lambda o, x, out: o.add(out, 1.0), output=True)
_unary("sigmoid", lambda o, x, out: o.mul(out, o.sub(1.0, out)), output=True)
_unary("abs", lambda o, x, out: o.sign(x), inputs=True)
for _name in ("sign", "floor", "ceil"):
    _formula(_name, lambda o, x, out: (None,))

# ---- binary arithmetic: (d out / d x, d out / d y) -------------------------------------------

_formula("add", lambda o, x, y, out: (ONE, ONE))
_formula("sub", lambda o, x, y, out: (ONE, MINUS_ONE))
_formula("mul", lambda o, x, y, out: (y, x), inputs=True)
# d/dy x/y = -(x/y)/y, written with the inputs only (PyTorch's DivBackward0 saves no output)
_formula("div", lambda o, x, y, out: (o.div(1.0, y), o.neg(o.div(o.div(x, y), y))),
         inputs=True)
_formula("floordiv", lambda o, x, y, out: (None, None))
_formula("mod", lambda o, x, y, out: (ONE, o.neg(o.floordiv(x, y))), inputs=True)


def _arctan2(o, y, x, out):
    """np.arctan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)."""
    r2 = o.add(o.mul(x, x), o.mul(y, y))
    return o.div(x, r2), o.neg(o.div(y, r2))


_formula("arctan2", _arctan2, inputs=True)
# np.fmod (C's, the sign of x): out = x - n y with n = trunc(x / y) = (x - out) / y
_formula("fmod", lambda o, x, y, out: (ONE, o.neg(o.div(o.sub(x, out), y))), inputs=True,
         output=True)


def _pow(o, x, y, out):
    """d/dx x**y = y x**(y-1), 0 where y == 0 (x**0 is the constant 1, also at x = 0, where
    the formula is 0 * inf; the base is replaced there so that no order sees an inf);
    d/dy = x**y log x, taken as 0 where x == 0 and y >= 0."""
    constant = o.eq(y, 0.0)
    dx = o.select(constant, 0.0, o.mul(y, o.pow(o.select(constant, 1.0, x), o.sub(y, 1.0))))
    zero_base = o.and_(o.eq(x, 0.0), o.ge(y, 0.0))
    dy = o.select(zero_base, 0.0, o.mul(out, o.log(o.select(zero_base, 1.0, x))))
    return dx, dy


_formula("pow", _pow, inputs=True, output=True)

# ---- extrema ----------------------------------------------------------------------------------


def _extremum(compare: str):
    """np.maximum (`gt`) / np.minimum (`lt`): the winner's partial is 1, ties share it; the
    loser's is exactly 0 (a `Mask`: the second operand's where the first does not win)."""

    def partials(o, x, y, out):
        wins, tie = getattr(o, compare)(x, y), o.eq(x, y)
        one, half = o.constant(1.0, x), o.constant(0.5, x)
        return (Mask(o.or_(wins, tie), scale=o.select(wins, one, half)),
                Mask(wins, where=False, scale=o.select(tie, half, one)))

    return partials


_formula("maximum", _extremum("gt"), inputs=True, selects=True)
_formula("minimum", _extremum("lt"), inputs=True, selects=True)


def takes_first(o, compare: str, x, y):
    """Where np.fmax (`compare` = "ge") / np.fmin ("le") returns its first operand: where
    `x compare y` or `y` is NaN (so a NaN operand yields the other one; both NaN: NaN)."""
    return o.or_(getattr(o, compare)(x, y), o.ne(y, y))


def _nan_ignoring_extremum(compare: str):
    def partials(o, x, y, out):
        first = takes_first(o, compare, x, y)
        return Mask(first), Mask(first, where=False)

    return partials


_formula("fmax", _nan_ignoring_extremum("ge"), inputs=True, selects=True)
_formula("fmin", _nan_ignoring_extremum("le"), inputs=True, selects=True)
_formula("clip", lambda o, x, lo, hi, out: (
    Mask(o.and_(o.ge(x, lo), o.le(x, hi))), Mask(o.and_(o.lt(x, lo), o.lt(lo, hi))),
    Mask(o.or_(o.gt(x, hi), o.lt(hi, lo)))), inputs=True, selects=True)

# ---- select (numpy's where): the condition picks which operand the derivative goes to -------

_formula("select", lambda o, c, x, y, out: (None, Mask(c), Mask(c, where=False)), conditions=1,
         selects=True)
