"""Shape rules shared by the primitives: numpy broadcasting over static shapes.

Scalars have shape None; arrays have a tuple. `broadcast(*shapes)` follows numpy (raises
TypeError naming the shapes on mismatch); a result of rank 0 is a scalar.
`reduced_shape(shape, axis, keepdims)` is the shape of a reduction's result;
`reduces_nothing(shape, axis)` says a reduction sees no element (max/min then raise).
`broadcast_shapes(*shapes)` is `np.broadcast_shapes` (numpy's ValueError on mismatch) for
shapes that may hold run-time sizes (`ir.dims`).
"""

from __future__ import annotations

import numpy as np

from ..ir.core import Type
from ..ir.dims import DimUndecided, is_symbolic


def broadcast(*shapes: tuple[int, ...] | None) -> tuple[int, ...] | None:
    arrays = [s for s in shapes if s is not None]
    if not arrays:
        return None
    ndim = max(len(s) for s in arrays)
    out = []
    for k in range(ndim):
        sizes = {s[len(s) - ndim + k] for s in arrays if len(s) - ndim + k >= 0} - {1}
        if len(sizes) > 1:
            raise TypeError("shapes " + " and ".join(str(s) for s in arrays) +
                            " cannot be broadcast together")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_shapes(*shapes: tuple) -> tuple:
    """numpy's `np.broadcast_shapes` of shapes whose sizes may be run-time sizes."""
    if not any(is_symbolic(n) for shape in shapes for n in shape):
        return np.broadcast_shapes(*shapes)
    try:
        return broadcast(*shapes) or ()
    except DimUndecided:
        raise
    except TypeError as e:
        raise ValueError(str(e)) from None


def elementwise(in_types: list[Type], dtype: str | None = None,
                allowed: tuple[str, ...] = ("f64", "f32", "i64")) -> Type:
    """Result type of an elementwise primitive; operands must share their element type."""
    names = {t.name for t in in_types}
    if len(names) != 1:
        raise TypeError(f"operands must have the same element type, got "
                        f"{', '.join(map(str, in_types))}")
    (name,) = names
    if name not in allowed:
        raise TypeError(f"expects {'/'.join(allowed)} operands, got "
                        f"{', '.join(map(str, in_types))}")
    return Type(dtype or name, broadcast(*(t.shape for t in in_types)))


def reduced_shape(shape, axis, keepdims):
    axes = range(len(shape)) if axis is None else axis
    out = tuple(1 if i in axes else n for i, n in enumerate(shape)) if keepdims else \
        tuple(n for i, n in enumerate(shape) if i not in axes)
    return out if out else None


def reduces_nothing(shape, axis) -> bool:
    """The reduced axes hold no element: numpy's max/min raise ValueError (no identity)."""
    return any(n == 0 for i, n in enumerate(shape) if axis is None or i in axis)
