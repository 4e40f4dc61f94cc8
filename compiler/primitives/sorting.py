"""Sorting: `argsort`, the order of the elements of each lane along the last axis.

Contract: `argsort x` takes a float64, float32 or int64 array and gives the int64 array of its
shape holding, for each lane along the last axis, the positions of the lane's elements in
ascending order: a stable order (equal elements keep their order, numpy's `kind='stable'`),
NaN after every number (numpy's order; NaNs among themselves keep their order too). It is not
differentiated (an int result). `np.sort`, `np.argsort`, `np.take_along_axis`, `x.sort()` and
the order statistics are built from it and `take` by the frontend (`frontend/sorting.py`), so
the gradient of a sort gathers the tangent and scatters the cotangent through the
permutation with `take`'s rules. The reference is numpy's stable sort; the LLVM lowering is a
bottom-up merge sort per lane (`backends/llvm/sorting.py`), which gives the same permutation.
"""

from __future__ import annotations

import numpy as np

from ..ir.core import I64
from ..ir.primitive import Primitive, register

SORTABLE = ("f64", "f32", "i64")


def _argsort_type(in_types, params):
    (x,) = in_types
    if not x.is_array or not x.shape or x.name not in SORTABLE:
        raise TypeError(f"argsort: a float or int64 array, got {x}")
    return [I64.with_shape(x.shape)]


register(Primitive(
    "argsort", _argsort_type, lambda x: (np.argsort(x, axis=-1, kind="stable"),), None, None,
    lambda args, e: f"np.argsort({args[0]}, axis=-1, kind='stable')", differentiable=False))
