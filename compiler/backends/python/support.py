"""Run-time helpers imported by generated Python code (`_rt`): functional index updates."""

import numpy as np


def index_set(x, key, value):
    """A copy of `x` with `x[key] = value` (values are immutable in compiled code)."""
    out = np.array(x, copy=True)
    out[key] = value
    return out


def index_add(x, key, value):
    out = np.array(x, copy=True)
    out[key] += value
    return out
