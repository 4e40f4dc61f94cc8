"""The real-programs corpus (tests/corpus/real_programs, issue 10 "Measure"): every program is run
as its user calls it, in Python, through `adlite.jit` and `adlite.grad`, by central finite
differences and on the eager tape.

- A program that compiles: jit's value equals Python's (relative 1e-10), it prints what
  Python prints, grad matches finite
  differences (relative 1e-5) and the eager tape (relative 1e-8), except where the tape cannot
  run the program as written (`TAPE_LIMITATIONS`) or gets it wrong (`TAPE_WRONG`, a tape
  defect), both checked strictly too.
- A program in `NOT_COMPILING`: adlite refuses it clearly (an AdliteSyntaxError at a line of
  the program's file, or a TypeError naming that file); the test fails
  when it starts compiling, so that the mark is removed.
- Second order (forward over reverse): `hessian` w.r.t. the first differentiated argument
  (a float or an array of at most 40 numbers) agrees with central second differences of the
  plain Python function along a random direction (relative 1e-3: the differences' own error),
  except the programs of `SLOW_SECOND_ORDER` (tens of seconds each: CI time).
"""

import contextlib
import io

import numpy as np
import pytest

from adlite.compiler import hessian

from .real_programs import NOT_COMPILING, PROGRAMS, TAPE_LIMITATIONS, TAPE_WRONG
from .real_programs.checks import FD_RTOL, TAPE_RTOL, VALUE_RTOL, program


def compiling(name):
    """The program's compiled results, or a skip when it is marked as not compiling."""
    if name in NOT_COMPILING:
        pytest.skip(f"does not compile as written: {NOT_COMPILING[name]}")
    p = program(name)
    if p.compiled.error is not None:
        raise AssertionError(f"{name} does not compile; mark it in NOT_COMPILING with its "
                             f"reason") from p.compiled.error
    return p


def test_corpus_is_large_enough_and_marks_name_programs():
    assert len(PROGRAMS) >= 32
    assert set(NOT_COMPILING) <= set(PROGRAMS)
    assert set(TAPE_LIMITATIONS) | set(TAPE_WRONG) <= set(PROGRAMS)


@pytest.mark.parametrize("name", PROGRAMS)
def test_plain_python_gives_a_float(name):
    value = program(name).plain
    assert np.ndim(value) == 0 and np.isfinite(float(value))


@pytest.mark.parametrize("name", PROGRAMS)
def test_jit_equals_python(name):
    p = compiling(name)
    assert float(p.compiled.value) == pytest.approx(float(p.plain), rel=VALUE_RTOL, abs=1e-300)


@pytest.mark.parametrize("name", PROGRAMS)
def test_jit_prints_what_python_prints(name):
    p = compiling(name)
    assert p.compiled.printed == p.plain_run[1]


@pytest.mark.parametrize("name", PROGRAMS)
def test_grad_matches_finite_differences(name):
    p = compiling(name)
    assert p.finite_difference_error() <= FD_RTOL


@pytest.mark.parametrize("name", PROGRAMS)
def test_grad_matches_eager_tape(name):
    p = program(name)
    if name in TAPE_LIMITATIONS:
        with pytest.raises(Exception):  # noqa: B017  (the recorded limitation, any error)
            p.tape_gradient()
        pytest.skip(f"tape limitation: {TAPE_LIMITATIONS[name]}")
    tape = p.tape_gradient()
    p = compiling(name)
    if name in TAPE_WRONG:
        with pytest.raises(AssertionError):
            _assert_same(p.gradient_leaves(), tape)
        pytest.skip(f"tape defect: {TAPE_WRONG[name]}")
    _assert_same(p.gradient_leaves(), tape)


def _assert_same(compiled_leaves, tape):
    for compiled, expected in zip(compiled_leaves, tape, strict=True):
        scale = float(np.max(np.abs(expected), initial=0.0))
        np.testing.assert_allclose(compiled, expected, rtol=TAPE_RTOL, atol=TAPE_RTOL * scale)


@pytest.mark.parametrize("name", sorted(NOT_COMPILING))
def test_not_compiling_is_refused_clearly(name):
    p = program(name)
    error = p.compiled.error
    assert error is not None, f"{name} compiles now: remove it from NOT_COMPILING"
    assert p.is_clear_refusal(error), \
        f"{name}: unclear refusal {type(error).__name__}: {error}"


SLOW_SECOND_ORDER = {"particles", "sir_model", "unrolled_sgd", "binomial_tree"}  # 4-36 s each


def _second_order_case(name):
    case = compiling(name).case
    wrt = case.wrt if isinstance(case.wrt, int) else case.wrt[0]
    x = case.args[wrt]
    if name in SLOW_SECOND_ORDER or not isinstance(x, float | np.ndarray) or np.size(x) > 40:
        pytest.skip("second order not checked here (slow, or a structured/large argument)")
    return case, wrt, np.asarray(x, dtype=float)


@pytest.mark.parametrize("name", PROGRAMS)
def test_hessian_matches_second_differences(name):
    case, wrt, x = _second_order_case(name)
    v = np.random.default_rng(0).standard_normal(x.shape)

    def along(s):
        args = list(case.args)
        args[wrt] = x + s * v if x.ndim else float(x + s * v)
        return case.entry(*args, **case.kwargs)

    with contextlib.redirect_stdout(io.StringIO()):
        h = np.asarray(hessian(case.entry, wrt=wrt)(*case.args, **case.kwargs))
        eps = 1e-4 * max(1.0, float(np.max(np.abs(x))))
        expected = (along(eps) - 2.0 * along(0.0) + along(-eps)) / eps ** 2
    got = float(v.ravel() @ h.reshape(x.size, x.size) @ v.ravel())
    assert got == pytest.approx(expected, rel=1e-3, abs=1e-6)
