"""The adjoints of the shape changes (see `vocabulary.Linear`) and the dtype conversion
(`vocabulary.Cast`), each written once.

`shapes` are the operands' shapes (None or () for a scalar, as each side writes it); the
primitive's own parameters follow as keywords.
"""

from __future__ import annotations

from .vocabulary import Cast, Linear, define


def _inverse(axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(range(len(axes)), key=axes.__getitem__))


def _concatenate(o, g, shapes, *, axis):
    """Each operand's cotangent is its slice of `g` along `axis`."""
    parts, start = [], 0
    for shape in shapes:
        parts.append(o.slice_along(g, axis, start, start + shape[axis]))
        start += shape[axis]
    return parts


define(Linear("reshape", lambda o, g, shapes, *, shape: [o.reshape(g, shapes[0])]))
define(Linear("transpose", lambda o, g, shapes, *, axes: [o.transpose(g, _inverse(axes))]))
define(Linear("broadcast_to", lambda o, g, shapes, *, shape: [o.sum_to(g, shapes[0])]))
define(Linear("concatenate", _concatenate))


def _across(o, value, from_dtype, to_dtype):
    """Only float -> float conversions carry a derivative, converted to the other precision."""
    if not (o.is_float(from_dtype) and o.is_float(to_dtype)):
        return None
    return value if from_dtype == to_dtype else o.cast(value, to_dtype)


define(Cast("convert", _across))
