"""numpy array functions composed from shape primitives, written once (against `Ops`) for the
compiler's frontend and the eager tape alike; their derivatives come from the primitives'.

Shapes are passed in (the vocabulary has no word for them) as tuples; axes are normalised
(non-negative) by the caller unless stated. Bad arguments raise ValueError with numpy's
message, which each side reports its own way.

- `diagonal(x, shape, offset)`: the diagonal of the last two axes (a strided slice of them
  flattened), as `np.diagonal(x, offset, -2, -1)`; `diag_matrix(v, n, k)`: `np.diag` of a
  vector (v on diagonal k of a square matrix of zeros, built by concatenation: no product
  with a mask, so an inf in v stays where numpy puts it);
- `diff(x, shape, n, axis)`: `np.diff` (`x[1:] - x[:-1]` along `axis`, n times);
- `roll(x, shape, shifts)`: `np.roll` by constant shifts (`{axis: shift}`), two slices
  concatenated per axis;
- `cross(a, b, a_shape, b_shape, axisa, axisb, axisc, axis)`: `np.cross` of 2- and
  3-vectors along `axisa` / `axisb` (broadcast), the result's vectors along `axisc` (`axis`
  sets all three), numpy's formula, operation order and checks (a missing third component
  is 0: its products are left out, as numpy's); `broadcast_shapes(*shapes)`: numpy's
  broadcast of shapes, its message when they do not;
- `cumulative(x, shape, axis, op)`: `np.cumsum` / `np.cumprod` (`op` is `o.add` / `o.mul`)
  along `axis`: the left fold numpy computes (bit for bit) up to `SEQUENTIAL_SCAN` elements,
  a log-depth scan beyond (the same sums, associated differently: a few ulps apart);
- `tile(x, shape, reps)`, `repeat(x, shape, repeats, axis)`: `np.tile` / `np.repeat` with
  constant counts, by a broadcast between reshapes;
- `flip(x, axes)`: `np.flip` (a reversed slice along each axis); `moved_axes(ndim, source,
  destination)`: the permutation of `np.moveaxis` (numpy's checks and messages);
  `triangle(x, shape, mask)`: `np.tril` / `np.triu` given the boolean mask of the kept
  elements (a select, not a product: an inf outside the triangle gives 0 as numpy's does);
- `atleast(x, shape, ndim)`: `np.atleast_1d/2d/3d` (numpy's placement of the new axes);
  `column_stack(xs, shapes)`, `dstack(xs, shapes)`: 1-D columns / `atleast_3d` parts
  concatenated;
- `meshgrid(xs, indexing)`: `np.meshgrid` of vectors (a tuple, each broadcast along the
  other axes; 'xy' swaps the first two); `pad_widths(pad_width, ndim)` and
  `pad(x, shape, widths, value)`: `np.pad(mode='constant')`, constant blocks concatenated;
- `select(conds, choices, default)`: `np.select` (the choice of the first true condition,
  else `default`: selects folded from the last condition, operands broadcast), so that each
  element's derivative is that of what it chose (`np.piecewise` in compiled code too: its
  lists reversed, the last true condition winning);
- `einsum(subscripts, operands, shapes)`: `np.einsum` for any explicit or implicit subscripts
  string without `...`: repeated letters in one operand take its diagonal, letters only one
  operand has and the output lacks are summed first, two operands contracted over shared
  letters without batch letters are one `matmul`, anything else is a broadcast product
  summed over the letters the output lacks, transposed to the output's order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .vocabulary import Ops

SEQUENTIAL_SCAN = 128
Shape = tuple[int, ...]


def zeros(o: Ops, like: Any, shape: Shape) -> Any:
    """Zeros of `like`'s float type."""
    return o.expand(o.constant(0.0, like), shape, None)


def diagonal(o: Ops, x: Any, shape: Shape, offset: int = 0) -> Any:
    *lead, n, m = shape
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    start = offset if offset >= 0 else -offset * m
    flat = o.reshape(x, (*lead, n * m))
    stop = start + (length - 1) * (m + 1) + 1 if length else start
    return o.slice_along(flat, len(lead), start, stop, m + 1)


def diag_matrix(o: Ops, v: Any, n: int, k: int = 0) -> Any:
    padded = o.concatenate([o.reshape(v, (n, 1)), zeros(o, v, (n, n))], 1)  # (n, n + 1)
    flat = o.slice_along(o.reshape(padded, (n * (n + 1),)), 0, 0, n * n)
    square = o.reshape(flat, (n, n))
    a = abs(k)
    if not a:
        return square
    m = n + a
    if k > 0:
        rows = o.concatenate([zeros(o, v, (n, a)), square], 1)
        return o.concatenate([rows, zeros(o, v, (a, m))], 0)
    columns = o.concatenate([zeros(o, v, (a, n)), square], 0)
    return o.concatenate([columns, zeros(o, v, (m, a))], 1)


def diff(o: Ops, x: Any, shape: Shape, n: int, axis: int) -> Any:
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    length = shape[axis]
    for _ in range(n):
        x = o.sub(o.slice_along(x, axis, 1, length), o.slice_along(x, axis, 0, length - 1))
        length = max(length - 1, 0)
    return x


def roll(o: Ops, x: Any, shape: Shape, shifts: dict[int, int]) -> Any:
    for axis, shift in sorted(shifts.items()):
        n = shape[axis]
        s = shift % n if n else 0
        if s:
            x = o.concatenate([o.slice_along(x, axis, n - s, n),
                               o.slice_along(x, axis, 0, n - s)], axis)
    return x


def cross(o: Ops, a: Any, b: Any, a_shape: Shape, b_shape: Shape, axisa: int = -1,
          axisb: int = -1, axisc: int = -1, axis: int | None = None) -> Any:
    if axis is not None:
        axisa = axisb = axisc = axis
    if not a_shape or not b_shape:
        raise ValueError("At least one array has zero dimension")
    a, a_shape = _axis_last(o, a, a_shape, axisa, "axisa")
    b, b_shape = _axis_last(o, b, b_shape, axisb, "axisb")
    if a_shape[-1] not in (2, 3) or b_shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    batch = broadcast_shapes(a_shape[:-1], b_shape[:-1])
    ca = [o.slice_along(a, len(a_shape) - 1, k, k + 1) for k in range(a_shape[-1])] + [None]
    cb = [o.slice_along(b, len(b_shape) - 1, k, k + 1) for k in range(b_shape[-1])] + [None]

    def component(i: int, j: int) -> Any:  # a_i b_j - a_j b_i, a missing third one is 0
        plus = None if ca[i] is None or cb[j] is None else o.mul(ca[i], cb[j])
        minus = None if ca[j] is None or cb[i] is None else o.mul(ca[j], cb[i])
        return o.neg(minus) if plus is None else plus if minus is None else o.sub(plus, minus)

    if a_shape[-1] == b_shape[-1] == 2:
        return o.reshape(component(0, 1), batch)
    out = o.concatenate([component(i, j) for i, j in ((1, 2), (2, 0), (0, 1))], len(batch))
    axisc = _axes([axisc], len(batch) + 1, "axisc")[0]
    if axisc == len(batch):
        return out
    return o.transpose(out, (*range(axisc), len(batch), *range(axisc, len(batch))))


def _axis_last(o: Ops, x: Any, shape: Shape, axis: int, name: str) -> tuple[Any, Shape]:
    """`x` (of `shape`) with axis `axis` moved last (numpy's AxisError message, prefixed
    with `name`), and its new shape."""
    axis = _axes([axis], len(shape), name)[0]
    if axis == len(shape) - 1:
        return x, tuple(shape)
    order = (*range(axis), *range(axis + 1, len(shape)), axis)
    return o.transpose(x, order), tuple(shape[k] for k in order)


def broadcast_shapes(*shapes: Shape) -> Shape:
    """numpy's broadcast of `shapes` (its ValueError when they do not broadcast)."""
    ndim = max(map(len, shapes), default=0)
    out = []
    for k in range(-ndim, 0):
        at = [(i, s[k]) for i, s in enumerate(shapes) if len(s) >= -k and s[k] != 1]
        sizes = {n for _, n in at}
        if len(sizes) > 1:
            first, n = at[0]
            second = next(i for i, m in at if m != n)
            raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape.  "
                             f"Mismatch is between arg {first} with shape "
                             f"{tuple(shapes[first])} and arg {second} with shape "
                             f"{tuple(shapes[second])}.")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def cumulative(o: Ops, x: Any, shape: Shape, axis: int, op: Callable[[Any, Any], Any]) -> Any:
    n = shape[axis]
    if n <= 1:
        return x
    if n <= SEQUENTIAL_SCAN:
        parts = [o.slice_along(x, axis, 0, 1)]
        for k in range(1, n):
            parts.append(op(parts[-1], o.slice_along(x, axis, k, k + 1)))
        return o.concatenate(parts, axis)
    shift = 1
    while shift < n:
        x = o.concatenate([o.slice_along(x, axis, 0, shift),
                           op(o.slice_along(x, axis, shift, n),
                              o.slice_along(x, axis, 0, n - shift))], axis)
        shift *= 2
    return x


def tile(o: Ops, x: Any, shape: Shape, reps: Sequence[int]) -> Any:
    d = max(len(shape), len(reps))
    shape = (1,) * (d - len(shape)) + tuple(shape)
    reps = (1,) * (d - len(reps)) + tuple(reps)
    spread = tuple(v for r, s in zip(reps, shape, strict=True) for v in (r, s))
    x = o.expand(x, spread, tuple(range(0, 2 * d, 2)))
    return o.reshape(x, tuple(r * s for r, s in zip(reps, shape, strict=True)))


def repeat(o: Ops, x: Any, shape: Shape, repeats: int, axis: int) -> Any:
    spread = tuple(shape[:axis + 1]) + (repeats,) + tuple(shape[axis + 1:])
    x = o.expand(x, spread, (axis + 1,))
    return o.reshape(x, tuple(shape[:axis]) + (shape[axis] * repeats,) + tuple(shape[axis + 1:]))


def flip(o: Ops, x: Any, axes: Sequence[int]) -> Any:
    for axis in axes:
        x = o.slice_along(x, axis, None, None, -1)
    return x


def moved_axes(ndim: int, source: Sequence[int], destination: Sequence[int]) -> Shape:
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of "
                         "elements")
    src, dst = (_axes(axes, ndim, name) for axes, name in ((source, "source"),
                                                          (destination, "destination")))
    order = [n for n in range(ndim) if n not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return tuple(order)


def _axes(axes: Sequence[int], ndim: int, name: str) -> list[int]:
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of bounds for array of dimension {ndim}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in `{name}` argument")
    return out


def meshgrid(o: Ops, xs: Sequence[Any], sizes: Sequence[int], indexing: str) -> tuple:
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    order = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        order[0], order[1] = 1, 0
    shape = [0] * len(xs)
    for i, n in enumerate(sizes):
        shape[order[i]] = n
    return tuple(o.expand(x, tuple(shape), tuple(a for a in range(len(xs)) if a != order[i]))
                 for i, x in enumerate(xs))


def pad_widths(pad_width: Any, ndim: int) -> list[tuple[int, int]]:
    """numpy's reading of `np.pad`'s pad_width: an int, (before, after) or one pair per axis."""
    nested = isinstance(pad_width, tuple | list) and any(
        isinstance(v, tuple | list) for v in pad_width)
    if nested and not all(isinstance(v, tuple | list) for v in pad_width):
        raise ValueError("setting an array element with a sequence. The requested array has "
                         "an inhomogeneous shape after 1 dimensions.")
    rows = [_pad_pair(v) for v in pad_width] if nested else [_pad_pair(pad_width)]
    if len(rows) not in (1, ndim):
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: ({len(rows)},2)  and requested shape "
                         f"({ndim},2)")
    return rows * ndim if len(rows) == 1 else rows


def _pad_pair(v: Any) -> tuple[int, int]:
    v = tuple(v) if isinstance(v, tuple | list) else (v,)
    if len(v) not in (1, 2) or not all(isinstance(n, int) and not isinstance(n, bool)
                                       for n in v):
        raise ValueError("`pad_width` must be of integral type.")
    if min(v) < 0:
        raise ValueError("index can't contain negative values")
    return (v[0], v[-1])


def pad(o: Ops, x: Any, shape: Shape, widths: Sequence[tuple[int, int]], value: float) -> Any:
    shape = list(shape)
    for axis, (before, after) in enumerate(widths):
        parts = []
        for n in (before, after):
            block = tuple(shape[:axis]) + (n,) + tuple(shape[axis + 1:])
            parts.append(o.expand(o.constant(value, x), block, None) if n else None)
        x = o.concatenate([p for p in (parts[0], x, parts[1]) if p is not None], axis)
        shape[axis] += before + after
    return x


def select(o: Ops, conds: Sequence[Any], choices: Sequence[Any], default: Any) -> Any:
    out = default
    for cond, choice in zip(reversed(conds), reversed(choices), strict=True):
        out = o.select(cond, choice, out)
    return out


def triangle(o: Ops, x: Any, shape: Shape, mask: Any) -> Any:
    return o.select(mask, x, zeros(o, x, shape))


def atleast(o: Ops, x: Any, shape: Shape, ndim: int) -> Any:
    new = _atleast_shape(shape, ndim)
    return x if new == tuple(shape) else o.reshape(x, new)


def column_stack(o: Ops, xs: Sequence[Any], shapes: Sequence[Shape]) -> Any:
    shapes = [(s[0], 1) if len(s) == 1 else _atleast_shape(s, 2) for s in shapes]
    columns = [o.reshape(x, s) for x, s in zip(xs, shapes, strict=True)]
    return _joined(o, columns, shapes, 1)


def dstack(o: Ops, xs: Sequence[Any], shapes: Sequence[Shape]) -> Any:
    parts = [atleast(o, x, s, 3) for x, s in zip(xs, shapes, strict=True)]
    return _joined(o, parts, [_atleast_shape(s, 3) for s in shapes], 2)


def _atleast_shape(shape: Shape, ndim: int) -> Shape:
    shape = tuple(shape)
    if len(shape) >= ndim:
        return shape
    if ndim == 3 and len(shape) == 2:
        return shape + (1,)
    if ndim == 3:
        return (1,) + (shape or (1,)) + (1,)
    return (1,) * (ndim - len(shape)) + shape


def _joined(o: Ops, parts: Sequence[Any], shapes: Sequence[Shape], axis: int) -> Any:
    first = shapes[0]
    for s in shapes[1:]:
        if len(s) != len(first):
            raise ValueError("all the input array dimensions except for the concatenation axis "
                             "must match exactly")
        if any(a != b for i, (a, b) in enumerate(zip(first, s, strict=True)) if i != axis):
            raise ValueError("all the input array dimensions except for the concatenation axis "
                             "must match exactly")
    return o.concatenate(list(parts), axis)


# ---- einsum -----------------------------------------------------------------------------------

def parse_einsum(subscripts: str, shapes: Sequence[Shape]) -> tuple[list[str], str, dict]:
    """(letters of each operand, output letters, size of each letter), checked as numpy does."""
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise ValueError("einsum with '...' (ellipsis) is not supported: name every axis")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError("more operands provided to einstein sum function than specified in "
                         "the subscripts string" if len(shapes) > len(terms) else
                         "fewer operands provided to einstein sum function than specified in "
                         "the subscripts string")
    letters = "".join(terms)
    for c in letters + output:
        if not c.isalpha():
            raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, "
                             "subscripts must be letters")
    if not arrow:
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    sizes: dict[str, int] = {}
    for term, shape in zip(terms, shapes, strict=True):
        if len(term) != len(shape):
            raise ValueError("operand has more dimensions than subscripts given in einstein "
                             "sum, but no '...' ellipsis provided to broadcast the extra "
                             "dimensions." if len(shape) > len(term) else
                             "einstein sum subscripts string contains too many subscripts for "
                             "operand")
        for c, n in zip(term, shape, strict=True):
            if sizes.setdefault(c, n) != n:
                raise ValueError(f"operands could not be broadcast together: subscript '{c}' "
                                 f"has sizes {sizes[c]} and {n}")
    for c in output:
        if output.count(c) > 1:
            raise ValueError(f"einstein sum subscripts string includes output subscript "
                             f"'{c}' multiple times")
        if c not in sizes:
            raise ValueError(f"einstein sum subscripts string included output subscript '{c}' "
                             "which never appeared in an input")
    return terms, output, sizes


def _transposed(o: Ops, x: Any, letters: str, order: str) -> tuple[Any, str]:
    """`x` (axes named by `letters`) with its axes in the order they appear in `order`."""
    target = "".join(sorted(letters, key=order.index))
    if target != letters:
        x = o.transpose(x, tuple(letters.index(c) for c in target))
    return x, target


def _distinct(o: Ops, x: Any, letters: str, sizes: dict) -> tuple[Any, str]:
    """A repeated letter takes the diagonal of its two axes (moved last)."""
    while len(set(letters)) != len(letters):
        c = next(c for c in letters if letters.count(c) > 1)
        p = letters.index(c)
        q = letters.index(c, p + 1)
        rest = [i for i in range(len(letters)) if i not in (p, q)]
        if rest + [p, q] != list(range(len(letters))):
            x = o.transpose(x, (*rest, p, q))
        kept = "".join(letters[i] for i in rest)
        x = diagonal(o, x, tuple(sizes[d] for d in kept) + (sizes[c], sizes[c]))
        letters = kept + c
    return x, letters


def _sum_out(o: Ops, x: Any, letters: str, drop: set) -> tuple[Any, str]:
    axes = tuple(i for i, c in enumerate(letters) if c in drop)
    if not axes:
        return x, letters
    return o.reduce_sum(x, axes, False), "".join(c for c in letters if c not in drop)


def _reshaped(o: Ops, x: Any, shape: Shape) -> Any:
    return o.reshape(x, shape) if shape else o.reshape(x, None)


def _contract(o: Ops, a: Any, la: str, b: Any, lb: str, output: str, sizes: dict):
    """Two operands without batch letters contracted over their shared letters: a matmul."""
    shared = [c for c in la if c in lb]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]
    a, _ = _transposed(o, a, la, "".join(left + shared))
    b, _ = _transposed(o, b, lb, "".join(shared + right))
    size = {name: math.prod(sizes[c] for c in part) for name, part in
            (("left", left), ("shared", shared), ("right", right))}
    a = _reshaped(o, a, ((size["left"],) if left else ()) + (size["shared"],))
    b = _reshaped(o, b, (size["shared"],) + ((size["right"],) if right else ()))
    product = o.matmul(a, b)
    letters = "".join(left + right)
    full = tuple(sizes[c] for c in letters)
    if len(full) != (1 if left else 0) + (1 if right else 0):
        product = o.reshape(product, full)
    product, letters = _transposed(o, product, letters, output)
    return product


def einsum(o: Ops, subscripts: str, operands: Sequence[Any], shapes: Sequence[Shape]) -> Any:
    terms, output, sizes = parse_einsum(subscripts, shapes)
    xs, names = [], []
    for k, (x, letters) in enumerate(zip(operands, terms, strict=True)):
        x, letters = _distinct(o, x, letters, sizes)
        elsewhere = set(output).union(*(t for j, t in enumerate(terms) if j != k))
        x, letters = _sum_out(o, x, letters, set(letters) - elsewhere)
        xs.append(x)
        names.append(letters)
    if len(xs) == 2 and names[0] and names[1]:
        shared = set(names[0]) & set(names[1])
        if shared and not shared & set(output):
            return _contract(o, xs[0], names[0], xs[1], names[1], output, sizes)
    order = output + "".join(dict.fromkeys(c for n in names for c in n if c not in output))
    product = None
    for x, letters in zip(xs, names, strict=True):
        x, letters = _transposed(o, x, letters, order)
        if letters and letters != order:
            x = o.reshape(x, tuple(sizes[c] if c in letters else 1 for c in order))
        product = x if product is None else o.mul(product, x)
    product, _ = _sum_out(o, product, order, set(order) - set(output))
    return product
