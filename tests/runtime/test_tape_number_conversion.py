"""Converting a tensor that requires grad to a Python float warns, once per call site.

`math.exp(t)` turns `t` into a float (a constant for the tape), so `x * math.exp(x)` loses the
path through the exponential, as in PyTorch; `NumberConversionWarning` says so at the user's
line. Conversions that lose no gradient never warn.
"""

import inspect
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from adlite import runtime as rt
from adlite.runtime import NumberConversionWarning, no_grad, tensor


def product_with_math_exp(x):
    return x * math.exp(x)


def product_with_np_exp(x):
    return x * np.exp(x)


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def _conversion_warnings(run) -> list[warnings.WarningMessage]:
    """The NumberConversionWarnings `run()` issues under Python's default filters."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        run()
    return [w for w in caught if issubclass(w.category, NumberConversionWarning)]


def test_math_exp_of_a_tensor_warns_at_the_line_that_converts():
    x = tensor(0.5, requires_grad=True)
    caught = _conversion_warnings(lambda: product_with_math_exp(x).backward())
    assert len(caught) == 1
    assert caught[0].filename == __file__
    assert caught[0].lineno == _line_of(product_with_math_exp, "math.exp")
    assert "requires grad" in str(caught[0].message)
    # the value is PyTorch's (the path through math.exp is cut); np.exp keeps it, silently
    assert x.grad.item() == pytest.approx(math.exp(0.5), rel=1e-15)
    y = tensor(0.5, requires_grad=True)
    assert _conversion_warnings(lambda: product_with_np_exp(y).backward()) == []
    assert y.grad.item() == pytest.approx(1.5 * math.exp(0.5), rel=1e-15)


def test_once_per_call_site_even_in_a_loop():
    x = tensor([0.5], requires_grad=True)

    def two_sites():
        for _ in range(5):
            product_with_math_exp(x)
            float(x * 2.0)

    caught = _conversion_warnings(two_sites)
    assert sorted(w.lineno for w in caught) == sorted(
        [_line_of(product_with_math_exp, "math.exp"), _line_of(two_sites, "float(x * 2.0)")])


def test_conversions_that_lose_no_gradient_do_not_warn():
    x = tensor(1.5, requires_grad=True)
    constant = tensor(1.5)

    def conversions():
        x.item(), x.tolist(), int(x), bool(x > 0.0), x.detach().item()
        float(x.detach()), float(constant), math.exp(constant)
        if x > 1.0:
            pass
        with no_grad():
            float(x), math.exp(x)

    assert _conversion_warnings(conversions) == []


def test_warnings_can_be_errors():
    x = tensor(0.5, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumberConversionWarning)
        with pytest.raises(NumberConversionWarning):
            math.exp(x)
    assert rt.NumberConversionWarning is NumberConversionWarning


def test_plain_python_prints_one_warning_naming_the_users_line(tmp_path):
    script = tmp_path / "user_program.py"
    script.write_text("import math\n"
                      "from adlite.runtime import tensor\n"
                      "x = tensor(0.5, requires_grad=True)\n"
                      "for _ in range(3):\n"
                      "    y = x * math.exp(x)\n"
                      "print(y.item())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         check=True, env=env)
    assert float(run.stdout) == pytest.approx(0.5 * math.exp(0.5), rel=1e-15)
    lines = [ln for ln in run.stderr.splitlines() if "NumberConversionWarning" in ln]
    assert len(lines) == 1 and lines[0].startswith(f"{script}:5: "), run.stderr
