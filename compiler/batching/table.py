"""The batching rules' registration, and the helpers the rules share.

Contract: a batching rule is the `batch` rule of its primitive in the table of primitives
(`ir.primitive`; `rule(*names)` attaches it there). `batch(b, eqn, args, batched, size)`
emits, with builder `b`, the batched form of equation `eqn` whose operands are now `args`;
`batched[k]` says whether `args[k]` carries the batch (always as its axis 0, of length
`size`; the others are the operands as the unbatched program had them). It returns one
`(atom, batched)` pair per output of `eqn`, or None when it has no direct form for these
operands: the interpreter then runs the equation
once per example (`mapping.py`), which is always correct. A rule never changes what an
unbatched operand means: it broadcasts it where the batched result needs it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.builder import Builder
from ..ir.core import Atom, Const, Type
from ..ir.primitive import attach

Rule = Callable[..., list[tuple[Atom, bool]] | None]


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Attaches the decorated function as the `batch` rule of primitives `names`."""
    def register(fn: Rule) -> Rule:
        for name in names:
            attach(name, batch=fn)
        return fn
    return register


def example_shape(t: Type) -> tuple[int, ...]:
    """The shape of one example of a batched value of type `t` (`()` for a scalar)."""
    return tuple(t.shape[1:])


def with_batch(t: Type, size: int) -> Type:
    """The type of a batch of `size` values of type `t`."""
    return t.with_shape((size,) + (t.shape or ()))


def batch_of(b: Builder, x: Atom, size: int) -> Atom:
    """The unbatched `x` repeated `size` times along a new axis 0."""
    if x.type.is_array:
        return b.broadcast_to(x, shape=(size,) + x.type.shape)
    return b.full(x, shape=(size,), dtype=x.type.scalar)


def ensure(b: Builder, x: Atom, batched: bool, size: int) -> Atom:
    """`x` as a batched value (repeated when it is not batched)."""
    return x if batched else batch_of(b, x, size)


def expand(b: Builder, x: Atom, ndim: int) -> Atom:
    """The batched `x` with length-1 axes inserted after the batch axis, so that one example
    has `ndim` dimensions (numpy then broadcasts it against unbatched operands)."""
    shape = example_shape(x.type)
    if len(shape) >= ndim:
        return x
    return b.reshape(x, shape=(x.type.shape[0],) + (1,) * (ndim - len(shape)) + shape)


def move_axis(b: Builder, x: Atom, source: int, destination: int) -> Atom:
    """`np.moveaxis(x, source, destination)`."""
    if source == destination:
        return x
    axes = [a for a in range(len(x.type.shape)) if a != source]
    axes.insert(destination, source)
    return b.transpose(x, axes=tuple(axes))


def zero(t: Type) -> Const:
    """The zero of `t`'s element type (False for bools)."""
    return Const(False if t.name == "bool" else 0, t.scalar)
