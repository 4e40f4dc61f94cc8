"""Python's int arithmetic restricted to int64, as every backend computes it.

Compiled ints are 64-bit. An integer operation whose exact Python result does not fit raises
`OverflowError` (the message of `status.INT_OVERFLOW`) instead of wrapping, so a result is
either Python's exact value or an error. These functions are the numpy reference of the int
primitives (`impl`, hence constant folding, which leaves a failing operation to run time) and
the helpers the generated Python code calls as `_rt.int64`, `_rt.int_pow`, `_rt.range_len`.
"""

from __future__ import annotations

from ..status import ERRORS, INT_OVERFLOW

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
