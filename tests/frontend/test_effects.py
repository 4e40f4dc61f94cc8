"""print, f-strings, assert and raise in compiled code behave as in the Python function: the
same text printed (in order, once per evaluation, also in derivatives) and the same exception
type and message; try/except is refused at its line."""

import math

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, hessian, jit, jvp, value_and_grad

from ..support.effects_examples import (
    bare_exception_class,
    catches,
    checked_sqrt,
    inlined_check,
    loop_with_prints,
    message_is_a_value,
    newton_sqrt,
    print_array,
    print_in_branch,
    print_in_loop_branch,
    print_keywords,
    raise_in_else,
    raises_custom,
    unused_check,
)

BACKENDS = ("llvm", "python")


# ---- helpers ----------------------------------------------------------------------------------

def _outcome(fn, *args):
    try:
        return "value", fn(*args)
    except Exception as e:  # noqa: BLE001 - the outcome compared
        return type(e), str(e)


def _same_outcome(fn, args, backend):
    expected = _outcome(fn, *args)
    got = _outcome(jit(fn, backend=backend), *args)
    assert got[0] is expected[0] or got[0] == expected[0]
    if expected[0] == "value":
        assert got[1] == pytest.approx(expected[1], rel=1e-12)
    else:
        assert got[1] == expected[1]


def _printed(capfd, fn, *args):
    capfd.readouterr()
    result = fn(*args)
    out = capfd.readouterr()
    return result, out.out, out.err


# ---- assert and raise -------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", [
    (checked_sqrt, (4.0, 3)), (checked_sqrt, (4.0, 0)), (checked_sqrt, (-1.0, 2)),
    (newton_sqrt, (2.0, 1e-12)), (newton_sqrt, (2.0, -1.0)), (newton_sqrt, (2.0, 0.0)),
    (newton_sqrt, (2.0, 1e-300)),
    (raise_in_else, (2.0,)), (raise_in_else, (-2.0,)),
    (bare_exception_class, (0.5,)), (bare_exception_class, (2.0,)),
    (message_is_a_value, (1.0,)), (message_is_a_value, (12.5,)),
    (inlined_check, (1.0, 2.0)), (inlined_check, (1.0, -2.5)), (inlined_check, (-0.5, 2.0)),
])
def test_checks_raise_what_python_raises(fn, args, backend):
    _same_outcome(fn, args, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_checks_in_derivatives(backend):
    g = grad(newton_sqrt, backend=backend)
    assert g(2.0, 1e-12) == pytest.approx(0.5 / math.sqrt(2.0))
    with pytest.raises(ValueError, match="^tolerance must be positive$"):
        g(2.0, -1.0)
    with pytest.raises(FloatingPointError, match=r"^negative value -2\.5$"):
        value_and_grad(inlined_check, wrt=(0, 1), backend=backend)(1.0, -2.5)
    with pytest.raises(AssertionError, match="^n must be positive$"):
        jvp(checked_sqrt, (4.0, 0), (1.0,))
    with pytest.raises(AssertionError, match="^$"):
        hessian(checked_sqrt)(-1.0, 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_check_stays_when_its_result_is_unused(backend):
    _same_outcome(unused_check, (-1.0,), backend)


# ---- print ------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", [
    (loop_with_prints, (1.5, 4)), (loop_with_prints, (0.1, 0)), (print_keywords, (2.5,)),
    (print_array, (np.array([0.5, 1.0, 2.0]),)), (print_in_loop_branch, (1.1, 5)),
])
def test_prints_what_python_prints(fn, args, backend, capfd):
    expected = _printed(capfd, fn, *args)
    got = _printed(capfd, jit(fn, backend=backend), *args)
    assert got[1:] == expected[1:]
    assert got[0] == pytest.approx(expected[0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_derivatives_print_once_per_evaluation(backend, capfd):
    _, expected, _ = _printed(capfd, print_in_branch, 1.5, 2.0)
    for transformed in (grad(print_in_branch, backend=backend),
                        value_and_grad(print_in_branch, wrt=(0, 1), backend=backend)):
        _, printed, _ = _printed(capfd, transformed, 1.5, 2.0)
        assert printed == expected
    _, printed, _ = _printed(capfd, grad(print_in_loop_branch, backend=backend), 1.1, 5)
    assert printed == _printed(capfd, print_in_loop_branch, 1.1, 5)[1]
    _, printed, _ = _printed(capfd, jvp, print_in_branch, (-1.5, 2.0), (1.0, 0.0))
    assert printed == "negative -1.5\n"


def test_prints_through_capsys(capsys):
    jit(loop_with_prints)(2.0, 2)
    assert capsys.readouterr().out == "step 0 0.0\nstep 1 2.0\nloss = 2.0000    2|2.0\n"


# ---- refused ----------------------------------------------------------------------------------

def test_try_except_is_refused_at_its_line():
    with pytest.raises(AdliteSyntaxError, match="try/except") as info:
        jit(catches)(1.0)
    assert info.value.line == catches.__code__.co_firstlineno + 1
    assert "hint:" in str(info.value)


def test_user_exception_classes_are_refused():
    with pytest.raises(AdliteSyntaxError, match="built-in exception classes"):
        jit(raises_custom)(1.0)


def test_aot_refuses_effects(tmp_path):
    from adlite.compiler.aot import AotError, compile_aot
    from adlite.compiler.ir.core import F64, I64
    with pytest.raises(AotError, match="cannot print, assert or raise"):
        compile_aot(checked_sqrt, tmp_path, [F64, I64])
