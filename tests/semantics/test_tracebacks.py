"""Errors about the user's code show the user's frames, not adlite's (issue 22, item 3):
tracebacks.py removes adlite's frames at the API's entry points (the message is untouched),
and ADLITE_TRACEBACK=full keeps every frame."""

from __future__ import annotations

import traceback
from pathlib import Path

import numpy as np
import pytest

from adlite.compiler import grad, jit, jvp, vjp, vmap

PACKAGES = ("compiler", "derivatives", "runtime")


def _files(error: BaseException) -> list[str]:
    return [frame.filename for frame in traceback.extract_tb(error.__traceback__)]


def _adlite_frames(error: BaseException) -> list[str]:
    import adlite.compiler

    root = Path(adlite.compiler.__file__).resolve().parent.parent
    return [f for f in _files(error)
            if any(f.startswith(str(root / p)) for p in PACKAGES)]


def reads_an_attribute_of_a_number(x):
    return x * x.real_part


def indexes_out_of_range(x, i):
    return x[i]


def test_a_compile_error_shows_the_users_frames_only():
    with pytest.raises(Exception) as info:
        jit(reads_an_attribute_of_a_number)(1.0)
    error = info.value
    assert _adlite_frames(error) == []
    assert _files(error) and all(f == __file__ for f in _files(error))
    assert "unsupported attribute access .real_part" in str(error)  # the message is unchanged


def test_a_run_time_error_from_native_code_shows_the_users_frames_only():
    f = jit(indexes_out_of_range)
    with pytest.raises(IndexError) as info:
        f(np.arange(3.0), 5)
    assert _adlite_frames(info.value) == []


@pytest.mark.parametrize("call", [
    lambda: grad(reads_an_attribute_of_a_number)(1.0),
    lambda: vjp(reads_an_attribute_of_a_number, 1.0),
    lambda: jvp(reads_an_attribute_of_a_number, (1.0,), (1.0,)),
    lambda: vmap(reads_an_attribute_of_a_number)(np.ones(3)),
], ids=["grad", "vjp", "jvp", "vmap"])
def test_every_entry_point_hides_its_frames(call):
    with pytest.raises(Exception) as info:
        call()
    assert _adlite_frames(info.value) == []


def test_the_full_traceback_on_request(monkeypatch):
    monkeypatch.setenv("ADLITE_TRACEBACK", "full")
    with pytest.raises(Exception) as info:
        jit(reads_an_attribute_of_a_number)(1.0)
    assert len(_adlite_frames(info.value)) > 5


def test_a_wrong_call_keeps_pythons_message():
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: 'i'") as info:
        jit(indexes_out_of_range)(np.arange(3.0))
    assert _adlite_frames(info.value) == []
