"""Run-time helpers imported by generated Python code (`_rt`): functional index updates and
int64-checked int arithmetic (`int64`, `int_pow`, `range_len`, see `primitives/ints.py`)."""

import numpy as np

from ...primitives.ints import int64, int_pow, range_len  # noqa: F401 - used by generated code


def index_set(x, key, value):
    """A copy of `x` with `x[key] = value` (values are immutable in compiled code)."""
    out = np.array(x, copy=True)
    out[key] = value
    return out


def index_add(x, key, value):
    out = np.array(x, copy=True)
    out[key] += value
    return out
