"""Values of the op table (tests/support/op_table.py) against numpy running the same code: float64
and float32 arguments, on the LLVM and the Python backends, with numpy's result dtype and
shape, bit for bit unless the row states an ulp bound."""

import numpy as np
import pytest

from adlite.compiler import jit

from ..support.op_table import ROWS, arguments, as_float32, by_check
from ..support.op_table_harness import assert_within_ulps, copies

BACKENDS = ("llvm", "python")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("row", by_check(ROWS, "values"))
def test_float64_values_equal_numpys(row, backend):
    args = arguments(row)
    with np.errstate(all="ignore"):
        want = row.fn(*copies(args))
    got = jit(row.fn, backend=backend)(*copies(args))
    assert_within_ulps(got, want, row.ulps64, f"{row.name} on {backend}")


F32 = [r for r in ROWS if r.f32]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("row", by_check(F32, "float32"))
def test_float32_values_and_dtype_equal_numpys(row, backend):
    args = as_float32(arguments(row), row)
    with np.errstate(all="ignore"):
        want = row.fn(*copies(args))
    got = jit(row.fn, backend=backend)(*copies(args))
    assert_within_ulps(got, want, row.ulps32, f"{row.name} float32 on {backend}")
