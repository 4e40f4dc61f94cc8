"""Builtin sum, max, min, abs, round, any, all on arrays compute what Python computes when it
iterates the array (values and exceptions), with gradients checked by finite differences."""

import numpy as np
import pytest

from adlite.compiler import grad, jit

from ..support import builtins_examples as ex
from ..support.gradients import central_differences

BACKENDS = ("llvm", "python")
X = np.array([0.3, -1.25, 2.5, 0.0, 1.75])


def _outcome(fn, *args):
    try:
        return "value", fn(*args)
    except Exception as e:  # noqa: BLE001 - the outcome compared
        return type(e), str(e)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,arg", [
    (ex.total, X), (ex.total_from, X), (ex.row_sums, X[:4].reshape(2, 2)),
    (ex.row_sums, np.arange(6.0).reshape(3, 2)), (ex.largest, X),
    (ex.largest, np.array([np.nan, 1.0])), (ex.largest, np.array([1.0, np.nan, 3.0])),
    (ex.spread, X), (ex.spread, np.array([2.0, np.nan, -1.0])), (ex.tests, X),
    (ex.tests, np.zeros(3)), (ex.tests, np.array([np.nan])), (ex.tests, np.zeros(0)),
    (ex.rounded, 2.5), (ex.rounded, -3.5), (ex.rounded, 0.49999999999999994),
    (ex.rounded, 4503599627370497.0), (ex.rounded, np.nan), (ex.rounded, np.inf),
    (ex.rounded_array, X),
    (ex.largest_row, X[:4].reshape(2, 2)), (ex.rounded_whole_array, X), (ex.empty_max, X),
])
def test_same_as_python(fn, arg, backend):
    expected = _outcome(fn, arg)
    got = _outcome(jit(fn, backend=backend), arg)
    assert got[0] == expected[0]
    if expected[0] != "value":
        assert got[1] == expected[1]
        return
    want = expected[1] if isinstance(expected[1], tuple) else (expected[1],)
    have = got[1] if isinstance(got[1], tuple) else (got[1],)
    for w, h in zip(want, have, strict=True):
        assert type(h) is type(w.item() if isinstance(w, np.generic) else w)
        assert h == pytest.approx(w, rel=1e-12, nan_ok=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,arg", [
    (ex.total, X), (ex.total_from, X), (ex.row_sums, np.arange(6.0).reshape(3, 2)),
    (ex.largest, X), (ex.spread, X), (ex.rounded_array, X + 0.1),
])
def test_gradients_match_finite_differences(fn, arg, backend):
    got = grad(fn, backend=backend)(arg)
    assert np.allclose(got, central_differences(fn, [arg])[0], atol=1e-6)
