"""scipy.special's error functions of real and complex arguments in compiled code (the rules;
`scipy_special_stats` registers them when the user's program has imported `scipy.special`).

Contract: `rules(special_module)` gives (function, rule) pairs for `erf`, `erfc`, `erfcx`,
`erfi`, `dawsn` and `wofz` (`adlite.derivatives.complex_special.FUNCTIONS`), one positional
operand, a number or an array; an int or bool operand is float64, as scipy's loops take it.
- A complex operand z (complex128 or complex64) gives a complex result of its dtype (scipy's
  'D->D' and 'F->F' loops; 'F->F' computes in double): `complex(f_re, f_im)` of the two
  parts `primitives/complex_special` computes from `real(z)` and `imag(z)`.
- A real operand gives the real primitive of the function's name (`erf`, `erfc`:
  `primitives/special`; `erfcx`, `erfi`, `dawsn`: scipy's C functions, `SCIPY_FUNCTIONS`),
  but for `wofz`, which has complex loops only: a real operand, float32 too, is taken as a
  complex128 number (numpy picks the first loop it casts to safely, 'D->D', when none
  matches exactly).
"""

from __future__ import annotations

from adlite.derivatives.complex_special import FUNCTIONS

from ...ir.core import C128, Atom
from ..context import CallContext


def _complex_value(cx: CallContext, function: str, z: Atom) -> Atom:
    """scipy.special's `function` of the complex `z`, from its parts."""
    b = cx.b
    x, y = b.real(z), b.imag(z)
    return b.complex(*(b.complex_special(x, y, function=function, part=part)
                       for part in (0, 1)))


def _real_or_complex(function: str):
    """The real primitive `function` of a real operand, its parts of a complex one."""

    def lower(cx: CallContext, args, node):
        value = cx.as_float(cx.one(args, node), node)
        if value.type.is_complex:
            return _complex_value(cx, function, value)
        return cx.b.op(function, value)

    return lower


def _complex_only(function: str):
    """A function of complex loops only: a real operand made complex128 first."""

    def lower(cx: CallContext, args, node):
        value = cx.value(cx.one(args, node), node)
        if not value.type.is_complex:
            value = cx.to_type(value, C128)
        return _complex_value(cx, function, value)

    return lower


def rules(special_module) -> list[tuple[object, object]]:
    """(function, rule) pairs of `special_module` (scipy.special) lowered here."""
    return [(getattr(special_module, name),
             _complex_only(name) if name == "wofz" else _real_or_complex(name))
            for name in FUNCTIONS]
