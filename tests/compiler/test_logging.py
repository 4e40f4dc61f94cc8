"""Logging of compilations (`compiler/log.py`): one INFO record per compilation with the
function, its signature, the disk cache's answer and the time per stage; nothing for a cached
call; a warning naming the argument that keeps changing; progress lines for long
compilations; and nothing printed by default but that warning."""

import logging
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.compiler import log as compile_log
from adlite.compiler.ir.core import F64


def poly(x, c):
    return np.sum(x * x) + c


def cubic(x, c):
    return np.sum(x * x * x) + c


def summed(x, c):
    return np.sum(x) * c


def chooses(x, fill):
    if fill > 0.5:  # a number on one path, an array on the other: needs fill's value
        y = np.sum(x) * fill
    else:
        y = x * fill
    return y


def same_kind(x, fill):
    if fill > 0.5:  # an array on both paths: fill stays a run-time value
        y = np.sum(x) * fill * np.ones_like(x)
    else:
        y = x * fill
    return y


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def info(caplog):
    caplog.set_level(logging.INFO, logger="adlite")
    return caplog


def _compilations(caplog) -> list:
    return [r for r in caplog.records if r.name == "adlite.compile" and
            r.levelno == logging.INFO and hasattr(r, "compilation")]


def test_a_compilation_logs_one_record_and_a_cached_call_none(folder, info, monkeypatch):
    monkeypatch.setenv("ADLITE_OPT", "full")  # O3 before the first call: llvm-opt is a stage
    f = jit(poly)
    x = np.arange(3.0)
    assert f(x, 1.0) == 6.0
    (record,) = _compilations(info)
    done = record.compilation
    assert (done.function, done.transformation, done.disk_cache) == ("poly", "jit", "miss")
    assert done.location == f"{__file__}:{poly.__code__.co_firstlineno}"
    assert done.signature == "x: f64[3], c: f64" and done.reason == "first signature"
    assert {"frontend", "optimize", "lower", "llvm-opt", "codegen", "load"} <= set(done.stages)
    assert sum(done.stages.values()) == pytest.approx(done.seconds, rel=0.05, abs=1e-3)
    message = record.getMessage()
    for part in ("poly (jit)", "x: f64[3], c: f64", "disk cache miss", "llvm-opt", "codegen"):
        assert part in message
    info.clear()
    for _ in range(3):
        assert f(x, 1.0) == 6.0                # compiled: nothing to say
    assert info.records == []
    assert jit(poly)(x, 2.0) == 7.0            # another jit object: the disk cache's code
    (again,) = _compilations(info)
    assert again.compilation.disk_cache == "hit"
    assert "llvm-opt" not in again.compilation.stages
    assert again.compilation.reason.startswith("signature compiled before")


def test_the_reason_names_what_changed_and_ad_is_a_stage(folder, info):
    g = grad(poly)
    g(np.ones(2), 1.0)
    g(np.ones(4), 1.0)
    first, second = (r.compilation for r in _compilations(info))
    assert first.transformation == "grad" and "ad" in first.stages
    assert second.reason == "new signature: x: f64[4] (before: f64[2])"


def test_cached_calls_never_reach_logging(folder, monkeypatch):
    f = jit(cubic)
    x = np.arange(3.0)
    f(x, 1.0)
    asked = []
    monkeypatch.setattr(logging.Logger, "isEnabledFor", lambda *a: asked.append(a) or True)
    for _ in range(100):
        f(x, 1.0)
        f(x, c=1.0)
    assert asked == []


def test_a_warning_names_the_argument_whose_value_keeps_changing(folder, caplog,
                                                                 monkeypatch):
    monkeypatch.setattr(compile_log, "RECOMPILE_LIMIT", 3)
    f = jit(chooses)
    x = np.ones(3)
    for fill in (0.0, 1.0, 2.0):
        f(x, fill)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    for _ in range(3):
        f(x, float("2.0"))                     # the same value: compiled already
    assert f.compile_count == 3
    f(x, 3.0)
    (warning,) = [r for r in caplog.records if r.levelno >= logging.WARNING]
    message = warning.getMessage()
    assert "chooses (jit)" in message and "compiled 4 signatures (more than 3" in message
    assert "argument 'fill' (float value) took 4 values (0.0, 1.0, 2.0, 3.0)" in message
    assert f"needs its value when compiling ({__file__}:" in message  # the line that needs it
    assert "give results of the same shape and type" in message  # the hint
    g = jit(same_kind)                         # following it: one compilation for every value
    for fill in (0.0, 1.0, 2.0, 3.0, 4.0):
        assert np.array_equal(g(x, fill), same_kind(x, fill))
    assert g.compile_count == 1


def test_the_warning_limit_comes_from_the_environment_and_names_shapes(folder, caplog,
                                                                       monkeypatch):
    monkeypatch.setenv("ADLITE_RECOMPILE_WARNING", "2")
    f = jit(summed)
    for n in (1, 2, 3, 4, 5):
        f(np.ones(n), 1.0)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2                  # at 3 and 5 signatures: 2N+1, 4N+1, ...
    assert "argument 'x' took 3 shapes (f64[1], f64[2], f64[3]): each shape compiles once" \
        in warnings[0]
    assert "'c'" not in warnings[0]
    monkeypatch.setenv("ADLITE_RECOMPILE_WARNING", "off")
    assert compile_log.recompile_limit() is None
    monkeypatch.setenv("ADLITE_RECOMPILE_WARNING", "many")
    with pytest.raises(ValueError, match="ADLITE_RECOMPILE_WARNING"):
        compile_log.recompile_limit()


def test_a_long_compilation_reports_progress(monkeypatch, capsys):
    monkeypatch.setattr(compile_log, "PROGRESS_AFTER", 0.05)
    monkeypatch.setenv("ADLITE_PROGRESS", "1")
    c = SimpleNamespace(fn=cubic, types=(F64, F64), derivative=None, backend="python")
    with compile_log.compilation(c), compile_log.stage("llvm-opt"):
        time.sleep(0.5)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("adlite: compiling cubic (jit) for (x: f64, c: f64): 0.")
    assert lines[0].endswith(" s so far, in stage llvm-opt")
    assert 2 <= len(lines) <= 6 and lines[-1].startswith("adlite: compiled cubic (jit) in 0.")


def test_nothing_is_printed_by_default_but_the_warning(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text("import sys\nimport numpy as np\nfrom adlite.compiler import jit\n\n"
                      "def f(x):\n    return np.sum(x)\n\n\n"
                      "g = jit(f)\nfor n in range(1, int(sys.argv[1]) + 1):\n"
                      "    g(np.ones(n))\n")
    env = {"ADLITE_CACHE_DIR": "off", "ADLITE_RECOMPILE_WARNING": "2", "PATH": "/usr/bin:/bin"}

    def stderr(n: int) -> str:
        return subprocess.run([sys.executable, str(script), str(n)], capture_output=True,
                              text=True, env=env, check=True).stderr

    assert stderr(2) == ""
    (line,) = stderr(3).splitlines()
    assert line.startswith("adlite: f (jit) at ") and "argument 'x' took 3 shapes" in line
