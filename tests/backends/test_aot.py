"""Ahead-of-time kernels: a C program links the generated library; the loader needs no LLVM."""

import shutil
import subprocess
import sys

import pytest

from adlite.compiler import grad
from adlite.compiler.cli import main

from ..support.paths import ROOT

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


@needs_cc
def test_c_program_prints_the_gradient(tmp_path):
    build = tmp_path / "build"
    assert main(["compile", f"{ROOT}/examples/oscillator.py:oscillator", "--grad",
                 "-o", str(build)]) == 0
    assert (build / "liboscillator_grad.so").exists()
    header = (build / "oscillator_grad.h").read_text()
    assert "int32_t adlite_oscillator_grad(double k, double c, double *dk, double *dc);" in header
    program = tmp_path / "grad"
    subprocess.run(["cc", f"-I{build}", str(ROOT / "examples" / "aot_oscillator.c"),
                    f"-L{build}", "-loscillator_grad", f"-Wl,-rpath,{build}", "-o",
                    str(program)], check=True)
    out = subprocess.run([str(program), "1.3", "0.2"], capture_output=True, text=True,
                         check=True).stdout.split()
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from oscillator import oscillator
    finally:
        sys.path.pop(0)
    dk, dc = grad(oscillator, wrt=(0, 1))(1.3, 0.2)
    assert float(out[2]) == dk and float(out[5]) == dc


@needs_cc
def test_loader_runs_without_llvmlite(tmp_path):
    assert main(["compile", f"{ROOT}/tests/support/llvm_examples.py:int_division", "--types",
                 "i64,i64", "--portable", "-o", str(tmp_path)]) == 0
    check = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
             "sys.modules['llvmlite'] = None\n"
             "import int_division_loader as m\n"
             "print(m.int_division(-7, 2))\n"
             "for args in ((1, 0), (-2**63, -1)):\n"
             "    try:\n        m.int_division(*args)\n"
             "    except ArithmeticError as e:\n        print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "(-4, 1)"
    assert out[1] == "ZeroDivisionError integer division or modulo by zero"
    assert out[2].startswith("OverflowError integer overflow")  # every status has its error


def test_compile_reports_unsupported_code(tmp_path, capsys):
    assert main(["compile", f"{ROOT}/tests/support/compiler_examples.py:uses_try", "-o",
                 str(tmp_path)]) == 1
    assert "try/except" in capsys.readouterr().err


def test_show_accepts_array_types(capsys):
    assert main(["show", f"{ROOT}/benchmarks/workloads.py:w1_rosenbrock", "--stage",
                 "optimize", "--types", "f64[6]"]) == 0
    assert "x:f64[6]" in capsys.readouterr().out
