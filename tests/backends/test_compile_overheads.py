"""Work a first call does not pay for: what the compiler skips or frees early, checked by
deterministic proxies (what is called, what is left for the cyclic collector), never by time.

- With the disk cache off, no cache key is computed (it prints the whole graph).
- The llvmlite module of a compilation is emptied once its text is taken, so its thousands of
  instructions are freed by reference counting, not left to a cyclic collection that walks
  them all after the first call returns.
"""

from __future__ import annotations

import gc

import pytest

from adlite.compiler import grad
from adlite.compiler.backends import llvm as backend
from benchmarks.compile_time import straight_line

from ..support.generated_source import load_function


def _python_gradient(f, x: float, y: float, h: float = 1e-6) -> tuple[float, float]:
    return ((f(x + h, y) - f(x - h, y)) / (2 * h), (f(x, y + h) - f(x, y - h)) / (2 * h))


def test_no_cache_key_is_computed_when_the_disk_cache_is_off(tmp_path, monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_DIR", "off")

    def no_printing(graph):
        raise AssertionError("the graph was printed for a cache key")

    monkeypatch.setattr(backend, "print_graph", no_printing)
    f = load_function(straight_line(20), tmp_path)
    got = grad(f, wrt=(0, 1))(0.3, 0.7)
    assert got == pytest.approx(_python_gradient(f, 0.3, 0.7), rel=1e-5, abs=1e-7)


def test_compiling_leaves_no_llvm_instructions_to_the_cyclic_collector(tmp_path, monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_DIR", "off")
    f = load_function(straight_line(200), tmp_path)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        grad(f, wrt=(0, 1))(0.3, 0.7)
        gc.collect()
        instructions = sum(type(o).__module__ == "llvmlite.ir.instructions" for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    # a function of 200 statements emits thousands; a few belong to small helper modules
    assert instructions < 100, instructions
