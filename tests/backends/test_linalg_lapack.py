"""np.linalg in native code calls the LAPACK in numpy's OpenBLAS: values equal numpy's to the
bit (float64 and float32, which numpy computes in float64), the loops stay as the fallback
without OpenBLAS (values within rounding, numpy's errors), and code read from the disk cache
links the library in a fresh process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from adlite import compiler
from adlite.compiler import grad
from adlite.compiler.backends.llvm import arrays
from adlite.compiler.ir.core import Type

from ..support.array_programs import cholesky, inv, solve


def _functions(a, b, spd):
    sign, logdet = np.linalg.slogdet(a)
    return (np.linalg.solve(a, b), np.linalg.solve(a, b[:, 0]), np.linalg.inv(a),
            np.linalg.det(a), sign, logdet, np.linalg.cholesky(spd))


def _operands(n, dtype, seed=0):
    rng = np.random.default_rng(seed + n)
    a = rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)
    m = rng.standard_normal((n, n))
    return [x.astype(dtype) for x in (a, rng.standard_normal((n, 3)), m @ m.T + n * np.eye(n))]


NAMES = ["solve", "solve_vector", "inv", "det", "sign", "logdet", "cholesky"]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [1, 3, 16, 80])
def test_values_equal_numpys_to_the_bit(n, dtype):
    args = _operands(n, dtype)
    compiled = compiler.jit(_functions)(*args)
    with np.errstate(over="ignore"):  # float32 det of n = 80: inf, as compiled
        expected = _functions(*args)
    for name, c, e in zip(NAMES, compiled, expected, strict=True):
        assert np.asarray(c).dtype == np.asarray(e).dtype, name
        np.testing.assert_array_equal(c, e, err_msg=name)


SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 1.0]])
INDEFINITE = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


@pytest.fixture
def without_openblas(monkeypatch):
    """Code generated as where numpy ships no OpenBLAS (BLAS and LAPACK: the loops)."""
    monkeypatch.setattr(arrays, "blas", lambda: None)


def _called_routines() -> set[str]:
    """The LAPACK routines the native code of `_functions` calls."""
    matrix = Type("f64", (4, 4))
    code = compiler.show(_functions, "lower", types=[matrix, Type("f64", (4, 3)), matrix])
    return {r for r in ("gesv", "getrf", "getrs", "potrf") if f"@scipy_d{r}_64_(" in code}


def test_native_code_calls_lapack_with_openblas():
    assert _called_routines() == {"getrf", "getrs", "potrf"}  # solve: getrf then getrs


def test_the_fallback_calls_no_lapack(without_openblas):
    assert _called_routines() == set()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_loops_without_openblas_agree_with_numpy(without_openblas, dtype):
    args = _operands(5, dtype)
    compiled = compiler.jit(_functions)(*args)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    for name, c, e in zip(NAMES, compiled, _functions(*args), strict=True):
        assert np.asarray(c).dtype == np.asarray(e).dtype, name
        np.testing.assert_allclose(c, e, rtol=rtol, atol=rtol, err_msg=name)


@pytest.mark.parametrize("openblas", [True, False], ids=["lapack", "loops"])
@pytest.mark.parametrize("fn,args", [(solve, (SINGULAR, np.eye(3))), (inv, (SINGULAR,)),
                                     (cholesky, (INDEFINITE,))],
                         ids=["solve", "inv", "cholesky"])
def test_numpys_errors_with_and_without_openblas(monkeypatch, openblas, fn, args):
    if not openblas:
        monkeypatch.setattr(arrays, "blas", lambda: None)
    with pytest.raises(np.linalg.LinAlgError) as expected:
        fn(*args)
    with pytest.raises(np.linalg.LinAlgError) as compiled:
        compiler.jit(fn)(*args)
    assert str(compiled.value) == str(expected.value)


def test_gradients_equal_with_lapack_and_the_loops(monkeypatch):
    def f(a, b, spd):
        return (np.sum(np.linalg.solve(a, b) ** 2) + np.linalg.slogdet(a)[1]
                + np.sum(np.log(np.diag(np.linalg.cholesky(spd)))))

    args = _operands(6, np.float64)
    with_lapack = compiler.grad(f, wrt=(0, 1, 2))(*args)
    monkeypatch.setattr(arrays, "blas", lambda: None)
    with_loops = compiler.grad(f, wrt=(0, 1, 2))(*args)
    for x, y in zip(with_lapack, with_loops, strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-11, atol=1e-12)


PROBE = r'''
import json, sys
import llvmlite.binding as llvm
import numpy as np

loaded = []
real = llvm.load_library_permanently
llvm.load_library_permanently = lambda path: (loaded.append(path), real(path))[1]

from adlite import compiler

def f(a, b):
    return np.linalg.solve(a, b)

a = np.array([[4.0, 1.0], [2.0, 3.0]])
x = compiler.jit(f)(a, np.array([1.0, 2.0])).tolist()
compiler.wait_optimised()  # the optimised tier is what the disk cache keeps
print(json.dumps({"x": x, "openblas": any("openblas" in p for p in loaded)}))
'''


def test_cached_lapack_code_links_in_a_fresh_process(tmp_path):
    """The disk-cache key names the library the code calls, so loading cached code loads it
    first (were linear algebra not counted, the second process could not link)."""
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    env = {**os.environ, "ADLITE_CACHE_DIR": str(tmp_path / "cache")}
    expected = np.linalg.solve(np.array([[4.0, 1.0], [2.0, 3.0]]), np.array([1.0, 2.0]))
    for _ in range(2):  # compiled, then read from the disk cache
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                             env=env, check=True)
        seen = json.loads(out.stdout)
        assert seen["openblas"]
        np.testing.assert_array_equal(seen["x"], expected)
    assert list((tmp_path / "cache").glob("*.o"))


def summed_solution(a, b):
    return np.sum(np.linalg.solve(a, b))


def test_the_solve_gradient_reuses_the_lu_factors():
    """solve(A, b)'s adjoint solves with A.T: LAPACK factors A once (getrf) and solves twice
    (getrs, the second with its transpose flag), never copying A.T."""
    code = compiler.show(summed_solution, "llvm-grad",
                         types=[Type("f64", (6, 6)), Type("f64", (6,))])
    assert len(re.findall(r"call void @scipy_dgetrf_64_\(", code)) == 1
    assert len(re.findall(r"call void @scipy_dgetrs_64_\(", code)) == 2
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((6, 6)) + 6 * np.eye(6), rng.standard_normal(6)
    ga, gb = grad(summed_solution, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(gb, np.linalg.solve(a.T, np.ones(6)), rtol=1e-12)
    np.testing.assert_allclose(ga, -np.outer(gb, np.linalg.solve(a, b)), rtol=1e-12)
    with pytest.raises(np.linalg.LinAlgError):
        grad(summed_solution)(SINGULAR, np.ones(3))
