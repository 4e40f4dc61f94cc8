"""Compile time grows about linearly with program size: the structure behind it, never a timing.

- Code generation gets no basic block longer than `blocks.LIMIT` instructions (register
  allocation and scheduling are superlinear in a block's length; the gradient of a
  straight-line function of K statements was one block of ~11 K instructions), and the SLP
  vectoriser (superlinear too) is left out only for such very long blocks; values are those
  of the complex-step derivative.
- Python's cyclic collector is paused while a build runs (its collections made the frontend,
  AD and lowering superlinear) and restored afterwards, also when the build raises.
- Elementwise fusion in the LLVM backend recomputes a fused node a bounded number of times
  (it multiplied along chains of shared nodes: exponential code) and fuses no tree deeper
  than MAX_FUSED_DEPTH (a long chain raised RecursionError).
"""

from __future__ import annotations

import gc
import importlib.util
import re

import llvmlite.binding as llvm
import numpy as np
import pytest

from adlite.compiler import grad, jit, show
from adlite.compiler.backends.llvm import blocks
from adlite.compiler.backends.llvm import jit as native
from adlite.compiler.backends.llvm.fusion import MAX_SHARED_USES
from adlite.compiler.backends.llvm.lower import lower_module, symbol_name
from adlite.compiler.compile_once import once
from adlite.compiler.ir.core import Type
from benchmarks.compile_time import straight_line

from ..support.generated_source import load_function

VECTOR = Type("f64", (64,))


def _block_lengths(ir_text: str) -> list[int]:
    """Instructions per basic block of every function in `ir_text` (counted independently of
    the backend: indented lines that are not comments, split at label lines)."""
    lengths, inside = [], False
    for line in ir_text.split("\n"):
        if line.startswith("define "):
            inside, lengths = True, lengths + [0]
        elif line.startswith("}"):
            inside = False
        elif inside and re.match(r'^("[^"]*"|[-\w.$]+):', line):
            lengths.append(0)
        elif inside and line.startswith("  ") and not line.startswith("  ;"):
            lengths[-1] += 1
    return lengths


def _load(tmp_path, k: int):
    return load_function(straight_line(k), tmp_path)


def _complex_step(f, args, i, h=1e-30):
    z = [complex(a) for a in args]
    z[i] += 1j * h
    return f(*z).imag / h


def _record_slp(monkeypatch) -> list[bool]:
    """Whether each O3 run that follows has the SLP vectoriser on."""
    slp, optimize = [], native.optimize
    monkeypatch.setattr(native, "optimize", lambda m, tm, **kw: slp.append(kw.get("slp", True))
                        or optimize(m, tm, **kw))
    return slp


def test_a_long_straight_line_gradient_is_generated_in_bounded_blocks(tmp_path, monkeypatch):
    f = _load(tmp_path, 1000)
    slp = _record_slp(monkeypatch)
    lengths = _block_lengths(show(f, "lower", grad=True))
    assert sum(lengths) > 4 * blocks.LIMIT  # one block before the split
    assert max(lengths) <= blocks.LIMIT + 1  # the branch to the next piece
    assert slp == [False]
    x, y = 0.3, 0.7
    gx, gy = grad(f, wrt=(0, 1))(x, y)
    assert gx == pytest.approx(_complex_step(f, (x, y), 0), rel=1e-12, abs=1e-12)
    assert gy == pytest.approx(_complex_step(f, (x, y), 1), rel=1e-12, abs=1e-12)


def test_ordinary_functions_keep_their_blocks_and_the_slp_vectoriser(tmp_path, monkeypatch):
    f = _load(tmp_path, 20)
    slp = _record_slp(monkeypatch)
    text = show(f, "lower", grad=True)
    assert slp == [True]
    assert "adlite.split" not in text


def test_split_blocks_rename_the_phi_predecessors():
    body = "\n".join(f"  %v{i} = fadd double %v{i - 1}, 1.0" for i in range(1, 10))
    text = ("define double @f(double %v0, i1 %c) {\nentry:\n  br i1 %c, label %long, "
            "label %join\nlong:\n" + body + "\n  br label %join\njoin:\n"
            "  %r = phi double [ %v9, %long ], [ 0.0, %entry ]\n  ret double %r\n}\n")
    split = blocks.split_long_blocks(text, limit=4)
    assert max(_block_lengths(split)) <= 5
    assert "[ %v9, %adlite.split.2 ]" in split
    assert blocks.split_long_blocks(text, limit=100) is None


def test_only_the_split_functions_phi_nodes_are_renamed():
    # labels are local to a function: a short function with a block of the same name keeps
    # its phi (before: renamed to a piece of the other function, "use of undefined value")
    body = "\n".join(f"  %v{i} = fadd double %v{i - 1}, 1.0" for i in range(1, 10))
    long = ("define double @f(double %v0, i1 %c) {\nentry:\n  br i1 %c, label %long, "
            "label %join\nlong:\n" + body + "\n  br label %join\njoin:\n"
            "  %r = phi double [ %v9, %long ], [ 0.0, %entry ]\n  ret double %r\n}\n")
    short = ("define double @g(double %v0, i1 %c) {\nentry:\n  br i1 %c, label %long, "
             "label %join\nlong:\n  %v1 = fadd double %v0, 1.0\n  br label %join\njoin:\n"
             "  %r = phi double [ %v1, %long ], [ 0.0, %entry ]\n  ret double %r\n}\n")
    for text in (long + short, short + long):
        split = blocks.split_long_blocks(text, limit=4)
        assert "[ %v9, %adlite.split.2 ]" in split
        assert "[ %v1, %long ]" in split
        llvm.parse_assembly(split).verify()


def test_the_collector_is_paused_during_a_build_and_restored_after():
    assert gc.isenabled()
    table: dict = {}
    assert once(table, "build", gc.isenabled) is False
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError):
        once(table, "raises", lambda: 1 / 0)
    assert gc.isenabled()
    gc.disable()
    try:
        once(table, "user disabled it", lambda: 0)
        assert not gc.isenabled()  # left as the user set it
    finally:
        gc.enable()


def sums_along_a_chain(x):
    t = x
    total = 0.0
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    u = t + 1.0
    total = total + np.sum(u)
    t = u * 0.5
    return total


def test_fusion_recomputes_a_shared_node_in_a_bounded_number_of_loops():
    graph, _ = jit(sums_along_a_chain).ir_for((VECTOR,))
    muls = sum(e.prim == "mul" for e in graph.eqns)
    text = str(lower_module(graph, symbol_name(graph.name, "test")))
    # each sum's loop recomputed the whole chain before it: 1 + 2 + ... + 12 products
    assert text.count(" fmul ") <= MAX_SHARED_USES * muls
    x = np.linspace(-1.0, 1.0, 64)
    t, total = x, 0.0
    for _ in range(12):
        u = t + 1.0
        total, t = total + float(np.sum(u)), u * 0.5
    assert jit(sums_along_a_chain)(x) == pytest.approx(total, rel=1e-14)


def test_a_long_elementwise_chain_compiles(tmp_path):
    lines = ["import numpy as np", "", "", "def chain(x):"]
    lines += ["    x = x * 1.001 + 0.25"] * 400
    lines += ["    return np.sum(x)", ""]
    path = tmp_path / "chain.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("chain", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.linspace(-1.0, 1.0, 64)
    expected = x
    for _ in range(400):
        expected = expected * 1.001 + 0.25
    assert jit(module.chain)(x) == pytest.approx(float(np.sum(expected)), rel=1e-13)
