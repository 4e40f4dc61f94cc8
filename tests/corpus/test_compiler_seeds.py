"""The static-graph acceptance examples C1..C5 of SEEDS.md."""

import numpy as np

from adlite.compiler import grad, jit, show
from adlite.compiler.frontend.to_ir import build_graph
from adlite.compiler.ir.core import F64, walk_eqns
from adlite.runtime import Tensor

from ..support import compiler_examples as ex
from ..support.corpus_scalar import seed_s1, seed_s5, seed_s6, seed_s7, seed_s9, seed_s16_cube
from ..support.gradients import eager_gradient


def test_c1_counter_loop_is_one_loop_node():
    graph, _, _ = build_graph(ex.counter, [])
    loops = [e for e in walk_eqns(graph) if e.prim == "while"]
    assert len(loops) == 1
    assert jit(ex.counter)() == ex.counter()


def test_c2_seed_examples_match_the_tape():
    cases = [(seed_s1, [1.0, 2.0]), (seed_s5, [2.0, 3.0, 5.0]),
             (seed_s6, [1.5, 2.0, -1.0, 0.5, 3.0]), (seed_s7, [1.0, 1.0, 1.0, 1.0]),
             (seed_s9, [1.0, 2.0]), (seed_s16_cube, [3.0])]
    for fn, args in cases:
        wrt = tuple(range(len(args)))
        compiled = grad(fn, wrt=wrt)(*args)
        tape = eager_gradient(fn, args, wrt)
        np.testing.assert_allclose(compiled, tape, rtol=1e-12, atol=0)
    assert grad(seed_s1, wrt=(0, 1))(1.0, 2.0) == (5.0, 2.0)
    assert grad(seed_s7, wrt=(0, 1, 2, 3))(1.0, 1.0, 1.0, 1.0) == (1.5, 1.5, 1.5, 1.5)


def test_c2_frozen_argument_gets_no_gradient():
    # S18: only the arguments in wrt are differentiated
    assert grad(seed_s5, wrt=1)(2.0, 3.0, 5.0) == 13.0


def test_c3_compile_once_run_many(monkeypatch):
    g = grad(ex.euler, wrt=(0, 1))
    first = g(1.0, 0.1)
    import adlite.compiler.pipeline as pipeline

    def fail(*args):
        raise AssertionError("traced again")

    for stage in ("build_graph", "build_program", "backend_compile"):
        monkeypatch.setattr(pipeline, stage, fail)
    for _ in range(3):
        assert g(1.0, 0.1) == first
    assert g.compile_count == 1


def test_c4_graph_is_optimised_and_printed():
    raw = show(ex.repeated, "frontend")
    optimized = show(ex.repeated, "optimize")
    assert raw.count(" sin ") == 3 and optimized.count(" sin ") == 1   # CSE
    assert " exp " in raw and " exp " not in optimized                 # DCE
    assert "mul t" not in optimized or "1.0" not in optimized         # x * 1.0 removed
    assert jit(ex.repeated)(0.7) == ex.repeated(0.7)


def test_c5_adjoint_loop_runs_backwards_over_stored_values():
    adjoint = show(ex.euler, "optimize", grad=True)
    assert adjoint.count("while[") == 2
    assert "push" in adjoint and "pop" in adjoint
    python = show(ex.euler, "lower", grad=True, backend="python")
    assert "_tape.append(" in python and "_tape.pop()" in python
    k, c = 1.3, 0.2
    got = grad(ex.euler, wrt=(0, 1))(k, c)
    tk, tc = Tensor(k, requires_grad=True), Tensor(c, requires_grad=True)
    ex.euler(tk, tc).backward()
    np.testing.assert_allclose(got, (tk.grad.item(), tc.grad.item()), rtol=1e-12)


def test_loop_graph_types():
    graph, _, _ = build_graph(ex.euler, [F64, F64])
    (loop,) = [e for e in graph.eqns if e.prim == "while"]
    assert all(v.type == F64 for v in loop.outputs[-2:])
