"""Run-time helpers imported by generated Python code (`_rt`): functional index updates,
int64-checked int arithmetic (`int64`, `int_pow`, `range_len`, `int64_array`, see
`primitives/ints.py`) and the effects (`check`, `print_`, see `primitives/effects.py`),
`take_add` and `put` (`primitives/gather.py`), the run-time lists' operations
(`primitives/lists.py`), the special functions (`special.erf`, ...,
`complex_special.value`), `linalg.tril_halfdiag`, `complex_linalg.complex_slogdet` and the
FFTs (`fft.c2c`, `fft.r2c`, `fft.c2r`)."""

import numpy as np

from ...primitives import (  # noqa: F401 - used by generated code
    complex_linalg,
    complex_special,
    decompositions,
    effects,
    fft,
    linalg,
    special,
)
from ...primitives.gather import put_impl as put  # noqa: F401 - used by generated code
from ...primitives.gather import take_add_impl as take_add  # noqa: F401 - used by generated code
from ...primitives.ints import int64, int64_array, int_pow, range_len  # noqa: F401 - used by generated code
from ...primitives.lists import (  # noqa: F401 - used by generated code
    list_adjoint_add,
    list_adjoint_take,
    list_append,
    list_export,
    list_get,
    list_open,
    list_pop,
    list_set,
)


def index_set(x, key, value):
    """A copy of `x` with `x[key] = value` (values are immutable in compiled code)."""
    out = np.array(x, copy=True)
    out[key] = value
    return out


def index_add(x, key, value):
    out = np.array(x, copy=True)
    out[key] += value
    return out


def check(ok, error: str, args: tuple, types: tuple, operands: list) -> None:
    """A run-time check (`assert`, `raise`): raises the exception when `ok` is false."""
    if not ok:
        effects.raise_check(error, args, effects.values(types, operands))


def print_(items: tuple, sep, end, flush: bool, file: str, types: tuple,
           operands: list) -> None:
    effects.emit_print(items, sep, end, flush, file, effects.values(types, operands))
