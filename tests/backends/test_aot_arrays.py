"""Ahead-of-time kernels over arrays: C programs call them through pointers and lengths."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.compiler.aot import AotError, compile_aot
from adlite.compiler.cli import main
from adlite.compiler.ir.core import Type

from ..support import aot_array_kernels as kernels
from ..support.paths import ROOT

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
sys.path.insert(0, str(ROOT))
from benchmarks.workloads import w1_rosenbrock  # noqa: E402

sys.path.pop(0)


def _build(tmp_path, source: str, libraries: list[str], build: Path) -> Path:
    program = tmp_path / "program"
    c_file = tmp_path / "program.c"
    c_file.write_text(source)
    subprocess.run(["cc", f"-I{build}", str(c_file), f"-L{build}",
                    *[f"-l{name}" for name in libraries], f"-Wl,-rpath,{build}", "-o",
                    str(program)], check=True)
    return program


def test_a_c_program_calls_the_w1_gradient_over_arrays(tmp_path):
    build = tmp_path / "build"
    target = f"{ROOT}/benchmarks/workloads.py:w1_rosenbrock"
    assert main(["compile", target, "--types", "f64[8]", "-o", str(build)]) == 0
    assert main(["compile", target, "--grad", "--types", "f64[8]", "-o", str(build)]) == 0
    header = (build / "w1_rosenbrock_grad.h").read_text()
    assert ("int32_t adlite_w1_rosenbrock_grad(const double *x, int64_t x_len, double *out0, "
            "int64_t out0_len);") in header
    program = tmp_path / "rosenbrock"
    subprocess.run(["cc", f"-I{build}", str(ROOT / "examples" / "aot_rosenbrock.c"),
                    f"-L{build}", "-lw1_rosenbrock", "-lw1_rosenbrock_grad",
                    f"-Wl,-rpath,{build}", "-o", str(program)], check=True)
    x = np.array([0.5, -1.0, 2.0, 0.25, 1.0, 1.5, -0.75, 0.0])
    lines = subprocess.run([str(program), *map(repr, x.tolist())], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    value = float(lines[0].split()[1])
    gradient = np.array([float(line.split()[1]) for line in lines[1:9]])
    assert value == jit(w1_rosenbrock)(x)  # the JIT's code, bit for bit
    assert np.array_equal(gradient, grad(w1_rosenbrock)(x))
    expected = np.zeros(8)  # the closed form
    expected[:-1] = -400.0 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2.0 * (1.0 - x[:-1])
    expected[1:] += 200.0 * (x[1:] - x[:-1] ** 2)
    np.testing.assert_allclose(gradient, expected, rtol=1e-13)
    assert lines[9] == "status with a wrong length: 25"


FLOAT32 = r"""
#include <stdio.h>
#include "weighted_squares_grad.h"
int main(void) {
    float x[5] = {0.5f, -1.25f, 2.0f, 0.0f, 3.5f}, w[5] = {1.0f, 2.0f, 0.5f, 4.0f, -1.0f};
    float dx[5], dw[5];
    int32_t status = adlite_weighted_squares_grad(x, 5, w, 5, dx, 5, dw, 5);
    printf("%d\n", (int)status);
    for (int i = 0; i < 5; i++) printf("%.9g %.9g\n", dx[i], dw[i]);
    return 0;
}
"""


def test_float32_kernels(tmp_path):
    build = tmp_path / "build"
    f32 = Type("f32", (5,))
    paths = compile_aot(kernels.weighted_squares, build, [f32, f32], (0, 1))
    assert ("int32_t adlite_weighted_squares_grad(const float *x, int64_t x_len, const float "
            "*w, int64_t w_len, float *") in paths["header"].read_text()
    out = subprocess.run([str(_build(tmp_path, FLOAT32, ["weighted_squares_grad"], build))],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "0"
    got = np.array([[float(v) for v in line.split()] for line in out[1:]], dtype=np.float32)
    x = np.array([0.5, -1.25, 2.0, 0.0, 3.5], dtype=np.float32)
    w = np.array([1.0, 2.0, 0.5, 4.0, -1.0], dtype=np.float32)
    dx, dw = grad(kernels.weighted_squares, wrt=(0, 1))(x, w)
    assert dx.dtype == np.float32 and np.array_equal(got[:, 0], dx)  # the JIT's, exactly
    assert np.array_equal(got[:, 1], dw)
    x64, w64 = x.astype(float), w.astype(float)
    np.testing.assert_allclose(got[:, 0], 2 * w64 * x64 + 1 - np.tanh(x64) ** 2, rtol=1e-6)
    np.testing.assert_allclose(got[:, 1], x64 * x64, rtol=1e-6)


STATUSES = r"""
#include <stdio.h>
#include "pick.h"
#include "scaled.h"
int main(void) {
    double x[4] = {1.0, 2.0, 3.0, 4.0}, out = -1.0, y[4] = {9, 9, 9, 9};
    long long indices[5] = {1, -1, 4, -5, 7};
    for (int k = 0; k < 5; k++) {
        out = -1.0;
        int32_t status = adlite_pick(x, 4, indices[k], &out);
        printf("pick %lld: %d %.17g\n", indices[k], (int)status, out);
    }
    printf("short x: %d\n", (int)adlite_pick(x, 3, 0, &out));
    printf("NULL x: %d\n", (int)adlite_pick(NULL, 4, 0, &out));
    printf("short output: %d %g\n", (int)adlite_scaled(x, 4, 2.0, y, 3), y[0]);
    printf("scaled: %d", (int)adlite_scaled(x, 4, 2.0, y, 4));
    for (int i = 0; i < 4; i++) printf(" %.17g", y[i]);
    printf("\n");
    return 0;
}
"""


def test_run_time_errors_and_wrong_lengths_are_statuses(tmp_path):
    build = tmp_path / "build"
    compile_aot(kernels.pick, build, [Type("f64", (4,)), Type("i64")])
    compile_aot(kernels.scaled, build, [Type("f64", (4,)), Type("f64")])
    out = subprocess.run([str(_build(tmp_path, STATUSES, ["pick", "scaled"], build))],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    x = [1.0, 2.0, 3.0, 4.0]
    for line, i in zip(out[:5], [1, -1, 4, -5, 7], strict=True):
        label, status, value = line.rsplit(" ", 2)
        assert label == f"pick {i}:"
        try:
            expected = (0, x[i] * 2.0 + sum(x))  # what Python computes
        except IndexError:
            expected = (4, -1.0)  # IndexError's status; the output is not written
        assert (int(status), float(value)) == expected
    assert out[5:] == ["short x: 25", "NULL x: 25", "short output: 25 9",
                       "scaled: 0 3 5 7 9"]


def test_the_loader_takes_and_returns_arrays_without_llvmlite(tmp_path):
    # a matrix product: the kernel calls numpy's OpenBLAS
    types = [Type("f64", (6,)), Type("f64", (40, 6))]
    compile_aot(kernels.projection_loss, tmp_path, types, (0,))
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal(6), rng.standard_normal((40, 6))
    np.save(tmp_path / "w.npy", w)
    np.save(tmp_path / "x.npy", x)
    check = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
             "sys.modules['llvmlite'] = None; sys.modules['adlite'] = None\n"
             "import numpy as np\n"
             "import projection_loss_grad_loader as m\n"
             f"w, x = np.load({str(tmp_path / 'w.npy')!r}), np.load({str(tmp_path / 'x.npy')!r})\n"
             f"np.save({str(tmp_path / 'g.npy')!r}, m.projection_loss_grad(w, x))\n"
             "try:\n    m.projection_loss_grad(w[:5], x)\n"
             "except TypeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                         check=True).stdout
    assert out == "expected an array of shape (6,), got (5,)\n"
    gradient = np.load(tmp_path / "g.npy")
    assert np.array_equal(gradient, grad(kernels.projection_loss)(w, x))
    np.testing.assert_allclose(gradient, 2 * x.T @ (x @ w), rtol=1e-12)


def test_what_a_kernel_without_python_cannot_do_is_refused(tmp_path):
    with pytest.raises(AotError, match=r"writes into its argument array\(s\) 0"):
        compile_aot(kernels.writes_its_argument, tmp_path, [Type("f64", (3,))])
    with pytest.raises(AotError, match="calls LAPACK"):
        compile_aot(kernels.solves, tmp_path, [Type("f64", (3, 3)), Type("f64", (3,))])


def test_large_arrays_run_the_thread_pools_blocks_in_order(tmp_path):
    # arrays large enough for the JIT's thread pool: the kernel, which has no pool, defines the
    # pool's entry as a loop over the same blocks (before: an undefined __adlite_parallel_for)
    n = 300_000
    compile_aot(w1_rosenbrock, tmp_path, [Type("f64", (n,))], (0,))
    library = tmp_path / "libw1_rosenbrock_grad.so"
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(library)],
                               capture_output=True, text=True, check=True).stdout
    assert "__adlite_parallel_for" not in undefined
    x = np.random.default_rng(1).uniform(-1.5, 1.5, n)
    np.save(tmp_path / "x.npy", x)
    check = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
             "import numpy as np\n"
             "import w1_rosenbrock_grad_loader as m\n"
             f"x = np.load({str(tmp_path / 'x.npy')!r})\n"
             f"np.save({str(tmp_path / 'g.npy')!r}, m.w1_rosenbrock_grad(x))\n")
    subprocess.run([sys.executable, "-c", check], check=True)
    gradient = np.load(tmp_path / "g.npy")
    assert np.array_equal(gradient, grad(w1_rosenbrock)(x))  # the same blocks: the same bits
    expected = np.zeros(n)
    expected[:-1] = -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    expected[1:] += 200 * (x[1:] - x[:-1] ** 2)
    np.testing.assert_allclose(gradient, expected, rtol=1e-12, atol=1e-9)


MATH_STATUSES = r"""
#include <stdio.h>
#include "checked_math.h"
int main(void) {
    double xs[3] = {4.0, -1.0, 1000.0};
    for (int k = 0; k < 3; k++) {
        double out = -1.0;
        int32_t status = adlite_checked_math(xs[k], &out);
        printf("%d %.17g\n", (int)status, out);
    }
    return 0;
}
"""


def test_math_errors_are_statuses(tmp_path):
    """math.sqrt(-1.0) raises ValueError and math.exp(1000.0) OverflowError in Python: the
    kernel returns their statuses (31, 32, listed in the header), without Python."""
    build = tmp_path / "build"
    compile_aot(kernels.checked_math, build, [Type("f64")])
    assert "31: ValueError" in (build / "checked_math.h").read_text()
    out = subprocess.run([str(_build(tmp_path, MATH_STATUSES, ["checked_math"], build))],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == [f"0 {kernels.checked_math(4.0)!r}", "31 -1", "32 -1"]


RUN_TIME_SIZES = r"""
#include <stdio.h>
#include "projection_loss_grad.h"
int main(void) {
    double w[9], x[20 * 9], g[9];
    for (int i = 0; i < 9; i++) w[i] = 0.1 * (i + 1);
    for (int i = 0; i < 20 * 9; i++) x[i] = (i % 7) * 0.25 - 0.5;
    for (int n = 10; n <= 20; n += 10) {
        int32_t s = adlite_projection_loss_grad(9, n, w, 9, x, n * 9, g, 9);
        printf("n=%d status %d:", n, s);
        for (int i = 0; i < 9; i++) printf(" %.17g", g[i]);
        printf("\n");
    }
    printf("small: %d\n", adlite_projection_loss_grad(9, 5, w, 9, x, 45, g, 9));
    printf("equal: %d\n", adlite_projection_loss_grad(9, 9, w, 9, x, 81, g, 9));
    printf("short: %d\n", adlite_projection_loss_grad(9, 10, w, 9, x, 89, g, 9));
    return 0;
}
"""


def test_kernels_of_run_time_sizes_take_the_sizes_first(tmp_path):
    """`--types f64[d],f64[n,d]`: one library for every n and d (sizes of 8 or more, all
    different), called from C with two batch sizes."""
    build = tmp_path / "build"
    target = f"{ROOT}/tests/support/aot_array_kernels.py:projection_loss"
    assert main(["compile", target, "--grad", "--wrt", "0", "--types", "f64[d],f64[n,d]", "-o",
                 str(build)]) == 0
    header = (build / "projection_loss_grad.h").read_text()
    assert ("int32_t adlite_projection_loss_grad(int64_t d, int64_t n, const double *w, "
            "int64_t w_len, const double *x, int64_t x_len, double *dw, "
            "int64_t dw_len);") in header
    assert "x: input, double[n][d] row-major, d*n elements" in header
    lines = subprocess.run([str(_build(tmp_path, RUN_TIME_SIZES, ["projection_loss_grad"],
                                       build))], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    w = 0.1 * np.arange(1, 10)
    x = (np.arange(20 * 9) % 7) * 0.25 - 0.5
    for line, n in zip(lines[:2], (10, 20), strict=True):
        label, values = line.split(":")
        assert label == f"n={n} status 0"
        rows = x[:n * 9].reshape(n, 9)
        np.testing.assert_allclose([float(v) for v in values.split()],
                                   2 * rows.T @ (rows @ w), rtol=1e-12)
    assert lines[2:] == ["small: 33", "equal: 33", "short: 25"]


COMPLEX_PROGRAM = r"""
#include <complex.h>
#include <stdio.h>
#include "rotated.h"
#include "complex_numbers.h"
#include "complex_loss_grad.h"

int main(void) {
    double _Complex z[3] = {1 + 2 * I, -0.5 * I, 3}, w[3] = {0.5, 1 - I, 2 * I}, out[3];
    double total, magnitude;
    double _Complex product, grad[3];
    int status = adlite_rotated(z, 3, w, 3, 0.3, out, 3, &total);
    printf("%d", status);
    for (int i = 0; i < 3; i++) printf(" %.17g %.17g", creal(out[i]), cimag(out[i]));
    printf(" %.17g\n", total);
    status = adlite_complex_numbers(1 + 2 * I, 3 - I, &product, &magnitude);
    printf("%d %.17g %.17g %.17g\n", status, creal(product), cimag(product), magnitude);
    status = adlite_complex_loss_grad(z, 3, grad, 3);
    printf("%d", status);
    for (int i = 0; i < 3; i++) printf(" %.17g %.17g", creal(grad[i]), cimag(grad[i]));
    printf("\n%d\n", adlite_complex_loss_grad(z, 2, grad, 3));
    return 0;
}
"""


def test_complex_kernels_take_c_complex_numbers(tmp_path):
    """`--types c128[3],...`: complex numbers are C's `double _Complex` (by value, by pointer
    for outputs, arrays interleaved); a gradient is JAX's (real - i imaginary)."""
    build = tmp_path / "build"
    target = f"{ROOT}/tests/support/aot_array_kernels.py"
    for spec in (["rotated", "--types", "c128[3],c128[3],f64"],
                 ["complex_numbers", "--types", "c128,c128"],
                 ["complex_loss", "--grad", "--wrt", "0", "--types", "c128[3]"]):
        assert main(["compile", f"{target}:{spec[0]}", *spec[1:], "-o", str(build)]) == 0
    assert ("int32_t adlite_rotated(const double _Complex *z, int64_t z_len, "
            "const double _Complex *w, int64_t w_len, double s, double _Complex *out0, "
            "int64_t out0_len, double *out2);") in (build / "rotated.h").read_text()
    assert ("int32_t adlite_complex_numbers(double _Complex a, double _Complex b, "
            "double _Complex *out0, double *out2);") in \
        (build / "complex_numbers.h").read_text()
    lines = subprocess.run([str(_build(tmp_path, COMPLEX_PROGRAM, [
        "rotated", "complex_numbers", "complex_loss_grad"], build))], capture_output=True,
        text=True, check=True).stdout.splitlines()
    z, w = np.array([1 + 2j, -0.5j, 3]), np.array([0.5, 1 - 1j, 2j])
    values = [float(v) for v in lines[0].split()]
    rotated, total = kernels.rotated(z, w, 0.3)
    assert values[0] == 0
    np.testing.assert_allclose(values[1:7:2] + 1j * np.array(values[2:7:2]), rotated,
                               rtol=1e-15)
    assert values[7] == pytest.approx(total, rel=1e-15)
    status, re, im, magnitude = (float(v) for v in lines[1].split())
    assert (status, re + 1j * im, magnitude) == (0, (1 + 2j) * (3 - 1j) + 1j, abs(1 + 2j))
    values = [float(v) for v in lines[2].split()]
    np.testing.assert_allclose(values[1::2] + 1j * np.array(values[2::2]),
                               grad(kernels.complex_loss)(z), rtol=1e-15)
    assert lines[3] == "25"  # an array of the wrong length: ARRAY_LENGTH
    for name, args in (("complex_numbers", (1 + 2j, 3 - 1j)), ("rotated", (z, w, 0.3))):
        spec = importlib.util.spec_from_file_location(name, build / f"{name}_loader.py")
        loader = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loader)
        for got, want in zip(getattr(loader, name)(*args), getattr(kernels, name)(*args),
                             strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-15)
