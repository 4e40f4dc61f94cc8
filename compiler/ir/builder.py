"""`Builder`: appends equations to a list, with one method per primitive.

Contract: `b.emit(prim, inputs, **params)` type-checks the inputs with the primitive's type
rule, creates the output vars and appends the equation; `b.<prim>(*inputs, **params)` is the
single-output shorthand (`b.mul(x, y)`), Python numbers are turned into `Const`s of the type
of the other operand (or f64). Pure scalar primitives applied to constants are folded on the
spot: the result is a `Const` and no equation is emitted (unless the primitive raises, e.g.
an int result outside int64: that is left to run time). Derivative rules use a Builder.
"""

from __future__ import annotations

from typing import Any

from .core import BOOL, F64, I64, Atom, Const, Eqn, Graph, Type, Var
from .dims import is_symbolic
from .primitive import PRIMITIVES


def const(value: Any, type: Type | None = None) -> Const:  # noqa: A002
    if type is None:
        type = BOOL if isinstance(value, bool) else \
            I64 if isinstance(value, int) or is_symbolic(value) else F64
    return Const(value, type)


class Builder:
    """Accumulates equations; `loc` is stamped on every equation emitted."""

    def __init__(self, loc: int | None = None) -> None:
        self.eqns: list[Eqn] = []
        self.loc = loc

    def emit(self, prim: str, inputs: list[Atom], hint: str = "", **params: Any) -> list[Atom]:
        rule = PRIMITIVES[prim]
        out_types = rule.type_rule([a.type for a in inputs], params)
        folded = _fold(rule, inputs, params, out_types)
        if folded is not None:
            return folded
        outputs = [Var(t, hint) for t in out_types]
        self.eqns.append(Eqn(prim, list(inputs), outputs, params, self.loc))
        return outputs

    def op(self, prim: str, *inputs: Any, hint: str = "", **params: Any) -> Var:
        atoms = _atoms(inputs)
        (out,) = self.emit(prim, atoms, hint, **params)
        return out

    def zeros(self, t: Type) -> Atom:
        """A zero of type `t`: a constant for scalars, a `full` equation for arrays."""
        if not t.is_array:
            return Const(0.0, t)
        return self.full(Const(0.0, t.scalar), shape=t.shape, dtype=t.scalar)

    def __getattr__(self, prim: str):
        if prim not in PRIMITIVES:
            raise AttributeError(prim)
        return lambda *inputs, **params: self.op(prim, *inputs, **params)


def _fold(rule, inputs, params, out_types) -> list[Const] | None:
    """Scalar results of a pure primitive applied to constants, computed now (so that
    `x[:-1]` or `n - 1` are constants the frontend can use, run-time sizes included where
    their arithmetic is exact), or None."""
    foldable = (inputs and all(isinstance(a, Const) for a in inputs) and not rule.effectful
                and rule.impl is not None and not any(t.is_array for t in out_types)
                and not any(isinstance(v, Graph | tuple) for v in params.values()))
    if not foldable:
        return None
    values = constant_values(rule, inputs, params)
    if values is None:
        return None
    return [Const(v, t) for v, t in zip(values, out_types, strict=True)]


def constant_values(rule, inputs: list[Const], params: dict) -> tuple | None:
    """What pure primitive `rule` computes from constants, or None where the code computes it
    at run time: an error Python raises at run time (division by zero, int64 overflow, ...),
    or arithmetic on a run-time size that is not exact (`n - 1` folds, `n / 2.0` does not)."""
    try:
        return rule.impl(*(a.value for a in inputs), **params)
    except (ArithmeticError, ValueError):
        return None
    except TypeError:  # DimUndecided
        if any(is_symbolic(a.value) for a in inputs):
            return None
        raise


def _atoms(inputs: tuple) -> list[Atom]:
    """Python numbers take the type of the first non-bool operand (f64 when there is none)."""
    typed = [a.type for a in inputs if isinstance(a, Var | Const) and a.type.name != "bool"]
    default = typed[0].scalar if typed else None
    return [a if isinstance(a, Var | Const) else
            const(a, BOOL if isinstance(a, bool) else default) for a in inputs]
