"""`Builder`: appends equations to a list, with one method per primitive.

Contract: `b.emit(prim, inputs, **params)` type-checks the inputs with the primitive's type
rule, creates the output vars and appends the equation; `b.<prim>(*inputs, **params)` is the
single-output shorthand (`b.mul(x, y)`), Python numbers are turned into `Const`s of the type
of the other operand (or f64). Derivative rules are written with a Builder.
"""

from __future__ import annotations

from typing import Any

from .core import BOOL, F64, I64, Atom, Const, Eqn, Type, Var


def const(value: Any, type: Type | None = None) -> Const:  # noqa: A002
    if type is None:
        type = BOOL if isinstance(value, bool) else I64 if isinstance(value, int) else F64
    return Const(value, type)


class Builder:
    """Accumulates equations; `loc` is stamped on every equation emitted."""

    def __init__(self, loc: int | None = None) -> None:
        self.eqns: list[Eqn] = []
        self.loc = loc

    def emit(self, prim: str, inputs: list[Atom], hint: str = "", **params: Any) -> list[Var]:
        from ..primitives import PRIMITIVES

        rule = PRIMITIVES[prim]
        out_types = rule.type_rule([a.type for a in inputs], params)
        outputs = [Var(t, hint) for t in out_types]
        self.eqns.append(Eqn(prim, list(inputs), outputs, params, self.loc))
        return outputs

    def op(self, prim: str, *inputs: Any, hint: str = "", **params: Any) -> Var:
        atoms = _atoms(inputs)
        (out,) = self.emit(prim, atoms, hint, **params)
        return out

    def __getattr__(self, prim: str):
        from ..primitives import PRIMITIVES

        if prim not in PRIMITIVES:
            raise AttributeError(prim)
        return lambda *inputs, **params: self.op(prim, *inputs, **params)


def _atoms(inputs: tuple) -> list[Atom]:
    """Python numbers take the type of the first non-bool operand (f64 when there is none)."""
    typed = [a.type for a in inputs if isinstance(a, Var | Const) and a.type != BOOL]
    default = typed[0] if typed else None
    return [a if isinstance(a, Var | Const) else
            const(a, BOOL if isinstance(a, bool) else default) for a in inputs]
