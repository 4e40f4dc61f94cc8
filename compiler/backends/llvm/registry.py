"""How the LLVM backend registers its lowerings: the `llvm` field of the primitive table.

Contract: `@lowers(*names)` attaches the decorated rule as the `llvm` lowering of each
primitive in `names` (`ir.primitive.attach`: once per primitive, when the module defining the
rule is imported; importing `lower.py`, hence `adlite.compiler.backends.llvm`, imports them
all). Every primitive's rule, structural (`while`, `cond`: control.py; `push`, `pop`:
tapes.py), array and elementwise alike, has one signature,

    rule(cx, eqn, env) -> list of output values,

`cx` being the lowering context (`context.LoweringContext`) and `env` the values of the graph
level so far (`id(var)` -> llvm value, or `fusion.Lazy` for a fused array), and is found by
one dispatch, `context.LoweringContext.lower_eqn`. The elementwise primitives' rules are
written per element, `rule(cx, args, eqn)` (ops.py, special.py), because fused loop bodies
compute one element from the elements of the operands; `elements.py` registers each wrapped
in a `PerElement`, the table entry with the common signature (an array result: one loop
nest; a scalar: the rule on the operands' values) that keeps the per-element rule for the
fused loop bodies (`per_element`).
"""

from __future__ import annotations

from collections.abc import Callable

from ... import primitives  # noqa: F401  (registers the primitives the rules complete)
from ...ir.primitive import attach


def lowers(*names: str) -> Callable[[Callable], Callable]:
    """Registers the decorated function as the LLVM lowering of the primitives `names`."""
    def register(rule: Callable) -> Callable:
        for name in names:
            attach(name, llvm=rule)
        return rule

    return register
