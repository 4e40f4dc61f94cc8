"""scipy.signal on the eager tape.

Contract: `convolve(in1, in2, mode='full', method='auto')` is scipy.signal.convolve
(`convolution.convolve_nd`: scipy's values and errors, both operands differentiable; `method`
accepted for scipy's signature, the tape always sums directly); every other name is
scipy.signal's own.
"""

from __future__ import annotations

from typing import Any

import scipy.signal

from .. import convolution
from ._reexport import rest_of


def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Any:
    """scipy.signal.convolve of tensors (or arrays, lists, numbers), recorded."""
    if method not in ("auto", "direct", "fft"):
        raise ValueError("Acceptable method flags are 'auto', 'direct', or 'fft'.")
    return convolution.convolve_nd(in1, in2, mode)


__getattr__ = rest_of(scipy.signal)
