"""What a lowering rule may use of the converter: the `CallContext` protocol.

Contract: a lowering rule (registered with `functions.register`, `register_with_keywords` or
a resolver) and the helpers it calls receive the converter (`to_ir.FunctionConverter`) as
their first argument. `CallContext` lists the part of it such a rule may use: the builder
`b` to emit equations (its `loc` is the line being converted), `source` to raise errors at
the user's line, and the conversions of argument values below (see the converter for their
semantics). Rule modules typed with it (`conv: CallContext`) use nothing else of the
converter: so far `dynamic_slices`, `linalg_functions`, `scipy_linalg` and
`functions.refuse_keywords`; the others still take the whole converter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..ir.builder import Builder
    from ..ir.core import Atom
    from .source import Source


class CallContext(Protocol):
    """The converter as a lowering rule sees it (see the module doc)."""

    b: Builder
    source: Source

    def static(self, value, node):
        """The compile-time Python value of a constant (or tuple of constants), else an
        error at `node` (or `arguments.NeedStatic` naming the entry's parameters)."""

    def as_float(self, value, node) -> Atom:
        """A number or an array, converted to float64 unless it is a float already."""

    def promote(self, x, y, node) -> tuple[Atom, Atom]:
        """Two operands with their common element type (numpy 2's rules)."""

    def one(self, args, node):
        """The only positional argument (an error at `node` unless there is one)."""

    def exactly(self, args, n, node):
        """The `n` positional arguments (an error at `node` unless there are `n`)."""
