"""The derivatives of scipy.special's error functions of a complex argument, on its parts.

Contract: `FUNCTIONS` names the holomorphic functions (`erf`, `erfc`, `erfi`, `erfcx`,
`wofz`, `dawsn`) whose complex values the compiler computes as two real primitives, the
real part (`part` 0) and the imaginary part (`part` 1) of f(x + iy), each a function of
(x, y) (`adlite.compiler.primitives.complex_special`). `formula(function, part)` is the
`Formula` of one of them: its partial derivatives with respect to x and y. f being
holomorphic with f'(z) = a + ib, the Jacobian of (x, y) -> (re f, im f) is [[a, -b], [b, a]]
(Cauchy-Riemann), so the real part's partials are (a, -b) and the imaginary part's (b, a).
f' as real arithmetic on the parts:
- erf' = 2/sqrt(pi) exp(-z^2), erfc' = -erf', erfi' = 2/sqrt(pi) exp(z^2)
  (exp(+-z^2) = e^(+-(x-y)(x+y)) (cos 2xy, +-sin 2xy));
- wofz' = -2 z w(z) + 2i/sqrt(pi), erfcx' = 2 z erfcx(z) - 2/sqrt(pi),
  dawsn' = 1 - 2 z dawsn(z): the other part of f(z) is the primitive of the other `part`
  (the same equation as the one the function's value computed, which the passes share).
Compiler only (the eager tape has no complex numbers).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .special import TWO_OVER_SQRT_PI
from .vocabulary import Formula, Ops

# f'(z) = (a, b) from (ops, x, y, value): `value()` gives f(z) as (re, im)
Derivative = Callable[[Ops, Any, Any, Callable[[], tuple[Any, Any]]], tuple[Any, Any]]


def _gaussian(sign: float, scale: float) -> Derivative:
    """scale exp(sign z^2)."""

    def derivative(o: Ops, x: Any, y: Any, value) -> tuple[Any, Any]:
        angle = o.mul(o.mul(x, y), 2.0 * sign)
        magnitude = o.mul(o.exp(o.mul(o.mul(o.sub(x, y), o.add(x, y)), sign)), scale)
        return o.mul(magnitude, o.cos(angle)), o.mul(magnitude, o.sin(angle))

    return derivative


def _linear(k: float, c_re: float, c_im: float) -> Derivative:
    """k z f(z) + (c_re + i c_im)."""

    def derivative(o: Ops, x: Any, y: Any, value) -> tuple[Any, Any]:
        u, v = value()
        re = o.mul(o.sub(o.mul(x, u), o.mul(y, v)), k)
        im = o.mul(o.add(o.mul(x, v), o.mul(y, u)), k)
        return (o.add(re, c_re) if c_re else re), (o.add(im, c_im) if c_im else im)

    return derivative


DERIVATIVES: dict[str, Derivative] = {
    "erf": _gaussian(-1.0, TWO_OVER_SQRT_PI),
    "erfc": _gaussian(-1.0, -TWO_OVER_SQRT_PI),
    "erfi": _gaussian(1.0, TWO_OVER_SQRT_PI),
    "wofz": _linear(-2.0, 0.0, TWO_OVER_SQRT_PI),
    "erfcx": _linear(2.0, -TWO_OVER_SQRT_PI, 0.0),
    "dawsn": _linear(-2.0, 1.0, 0.0),
}
FUNCTIONS = tuple(DERIVATIVES)


@functools.cache
def formula(function: str, part: int) -> Formula:
    """The partials of part `part` (0: real, 1: imaginary) of `function` with respect to the
    real and imaginary parts of its argument."""
    derivative = DERIVATIVES[function]

    def partials(o: Ops, x: Any, y: Any, out: Any) -> tuple[Any, Any]:
        def value() -> tuple[Any, Any]:
            other = o.complex_special(x, y, function=function, part=1 - part)
            return (out, other) if part == 0 else (other, out)

        a, b = derivative(o, x, y, value)
        return (a, o.neg(b)) if part == 0 else (b, a)

    return Formula(f"complex_{function}_{part}", partials, reads_inputs=True,
                   reads_output=True)
