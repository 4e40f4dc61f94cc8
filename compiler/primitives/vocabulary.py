"""The derivative vocabulary (`adlite.derivatives.Ops`) implemented with the IR `Builder`, so
that the shared derivative formulas emit IR.

Contract: `BuilderOps(b)` answers every word of the vocabulary: the words that are primitive
names (`add`, `select`, `eq`, `and_`, ...) emit that primitive with `b`; `constant` is a
`Const` of the operand's scalar type, `expand` broadcasts a reduced value back to the
operand's shape (`reshape` then `broadcast_to`), `reduce_sum` is the `sum` primitive and
`reduce_max` the `max` primitive (beside an `empty_extremum` when it sees no element), a
scalar's being itself; `reshape`, `transpose`, `sum_to` take their shape or axes as
arguments (a reshape to shape None gives the scalar); dtypes are the operands' scalar `Type`s
(`cast` is the `convert` primitive); `slice_along` is an `index` by a slice (a step too),
`concatenate` takes a list (one array: itself). An indexing `key` is an `IndexKey` (the
index spec and its integer operands): `take` is the `index` primitive, `scatter_add` an
`index_update` (mode add) into `full` zeros and `zero_at` an `index_update` (mode set) of a
zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..ir.builder import Builder
from ..ir.core import Atom, Const, Type
from ..ir.index import WHOLE, Slice, Spec
from .shapes import reduced_shape, reduces_nothing


def expand_back(b: Builder, g: Atom, shape: tuple[int, ...],
                axis: tuple[int, ...] | None) -> Atom:
    """Broadcast a reduction's result or cotangent `g` back to the operand's `shape`."""
    if g.type.is_array:
        g = b.reshape(g, shape=reduced_shape(shape, axis, True))
    return b.broadcast_to(g, shape=shape)


@dataclass(frozen=True)
class IndexKey:
    """A basic index in the compiler's representation: its spec and integer operands."""

    spec: Spec
    ints: Sequence[Atom]


class BuilderOps:
    def __init__(self, b: Builder) -> None:
        self.b = b

    def __getattr__(self, word: str) -> Any:
        return getattr(self.b, word)

    def constant(self, value: float, like: Atom) -> Const:
        return Const(value, like.type.scalar)

    def expand(self, x: Atom, shape: tuple[int, ...], axis: tuple[int, ...] | None) -> Atom:
        return expand_back(self.b, x, shape, axis)

    def reshape(self, x: Atom, shape: tuple[int, ...] | None) -> Atom:
        """To an array shape, or to a scalar (shape None: the one element)."""
        return self.b.reshape(x, shape=shape) if shape else self.b.sum_to(x, shape=None)

    def transpose(self, x: Atom, axes: tuple[int, ...]) -> Atom:
        return self.b.transpose(x, axes=axes)

    def sum_to(self, x: Atom, shape: tuple[int, ...] | None) -> Atom:
        return self.b.sum_to(x, shape=shape)

    def slice_along(self, x: Atom, axis: int, start: int, stop: int,
                    step: int | None = None) -> Atom:
        return self.b.index(x, spec=(WHOLE,) * axis + (Slice(start, stop, step),))

    def concatenate(self, xs: Sequence[Atom], axis: int) -> Atom:
        return xs[0] if len(xs) == 1 else self.b.concatenate(*xs, axis=axis)

    def take(self, x: Atom, key: IndexKey) -> Atom:
        return self.b.index(x, *key.ints, spec=key.spec)

    def scatter_add(self, shape: tuple[int, ...], x: Atom, key: IndexKey) -> Atom:
        zeros = self.b.zeros(x.type.with_shape(shape))
        return self.b.index_update(zeros, x, *key.ints, spec=key.spec, mode="add")

    def zero_at(self, x: Atom, key: IndexKey) -> Atom:
        return self.b.index_update(x, Const(0.0, x.type.scalar), *key.ints, spec=key.spec,
                                   mode="set")

    def is_float(self, dtype: Type) -> bool:
        return dtype.is_float

    # the IR the rules run on is real (complex values are pairs by then: `pair_ops`)
    def conj(self, x: Atom) -> Atom:
        return x

    def real(self, x: Atom) -> Atom:
        return x

    def is_complex(self, x: Atom) -> bool:
        return False

    def cast(self, x: Atom, dtype: Type) -> Atom:
        return self.b.convert(x, to=dtype.scalar)

    def reduce_sum(self, x: Atom, axis: tuple[int, ...] | None, keepdims: bool) -> Atom:
        """numpy's sum; a scalar's is itself."""
        return self.b.sum(x, axis=axis, keepdims=keepdims) if x.type.is_array else x

    def reduce_prod(self, x: Atom, axis: tuple[int, ...] | None, keepdims: bool) -> Atom:
        """numpy's prod; a scalar's is itself."""
        return self.b.prod(x, axis=axis, keepdims=keepdims) if x.type.is_array else x

    def reduce_max(self, x: Atom, axis: tuple[int, ...] | None, keepdims: bool) -> Atom:
        """numpy's max (ValueError when executed over no element); a scalar's is itself."""
        if not x.type.is_array:
            return x
        if reduces_nothing(x.type.shape, axis):
            self.b.emit("empty_extremum", [x], kind="max", axis=axis, keepdims=keepdims)
        return self.b.max(x, axis=axis, keepdims=keepdims)
