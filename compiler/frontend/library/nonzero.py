"""np.nonzero, np.flatnonzero, np.argwhere, np.where(cond), np.extract, np.compress, np.unique:
arrays whose length depends on the values, as boolean selections (`selection_values`).

Contract: `nonzero(cx, cond, node)` is numpy's `np.nonzero(cond)`: a tuple, one `Selection`
per dimension of `cond`, of the coordinate grid along that dimension selected by `cond != 0`
(in C order, as numpy lists them); `np.where(cond)` with one argument is the same. np.flatnonzero
selects `arange(cond.size)`, np.argwhere the stacked coordinates (shape `(k, ndim)`).
np.extract(cond, x) selects the raveled `x` by the raveled `cond` (the same size), np.compress
(cond, x, axis) the rows of `x` along `axis` (axis=0 or None, `cond` as long as that axis).
np.unique(x) (no other argument) selects, from the sorted raveled `x`, each value that differs
from the one before it (NaNs, sorted last, count as one value: numpy's `equal_nan=True`);
gradients flow through the sort to the first of equal values.
Indexing with these selections (`x[np.nonzero(m)]`, `x[idx]` with `idx` a selection of ints)
is `index(cx, x, items, node)`: the gather of the whole index arrays, with the positions the
mask leaves out pointed at 0, selected by their mask. The rest (arithmetic, reductions, len)
is what a selection supports.
"""

from __future__ import annotations

import math

import numpy as np

from ...ir.builder import const
from ...ir.core import I64, Atom
from ...ir.index import WHOLE, Slice
from ..context import CallContext
from ..fancy import IndexArray, gather
from ..selection_values import Selection, escape, same_mask
from .arrays import where
from .registry import options, register
from .sorting import sort


def _condition(cx: CallContext, cond, node) -> Atom:
    cond = cx.value(cond, node)
    if not cond.type.is_array:
        raise cx.source.error(node, "np.nonzero of a number (numpy deprecates it)",
                              "call it on an array: np.nonzero(np.atleast_1d(c))")
    return cond if cond.type.name == "bool" else cx.b.ne(cond, const(0, cond.type.scalar))


def _grid(cx: CallContext, shape: tuple[int, ...], axis: int) -> Atom:
    """The coordinate along `axis` of every position of an array of `shape`."""
    b = cx.b
    line = b.op("arange", n=shape[axis], dtype=I64)
    line = b.reshape(line, shape=tuple(n if a == axis else 1 for a, n in enumerate(shape)))
    return b.broadcast_to(line, shape=shape) if line.type.shape != shape else line


def nonzero(cx: CallContext, cond, node) -> tuple[Selection, ...]:
    mask = _condition(cx, cond, node)
    shape = mask.type.shape
    return tuple(Selection(_grid(cx, shape, a), mask, node) for a in range(len(shape)))


def _where(cx: CallContext, args, kwargs, node):
    if len(args) == 1 and not kwargs:  # the indices of the True values
        return nonzero(cx, args[0], node)
    return where(cx, args, kwargs, node)


def _nonzero(cx: CallContext, args, kwargs, node):
    options(cx, kwargs, (), node)
    return nonzero(cx, cx.one(args, node), node)


def _flatnonzero(cx: CallContext, args, kwargs, node):
    options(cx, kwargs, (), node)
    mask = _condition(cx, cx.one(args, node), node)
    size = math.prod(mask.type.shape)
    flat = cx.b.reshape(mask, shape=(size,))
    return Selection(cx.b.op("arange", n=size, dtype=I64), flat, node)


def _argwhere(cx: CallContext, args, kwargs, node):
    options(cx, kwargs, (), node)
    mask = _condition(cx, cx.one(args, node), node)
    shape = mask.type.shape
    grids = [cx.b.reshape(_grid(cx, shape, a), shape=shape + (1,)) for a in range(len(shape))]
    stacked = grids[0] if len(grids) == 1 else cx.b.concatenate(*grids, axis=len(shape))
    return Selection(stacked, mask, node)


def _extract(cx: CallContext, args, kwargs, node):
    options(cx, kwargs, (), node)
    cond, x = cx.exactly(args, 2, node)
    mask, x = _condition(cx, cond, node), cx.array(x, node)
    size = math.prod(x.type.shape)
    if math.prod(mask.type.shape) != size:
        raise cx.source.error(node, f"np.extract with a condition of {math.prod(mask.type.shape)} "
                                    f"elements and an array of {size}",
                              "give a condition of the array's size")
    return Selection(cx.b.reshape(x, shape=(size,)),
                     cx.b.reshape(mask, shape=(size,)), node)


def _compress(cx: CallContext, args, kwargs, node):
    opts = options(cx, kwargs, ("axis",), node)
    cond, x = cx.exactly(args[:2], 2, node)
    axis = cx.static(args[2], node) if len(args) > 2 else opts.get("axis")
    mask, x = _condition(cx, cond, node), cx.array(x, node)
    if axis is None:
        x = cx.b.reshape(x, shape=(math.prod(x.type.shape),))
        axis = 0
    if axis not in (0, -len(x.type.shape)) or mask.type.shape != x.type.shape[:1]:
        raise cx.source.error(node, f"np.compress along axis {axis} with a condition of shape "
                                    f"{mask.type.shape} for an array of shape {x.type.shape}",
                              "compress along axis 0 (or None) with a condition as long as "
                              "that axis")
    return Selection(x, mask, node)


def index(cx: CallContext, x: Atom, items: tuple, node) -> Selection:
    """`x[items]`: `items` are selections of ints (by one mask), one per leading axis."""
    first = items[0]
    if not all(isinstance(i, Selection) and not i.rest and i.array.type.name == "i64"
               and same_mask(cx, i.mask, first.mask) for i in items):
        raise escape(cx, first, node, "this index (index with selections of ints by one mask, "
                                      "e.g. x[np.nonzero(m)])")
    if len(items) > len(x.type.shape):
        raise cx.source.error(node, f"too many indices for array: array is "
                                    f"{len(x.type.shape)}-dimensional, but {len(items)} were "
                                    "indexed")
    spec = tuple(IndexArray(cx.b.select(first.mask, i.array, const(0)), node) for i in items)
    spec += (WHOLE,) * (len(x.type.shape) - len(items))
    return Selection(gather(cx, x, spec, [], node), first.mask, first.node)


def _unique(cx: CallContext, args, kwargs, node):
    options(cx, kwargs, (), node)
    x = cx.array(cx.one(args, node), node)
    size = math.prod(x.type.shape)
    b = cx.b
    ordered = sort(cx, b.reshape(x, shape=(size,)) if len(x.type.shape) != 1 else x, 0)
    if size < 2:
        return Selection(ordered, b.broadcast_to(const(True), shape=(size,)), node)
    first = b.broadcast_to(const(True), shape=(1,))
    later, earlier = (b.index(ordered, spec=(Slice(1, None, None),)),
                      b.index(ordered, spec=(Slice(None, -1, None),)))
    new = b.ne(later, earlier)
    if x.type.is_float:  # NaN != NaN: only the first NaN starts a value
        new = b.and_(new, b.not_(b.and_(b.ne(later, later), b.ne(earlier, earlier))))
    return Selection(ordered, b.concatenate(first, new, axis=0), node)


register([np.nonzero], _nonzero)
register([np.where], _where)
register([np.unique], _unique)
register([np.flatnonzero], _flatnonzero)
register([np.argwhere], _argwhere)
register([np.extract], _extract)
register([np.compress], _compress)
