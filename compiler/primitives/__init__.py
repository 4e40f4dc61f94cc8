"""The compiler's ONE table of primitives: every rule of a primitive side by side.

Contract: `PRIMITIVES[name]` is a `Primitive` with
- `type_rule(in_types, params) -> out_types` (raises `TypeError` on bad input types),
- `impl(*values, **params) -> tuple` the numpy reference (IEEE semantics, used for constant
  folding and as the oracle in tests),
- `vjp(b, eqn, cotangents) -> input cotangents` (None = symbolic zero), written with a
  `Builder`; `None` as the rule itself means "not differentiable" (outputs carry no cotangent),
- `jvp(b, eqn, tangents) -> output tangents`, same conventions,
- `py(args, eqn) -> expression source` the Python lowering (`args` are the operands'
  source texts),
- `effectful`: the equation must not be removed, merged or reordered (tape push/pop).
- `ad_forward(fb, eqn, plan) -> emit_backward(bb, cotangents, guards)`: for primitives whose
  reverse mode must change the forward sweep too (`while` stores values on the tape); used
  instead of `vjp`. Structural `vjp` rules (`cond`, `push`, `pop`) take `(b, eqn, cotangents,
  guards, plan)` (`ad/reverse.py`).
- `jvp_emits_primal`: the `jvp` rule emits the equation itself too (the tape primitives must
  order primal and tangent stores and loads).
Control-flow primitives (`while`, `cond`) keep their structural AD rules in `ad/`, registered
here all the same, so the completeness test covers them.

Conventions at ties (PyTorch's; the eager tape's rules in `adlite.runtime.primitives` are the
same, in reverse and forward mode alike):
- builtin `max(a, b, ...)` / `min`: Python's left fold keeps the current value unless
  `item > current` (min: `<`), a select, so the whole gradient goes to the argument Python
  returns (the first of tied arguments; NaN order-dependent as in Python).
- `np.maximum` / `np.minimum` (torch.maximum): each operand gets half the gradient at a tie.
- `np.fmax` / `np.fmin` (torch.fmax): `a if (a >= b or isnan(b)) else b` (fmin: `<=`), a
  select, so the first operand gets the gradient where `a >= b` or `b` is NaN, else the second.
- `np.clip(x, lo, hi)` (torch.clamp): `x` gets it where `lo <= x <= hi` (bounds inclusive),
  `lo` where `x < lo < hi`, `hi` where `x > hi` or `hi < lo` (then numpy returns `hi`).
- `np.max` / `np.min` / `x.max()` reductions (torch.amax): shared evenly by the tied extrema.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

PRIMITIVES: dict[str, Primitive] = {}


@dataclass(frozen=True)
class Primitive:
    name: str
    type_rule: Callable[..., list]
    impl: Callable[..., tuple] | None
    vjp: Callable[..., list] | None
    jvp: Callable[..., list] | None
    py: Callable[..., str] | None
    effectful: bool = False
    differentiable: bool = True
    ad_forward: Callable[..., Callable] | None = None
    jvp_emits_primal: bool = False


def register(prim: Primitive) -> Primitive:
    PRIMITIVES[prim.name] = prim
    return prim


from . import arrays, control, scalar  # noqa: E402, F401  (populate the table)
