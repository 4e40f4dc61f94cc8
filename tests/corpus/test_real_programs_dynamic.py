"""The real-programs corpus compiled with `shapes="dynamic"` (issue 25, run-time sizes):
the same values and gradients as Python and finite differences, and, strictly marked, which
programs compile once for all sizes (those with an array dimension of 8 or more) and why the
others compile per shape."""

import numpy as np
import pytest

from adlite.compiler.arguments import has_sizes
from adlite.compiler.ir.dims import MIN_SIZE

from .real_programs import NOT_COMPILING, PROGRAMS
from .real_programs.checks import FD_RTOL, VALUE_RTOL, program

# programs whose arguments have a size of 8 or more but compile per shape: what asks a size
PER_SHAPE = {
    "bundle_adjustment": "cam[7:10] of a parameter block of a run-time size (8 or 9 would "
                         "shorten it)",
    "lstm": "a constant hidden size (16) broadcast against a run-time size",
    "crank_nicolson": "reversed(range(n - 1)) of a run-time size, a stored range",
}
DYNAMIC = [name for name in PROGRAMS if name not in NOT_COMPILING]


@pytest.mark.parametrize("name", DYNAMIC)
def test_values_and_gradients_for_every_size(name):
    p = program(name, "dynamic")
    assert p.compiled.error is None
    assert float(p.compiled.value) == pytest.approx(float(p.plain), rel=VALUE_RTOL, abs=1e-300)
    assert p.finite_difference_error() < FD_RTOL


@pytest.mark.parametrize("name", DYNAMIC)
def test_which_programs_compile_once_for_every_size(name):
    p = program(name, "dynamic")
    p.compiled  # noqa: B018 - compiles
    compiled, gradient = p.transformed
    sized = [has_sizes(key[0]) for t in (compiled, gradient) for key in t.cache
             if key[0] not in ("ir", "sizes refused")]
    refused = bool(compiled.sizes_refused or gradient.sizes_refused)
    if name in PER_SHAPE:
        assert refused, f"{name} now compiles for every size: unmark it"
        return
    assert not refused, (compiled.sizes_refused, gradient.sizes_refused)
    assert all(sized) == _has_large_dimension(p.case.args), sized


def _has_large_dimension(value) -> bool:
    """Whether an argument (nested in tuples, lists, dicts) has an array dimension of
    MIN_SIZE or more: one its compilation takes as a run-time size."""
    if isinstance(value, dict):
        return any(_has_large_dimension(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_large_dimension(v) for v in value)
    return isinstance(value, np.ndarray) and any(n >= MIN_SIZE for n in value.shape)
