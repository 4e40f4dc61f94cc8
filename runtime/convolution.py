"""`np.convolve` and `scipy.signal.convolve` on the eager tape.

Contract: `convolve(a, v, mode)` takes numpy's arguments (two 1-D operands, numbers taken as
length-1 arrays; `mode` 'full', 'same' or 'valid') and gives numpy's values, computed by
`np.convolve` itself, with numpy's errors (empty operands, more than one dimension, an
unknown mode). It is the tape primitive `convolve` (node `ConvolutionBackward0`), so both
operands are differentiable: the cotangent `g` of a 'same' or 'valid' result is placed at its
offset in the full result (zeros elsewhere), and each operand's cotangent is the correlation
of that with the other operand, `convolve(g_full, other[::-1], 'valid')`: the primitive
itself, recorded, so derivatives of any order follow. `FUNCTIONS` maps `np.convolve` to it,
for `numpy_protocol`'s table.

`convolve_nd(in1, in2, mode)` is scipy.signal.convolve (operands of the same number of
dimensions, any; 'full', 'same' the size of `in1`, 'valid' where one operand is at least as
large as the other along every axis; scipy's ValueErrors otherwise): 1-D operands go to the
primitive, others are the sum, over the elements of the operand with fewer, of that element
times the other operand placed at its offset in the full result (zero-padded), then cut as
`mode` says: a composite, differentiable in both operands to any order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import functional as F
from . import numpy_functions
from .primitives import RuleContext, primitive


def _full_offset(n: int, m: int, mode: str) -> int:
    """Where numpy's `mode` result of operands of lengths `n`, `m` starts in the full one."""
    if mode == "full":
        return 0
    if mode == "same":
        return (n + m - 1 - max(n, m)) // 2
    return min(n, m) - 1  # valid


@primitive("convolve", "ConvolutionBackward0",
           lambda a, v, *, mode: np.convolve(a, v, mode), inputs=True)
def _convolve_vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
    a, v = ctx.inputs
    n, m = a.shape[0], v.shape[0]
    start = _full_offset(n, m, ctx.params["mode"])
    g_full = F.constant(g)
    if g_full.shape[0] != n + m - 1:
        g_full = F.concatenate([np.zeros(start, g_full.dtype), g_full,
                                np.zeros(n + m - 1 - start - g_full.shape[0], g_full.dtype)], 0)
    return (convolve(g_full, v[::-1], "valid") if a.requires_grad else None,
            convolve(g_full, a[::-1], "valid") if v.requires_grad else None)


# numpy's spellings of the modes (`np.convolve` reads a string's first letter, any case)
_MODES = {"v": "valid", "s": "same", "f": "full", 0: "valid", 1: "same", 2: "full"}


def convolve(a: Any, v: Any, mode: str | int = "full") -> Any:
    """numpy's `np.convolve(a, v, mode)` of tensors (or arrays, lists, numbers), recorded."""
    a, v = (F.reshape(x, (1,)) if x.ndim == 0 else x for x in map(F.constant, (a, v)))
    key = mode.lower()[:1] if isinstance(mode, str) else mode
    return F.apply("convolve", a, v, mode=_MODES.get(key, mode))


def _shifted_sum(big: Any, small: Any) -> Any:
    """The full N-D convolution: `small[k]` times `big` padded to start at offset `k`."""
    full = tuple(n + m - 1 for n, m in zip(big.shape, small.shape, strict=True))
    total = None
    for k in np.ndindex(*small.shape):
        widths = [(i, f - n - i) for i, n, f in zip(k, big.shape, full, strict=True)]
        term = F.index(small, k) * numpy_functions.pad(big, widths)
        total = term if total is None else total + term
    return total


def convolve_nd(in1: Any, in2: Any, mode: str = "full") -> Any:
    """scipy.signal.convolve(in1, in2, mode) of tensors (or arrays, lists, numbers)."""
    in1, in2 = F.constant(in1), F.constant(in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in ("full", "same", "valid"):
        raise ValueError("Acceptable mode flags are 'valid', 'same', or 'full'.")
    if in1.ndim == 0:
        return in1 * in2
    larger = all(n >= m for n, m in zip(in1.shape, in2.shape, strict=True))
    if mode == "valid" and not larger and \
            not all(m >= n for n, m in zip(in1.shape, in2.shape, strict=True)):
        raise ValueError("For 'valid' mode, one must be at least as large as the other in "
                         "every dimension")
    if in1.ndim == 1 and mode != "same":
        return convolve(in1, in2, mode)
    big, small = (in1, in2) if in1.size >= in2.size else (in2, in1)
    full = _shifted_sum(big, small)
    if mode == "full":
        return full
    if mode == "same":
        starts, shape = [(f - n) // 2 for f, n in zip(full.shape, in1.shape, strict=True)], \
            in1.shape
    else:
        shape = tuple(abs(n - m) + 1 for n, m in zip(in1.shape, in2.shape, strict=True))
        starts = [min(n, m) - 1 for n, m in zip(in1.shape, in2.shape, strict=True)]
    return F.index(full, tuple(slice(s, s + n) for s, n in zip(starts, shape, strict=True)))


FUNCTIONS = {np.convolve: convolve}
