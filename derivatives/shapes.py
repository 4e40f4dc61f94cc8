"""The adjoints of the shape changes, each written once (see `vocabulary.Linear`).

`operand_shape` is the operand's shape (None or () for a scalar, as each side writes it); the
primitive's own parameters follow as keywords.
"""

from __future__ import annotations

from .vocabulary import Linear, define


def _inverse(axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(range(len(axes)), key=axes.__getitem__))


define(Linear("reshape", lambda o, g, operand_shape, *, shape: o.reshape(g, operand_shape)))
define(Linear("transpose", lambda o, g, operand_shape, *, axes: o.transpose(g, _inverse(axes))))
define(Linear("broadcast_to", lambda o, g, operand_shape, *, shape: o.sum_to(g, operand_shape)))
