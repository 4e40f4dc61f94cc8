"""Tiered compilation (compiler/backends/llvm/tiers.py): the first calls run quick code, the
optimised code is swapped in by the background thread, and both compute the same bits.

Expected values come from the other tier or from plain Python, never from the tier under test
alone; the swap is observed through code the test changes (an optimised module that computes
something else), so a swap that does not happen, or that only some entry points follow, fails.
"""

from __future__ import annotations

import copy
import logging
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from adlite.compiler import grad, jit, wait_optimised
from adlite.compiler.backends.llvm import tiers

from ..corpus.real_programs import load

# programs of the corpus covering scalar loops, array math (the straight-line exp/log/tanh),
# in-order reductions, matmul, linear algebra, masks and tapes of loops
CORPUS = ("gmm", "black_scholes", "binomial_tree", "heat_equation", "rk4_ode", "kalman_filter",
          "mlp_dict", "softmax_xent", "gp_loglik", "hmm_forward", "lstm", "attention",
          "monte_carlo_option", "lennard_jones", "burgers")


@pytest.fixture
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_DIR", "off")


def _bits(tree) -> list:
    """The bytes of every leaf of a gradient (float bits: -0.0 and NaN payloads count)."""
    if isinstance(tree, dict):
        return [b for k in sorted(tree) for b in _bits(tree[k])]
    if isinstance(tree, list | tuple):
        return [b for leaf in tree for b in _bits(leaf)]
    return [np.asarray(tree, dtype=np.float64).tobytes()]


def _gradient(name: str, mode: str, monkeypatch):
    monkeypatch.setenv("ADLITE_OPT", mode)
    case = load(name).CASE
    return grad(case.entry, wrt=case.wrt)(*copy.deepcopy(case.args),
                                          **copy.deepcopy(case.kwargs))


@pytest.mark.parametrize("name", CORPUS)
def test_quick_and_optimised_code_compute_the_same_bits(name, monkeypatch, no_disk_cache,
                                                          capsys):
    quick = _gradient(name, "fast", monkeypatch)
    optimised = _gradient(name, "full", monkeypatch)
    assert _bits(quick) == _bits(optimised)


def test_array_math_and_sums_are_the_same_bits_in_both_tiers(monkeypatch, no_disk_cache):
    def f(x, y):
        z = np.tanh(x) * np.exp(-y) + np.log1p(x * x) - np.expm1(0.5 * y)
        return np.sum(z * z) + np.prod(np.cos(x[:7])) + float(x @ y)

    rng = np.random.default_rng(7)
    for n in (1003, 2_000_003):  # the large one runs its loops in blocks on the thread pool
        x, y = rng.normal(size=n), rng.normal(size=n)
        x[5], y[9] = -0.0, 710.0  # a signed zero, an exp that underflows
        results = {}
        for mode in ("fast", "full"):
            monkeypatch.setenv("ADLITE_OPT", mode)
            results[mode] = (jit(f)(x, y), grad(f, wrt=(0, 1))(x, y))
        assert _bits(results["fast"]) == _bits(results["full"])


def _swapped_to_another_module(monkeypatch, fn, *args):
    """Compile `fn` tiered with an optimised module in which 0.25 is 0.5 (the test's way to
    see which code a call runs); returns the native function, after the swap."""
    monkeypatch.setenv("ADLITE_OPT", "tiered")
    real = tiers.optimised

    def changed(text):
        quarter = re.compile("0x3FD0000000000000", re.IGNORECASE)  # 0.25, as llvmlite prints it
        assert quarter.search(text)
        return real(quarter.sub("0x3FE0000000000000", text))

    monkeypatch.setattr(tiers, "optimised", changed)
    compiled = jit(fn)
    first = compiled(*args)
    assert wait_optimised(timeout=300)
    return compiled, first


def test_every_entry_point_runs_the_swapped_in_code(monkeypatch, no_disk_cache):
    def f(x, n):
        return x + 0.25 * n

    compiled, first = _swapped_to_another_module(monkeypatch, f, 1.0, 2)
    assert first == f(1.0, 2) == 1.5               # the quick tier: the function's own code
    assert compiled(1.0, 2) == 2.0                 # the generated entry point, forwarded
    assert compiled(np.float64(1.0), 2) == 2.0     # a float subclass
    assert compiled(x=1.0, n=2) == 2.0             # keywords: the converting entry point


def test_the_ctypes_path_runs_the_swapped_in_code(monkeypatch, no_disk_cache):
    def f(x):
        return np.sum(x) + 0.25

    x = np.arange(4.0)
    compiled, first = _swapped_to_another_module(monkeypatch, f, x)
    assert first == 6.25
    assert compiled(x) == 6.5
    strided = np.arange(8.0)[::2]  # not contiguous: the ctypes path copies it
    assert compiled(strided) == 12.5


def test_a_failed_optimisation_is_logged_and_the_quick_code_stays(monkeypatch, caplog,
                                                                   no_disk_cache):
    def broken(text):
        raise RuntimeError("optimiser broken on purpose")

    monkeypatch.setenv("ADLITE_OPT", "tiered")
    monkeypatch.setattr(tiers, "optimised", broken)
    caplog.set_level(logging.INFO, logger="adlite")

    def f(x):
        return x * x + 0.75

    compiled = jit(f)
    assert compiled(2.0) == 4.75
    assert wait_optimised(timeout=300)
    assert compiled(3.0) == 9.75
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert errors and "optimiser broken on purpose" in errors[0].exc_text


def test_the_quick_tier_skips_llvms_passes_and_logs_the_swap(monkeypatch, caplog,
                                                               no_disk_cache):
    monkeypatch.setenv("ADLITE_OPT", "tiered")
    caplog.set_level(logging.INFO, logger="adlite")

    def f(x):
        return np.sum(np.exp(x)) * 1.5

    jit(f)(np.ones(5))
    (record,) = [r for r in caplog.records if hasattr(r, "compilation")]
    assert "codegen" in record.compilation.stages
    assert "llvm-opt" not in record.compilation.stages
    assert wait_optimised(timeout=300)
    swapped = [r.getMessage() for r in caplog.records if "swapped in" in r.getMessage()]
    assert len(swapped) == 1 and "llvm-opt" in swapped[0] and "codegen" in swapped[0]


def test_an_unknown_setting_is_refused_naming_the_variable(monkeypatch):
    monkeypatch.setenv("ADLITE_OPT", "O2")
    with pytest.raises(ValueError, match="ADLITE_OPT='o2': expected one of tiered, full, fast"):
        jit(lambda x: x + 1.0)(1.0)


CHILD = r"""
import os, sys
import numpy as np
from adlite.compiler import grad, wait_optimised

def f(x):
    s = 0.0
    for i in range(40):
        s = s + np.sum(np.tanh(x * i + 0.5) * np.exp(-x))
    return s

x = np.linspace(0.0, 1.0, 300)
g = grad(f)(x)
if sys.argv[1] == "fork":
    pid = os.fork()
    if pid == 0:  # the child: its own thread and optimising process
        h = grad(f)(x)
        ok = wait_optimised(timeout=300) and np.array_equal(g, h)
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), np.sum(g))
else:  # exit while the optimised code is still being built
    print(0, np.sum(g))
"""


@pytest.mark.parametrize("how", ["exit", "fork"])
def test_processes_exit_and_fork_while_optimising(how, tmp_path):
    env = {**os.environ, "ADLITE_CACHE_DIR": "off", "ADLITE_OPT": "tiered"}
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    out = subprocess.run([sys.executable, str(script), how], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    code, total = out.stdout.split()
    assert code == "0" and out.stderr == ""
    assert np.isfinite(float(total))


UNSTARTABLE = r"""
import logging, sys
import numpy as np
sys.executable = sys.argv[1]  # an embedded interpreter: no Python to start
logging.basicConfig(level=logging.ERROR, format="%(message)s")
from adlite.compiler import jit, wait_optimised
from adlite.compiler.backends.llvm import tiers

def f(x):
    return np.sum(x * x) + 0.5

def g(x):
    return np.sum(np.exp(x))

x = np.arange(3.0)
print(jit(f)(x), jit(g)(np.zeros(3)), wait_optimised(timeout=300), tiers.pending())
print(jit(f)(x + 1.0), jit(g)(np.zeros(4)), wait_optimised(timeout=300), tiers.pending())
"""


@pytest.mark.parametrize("executable", [
    "/nonexistent/python",
    pytest.param("/bin/false", marks=pytest.mark.skipif(not os.path.exists("/bin/false"),
                                                        reason="no /bin/false"))])
def test_without_an_optimising_process_the_quick_code_stays_and_it_is_said_once(tmp_path,
                                                                                  executable):
    # /nonexistent/python cannot start; /bin/false starts and exits before answering
    script = tmp_path / "unstartable.py"
    script.write_text(UNSTARTABLE)
    env = {**os.environ, "ADLITE_CACHE_DIR": "off", "ADLITE_OPT": "tiered"}
    out = subprocess.run([sys.executable, str(script), executable], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["5.5 3.0 True 0", "14.5 4.0 True 0"]
    assert out.stderr.count("cannot start the optimising process") == 1
    assert "ADLITE_OPT=full" in out.stderr
