"""scipy.special's error functions of a complex argument, as real primitives of its parts.

Contract: `complex_special(x, y; function, part)` is part `part` (0: real, 1: imaginary) of
scipy.special's `function` (one of `adlite.derivatives.complex_special.FUNCTIONS`: `erf`,
`erfc`, `erfi`, `erfcx`, `wofz`, `dawsn`) at z = x + iy: an elementwise primitive of two
float operands of one dtype (broadcast as numpy does) with a result of that dtype. The
frontend computes a complex `function(z)` as `complex(complex_special(real z, imag z; part 0),
complex_special(real z, imag z; part 1))`, so no rule of `passes/complex_pairs` is needed and
the AD and the backends see real code only. float32 operands are computed in double and the
part rounded, as scipy's complex64 loop ('F->F') computes in double complex and rounds both
parts. Values are scipy's: the reference and the Python backend (`value`) call the ufunc on
the complex128 value; the LLVM backend calls the function the ufunc's 'D->D' loop calls, from
`scipy.special.cython_special` (`backends/llvm/scipy_capi.py`). Derivatives: the
Cauchy-Riemann partials of `adlite.derivatives.complex_special.formula(function, part)`.
"""

from __future__ import annotations

import numpy as np

from adlite import derivatives
from adlite.derivatives.complex_special import FUNCTIONS, formula

from ..ir.core import Type
from ..ir.primitive import Primitive, register
from .scalar import float_only
from .special import scipy_function
from .vocabulary import BuilderOps


def _type(in_types: list[Type], params: dict) -> list[Type]:
    if len(in_types) != 2:
        raise TypeError(f"complex_special takes x and y, got {len(in_types)} operand(s)")
    if params.get("function") not in FUNCTIONS or params.get("part") not in (0, 1):
        raise TypeError(f"complex_special: function one of {', '.join(FUNCTIONS)} and part "
                        f"0 or 1, got {params}")
    return float_only(in_types, params)


def value(function: str, part: int, x, y):
    """Part `part` of scipy.special's `function` at x + iy, in x's dtype (a number for
    numbers)."""
    dtype = np.result_type(x, y)
    z = np.empty(np.broadcast_shapes(np.shape(x), np.shape(y)), np.complex128)
    z.real, z.imag = x, y  # (not x + 1j * y: 1j * inf has a NaN real part)
    with np.errstate(all="ignore"):
        w = scipy_function(function)(z)
    result = (w.real if part == 0 else w.imag).astype(dtype)
    return result if result.shape else dtype.type(result)


def _vjp(b, e, cts):
    f = formula(e.params["function"], e.params["part"])
    return derivatives.vjp(f, BuilderOps(b), cts[0], e.inputs, e.outputs[0])


def _jvp(b, e, tangents):
    f = formula(e.params["function"], e.params["part"])
    return [derivatives.jvp(f, BuilderOps(b), tangents, e.inputs, e.outputs[0])]


def _py(args, e) -> str:
    return (f"_rt.complex_special.value({e.params['function']!r}, {e.params['part']}, "
            f"{args[0]}, {args[1]})")


register(Primitive("complex_special", _type,
                   lambda x, y, function, part: (value(function, part, x, y),),
                   _vjp, _jvp, _py, elementwise=True))
