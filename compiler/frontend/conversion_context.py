"""What the structural frontend modules may use of the converter: two declared protocols.

Contract: the modules that convert Python structure (lists and ranges, closures, statements,
fancy indexing, boolean masks) receive the converter (`to_ir.FunctionConverter`) as their
first argument, typed with the narrowest protocol below; they use nothing of it that the
protocol does not list (tests/test_frontend_contexts.py checks it).
- `ExpressionContext`: `context.CallContext` (the builder, the source, static values,
  arguments) and the conversion of expressions to values (`masks`).
- `ConversionContext`: that, the function's variables (`scope`, a `scope.Scope`, with the
  assignment `bind`), its module's `globals`, live views and writes into arrays, and the parts
  of slices (`sequences`, `closures`, `statements`, `fancy`).
The converter's control flow, subscripts, operators and calls are its own mixins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .context import CallContext

if TYPE_CHECKING:
    import gast

    from ..ir.builder import Builder
    from ..ir.core import Atom, Type
    from .aliasing import Ref
    from .scope import Scope


class ExpressionContext(CallContext, Protocol):
    """The converter as a rule converting expressions sees it (see the module doc)."""

    def expr(self, node):
        """The value of expression `node` (an atom, a compile-time value or a container)."""

    def expr_ref(self, node) -> tuple:
        """(value, Ref) of expression `node`: the array object it evaluates to, if any."""

    def value(self, value, node) -> Atom:
        """A number or an array (else an error at `node`)."""

    def scalar(self, value, node) -> Atom:
        """A number (else an error at `node`)."""

    def array(self, value, node) -> Atom:
        """An array (else an error at `node`)."""

    def numeric(self, value, node) -> Atom:
        """A number or an array, bools converted to int64."""

    def to_type(self, value: Atom, t: Type, b: Builder | None = None) -> Atom:
        """`value` cast to type `t`, emitted into `b` (default: the current builder)."""

    def truth(self, value, node) -> Atom:
        """Python's truth of `value`: a bool atom (a constant when known when compiling)."""


class ConversionContext(ExpressionContext, Protocol):
    """The converter as its structural modules see it (see the module doc)."""

    scope: Scope
    globals: dict

    def bind(self, name: str, value, ref) -> None:
        """The assignment `name = value`, an alias of `ref`'s object (None: a new one)."""

    def view_value(self, ref: Ref, base: Atom | None = None) -> Atom:
        """The current value of view `ref`, read from `base` (default: its object's value)."""

    def write(self, name: str, index, index_spec, v: Atom, node, accumulate=False) -> None:
        """`name[index] = v` through all of the names and views of `name`'s object."""

    def slice_parts(self, node: gast.Slice) -> list:
        """The values of a slice's lower, upper and step (None where absent)."""

    def static_slice(self, parts, node) -> slice:
        """The slice of bounds `parts`, ints known when compiling."""

    def wrap_index(self, i, n: int, node):
        """Index `i` into an axis of length `n`, negative ones counted from the end."""
