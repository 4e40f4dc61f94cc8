"""What a library rule may use of the converter: the `CallContext` protocol.

Contract: a rule of `library/` (registered with `library.registry.register` or found by a
resolver) and the helpers it calls receive the converter (`to_ir.FunctionConverter`) as
their first argument, typed `cx: CallContext`. `CallContext` lists all of it such a rule
uses: the builder `b` to emit equations (its `loc` is the line being converted), `source`
to raise errors at the user's line, the conversions of argument values, and the four
services a few rules need of the converter as a whole (`expr`, `call_value`, `write`,
`placeholder`). No rule reads any other attribute of the converter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import gast

    from ..ir.builder import Builder
    from ..ir.core import Atom, Type
    from .source import Source


class CallContext(Protocol):
    """The converter as a library rule sees it (see the module doc)."""

    b: Builder
    source: Source

    # ---- argument values --------------------------------------------------------------------

    def static(self, value, node, what: str = "", key: str = "value"):
        """The compile-time Python value of a constant (or tuple of constants), else the
        refusal of `static_requirements` key `key` at `node`, naming `what` the value is
        for (or `arguments.NeedStatic` naming the entry's parameters)."""

    def value(self, value, node) -> Atom:
        """A number or an array (an error at `node` for a tuple, module or function)."""

    def scalar(self, value, node) -> Atom:
        """A number (an error at `node` for an array)."""

    def array(self, value, node) -> Atom:
        """An array (an error at `node` for a number)."""

    def numeric(self, value, node) -> Atom:
        """A number or an array, bools converted to int64."""

    def as_float(self, value, node) -> Atom:
        """A number or an array, converted to float64 unless it is a float already."""

    def to_type(self, value: Atom, t: Type, b: Builder | None = None) -> Atom:
        """`value` converted to type `t` (emitted with `b`, else with the converter's)."""

    def promote(self, x, y, node) -> tuple[Atom, Atom]:
        """Two operands with their common element type (numpy 2's rules)."""

    def truth(self, value, node) -> Atom:
        """Python's truth of a number (a bool), or of a compile-time value (a constant)."""

    def one(self, args, node):
        """The only positional argument (an error at `node` unless there is one)."""

    def exactly(self, args, n, node):
        """The `n` positional arguments (an error at `node` unless there are `n`)."""

    # ---- the converter as a whole -----------------------------------------------------------

    def expr(self, node: gast.expr):
        """The value of an expression of the user's code (`np.einsum` reads its operands)."""

    def call_value(self, func, pairs: list, kwpairs: dict, node):
        """(value, Ref) of calling the function value `func` with the (value, Ref) `pairs`
        and keyword `kwpairs` (`np.piecewise` calls the user's pieces)."""

    def write(self, name: str, index, index_spec, v: Atom, node, accumulate=False) -> None:
        """`name[index] = v` into the local array `name` (`x.sort()` sorts in place)."""

    def placeholder(self, t: Type, b: Builder | None = None) -> Atom:
        """A value of type `t` that is never read (the result of a call that raises when
        run, so that conversion goes on)."""
