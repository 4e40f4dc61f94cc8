"""What a primitive of the eager tape is, and the table of them, which `functional.apply`
looks names up in.

Contract: `PRIMITIVES` maps each primitive's name to its `Primitive` (implementation, VJP,
what it saves, shared formula, selection, whether it takes complex operands). This module
only defines the table; the rules are registered by `primitives` (and `complex_numbers`,
`fft`, `decompositions`, `linalg`, `special`), a layer above the
tensor functions they are written with, and all of them are imported by the package's
`__init__`, so the table is complete once any module of `adlite.runtime` is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from adlite import derivatives


@dataclass(frozen=True)
class RuleContext:
    """What a VJP rule sees: saved inputs/output, input shapes/dtypes and the op's params."""

    inputs: tuple[Any, ...]
    output: Any
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[np.dtype, ...]
    params: dict[str, Any]


Chosen = Callable[[RuleContext, tuple[int, ...]], list[np.ndarray | None]]


@dataclass(frozen=True)
class Primitive:
    """`chosen(ctx, shape)`, for the primitives that select among their inputs' elements: per
    input, the bool array (of the output's `shape`) of the elements the output took from it,
    or None (the input is not selected so). `copies_inputs`, for rules that only compare the
    inputs' values (max/min find the extrema; their weights have derivative 0): the inputs
    are saved as copies, so changing one in place after the call does not invalidate
    backward (`x -= x.max(axis)` runs, as torch's `max(dim)`, which saves indices, does)."""

    name: str
    node_name: str
    impl: Callable[..., np.ndarray]
    vjp: Callable[[RuleContext, Any], tuple[Any, ...]]
    saves_inputs: bool = False
    saves_output: bool = False
    formula: derivatives.Formula | None = None
    chosen: Chosen | None = None
    copies_inputs: bool = False
    takes_complex: bool = False


PRIMITIVES: dict[str, Primitive] = {}
