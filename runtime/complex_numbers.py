"""Complex numbers on the eager tape: PyTorch's convention, and the primitives `real`, `imag`,
`conj` that only complex numbers need.

Contract (PyTorch's "Autograd for Complex Numbers"):
- The gradient the tape gives a complex tensor `z = x + iy` for a real result `L` is
  `dL/dx + i dL/dy` (twice the conjugate Wirtinger derivative dL/dz*): the direction of
  steepest ascent, so `z - lr * z.grad` descends as for real tensors. The cotangent flowing
  into a node is that of its output; a node computing `s(z)` passes back
  `g * conj(ds/dz) + conj(g) * ds/dz*`, which for a holomorphic `s` is `g * conj(s'(z))`
  (`holomorphic`), for `abs` `g * z / |z|`, for `real` `g`, for `imag` `1j * g`, for `conj`
  `conj(g)`, and for a linear map (matmul, an FFT) its conjugate transpose applied to `g`.
- A real operand of a complex operation gets the real part of its cotangent
  (`functional.PrimitiveNode`), as `dL/dx` is.
- `backward()` without a `gradient` on a complex one-element result raises PyTorch's
  RuntimeError ("grad can be implicitly created only for real scalar outputs"; `autograd`).
- HIPS/autograd's cotangents are the complex conjugates of these (its gradient of a real
  function is `dL/dx - i dL/dy`); `transforms` gives autograd's.
- The shared formulas (`adlite.derivatives`) give the partial `s'(z)` of the holomorphic
  primitives, as for real numbers (but arcsin, arccos, arcsinh and arccosh, whose complex
  partials are the tape's own, right on both lips of their cuts: `primitives`);
  `holomorphic(vjp)` runs such a VJP on conjugated cotangents, `conj(vjp(conj(g)))` =
  `g * conj(s'(z))`, only when a complex number is involved, so real code runs the formulas
  unchanged (and the compiler, which shares them, has no conjugation).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import functional as F
from .primitive import PRIMITIVES, Primitive, RuleContext

Vjp = Callable[[RuleContext, Any], tuple[Any, ...]]


def involves_complex(ctx: RuleContext, g: Any) -> bool:
    """Whether the cotangent or an operand of the rule is complex."""
    return F.is_complex(g) or any(F.is_complex_dtype(d) for d in ctx.dtypes)


def holomorphic(vjp: Vjp) -> Vjp:
    """The VJP in PyTorch's convention of a primitive holomorphic in each operand whose rule
    `vjp` multiplies the cotangent by the plain derivatives (real formulas): where a complex
    number is involved, `conj(vjp(conj(g)))`."""

    def rule(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        if not involves_complex(ctx, g):
            return vjp(ctx, g)
        return tuple(None if ct is None else F.conj(ct) for ct in vjp(ctx, F.conj(g)))

    return rule


def _register(name: str, node_name: str, impl: Callable[..., np.ndarray], vjp: Vjp) -> None:
    PRIMITIVES[name] = Primitive(name, node_name, impl, vjp, takes_complex=True)


def _as_operand(ctx: RuleContext, value: Any) -> Any:
    """`value` (a cotangent) in the complex dtype of the operand."""
    return F.astype(value, ctx.dtypes[0])


_register("real", "RealBackward0", lambda z: np.array(np.real(z), copy=True),
          lambda ctx, g: (_as_operand(ctx, g),))
_register("imag", "ImagBackward0", lambda z: np.array(np.imag(z), copy=True),
          lambda ctx, g: (F.multiply(_as_operand(ctx, g), 1j),))
_register("conj", "ConjBackward0", np.conjugate, lambda ctx, g: (F.conj(g),))
