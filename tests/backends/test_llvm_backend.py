"""LLVM backend specifics: errors instead of crashes, IEEE agreement, tape growth, cache."""

import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, jit, show
from adlite.compiler.backends.llvm.arrays import blas
from adlite.compiler.ir.core import Type
from adlite.runtime import Tensor

from ..support import llvm_examples as ex
from ..support.paths import ROOT


def test_wrong_arguments_raise_before_native_code_runs():
    f = jit(ex.mixed_types)
    assert f(2.0, 3, True) == ex.mixed_types(2.0, 3, True)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'flag'"):
        f(1.0, 2)
    # strings, None and lists are compile-time values or structures (issue 10): used as
    # numbers, they are refused when compiling, naming the line
    with pytest.raises(AdliteSyntaxError, match="got a string"):
        f("1.0", 2, True)
    with pytest.raises(AdliteSyntaxError, match="got None"):
        f(1.0, None, True)
    with pytest.raises(AdliteSyntaxError, match="got a (tuple|list)"):
        f(1.0, 2, [1])
    with pytest.raises(OverflowError):
        f(1.0, 2**70, True)
    assert f(2.0, 3, True) == ex.mixed_types(2.0, 3, True)  # still fine afterwards


def test_native_entry_point_checks_its_own_arguments():
    f = jit(ex.mixed_types)
    f(2.0, 3, True)
    (run, _), = f.cache.values()
    with pytest.raises(TypeError, match="takes 3 positional arguments"):
        run(1.0)
    with pytest.raises(TypeError):
        run(1.0, 2.5, True)   # a float where the signature has an int


def test_integer_division_by_zero_is_an_exception():
    f = jit(ex.int_division)
    for a, b in ((7, 2), (-7, 2), (7, -2), (-7, -2), (0, 5), (6, 3)):
        assert f(a, b) == ex.int_division(a, b)
    with pytest.raises(ZeroDivisionError) as python:
        ex.int_division(1, 0)
    with pytest.raises(ZeroDivisionError, match=f"^{re.escape(str(python.value))}$"):
        f(1, 0)


def test_int_of_nan_is_an_exception():
    f = jit(ex.to_int)
    assert f(3.7) == 3 and f(-3.7) == -3
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        f(math.nan)
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        f(math.inf)  # Python's int(inf) raises OverflowError


@pytest.mark.parametrize("x,y", [(1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (math.inf, 2.0),
                                 (math.nan, 1.0), (-0.0, 3.0), (7.5, -2.0), (-7.5, 2.0),
                                 (1e308, 10.0), (5.0, math.inf)])
def test_ieee_semantics_match_numpy(x, y):
    native = jit(ex.float_corner_cases)(x, y)
    with np.errstate(all="ignore"):
        reference = ex.float_corner_cases(np.float64(x), np.float64(y))
    reference_py = jit(ex.float_corner_cases, backend="python")(x, y)
    for a, b, c in zip(native, reference, reference_py, strict=True):
        for other in (b, c):
            assert (math.isnan(a) and math.isnan(other)) or (
                a == other and math.copysign(1, a) == math.copysign(1, other)), (a, b, c)


def test_long_loop_grows_the_tape():
    g = grad(ex.long_loop)
    n = 300_000
    expected = 1.0001 ** n
    assert g(1.0, n) == pytest.approx(expected, rel=1e-9)
    for _ in range(3):
        assert g(1.0, 1000) == pytest.approx(1.0001 ** 1000, rel=1e-12)


def test_disk_cache_is_used_and_survives_corruption(tmp_path):
    root = str(ROOT)
    script = (
        f"import sys; sys.path.insert(0, {root!r})\n"
        "from tests.support import llvm_examples as ex\n"
        "import adlite.compiler.backends.llvm.jit as j\n"
        "from adlite.compiler import grad\n"
        "calls = []\n"
        "orig = j.parse_and_optimize\n"
        "j.parse_and_optimize = lambda *a: calls.append(1) or orig(*a)\n"
        "print(grad(ex.long_loop)(1.0, 10), len(calls))\n"
    )
    # full: the optimisation runs in this process (tiered: in the optimising process)
    env = {**os.environ, "ADLITE_CACHE_DIR": str(tmp_path), "ADLITE_OPT": "full"}

    def run():
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
        return float(out[0]), int(out[1])

    value, compiled = run()
    assert compiled == 1
    assert run() == (value, 0)                        # second process: loaded from disk
    for entry in tmp_path.glob("*.o"):
        entry.write_bytes(entry.read_bytes()[:-40] + b"garbage" * 6)
    assert run() == (value, 1)                        # corrupted entry ignored, rebuilt
    assert run() == (value, 0)
    assert not list(tmp_path.glob(".tmp-*"))          # atomic writes leave no temp files


def test_in_place_updates_keep_value_semantics():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    native = jit(ex.alias_of_initial_value)(x)
    expected = ex.alias_of_initial_value(x.copy())  # z = y aliases: numpy gives 40
    assert native == jit(ex.alias_of_initial_value, backend="python")(x) == expected == 40.0
    expected_x = x.copy()
    assert jit(ex.overwrite_argument)(x) == ex.overwrite_argument(expected_x) == 4.0
    np.testing.assert_array_equal(x, expected_x)  # the caller's array is written, as in Python


def test_element_updates_in_long_loops_are_linear():
    # values at n = 200k; that y[i] = ... updates one buffer in place and that the adjoint
    # accumulates x's cotangent in place (linear, not O(n^2)) is asserted on the generated
    # code in test_optimisations_structure.py
    x = np.random.default_rng(0).standard_normal(200_000)
    g = grad(ex.running_squares)(x)
    c = np.cumsum(x * x)
    expected = 2 * x * np.cumsum((0.5 / np.sqrt(c + 1.0))[::-1])[::-1]
    np.testing.assert_allclose(g, expected, rtol=1e-9)


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(ln.split()[1]) for ln in f if ln.startswith(field + ":"))


def _peak_rss_growth(call) -> int:
    """Bytes by which this process's peak resident set grows while `call()` runs (Linux: the
    peak, VmHWM, is reset to the current resident set through /proc/self/clear_refs)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    start = _status_kib("VmRSS")
    call()
    return (_status_kib("VmHWM") - start) * 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self (Linux)")
def test_arrays_created_in_every_iteration_are_freed():
    # each iteration makes an 80 KB array: 2000 iterations would hold 160 MB if the loop kept
    # them until the function returns; freed at the end of each iteration, a few stay live
    x = np.linspace(-1.0, 1.0, 10_000)
    f = jit(ex.many_temporaries)
    assert f(x, 3) == pytest.approx(ex.many_temporaries(x, 3), rel=1e-12)  # compiled now
    results = []
    growth = _peak_rss_growth(lambda: results.append(f(x, 2000)))
    assert results[0] == pytest.approx(ex.many_temporaries(x, 2000), rel=1e-12)
    assert growth < 100 * x.nbytes, f"peak memory grew by {growth / 2**20:.1f} MiB"


def _gemm_flags(fn, types) -> list[tuple[str, str]]:
    """The (transA, transB) flags of the BLAS products in `fn`'s gradient code."""
    text = show(fn, "llvm-grad", types=types)
    return re.findall(r"call void @scipy_cblas_[ds]gemm64_\(i32 101, i32 (\d+), i32 (\d+)", text)


def _gemm_calls(fn, types) -> list[tuple[str, ...]]:
    """(transA, transB, M, N, K) of the BLAS products in `fn`'s gradient code."""
    text = show(fn, "llvm-grad", types=types)
    return re.findall(r"call void @scipy_cblas_[ds]gemm64_\(i32 101, i32 (\d+), i32 (\d+), "
                      r"i64 (\d+), i64 (\d+), i64 (\d+)", text)


def layer_loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


@pytest.mark.skipif(blas() is None, reason="no OpenBLAS in numpy")
def test_a_weight_gradient_over_a_long_batch_is_computed_transposed():
    """The weight gradient `x.T @ g` of a 2048 x 256 batch into 16 outputs is made as
    `(g.T @ x).T` (the BLAS's M is the 16 outputs, then a transposed copy): OpenBLAS runs
    that orientation 0.5x the time here. A short batch (512) keeps the plain call."""
    long_batch = [Type("f64", (256, 16)), Type("f64", (2048, 256))]
    assert _gemm_calls(layer_loss, long_batch) == [
        ("111", "111", "2048", "16", "256"), ("112", "111", "16", "256", "2048")]
    short_batch = [Type("f64", (256, 16)), Type("f64", (512, 256))]
    assert _gemm_calls(layer_loss, short_batch)[1] == ("112", "111", "256", "16", "512")
    rng = np.random.default_rng(4)
    for inputs in (256, 261):  # whole tiles of 8 output rows, and a tail of 5
        w, x = rng.standard_normal((inputs, 16)) / 16, rng.standard_normal((2048, inputs))
        expected = x.T @ (2 * np.tanh(x @ w) / np.cosh(x @ w) ** 2)
        result = grad(layer_loss)(w, x)
        assert result.flags.c_contiguous
        np.testing.assert_allclose(result, expected, rtol=1e-10, atol=1e-12)
        t = Tensor(w, requires_grad=True)
        layer_loss(t, x).backward()
        np.testing.assert_allclose(result, t.grad.numpy(), rtol=1e-10, atol=1e-12)


def tanh_product(w, x):
    return np.sum(np.tanh(x @ w))


def transposed_twice(a, b):
    t = a.T
    return np.sum(t @ b) + np.sum(t * 2.0)  # the transpose has another use: copied


@pytest.mark.skipif(blas() is None, reason="no OpenBLAS in numpy")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_products_read_transposed_operands_in_place(dtype):
    """The gradient of x @ w needs x.T @ g: the BLAS reads x with its trans flag (112), no
    transposed copy of x is made; a transpose with other uses is still copied."""
    name = "f64" if dtype == np.float64 else "f32"
    assert _gemm_flags(tanh_product, [Type(name, (5, 3)), Type(name, (7, 5))]) == \
        [("111", "111"), ("112", "111")]
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal((5, 3)).astype(dtype), rng.standard_normal((7, 5)).astype(dtype)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(grad(tanh_product)(w, x),
                               x.T @ (1 / np.cosh(x @ w) ** 2), rtol=rtol)
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((4, 2))
    assert jit(transposed_twice)(a, b) == pytest.approx(transposed_twice(a, b), rel=1e-12)
    np.testing.assert_allclose(grad(transposed_twice)(a, b),
                               np.tile(b.sum(axis=1), (6, 1)).T + 2.0, rtol=1e-12)
