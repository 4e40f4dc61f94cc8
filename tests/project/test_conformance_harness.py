"""The conformance harness's own logic (benchmarks/conformance, `make conformance`), without the
network and without autograd: a fake `autograd` package (checkers that fail unless shimmed, a
`grad` that cannot compute, so that central differences decide) and a tiny test module of
its own are written into a temporary folder. Checked: what the shims record, the globals
rewriting, the classification of results, the process pool's time limit and crashes, and the
table's totals and causes."""

from __future__ import annotations

import importlib.util
import math
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError
from benchmarks.conformance.collect import Case, collect
from benchmarks.conformance.modes import Checker, Result, classify_error, run_case
from benchmarks.conformance.pool import run_all
from benchmarks.conformance.report import normalise, summary, tables
from benchmarks.conformance.rewrite import Rewriter, entry_source, real_module

FAKE_AUTOGRAD = {
    "autograd/__init__.py": """
        def grad(fun, argnum=0):
            def gradient(*args, **kwargs):
                raise NotImplementedError("this fake autograd computes no gradients")
            return gradient
        """,
    "autograd/tracer.py": """
        class Box:
            pass
        """,
    "autograd/test_util.py": """
        def check_grads(*args, **kwargs):
            raise AssertionError("check_grads was not replaced by the recording shim")

        def combo_check(*args, **kwargs):
            raise AssertionError("combo_check was not replaced by the recording shim")
        """,
    "autograd/numpy/__init__.py": """
        import numpy as _np
        from numpy import ones  # noqa: F401

        def sin(x):
            return _np.sin(x)

        def sum(x, axis=None, weights=1.0):
            return _np.sum(x * weights, axis=axis)

        def sum_all(x):
            return _np.sum(x)
        """,
}

SUITE = """
    import pytest
    import autograd.numpy as np
    from autograd import grad
    from autograd.test_util import check_grads, combo_check

    def helper(x):
        return np.sin(x) * 2.0

    def test_check():
        check_grads(helper, modes=["rev"], order=1)(0.3)

    def test_combo():
        combo_check(lambda x, y: np.sum(x * y), [0, 1])([np.ones(2)], [2.0, 3.0])

    def test_direct_grad():
        assert grad(helper)(0.5) is None

    def test_complex():
        check_grads(np.sin)(0.5 + 1j)

    @pytest.mark.parametrize("k", [1, 2])
    def test_axis(k):
        check_grads(lambda x: np.sum(x ** k, axis=0))(np.ones((2, 3)))

    def test_recorded_then_fails():
        check_grads(helper)(1.0)
        raise ValueError("after recording")
    """


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tests folder of a fake autograd suite, with the fake autograd importable."""
    for name, text in FAKE_AUTOGRAD.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_tiny.py").write_text(textwrap.dedent(SUITE))
    for name in [m for m in sys.modules if m.split(".")[0] in ("autograd", "test_tiny")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tests
    for name in [m for m in sys.modules if m.split(".")[0] in ("autograd", "test_tiny")]:
        del sys.modules[name]


def test_the_shims_record_one_case_per_call(suite):
    collection = collect(suite)
    names = [c.name for c in collection.cases]
    assert names == [
        "test_tiny.py::test_check#0", "test_tiny.py::test_combo#0", "test_tiny.py::test_combo#1",
        "test_tiny.py::test_direct_grad#0", "test_tiny.py::test_complex#0",
        "test_tiny.py::test_axis[k=1]#0", "test_tiny.py::test_axis[k=2]#0",
        "test_tiny.py::test_recorded_then_fails#0"]
    check, combo, _, direct, complex_, *_ = collection.cases
    assert (check.modes, check.order, check.argnums, check.source) == (
        ("rev",), 1, (0,), "check_grads")
    assert combo.argnums == (0, 1) and combo.args[1] == 2.0 and combo.order == 2
    assert (direct.source, direct.modes, direct.order, direct.args) == ("grad", ("rev",), 1,
                                                                        (0.5,))
    assert [c.is_complex for c in collection.cases].count(True) == 1 and complex_.is_complex
    assert collection.errors == {
        "test_tiny.py::test_direct_grad": "NotImplementedError: this fake autograd computes "
                                          "no gradients",
        "test_tiny.py::test_recorded_then_fails": "ValueError: after recording"}


def test_globals_rewriting_gives_numpy_and_leaves_the_original(suite):
    case = collect(suite).cases[0]
    original_globals = dict(case.fun.__globals__)
    fun = Rewriter(suite).to_numpy(case.fun)
    assert fun is not case.fun and fun.__code__ is case.fun.__code__
    assert fun.__globals__["np"] is np
    helper_globals = fun.__globals__["helper"].__globals__
    assert helper_globals is fun.__globals__  # one copy per module, shared
    assert fun.__globals__["grad"].__module__ == "adlite.compiler.api"
    assert case.fun.__globals__ == original_globals
    assert case.fun.__globals__["np"].__name__ == "autograd.numpy"
    assert math.isclose(fun(0.3), 2 * math.sin(0.3))
    # for the eager tape: the tape's own transformations, numpy unchanged (Tensors dispatch)
    on_tape = Rewriter(suite, tape=True).to_numpy(case.fun)
    assert on_tape.__globals__["grad"].__module__ == "adlite.runtime.transforms"
    assert on_tape.__globals__["np"] is np
    assert real_module("autograd.scipy.special", tape=True).__name__ == \
        "adlite.runtime.scipy.special"
    assert real_module("autograd.scipy.special").__name__ == "scipy.special"


def test_entry_source_binds_differentiated_arguments_and_constants(suite):
    case = Case("f.py", "t", 0, np.sum, (np.ones(2), 3, np.ones(2)), {"axis": 0, "w": np.ones(1)},
                (0,), ("fwd", "rev"), 2, "check_grads")
    source, constants = entry_source(case, (np.ones(2), {"a": 1.0}))
    assert "def case_entry(x0):\n    return fun(x0, 3, a2, axis=0, w=k_w)" in source
    assert "np.sum(out[0] * u0) + np.sum(out[1]['a'] * u1)" in source
    assert sorted(constants) == ["a2", "k_w"]


def test_modes_pass_against_differences_and_complex_results_run_compiled(suite, tmp_path):
    collection = collect(suite)
    results: list[Result] = []
    run_case(collection.cases[5], suite, tmp_path / "entries", 5, results.append)
    assert {r.mode: r.status for r in results} == dict.fromkeys(
        ("jit", "grad", "jvp", "hessian", "tape"), "pass")
    assert {r.message for r in results} == {"", "agrees with differences; autograd fails"}
    complex_result = Case("test_tiny.py", "t", 0, lambda x: x * 1j, (0.5,), {}, (0,), ("rev",),
                          1, "grad")
    skipped: list[Result] = []
    run_case(complex_result, suite, tmp_path / "entries", 9, skipped.append)
    assert [(r.mode, r.status) for r in skipped] == [
        ("jit", "pass"), ("grad", "pass"), ("jvp", "pass"), ("tape", "pass")]


AUTOGRAD_ONLY = """
    import autograd.numpy as np

    def missing_function(x):
        return np.sum_all(x) * 2.0

    def missing_keyword(x):
        return np.sum(x, weights=2.0)

    def bad_argument(x):
        return np.sin(x, "not an array")
    """


def test_cases_of_autograd_own_api_are_not_applicable(suite, tmp_path):
    (suite / "autograd_only.py").write_text(textwrap.dedent(AUTOGRAD_ONLY))
    spec = importlib.util.spec_from_file_location("autograd_only", suite / "autograd_only.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    statuses = {}
    for number, name in enumerate(("missing_function", "missing_keyword", "bad_argument")):
        case = Case("autograd_only.py", name, 0, getattr(module, name), (np.ones(2),), {}, (0,),
                    ("rev",), 1, "check_grads")
        results: list[Result] = []
        run_case(case, suite, tmp_path / "entries", number, results.append)
        statuses[name] = {(r.status, r.message) for r in results}
    assert statuses["missing_function"] == {
        ("n/a", "autograd's own API: AttributeError: module 'numpy' has no attribute "
                "'sum_all'")}
    assert statuses["missing_keyword"] == {
        ("n/a", "autograd's own API: TypeError: sum() got an unexpected keyword argument "
                "'weights'")}
    # an error both versions raise is no reference at all, not autograd's API
    assert {status for status, _ in statuses["bad_argument"]} == {"skip"}


def test_errors_raised_inside_autograd_are_not_applicable(suite):
    import autograd  # the fake one of `suite`

    with pytest.raises(NotImplementedError) as inside:
        autograd.grad(np.sin)(1.0)
    assert classify_error(inside.value) == "n/a"
    with pytest.raises(ZeroDivisionError) as outside:
        _ = 1.0 / 0
    assert classify_error(outside.value) == "crash"


def test_wrong_numbers_are_wrong(suite, tmp_path):
    checker = Checker(collect(suite).cases[1], suite, tmp_path / "entries", 1)
    right = [np.full(2, 2.0), np.array(2.0)]  # d/dx, d/dy of sum(x * y) at ones(2), 2.0
    assert checker.judge_reverse(right).status == "pass"
    assert checker.judge_reverse([np.full(2, 2.0), np.array(2.5)]).status == "wrong"
    assert checker.judge_forward([np.array(9.0)]).status == "wrong"


def test_errors_adlite_raises_are_refusals_others_crashes():
    from adlite.compiler import jit

    def uses_eval(x):
        return eval("x")

    with pytest.raises(AdliteSyntaxError) as refused:
        jit(uses_eval)(1.0)
    assert classify_error(refused.value) == "refused"
    assert classify_error(KeyError("x")) == "crash"
    assert classify_error(TypeError("raised by numpy, not by adlite")) == "crash"


def sleeps(x):
    import time
    time.sleep(60)
    return x


def dies(x):
    import os
    import signal
    os.kill(os.getpid(), signal.SIGKILL)


def test_the_pool_kills_late_cases_and_reports_dead_ones(suite, tmp_path):
    cases = [Case("f.py", name, 0, fun, (1.0,), {}, (0,), ("rev",), 1, "grad")
             for name, fun in (("sleeps", sleeps), ("dies", dies))]
    results = run_all(cases, suite, tmp_path / "entries", workers=2, timeout=3.0)
    assert [(r.mode, r.status, r.message) for r in results[0]] == [
        (m, "crash", "timeout after 3 s") for m in ("jit", "grad", "jvp", "tape")]
    assert {(r.status, r.message) for r in results[1]} == {
        ("crash", "process died (exit code -9)")}


ROWS = [("a.py", "jit", "pass", ""), ("a.py", "jit", "refused", "AdliteSyntaxError: "
         "/x/y/t.py:12:4: np.kron() is not supported"),
        ("b.py", "jit", "refused", "AdliteSyntaxError: /z/t.py:3:1: np.kron() is not supported"),
        ("b.py", "jit", "skip", "complex arguments"), ("b.py", "jvp", "skip", "complex result"),
        ("b.py", "tape", "crash", "KeyError: 'q'"),
        ("b.py", "tape", "wrong", "reverse mode differs"),
        ("b.py", "tape", "n/a", "autograd's own API: AttributeError: ...")]


def test_the_totals_and_the_causes():
    totals = summary(ROWS)
    assert totals["per_mode"]["jit"] == {"pass": 1, "wrong": 0, "refused": 2, "crash": 0,
                                         "skip": 1, "n/a": 0, "pass_percent": 100 / 3}
    assert totals["per_mode"]["tape"]["n/a"] == 1
    assert totals["per_mode"]["tape"]["pass_percent"] == 0.0
    assert totals["per_mode"]["jvp"]["pass_percent"] is None  # only a skip
    assert totals["causes"][0] == {"results": 2, "status": "refused", "modes": "jit",
                                   "cause": "AdliteSyntaxError: <file>:N:N: np.kron() is not "
                                            "supported"}
    text = tables(ROWS)
    assert "jit         1      0        2      0     1    0    33.3" in text
    assert "tape        0      1        0      1     0    1     0.0" in text
    assert "jvp         0      0        0      0     1    0       -" in text
    assert "b.py      2    0     -    -        -     0" in text
    assert normalise("ValueError: shapes (3,4) and 5 in case_00012 x1\nmore") == \
        "ValueError: shapes (N,N) and N in case x"
