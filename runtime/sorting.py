"""Sorting on the tape: `np.sort`, `np.argsort`, `np.take_along_axis`, `np.median` of Tensors
and the methods `t.sort()` / `t.argsort()`, numpy's semantics (for `numpy_protocol`'s table).

Contract: the order is numpy's stable one (NaN last, equal elements in their original order)
whatever `kind` says, as in compiled code (`adlite.compiler.frontend.sorting`); `argsort`
gives an int64 tensor that does not require grad. `sort(a, axis)` is `take_along_axis(a,
argsort(a, axis), axis)`, and `take_along_axis` is a recorded integer-array index of `a`
(numpy's own construction), so the gradient scatters back through the permutation and
higher orders follow. `axis=None` works on the flattened array. `t.sort(axis=-1)` sorts `t`
in place and returns None, as `ndarray.sort` (not `torch.sort`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import functional as F

KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _options(kind: Any, order: Any) -> None:
    if kind not in KINDS:
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    if order is not None:
        raise TypeError("sorting with order= (structured arrays) is not supported on adlite "
                        "Tensors")


def argsort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None,
            *, stable: Any = None) -> Any:
    _options(kind, order)
    return F.constant(np.argsort(F._data(a), axis=axis, kind="stable"))


def take_along_axis(arr: Any, indices: Any, axis: int | None = -1) -> Any:
    arr = F.constant(arr)
    idx = F._data(indices)
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr, axis = F.reshape(arr, (arr.size,)), 0
    if idx.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    axis = F.normalize_axis(axis, arr.ndim)[0]
    key = tuple(idx if d == axis else np.arange(n).reshape((n,) + (1,) * (arr.ndim - d - 1))
                for d, n in enumerate(arr.shape))
    return F.index(arr, key)


def sort(a: Any, axis: int | None = -1, kind: Any = None, order: Any = None,
         *, stable: Any = None) -> Any:
    _options(kind, order)
    a = F.constant(a)
    if axis is None:
        a, axis = F.reshape(a, (a.size,)), 0
    return take_along_axis(a, argsort(a, axis), axis)


def median(a: Any, axis: int | None = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    """numpy's: the middle of each sorted lane (the mean of the two middle elements for an
    even length), NaN for a lane holding a NaN."""
    if out is not None:
        raise TypeError("numpy.median(..., out=...) is not supported on adlite Tensors")
    a = F.constant(a)
    if not np.issubdtype(a.dtype, np.floating):
        a = F.multiply(a, 1.0)
    flat = axis is None
    s = sort(a, axis)
    axis = 0 if flat else F.normalize_axis(axis, a.ndim)[0]
    n = s.shape[axis]
    lane = (slice(None),) * axis
    middle = s[lane + (slice(n // 2, n // 2 + 1),)]
    if n % 2 == 0:
        middle = (s[lane + (slice(n // 2 - 1, n // 2),)] + middle) / 2.0
    largest = s[lane + (slice(n - 1, n),)]
    middle = F.where(np.isnan(largest.data), largest, middle)
    if keepdims:
        return F.reshape(middle, (1,) * a.ndim if flat else middle.shape)
    return F.reshape(middle, () if flat else middle.shape[:axis] + middle.shape[axis + 1:])


FUNCTIONS = {np.sort: sort, np.argsort: argsort, np.take_along_axis: take_along_axis,
             np.median: median}
