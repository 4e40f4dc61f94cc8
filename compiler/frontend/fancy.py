"""Integer-array (fancy) indexing of arrays, as numpy does it.

Contract:
- `index_array(conv, value, node)`: the `IndexArray` an index item evaluating to `value` is
  (an int64 array, `np.arange` of integers included), None when `value` is not an array.
  Float arrays are refused (boolean masks are masks.py's).
- `gather(conv, x, spec, ints, node)`: `x[index]` for a spec from `index_spec` holding
  `IndexArray` items: the basic part (slices, ints, None) first, then the index arrays,
  broadcast together and checked (numpy's IndexError `index 5 is out of bounds for axis 0
  with size 3`, the first offending element of the first offending array, raised at run time
  by a `check`), negative ones wrapped, combined into one flat index into the indexed
  dimensions and read with `take`, whose adjoint scatters the cotangent back with repeated
  indices accumulating. Where the advanced items (arrays, and ints among them) are
  separated by a slice, None or `...`, numpy's rule puts the broadcast index dimensions
  first: the indexed dimensions are transposed to the front before they are merged.
- `scatter(conv, x, spec, ints, v, node)`: `x` after `x[index] = v` for an index of arrays
  and whole dimensions (`:`), with `put` (the last write to a repeated index wins, as numpy's;
  `x[idx] += v` is `x[idx] = x[idx] + v`, so repeats do not accumulate, as in numpy).
- `add_at(conv, node)`: the statement `np.add.at(x, index, v)` (`is_add_at(func)` tells the
  callee): `x[index] += v` with repeated indices accumulating (`take_add`), written into the
  local array `x` as an assignment to `x[index]` is.
Writes through index arrays mixed with ints, slices, None or `...` are refused with a hint;
writes through arrays separated by `:` follow numpy's rule (transposed, written, transposed
back).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import gast
import numpy as np

from ..ir.builder import const
from ..ir.core import F64, I64, Atom, Const, Var
from ..ir.dims import is_symbolic
from ..ir.index import WHOLE, Int, NewAxis
from ..primitives.gather import taken_shape
from ..primitives.shapes import broadcast_shapes
from .conversion_context import ConversionContext


class IndexArray(NamedTuple):
    """An integer array at one position of an index (a frontend-only spec item)."""

    value: Atom
    node: object


def index_array(conv: ConversionContext, value, node) -> IndexArray | None:
    if not (isinstance(value, Var | Const) and value.type.is_array):
        return None
    if value.type != I64.with_shape(value.type.shape):
        raise conv.source.error(node, f"arrays used as indices must be of integer (or boolean) "
                                      f"type, got {value.type}",
                                "pass an int array as an argument, or use np.arange with "
                                "integer bounds")
    return IndexArray(value, node)


def has_arrays(spec) -> bool:
    return any(isinstance(item, IndexArray) for item in spec)


def gather(conv: ConversionContext, x: Atom, spec, ints, node) -> Atom:
    y, flat, axis, _ = _flattened(conv, x, spec, ints, node)
    return conv.b.take(y, flat, axis=axis)


def scatter(conv: ConversionContext, x: Atom, spec, ints, v: Atom, node,
            accumulate: bool = False) -> Atom:
    """`x` after `x[index] = v` (`v` of `x`'s dtype), for an index of arrays and `:`; with
    `accumulate`, after `np.add.at(x, index, v)`."""
    if any(not isinstance(item, IndexArray) and item != WHOLE for item in spec):
        raise conv.source.error(node, "write through index arrays mixed with ints, slices, "
                                      "None or ...", "index with arrays and whole dimensions "
                                                     "(:) only, or write into a slice first")
    y, flat, axis, order = _flattened(conv, x, spec, ints, node)
    taken = taken_shape(y.type.shape, flat.type.shape, axis)
    if not _broadcasts_to(v.type.shape or (), taken):
        raise conv.source.error(node, f"shape mismatch: value array of shape "
                                      f"{v.type.shape or ()} could not be broadcast to "
                                      f"indexing result of shape {taken}")
    if v.type.shape != taken:
        v = conv.b.broadcast_to(v, shape=taken)
    if accumulate:
        updated = conv.b.add(y, conv.b.take_add(v, flat, axis=axis, shape=y.type.shape))
    else:
        updated = conv.b.put(y, v, flat, axis=axis)
    if order is None:
        return updated if y is x else conv.b.reshape(updated, shape=x.type.shape)
    moved = conv.b.reshape(updated, shape=tuple(x.type.shape[a] for a in order))
    return conv.b.transpose(moved, axes=tuple(int(a) for a in np.argsort(order)))


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    try:
        return broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _flattened(conv: ConversionContext, x: Atom, spec, ints, node):
    """(y, flat, axis, order) with `x[index]` = `take(y, flat, axis)`: `y` is `x` after the
    basic part of the index, its indexed dimensions merged into `axis`. Where the advanced
    items (arrays and ints) are not next to each other, numpy puts the indexed dimensions
    first: `y` is then transposed by `order` (the indexed axes first), else `order` is
    None."""
    advanced = [k for k, item in enumerate(spec) if isinstance(item, IndexArray | Int)]
    separated = advanced != list(range(advanced[0], advanced[-1] + 1))
    basic = tuple(WHOLE if isinstance(item, IndexArray) else item for item in spec)
    arrays, x_axes, y_axes = [], [], []
    dim = out = 0
    for item in spec:
        if isinstance(item, IndexArray):
            arrays.append(item)
            x_axes.append(dim)
            y_axes.append(out)
        if not isinstance(item, Int):
            out += 1
        if not isinstance(item, NewAxis):
            dim += 1
    y = conv.b.index(x, *ints, spec=basic) if any(i != WHOLE for i in basic) else x
    order = None
    if separated:
        order = tuple(y_axes) + tuple(a for a in range(out) if a not in y_axes)
        y = conv.b.transpose(y, axes=order) if order != tuple(range(out)) else y
    first = 0 if separated else y_axes[0]
    shape = y.type.shape
    sizes = [x.type.shape[a] for a in x_axes]
    try:
        common = broadcast_shapes(*(a.value.type.shape for a in arrays))
    except ValueError:
        shapes = " ".join(str(a.value.type.shape) for a in arrays)
        raise conv.source.error(node, f"shape mismatch: indexing arrays could not be broadcast "
                                      f"together with shapes {shapes}") from None
    flat = None
    for a, axis, n in zip(arrays, x_axes, sizes, strict=True):
        i = checked_index(conv, a.value, axis, n)
        if i.type.shape != common:
            i = conv.b.broadcast_to(i, shape=common)
        flat = i if flat is None else conv.b.add(conv.b.mul(flat, const(n)), i)
    if len(arrays) > 1:
        y = conv.b.reshape(y, shape=shape[:first] + (math.prod(sizes),) +
                           shape[first + len(arrays):])
    return y, flat, first, order


def checked_index(conv: ConversionContext, i: Atom, axis: int, n: int) -> Atom:
    """`i` wrapped into [0, n), after a run-time check raising numpy's IndexError (for the
    first offending element in row-major order)."""
    b = conv.b
    count = math.prod(i.type.shape)
    if count:
        flat = b.reshape(i, shape=(count,))
        bad = b.or_(b.lt(flat, const(-n)), b.ge(flat, const(n)))
        position = b.op("arange", n=count, dtype=F64)
        where = b.min(b.select(bad, position, Const(count, F64)), axis=None, keepdims=False)
        value = b.sum(b.select(b.eq(position, where), flat, const(0)), axis=None,
                      keepdims=False)
        size, operands = ((1, None, ()), [const(n)]) if is_symbolic(n) else (str(n), [])
        b.emit("check", [b.eq(where, Const(count, F64)), value, *operands],
               error="IndexError", args=(("str", ("index ", (0, None, ()),
                                                  f" is out of bounds for axis {axis} with size ",
                                                  size)),))
    return b.select(b.lt(i, const(0)), b.add(i, const(n)), i)


def is_add_at(func) -> bool:
    return isinstance(func, type(np.add.at)) and func == np.add.at


def add_at(conv: ConversionContext, node) -> None:
    if len(node.args) != 3 or node.keywords or not isinstance(node.args[0], gast.Name):
        raise conv.source.error(node, "np.add.at takes an array variable, an index and a value",
                                "call np.add.at(x, idx, v) with x a local array")
    v = conv.value(conv.expr(node.args[2]), node.args[2])
    conv.write(node.args[0].id, node.args[1], None, v, node, accumulate=True)
