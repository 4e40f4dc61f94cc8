"""`np.convolve` and `scipy.signal.convolve` in compiled code, composed from shape primitives
and one `matmul` (so both AD modes and both backends come with them).

Contract:
- `np.convolve(a, v, mode='full')`: numpy's semantics: numbers are length-1 arrays, the
  longer operand is the signal, `mode` is 'full', 'same' or 'valid' (or 2, 1, 0), numpy's
  ValueError for an empty operand, more than one dimension or an unknown mode; int operands
  give an int64 result;
- `scipy.signal.convolve(in1, in2, mode='full', method='auto')` (registered by a resolver once
  the program has imported `scipy.signal`; nothing here imports scipy; arguments bind by
  scipy's own signature, so other keywords raise Python's TypeError): N-d operands of equal
  rank (two numbers give their product), 'same' gives `in1`'s shape, 'valid' needs one
  operand at least as large as the other in every dimension (scipy's ValueError otherwise);
  `method` 'auto' or 'direct' (the values of scipy's direct method up to float rounding;
  'fft' is refused with a hint); empty operands are refused (1-D ones with numpy's
  message, as scipy's).
Both are `convolve_nd`: with `w` the operand of fewer elements (shape m) and `x` the other
(shape n), each axis of `x` becomes two, (m_d, out_d), holding `x[start_d + k - j]` (zero
outside): `x` padded, repeated m_d times and read back with a row length one shorter, which
shifts each copy by one more element; the kernel axes are then contracted with `w` by one
`matmul`. Its size is prod(m) * prod(out) elements; the IR has a few operations per axis,
whatever the kernel's size. Errors are raised at the call's line with numpy's / scipy's
exception type and message; mode, method and shapes are compile-time values.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from adlite.derivatives import array_composites as ac

from ...errors import AdliteValueError
from ...ir.core import I64
from ...primitives.vocabulary import BuilderOps
from ..context import CallContext
from .registry import REQUIRED, add_resolver, bind, bind_params, param, register

Shape = tuple[int, ...]
_NUMPY_MODES = {"valid": "valid", "same": "same", "full": "full", 0: "valid", 1: "same",
                2: "full"}


def _shifted(o: BuilderOps, x, shape: Shape, axis: int, m: int, start: int, length: int):
    """`x` (of `shape`) with axis `axis` (length n) replaced by the two axes (m, length):
    element [j, k] is x[start + k - j] along that axis, zero where that is outside [0, n)."""
    n = shape[axis]
    row = n + 2 * m - 1  # m - 1 zeros before, m after
    x = ac.pad(o, x, shape, [(m - 1, m) if d == axis else (0, 0) for d in range(len(shape))],
               0.0)
    before, after = tuple(shape[:axis]), tuple(shape[axis + 1:])
    x = o.broadcast_to(o.reshape(x, (*before, 1, row, *after)),
                       shape=(*before, m, row, *after))
    x = o.reshape(x, (*before, m * row, *after))
    x = o.reshape(o.slice_along(x, axis, 0, m * (row - 1)), (*before, m, row - 1, *after))
    return o.slice_along(x, axis + 1, m - 1 + start, m - 1 + start + length)


def convolve_nd(o: BuilderOps, a, b, a_shape: Shape, b_shape: Shape, starts: Shape,
                lengths: Shape):
    """The part of the full convolution of `a` and `b` (equal rank, no empty operand)
    starting at `starts` with `lengths` elements per axis (the full result has
    n + m - 1 per axis)."""
    x, w, n, m = (a, b, a_shape, b_shape) if math.prod(b_shape) <= math.prod(a_shape) \
        else (b, a, b_shape, a_shape)
    shape = list(n)
    for axis in range(len(n)):
        x = _shifted(o, x, tuple(shape), 2 * axis, m[axis], starts[axis], lengths[axis])
        shape[2 * axis:2 * axis + 1] = [m[axis], lengths[axis]]
    rank = len(n)
    if rank > 1:
        x = o.transpose(x, tuple(range(0, 2 * rank, 2)) + tuple(range(1, 2 * rank, 2)))
    x = o.reshape(x, (math.prod(m), math.prod(lengths)))
    out = o.matmul(o.reshape(w, (1, math.prod(m))), x)
    return o.reshape(out, tuple(lengths))


def _window(n: Shape, m: Shape, mode: str, same_as: Shape) -> tuple[Shape, Shape]:
    """(starts, lengths) of `mode`'s part of the full convolution of shapes n and m;
    'same' keeps `same_as`'s shape, centred."""
    full = tuple(a + b - 1 for a, b in zip(n, m, strict=True))
    if mode == "full":
        return (0,) * len(n), full
    if mode == "same":
        return tuple((f - s) // 2 for f, s in zip(full, same_as, strict=True)), same_as
    return (tuple(min(a, b) - 1 for a, b in zip(n, m, strict=True)),
            tuple(abs(a - b) + 1 for a, b in zip(n, m, strict=True)))


def _operands(cx: CallContext, a, b, node):
    """(a, b, result type): float operands (ints computed in float64, exact below 2**53)."""
    a, b = cx.promote(cx.numeric(a, node), cx.numeric(b, node), node)
    return cx.as_float(a, node), cx.as_float(b, node), a.type.scalar


def _result(cx: CallContext, out, result):
    return out if result.is_float else cx.to_type(out, I64)


def _error(cx: CallContext, node, message: str, hint: str | None = None):
    return cx.source.error(node, message, hint, kind=AdliteValueError)


def _numpy_mode(cx: CallContext, value, node) -> str:
    mode = cx.static(value, node, "its `mode`", "option")
    if isinstance(mode, str) and mode in _NUMPY_MODES or \
            isinstance(mode, int) and not isinstance(mode, bool) and mode in _NUMPY_MODES:
        return _NUMPY_MODES[mode]
    if isinstance(mode, int):
        raise _error(cx, node, "integer convolve/correlate mode must be 0, 1, or 2")
    if isinstance(mode, str) and mode[:1].lower() in ("v", "s", "f"):
        raise _error(cx, node, "Use one of 'valid', 'same', or 'full' for convolve/correlate "
                               "mode")
    raise _error(cx, node, f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")


def _np_convolve(cx: CallContext, args, kwargs, node):
    p = bind_params(cx, "convolve", args, kwargs, {"a": REQUIRED, "v": REQUIRED,
                                                   "mode": "full"}, node)
    mode = _numpy_mode(cx, p["mode"], node)
    a, v, result = _operands(cx, p["a"], p["v"], node)
    a, v = (x if x.type.is_array else cx.b.reshape(x, shape=(1,)) for x in (a, v))
    if len(a.type.shape) > 1 or len(v.type.shape) > 1:
        raise _error(cx, node, "object too deep for desired array")
    (n,), (m,) = a.type.shape, v.type.shape
    for name, size in (("a", n), ("v", m)):
        if size == 0:
            raise _error(cx, node, f"{name} cannot be empty")
    if m > n:
        a, v, n, m = v, a, m, n
    starts, lengths = _window((n,), (m,), mode, (n,))
    out = convolve_nd(BuilderOps(cx.b), a, v, (n,), (m,), starts, lengths)
    return _result(cx, out, result)


def _scipy_convolve(cx: CallContext, args, kwargs, node):
    p = bind(cx, sys.modules["scipy.signal"].convolve, "scipy.signal.convolve", args, kwargs,
             node)
    mode, method = param(cx, p, "mode", node), param(cx, p, "method", node)
    if mode not in ("full", "same", "valid"):
        raise _error(cx, node, f"Acceptable mode flags are 'valid', 'same', or 'full', not "
                               f"mode={mode}")
    a, b, result = _operands(cx, p["in1"], p["in2"], node)
    n, m = (x.type.shape or () if x.type.is_array else () for x in (a, b))
    if not n and not m:
        return _result(cx, cx.b.mul(a, b), result)
    if len(n) != len(m):
        raise _error(cx, node, "volume and kernel should have the same dimensionality")
    if mode == "valid" and not (all(x >= y for x, y in zip(n, m, strict=True)) or
                                all(y >= x for x, y in zip(n, m, strict=True))):
        raise _error(cx, node, "For 'valid' mode, one must be at least as large as the "
                               "other in every dimension")
    if method == "fft":
        raise cx.source.error(node, "scipy.signal.convolve(method='fft') is not supported in "
                              "compiled code", "use method='direct' or 'auto' (the same "
                              "values up to rounding)")
    if method not in ("auto", "direct"):
        raise _error(cx, node, "Acceptable method flags are 'auto', 'direct', or 'fft'.")
    if 0 in n or 0 in m:
        if len(n) > 1:
            raise _error(cx, node, "scipy.signal.convolve of an empty array is not supported "
                                   "in compiled code")
        swapped = mode == "valid" and n < m  # scipy's larger-first order, then numpy's names
        empty = (m if swapped else n) == (0,)
        raise _error(cx, node, f"{'a' if empty else 'v'} cannot be empty")
    starts, lengths = _window(n, m, mode, n)
    out = convolve_nd(BuilderOps(cx.b), a, b, n, m, starts, lengths)
    return _result(cx, out, result)


def _resolve(obj):
    signal = sys.modules.get("scipy.signal")
    if signal is not None and obj is getattr(signal, "convolve", None):
        return _scipy_convolve
    return None


register([np.convolve], _np_convolve)
add_resolver(_resolve)
