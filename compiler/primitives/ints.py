"""Python's int arithmetic restricted to int64, as every backend computes it.

Compiled ints are 64-bit. An integer operation whose exact Python result does not fit raises
`OverflowError` (the message of `status.INT_OVERFLOW`) instead of wrapping, so a result is
either Python's exact value or an error. These functions are the numpy reference of the int
primitives (`impl`, hence constant folding, which leaves a failing operation to run time) and
the helpers the generated Python code calls as `_rt.int64`, `_rt.int_pow`, `_rt.range_len`,
`_rt.int64_array` (a float array's conversion to int64, `x.astype(int)`: truncation toward
zero as numpy's; where numpy gives an unspecified value and a RuntimeWarning, for NaN, inf and
values outside int64, compiled code raises what Python's `int()` raises for that element).
"""

from __future__ import annotations

import numpy as np

from ..status import ERRORS, FLOAT_INFINITY_TO_INT, FLOAT_NAN_TO_INT, INT_OVERFLOW

INT64_MIN = -(2 ** 63)
INT64_MAX = 2 ** 63 - 1


def overflow() -> OverflowError:
    """The error compiled code raises for an int result outside int64."""
    error, message = ERRORS[INT_OVERFLOW]
    return error(message)


def int64(value: int) -> int:
    """`value` when it fits in int64, else OverflowError."""
    if not INT64_MIN <= value <= INT64_MAX:
        raise overflow()
    return value


def int64_array(x: np.ndarray) -> np.ndarray:
    """`x.astype(np.int64)` of a float array, with `int()`'s errors for NaN, inf and values
    outside int64 (the first such element decides, as the native code's checks)."""
    bad = ~((x >= -2.0 ** 63) & (x < 2.0 ** 63))
    if bad.any():
        first = x.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]]
        code = FLOAT_NAN_TO_INT if first != first else \
            FLOAT_INFINITY_TO_INT if abs(first) == np.inf else INT_OVERFLOW
        error, message = ERRORS[code]
        raise error(message)
    return x.astype(np.int64)


def int_pow(x: int, y: int) -> int:
    """`x ** y` for y >= 0, refused before computing a huge power."""
    if abs(x) > 1 and y >= 64:
        raise overflow()
    return int64(x ** y)


def range_len(start: int, stop: int, step: int) -> int:
    """The trip count of `range(start, stop, step)` (ValueError for a zero step, as range()),
    capped at INT64_MAX: a loop of more than 2**63 - 1 trips cannot finish anyway."""
    if step == 0:
        raise ValueError("range() arg 3 must not be zero")
    if step > 0:
        n = (stop - start + step - 1) // step
    else:
        n = (start - stop - step - 1) // -step
    return min(max(n, 0), INT64_MAX)
