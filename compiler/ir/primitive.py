"""What a primitive is, and the one table of them: every rule of a primitive side by side.

Contract: `PRIMITIVES[name]` is a `Primitive` with
- `type_rule(in_types, params) -> out_types` (raises `TypeError` on bad input types),
- `impl(*values, **params) -> tuple` the numpy reference (IEEE semantics, used for constant
  folding and as the oracle in tests),
- `vjp(b, eqn, cotangents) -> input cotangents` (None = symbolic zero), written with a
  `Builder`; `None` as the rule itself means "not differentiable" (outputs carry no cotangent),
- `jvp(b, eqn, tangents) -> output tangents`, same conventions,
- `py(args, eqn) -> expression source` the Python lowering (`args` are the operands'
  source texts),
- `llvm` the LLVM lowering, attached by the LLVM backend: for an elementwise primitive
  `llvm(cx, args, eqn) -> llvm values` computes one element (scalar operands; the backend
  loops it over arrays), for every other one, arrays and structural ones included,
  `llvm(cx, eqn, env) -> llvm values` lowers the whole equation (`backends/llvm/registry.py`);
  None only for the primitives expanded before a backend sees the graph (`call`, custom
  derivatives, `stop_gradient`),
- `formula`: the shared derivative formula (`adlite.derivatives.Formula`) that `vjp` and
  `jvp` were made from, or None where the rules are the compiler's own,
- `batch(b, eqn, args, batched, size) -> [(atom, batched)]`: the batching rule of `vmap`
  (`adlite.compiler.batching.table`); None where `vmap` runs the primitive per example,
- `ad_forward(fb, eqn, plan) -> emit_backward(bb, cotangents, guards)`: for primitives whose
  reverse mode must change the forward sweep too (`while` stores values on the tape); used
  instead of `vjp`. Structural `vjp` rules (`cond`, `push`, `pop`) take `(b, eqn, cotangents,
  guards, plan)`, `plan` being the tape numbering of the differentiation (`ad/reverse.py`),
- `jvp_emits_primal`: the `jvp` rule emits the equation itself too (the tape primitives must
  order primal and tangent stores and loads),
and kind flags:
- `effectful`: the equation must not be removed, merged or reordered (tape push/pop),
- `differentiable`: False when no derivative flows through it (comparisons, int ops),
- `elementwise`: applied element by element, array operands broadcast as numpy does (so a
  broadcast operand may be replaced by its source where another operand has the full shape),
- `reduction`: combines the elements of an array operand into fewer (`sum`, `max`, ...),
- `structural`: control flow and the AD tapes (`while`, `cond`, `push`, `pop`), whose AD
  rules are written by the AD layer for itself,
and facts the passes, the AD and the backends ask:
- `linear`: the outputs are linear in the float operands (a contribution built from zero
  cotangents by it is zero: `add`, `mul` by a finite factor, `reshape`, `sum`, ...),
- `cost`: what one element costs to compute again: 0 (more than it costs to keep), ARITHMETIC
  (one arithmetic instruction: recomputed even for arrays) or CHEAP (one compare, select,
  logic or index operation: recomputed for scalars, and fused into up to a few users).

Who fills the table (nothing below imports anything above it):
- `adlite.compiler.primitives` registers every primitive (`register`) with its own rules;
- `adlite.compiler.ad` attaches the structural AD rules of `while`, `cond`, `push`, `pop`
  (`attach`): they are graph transformations and live with the AD;
- `adlite.compiler.backends.llvm` attaches the `llvm` lowerings (llvmlite code);
- `adlite.compiler.batching` attaches the `batch` rules.
The IR layer (builder, verifier, evaluator) and everything else look names up here and never
import those packages. A module that attaches rules imports `primitives` first, and every
module that reads those rules imports it. `adlite.compiler/__init__` imports `primitives` and
`ad` before anything else (then the API, which imports the LLVM backend); Python runs a
package's `__init__` before any of its submodules, so whichever module a program imports
first, the table is complete before any code can look a name up. Nothing is filled lazily.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass


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
    llvm: Callable[..., list] | None = None
    batch: Callable[..., list] | None = None
    elementwise: bool = False
    reduction: bool = False
    structural: bool = False
    formula: object | None = None
    linear: bool = False
    cost: int = 0


ARITHMETIC, CHEAP = 1, 2  # the `cost` of a primitive: see the module docstring
PRIMITIVES: dict[str, Primitive] = {}


def register(prim: Primitive) -> Primitive:
    """Adds `prim` to the table (a name is registered once)."""
    if prim.name in PRIMITIVES:
        raise ValueError(f"primitive {prim.name!r} is registered twice")
    PRIMITIVES[prim.name] = prim
    return prim


def attach(name: str, **rules: Callable) -> Primitive:
    """Sets rules of primitive `name` that its registration left empty (None); a layer above
    the primitives fills them this way (the structural AD rules)."""
    prim = PRIMITIVES[name]
    taken = [rule for rule in rules if getattr(prim, rule) is not None]
    if taken:
        raise ValueError(f"primitive {name!r} already has {', '.join(taken)}")
    PRIMITIVES[name] = dataclasses.replace(prim, **rules)
    return PRIMITIVES[name]
