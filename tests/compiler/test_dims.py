"""Run-time sizes (`compiler/ir/dims.py`): arithmetic, the decisions the bounds allow, the
questions they do not, slices and reshapes against Python's and numpy's own rules."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adlite.compiler.ir.dims import (
    MIN_SIZE,
    Dim,
    DimUndecided,
    bind_sizes,
    evaluate,
    reshaped,
    slice_indices,
    slice_length,
    symbol,
    symbols_of,
)
from adlite.compiler.status import ERRORS, SIZE_ARGUMENT

N, M = symbol("d0"), symbol("d1")
SIZES = st.integers(MIN_SIZE, 60)


def test_arithmetic_normalises_and_cancels():
    assert str((N + 1) - 1) == "d0" and isinstance(N + 1, Dim)
    assert N - N == 0 and isinstance(N - N, int)
    assert str(2 * N * M - N + 3) == "2*d0*d1 - d0 + 3"
    assert (N * M * 6) // (3 * M) == 2 * N
    assert str((N * N + N) // (N + 1)) == "d0"  # np.diag's step n + 1 over n * n elements
    assert str(((N + 1) * (M + 3)) // (M + 3)) == "d0 + 1"
    assert -1 % N == N - 1 and 3 % N == 3


DECIDED = ["n == 1", "n == 0", "n == m", "n * m > n", "n + 1 > n", "n * m - n - m >= 0",
           f"n >= {MIN_SIZE}", "bool(n)", "abs(n - 2 * n) == n", "n < float('inf')",
           "n * m > -float('inf')"]
UNDECIDED = [f"n == {MIN_SIZE + 1}", "n < m", f"n - {MIN_SIZE} > 0", "2 * n == m", "int(n)",
             "float(n)", "range(n)", "np.zeros(n)", "n // 3", "n % 2", "(n * n + 1) // (n + 1)",
             "1.5 * n", "n == 2.0", "5 // n"]


def ask(question: str, n, m):
    return eval(question, {"np": np}, {"n": n, "m": m})  # noqa: S307 - the test's own text


@pytest.mark.parametrize("question", DECIDED)
def test_decided_by_the_bounds(question):
    """The answer for symbols holds for every pair of distinct sizes >= MIN_SIZE."""
    answer = ask(question, N, M)
    for n in range(MIN_SIZE, MIN_SIZE + 20):
        for m in (n + 1, n + 7, 3 * n):
            assert ask(question, n, m) == answer


@pytest.mark.parametrize("question", UNDECIDED)
def test_undecided_questions_raise(question):
    """Questions whose answer depends on the sizes' values (or that want a number)."""
    with pytest.raises(TypeError):  # DimUndecided is a TypeError
        ask(question, N, M)


@given(SIZES, st.integers(-70, 70) | st.none(), st.integers(-70, 70) | st.none(),
       st.sampled_from([None, 1, 2, 3, -1, -2, -3]))
def test_slices_follow_python(n, start, stop, step):
    try:
        got = slice_indices(start, stop, step, N)
        length = slice_length(*got)
    except DimUndecided:
        return  # a bound the size decides: compiled per shape instead
    want = slice(start, stop, step).indices(n)
    assert tuple(evaluate(v, {"d0": n}) for v in got) == want
    assert evaluate(length, {"d0": n}) == len(range(*want))


@given(SIZES, SIZES)
def test_reshapes_follow_numpy(n, m):
    values = {"d0": n, "d1": m}
    for old, new in [((N, M), (-1,)), ((N, M, 3), (M, -1)), ((N, 4), (2, -1)), ((N,), (N, 1))]:
        got = reshaped(old, new)
        want = np.empty([evaluate(d, values) for d in old]).reshape(
            [evaluate(d, values) for d in new]).shape
        assert tuple(evaluate(d, values) for d in got) == want


def test_reshape_to_another_size_is_numpy_s_error():
    with pytest.raises(ValueError):
        reshaped((N,), (M,))
    with pytest.raises(DimUndecided):
        reshaped((N,), (3, -1))  # whether 3 divides the size: only its value says


def test_the_kernels_size_status_names_the_minimum():
    assert f"below {MIN_SIZE}," in ERRORS[SIZE_ARGUMENT][1]


def test_binding_sizes_checks_the_signature():
    shapes = [(N, 3), (M,), (N, M)]
    assert bind_sizes(shapes, [(10, 3), (12,), (10, 12)]) == {"d0": 10, "d1": 12}
    assert bind_sizes(shapes, [(10, 3), (12,), (10, 13)]) is None  # d1 twice, two sizes
    assert bind_sizes(shapes, [(10, 3), (10,), (10, 10)]) is None  # two symbols, one size
    assert bind_sizes(shapes, [(3, 3), (12,), (3, 12)]) is None  # below MIN_SIZE
    assert bind_sizes(shapes, [(10, 4), (12,), (10, 12)]) is None  # a static size differs
    assert symbols_of([(M, 3), None, (N,)]) == ["d0", "d1"]
    assert isinstance(N, Dim)
