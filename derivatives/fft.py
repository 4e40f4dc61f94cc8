"""The lengths and axes of numpy's FFTs, resolved once for the compiler and the eager tape
(the adjoints pad or truncate cotangents back to the input's lengths along them).

Contract: `resolved(name, shape, s, axes)` returns (lengths, axes) as numpy's `np.fft.<name>`
resolves them for an input of `shape`: every axis by default (the last `len(s)` with `s`),
axes made non-negative, -1 in `s` standing for the input's length along that axis, and
irfftn's last length `2 * (m - 1)` by default. It raises numpy's AxisError for an axis out
of range, ValueError for `s` and `axes` of different lengths, and NotImplementedError for a
repeated axis (numpy transforms such an axis twice; neither side does).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np


def resolved(name: str, shape: tuple[int, ...], s: Any, axes: Any
             ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """See the module docstring."""
    if axes is None:
        axes = range(-len(s), 0) if s is not None else range(len(shape))
    axes = tuple(_axis(a, len(shape)) for a in axes)
    if len(set(axes)) != len(axes):
        raise NotImplementedError(f"np.fft.{name} over a repeated axis is not supported: "
                                  "transform along each axis once")
    if s is None:
        s = [shape[a] for a in axes]
        if name.startswith("irfft") and axes:
            s[-1] = 2 * (shape[axes[-1]] - 1)
    elif len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    return tuple(shape[a] if n == -1 else operator.index(n)
                 for n, a in zip(s, axes, strict=True)), axes


def _axis(axis: Any, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension "
                                      f"{ndim}")
    return axis % ndim
