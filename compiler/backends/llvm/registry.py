"""How the LLVM backend registers its lowerings: the `llvm` field of the primitive table.

Contract: `@lowers(*names)` attaches the decorated rule as the `llvm` lowering of each
primitive in `names` (`ir.primitive.attach`: once per primitive, when the module defining the
rule is imported; importing `adlite.compiler.backends.llvm` imports them all). A rule is
`rule(cx, eqn, env) -> output values`, `cx` being the lowering of the function
(`lower.FunctionLowering`) and `env` the values of the graph level so far (`id(var)` ->
llvm value, or `fusion.Lazy` for a fused array); the elementwise primitives register their
per-element rules `rule(cx, args, eqn)` in `ops.py` and `special.py` instead (see
`lower.FunctionLowering.lower_eqn`).
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
