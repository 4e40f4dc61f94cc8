"""numpy array functions composed from shape primitives, written once (against `Ops`) for the
compiler's frontend and the eager tape alike; their derivatives come from the primitives'.

Shapes are passed in (the vocabulary has no word for them) as tuples; axes are normalised
(non-negative) by the caller unless stated. Bad arguments raise numpy's exception type
(ValueError, IndexError, or `AxisError`, both, as numpy's) with numpy's message, which each
side reports its own way.

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
  string, `...` included (letters no term uses stand for its axes) and axes of size 1
  broadcasting: repeated letters in one operand take its diagonal, letters only one
  operand has and the output lacks are summed first, two operands contracted over shared
  letters without batch letters (and without broadcasting) are one `matmul`, anything else
  is a broadcast product summed over the letters the output lacks, transposed to the
  output's order;
- `tensordot(a, b, ..., axes)`, `dot(a, b, ...)`, `matmul(x, y, ...)`, `kron(a, b, ...)`:
  numpy's products of any ranks (`tensordot` and N-d `dot` an `einsum` of generated
  subscripts, so one `matmul` after transposes; `matmul` with numpy's batch broadcasting);
- `split_bounds(length, sections, equal)` and `array_split(x, shape, sections, axis,
  equal)`: `np.array_split` / `np.split` (`equal`), the parts as slices.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .vocabulary import Ops

SEQUENTIAL_SCAN = 128
Shape = tuple[int, ...]


class AxisError(ValueError, IndexError):
    """An axis out of bounds: numpy's `AxisError`, a ValueError and an IndexError."""


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
            raise AxisError(f"{name}: axis {a} is out of bounds for array of dimension {ndim}")
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

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def parse_einsum(subscripts: str, shapes: Sequence[Shape]) -> tuple[list[str], str, dict]:
    """(letters of each operand, output letters, size of each letter), checked as numpy does;
    `...` stands for letters no term uses (right-aligned: an operand with fewer of those axes
    takes the last ones), which come first in an implicit output. A letter's size is its
    broadcast size: an operand's axis of size 1 broadcasts, as in numpy."""
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError("more operands provided to einstein sum function than specified in "
                         "the subscripts string" if len(shapes) > len(terms) else
                         "fewer operands provided to einstein sum function than specified in "
                         "the subscripts string")
    for c in spec.replace("...", "").replace("->", "").replace(",", ""):
        if not c.isalpha():
            raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, "
                             "subscripts must be letters")
    spare = [c for c in _LETTERS if c not in spec]
    extra = [len(shape) - len(term.replace("...", "")) if "..." in term else 0
             for term, shape in zip(terms, shapes, strict=True)]
    ellipsis = "".join(spare[:max(extra, default=0)])
    terms = [t.replace("...", ellipsis[len(ellipsis) - n:] if n > 0 else "")
             for t, n in zip(terms, extra, strict=True)]
    if not arrow:
        letters = "".join(t for t in terms if t)
        output = ellipsis + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                           and c not in ellipsis))
    elif "..." in output:
        output = output.replace("...", ellipsis)
    elif ellipsis:
        raise ValueError("output has more dimensions than subscripts given in einstein sum, "
                         "but no '...' ellipsis provided to broadcast the extra dimensions.")
    return terms, output, _letter_sizes(terms, shapes, output)


def _letter_sizes(terms: Sequence[str], shapes: Sequence[Shape], output: str) -> dict:
    sizes: dict[str, int] = {}
    for k, (term, shape) in enumerate(zip(terms, shapes, strict=True)):
        if len(term) != len(shape):
            raise ValueError("operand has more dimensions than subscripts given in einstein "
                             "sum, but no '...' ellipsis provided to broadcast the extra "
                             "dimensions." if len(shape) > len(term) else
                             "einstein sum subscripts string contains too many subscripts for "
                             "operand " + str(k))
        own: dict[str, int] = {}
        for c, n in zip(term, shape, strict=True):
            if own.setdefault(c, n) != n:
                which = f"operand {k}" if len(terms) > 1 else "single operand"
                raise ValueError(f"dimensions in {which} for collapsing index '{c}' "
                                 f"don't match ({own[c]} != {n})")
            if n != 1 and sizes.get(c, 1) not in (1, n):
                raise ValueError(f"operands could not be broadcast together: subscript '{c}' "
                                 f"has sizes {sizes[c]} and {n}")
            sizes[c] = n if n != 1 else sizes.get(c, 1)
    for c in output:
        if output.count(c) > 1:
            raise ValueError(f"einstein sum subscripts string includes output subscript "
                             f"'{c}' multiple times")
        if c not in sizes:
            raise ValueError(f"einstein sum subscripts string included output subscript '{c}' "
                             "which never appeared in an input")
    return sizes


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
    xs, names, broadcast = [], [], False
    for k, (x, letters) in enumerate(zip(operands, terms, strict=True)):
        own = dict(zip(letters, shapes[k], strict=True))
        broadcast = broadcast or any(own[c] != sizes[c] for c in letters)
        x, letters = _distinct(o, x, letters, own)
        elsewhere = set(output).union(*(t for j, t in enumerate(terms) if j != k))
        x, letters = _sum_out(o, x, letters, set(letters) - elsewhere)
        xs.append((x, own))
        names.append(letters)
    if len(xs) == 2 and names[0] and names[1] and not broadcast:
        shared = set(names[0]) & set(names[1])
        if shared and not shared & set(output):
            return _contract(o, xs[0][0], names[0], xs[1][0], names[1], output, sizes)
    order = output + "".join(dict.fromkeys(c for n in names for c in n if c not in output))
    product = None
    for (x, own), letters in zip(xs, names, strict=True):
        x, letters = _transposed(o, x, letters, order)
        if letters and letters != order:
            x = o.reshape(x, tuple(own[c] if c in letters else 1 for c in order))
        product = x if product is None else o.mul(product, x)
    product, letters = _sum_out(o, product, order, set(order) - set(output))
    want = tuple(sizes[c] for c in output)
    if product is not None and len(xs) == 1 and letters and \
            tuple(own[c] for c in letters) != want:  # one operand's axes of size 1
        product = o.expand(product, want, None)
    return product


# ---- products -----------------------------------------------------------------------------

def tensordot(o: Ops, a: Any, b: Any, a_shape: Shape, b_shape: Shape, axes: Any = 2) -> Any:
    """`np.tensordot`: `axes` an int N (a's last N axes with b's first N) or a pair of
    axes (ints or sequences of ints), numpy's checks; the product is one `matmul` after
    transposes (`einsum` of generated subscripts)."""
    if isinstance(axes, int):  # numpy's reading: a negative count contracts nothing
        pairs = (list(range(-axes, 0)), list(range(axes)))
    else:
        try:
            first, second = axes
        except (TypeError, ValueError):
            raise ValueError("axes must be an int or a pair of axes") from None
        pairs = tuple([v] if isinstance(v, int) else list(v) for v in (first, second))
    if len(pairs[0]) != len(pairs[1]):
        raise ValueError("shape-mismatch for sum")
    la, lb = _LETTERS[:len(a_shape)], list(_LETTERS[26:26 + len(b_shape)])
    for i, j in zip(*pairs, strict=True):
        if not (-len(a_shape) <= i < len(a_shape) and -len(b_shape) <= j < len(b_shape)):
            raise IndexError("tuple index out of range")
        if a_shape[i] != b_shape[j]:
            raise ValueError("shape-mismatch for sum")
        lb[j % len(b_shape)] = la[i % len(a_shape)]
    lb = "".join(lb)
    contracted = set(la) & set(lb)
    output = "".join(c for c in la + lb if c not in contracted)
    return einsum(o, f"{la},{lb}->{output}", [a, b], [a_shape, b_shape])


def dot(o: Ops, a: Any, b: Any, a_shape: Shape, b_shape: Shape) -> Any:
    """`np.dot` of arrays: a sum product over a's last axis and b's second-to-last (its only
    one when 1-D), numpy's message when they differ; the `matmul` word up to 2-D, else
    `tensordot`."""
    j = len(b_shape) - 2 if len(b_shape) > 1 else 0
    if a_shape[-1] != b_shape[j]:
        raise ValueError(f"shapes {_text(a_shape)} and {_text(b_shape)} not aligned: "
                         f"{a_shape[-1]} (dim {len(a_shape) - 1}) != {b_shape[j]} (dim {j})")
    if len(a_shape) <= 2 and len(b_shape) <= 2:
        return o.matmul(a, b)
    return tensordot(o, a, b, a_shape, b_shape, ([len(a_shape) - 1], [j]))


def matmul(o: Ops, x: Any, y: Any, x_shape: Shape, y_shape: Shape) -> Any:
    """`np.matmul` / `@` of any ranks (numpy's rules: a 1-D operand is a row (left) or a
    column (right) whose axis is dropped, the batch axes broadcast); 2-D and 1-D operands
    are the `matmul` word itself; a batch on one side only is one `matmul` of the batch
    folded into the rows (left) or columns (right); batches on both sides are a broadcast
    product summed over the shared axis."""
    for k, shape in enumerate((x_shape, y_shape)):
        if not shape:
            raise ValueError(f"matmul: Input operand {k} does not have enough dimensions "
                             f"(has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) "
                             f"requires 1)")
    n_k = x_shape[-1]
    k_y = y_shape[-2] if len(y_shape) > 1 else y_shape[0]
    if n_k != k_y:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, "
                         f"with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {k_y} is "
                         f"different from {n_k})")
    if len(x_shape) <= 2 and len(y_shape) <= 2:
        return o.matmul(x, y)
    row, column = len(x_shape) == 1, len(y_shape) == 1
    xs = (1, n_k) if row else tuple(x_shape)
    ys = (k_y, 1) if column else tuple(y_shape)
    n, m = xs[-2], ys[-1]
    try:
        batch = broadcast_shapes(xs[:-2], ys[:-2])
    except ValueError:
        def remapped(shape: Shape) -> str:
            core = min(len(shape), 2)
            parts = [str(d) for d in shape[:len(shape) - core]] + ["newaxis"] * core
            return f"{_text(shape)}->({','.join(parts)})"

        requested = (() if row else (n,)) + (() if column else (m,))
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {remapped(x_shape)} {remapped(y_shape)}  and "
                         f"requested shape {_text(requested)}") from None
    x2 = o.reshape(x, xs) if row else x
    y2 = o.reshape(y, ys) if column else y
    if len(ys) == 2:
        out = o.reshape(o.matmul(o.reshape(x2, (math.prod(xs[:-1]), n_k)), y2), batch + (n, m))
    elif len(xs) == 2:
        r = len(ys)
        folded = o.reshape(o.transpose(y2, (r - 2, *range(r - 2), r - 1)),
                           (k_y, math.prod(ys[:-2]) * m))
        out = o.reshape(o.matmul(x2, folded), (n, *ys[:-2], m))
        out = o.transpose(out, (*range(1, r - 1), 0, r - 1))
    else:
        left = o.reshape(x2, xs + (1,))
        right = o.reshape(y2, ys[:-2] + (1,) + ys[-2:])
        out = o.reduce_sum(o.mul(left, right), (len(batch) + 1,), False)
    keep = tuple(batch) + (() if row else (n,)) + (() if column else (m,))
    return o.reshape(out, keep) if keep != tuple(batch) + (n, m) else out


def _text(shape: Shape) -> str:
    """A shape as numpy's broadcasting messages write it: `(2,3,4)`."""
    return f"({','.join(map(str, shape))}{',' if len(shape) == 1 else ''})"


def kron(o: Ops, a: Any, b: Any, a_shape: Shape, b_shape: Shape) -> Any:
    """`np.kron`: the product of every element of `a` with every element of `b`, laid out
    block by block (the shorter shape padded with leading 1s, as numpy's)."""
    d = max(len(a_shape), len(b_shape))
    if not d:
        return o.mul(a, b)
    sa = (1,) * (d - len(a_shape)) + tuple(a_shape)
    sb = (1,) * (d - len(b_shape)) + tuple(b_shape)
    spread_a = o.reshape(a, tuple(v for n in sa for v in (n, 1)))
    spread_b = o.reshape(b, tuple(v for n in sb for v in (1, n)))
    return o.reshape(o.mul(spread_a, spread_b), tuple(p * q for p, q in zip(sa, sb,
                                                                             strict=True)))


# ---- splitting ----------------------------------------------------------------------------

def split_bounds(length: int, sections: Any, equal: bool) -> list[tuple[int, int]]:
    """The (start, stop) of each part of `np.array_split` (`equal`: `np.split`, which needs
    an equal division) of an axis of `length` into `sections` (an int: that many parts, the
    first `length % sections` one longer; a sequence: the split points, as slices take
    them)."""
    if isinstance(sections, int):
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and length % sections:
            raise ValueError("array split does not result in an equal division")
        each, extra = divmod(length, sections)
        stops = [k * each + min(k, extra) for k in range(sections + 1)]
        return list(zip(stops[:-1], stops[1:], strict=True))
    points = [0, *sections, length]
    return [slice(start, stop).indices(length)[:2] for start, stop in
            zip(points[:-1], points[1:], strict=True)]


def array_split(o: Ops, x: Any, shape: Shape, sections: Any, axis: int = 0,
                equal: bool = False) -> list:
    """`np.array_split` / `np.split` (`equal`) along `axis` (negative counts from the end;
    numpy's IndexError when out of range): slices."""
    if not -len(shape) <= axis < len(shape):
        raise IndexError("tuple index out of range")
    axis %= len(shape)
    return [o.slice_along(x, axis, start, max(start, stop))
            for start, stop in split_bounds(shape[axis], sections, equal)]
