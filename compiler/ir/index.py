"""Index specifications: the static part of a basic numpy index, one item per position.

The `spec` parameter of the `index` and `index_update` primitives is a tuple of items:

- `Int()`: an integer index whose value is the next runtime operand of the equation (an i64,
  already wrapped into range by the frontend); it removes the dimension;
- `Slice(start, stop, step)`: a constant slice (Python's `None` for an omitted bound);
- `NewAxis()`: a new axis of length 1 (`None` in a numpy index).

Dimensions after the last item are taken whole. Items print in the IR text as `int`,
`start:stop:step` (as in Python, omitted parts left empty: `1:`, `:-1`, `::2`) and `newaxis`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .dims import DimLike, is_symbolic, slice_indices, slice_length


@dataclass(frozen=True)
class Int:
    """An integer index read from the next runtime operand."""

    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class Slice:
    """A constant slice `start:stop:step` (bounds as Python's, `None` when omitted)."""

    start: DimLike | None = None
    stop: DimLike | None = None
    step: DimLike | None = None

    def __post_init__(self) -> None:
        if self.step == 0:
            raise ValueError("slice step cannot be zero")

    def __str__(self) -> str:
        start, stop, step = ("" if v is None else str(v) for v in
                             (self.start, self.stop, self.step))
        return f"{start}:{stop}" + (f":{step}" if self.step is not None else "")

    def key(self) -> slice:
        """The Python slice."""
        return slice(self.start, self.stop, self.step)

    def indices(self, n: DimLike) -> tuple[DimLike, DimLike, int]:
        """(start, stop, step) normalised for a dimension of length `n` (`slice.indices`;
        for a run-time size, `dims.slice_indices`)."""
        if self.symbolic(n):
            return slice_indices(self.start, self.stop, self.step, n)
        return self.key().indices(n)

    def length(self, n: DimLike) -> DimLike:
        """How many elements it selects from a dimension of length `n`."""
        if self.symbolic(n):
            return slice_length(*self.indices(n))
        return len(range(*self.indices(n)))

    def symbolic(self, n: DimLike) -> bool:
        """Whether `n` or a bound is a run-time size (`x[:len(y)]` with shapes="dynamic")."""
        return any(is_symbolic(v) for v in (n, self.start, self.stop, self.step))


@dataclass(frozen=True)
class NewAxis:
    """A new axis of length 1."""

    def __str__(self) -> str:
        return "newaxis"


IndexItem = Int | Slice | NewAxis
Spec = tuple[IndexItem, ...]
WHOLE = Slice()  # `:`, a whole dimension


def has_runtime_index(spec: Spec) -> bool:
    """Whether `spec` takes a runtime int operand (else it is known at compile time)."""
    return any(isinstance(item, Int) for item in spec)
