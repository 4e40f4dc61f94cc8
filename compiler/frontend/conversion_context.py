"""What the structural frontend modules may use of the converter: three declared protocols.

Contract: the modules that convert Python structure (lists and ranges, closures, statements,
fancy indexing, boolean masks) receive the converter (`to_ir.FunctionConverter`) as their
first argument, typed with the narrowest protocol below; the converter's mixins (operators,
subscripts, calls, control flow) name in their docstring the protocol they use of the rest
of it. Neither uses anything of the converter that its protocol does not list
(tests/frontend/test_frontend_contexts.py checks both).
- `ExpressionContext`: `context.CallContext` (the builder, the source, static values,
  arguments) and the conversion of expressions to values (`masks`, `Operators`).
- `ConversionContext`: that, the function's variables (`scope`, a `scope.Scope`, with the
  assignment `bind`), its module's `globals` and values from outside the function, live views
  and writes into arrays, and the parts of slices (`sequences`, `closures`, `statements`,
  `fancy`, `objects`).
- `StatementContext`: that, and running statements, freezing views, following an array's
  new value into the names and tuples bound to it, inlining (`Subscripts`, `Calls`,
  `ControlFlow`).
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

    def line(self, node) -> int:
        """The line of `node` in the user's file."""

    def key(self, node):
        """A dict key: a string constant, or a compile-time value."""


class ConversionContext(ExpressionContext, Protocol):
    """The converter as its structural modules see it (see the module doc)."""

    scope: Scope
    globals: dict
    params: list[str]  # the function's parameters, in order

    def bind(self, name: str, value, ref) -> None:
        """The assignment `name = value`, an alias of `ref`'s object (None: a new one)."""

    def view_value(self, ref: Ref, base: Atom | None = None) -> Atom:
        """The current value of view `ref`, read from `base` (default: its object's value)."""

    def write(self, name: str, index, index_spec, v: Atom, node, accumulate=False) -> None:
        """`name[index] = v` through all of the names and views of `name`'s object."""

    def slice_parts(self, node: gast.Slice) -> list:
        """The values of a slice's lower, upper and step (None where absent)."""

    def static_slice(self, parts, node, key: str = "sequence") -> slice:
        """The slice of bounds `parts`, ints known when compiling (else the refusal of
        `static_requirements` key `key`)."""

    def resolve_global(self, obj, node, place=None):
        """A value from outside the function (read at every call where it has a place)."""

    def wrap_index(self, i, n: int, node):
        """Index `i` into an axis of length `n`, negative ones counted from the end."""

    def inline_transformed(self, transformed, args, node):
        """The value of calling adlite transformation `transformed` with the values `args`
        (its IR inlined)."""


class StatementContext(ConversionContext, Protocol):
    """The converter as its mixins see the rest of it (see the module doc)."""

    stack: tuple  # the functions being inlined, outermost first
    array_like: bool  # inside a numpy function's lowering: a list given is an array

    def block(self, stmts) -> None:
        """Convert the statements `stmts` in order."""

    def freeze(self, name: str, base: Atom | None = None) -> None:
        """View `name` keeps its current value from now on (it no longer follows its base)."""

    def placeholder(self, t: Type, b: Builder | None = None) -> Atom:
        """The value of a variable on a path where it is not assigned (never read there)."""

    def store(self, obj: int, value: Atom, line: int) -> None:
        """Array object `obj` has `value` now: its names see it, views cut off are poisoned."""

    def store_tuple(self, values: tuple, refs: tuple, obj, value, name, line):
        """Tuple `values` (of `name`, objects `refs`) after array object `obj` got `value`."""

    def outside(self, value, ref):
        """`ref`, or for an array read from outside the function its own frozen Ref."""

    def string_method(self, method, args, kwargs, node):
        """A method of a compile-time string, called when compiling."""
