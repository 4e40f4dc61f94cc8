"""The adjoints of the shape changes (see `vocabulary.Linear`) and the dtype conversion
(`vocabulary.Cast`), each written once.

`operand_shape` is the operand's shape (None or () for a scalar, as each side writes it); the
primitive's own parameters follow as keywords.
"""

from __future__ import annotations

from .vocabulary import Cast, Linear, define


def _inverse(axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(range(len(axes)), key=axes.__getitem__))


define(Linear("reshape", lambda o, g, operand_shape, *, shape: o.reshape(g, operand_shape)))
define(Linear("transpose", lambda o, g, operand_shape, *, axes: o.transpose(g, _inverse(axes))))
define(Linear("broadcast_to", lambda o, g, operand_shape, *, shape: o.sum_to(g, operand_shape)))


def _across(o, value, from_dtype, to_dtype):
    """Only float -> float conversions carry a derivative, converted to the other precision."""
    if not (o.is_float(from_dtype) and o.is_float(to_dtype)):
        return None
    return value if from_dtype == to_dtype else o.cast(value, to_dtype)


define(Cast("convert", _across))
