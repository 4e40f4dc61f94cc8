"""`np.convolve` on the eager tape.

Contract: `convolve(a, v, mode)` takes numpy's arguments (two 1-D operands, numbers taken as
length-1 arrays; `mode` 'full', 'same' or 'valid') and gives numpy's values, computed by
`np.convolve` itself, with numpy's errors (empty operands, more than one dimension, an
unknown mode). It is the tape primitive `convolve` (node `ConvolutionBackward0`), so both
operands are differentiable: the cotangent `g` of a 'same' or 'valid' result is placed at its
offset in the full result (zeros elsewhere), and each operand's cotangent is the correlation
of that with the other operand, `convolve(g_full, other[::-1], 'valid')`: the primitive
itself, recorded, so derivatives of any order follow. `FUNCTIONS` maps `np.convolve` to it,
for `numpy_protocol`'s table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import functional as F
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


FUNCTIONS = {np.convolve: convolve}
