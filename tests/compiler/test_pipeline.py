"""The named compilation pipeline (`compiler/pipeline.py`): `frontend -> optimize -> ad ->
optimize -> lower`, the same names in `show`, `adlite show --stage` and `ADLITE_DUMP`, the
verifier after every stage under `ADLITE_VERIFY=1`, and the `scatter` pass after `ad`."""

from __future__ import annotations

import numpy as np
import pytest

from adlite.compiler import grad, jit, pipeline, show, vjp
from adlite.compiler.api import ALIASES
from adlite.compiler.cli import main
from adlite.compiler.ir.core import Type, walk_eqns

from ..support import llvm_examples as lx
from ..support.paths import SUPPORT
from ..support.pipeline_examples import abs_, cube_plus, max_, squares_sum

VECTOR = Type("f64", (16,))


def test_the_pipeline_is_one_flat_list_of_named_stages():
    assert [name for name, _ in pipeline.PIPELINE] == \
        ["frontend", "optimize", "ad", "optimize", "lower"]
    assert pipeline.DIFFERENTIATE == ("frontend", "optimize", "ad", "optimize", "lower")
    assert pipeline.JIT == ("frontend", "optimize", "lower")
    assert pipeline.through(pipeline.DIFFERENTIATE, "optimize") == \
        ("frontend", "optimize", "ad", "optimize")
    with pytest.raises(ValueError, match="no stage 'ad'"):
        pipeline.through(pipeline.JIT, "ad")


def test_show_names_the_stages():
    frontend = show(cube_plus, "frontend")
    assert "mul" in frontend and " sin " in frontend
    adjoint = show(cube_plus, "optimize", grad=True)
    assert " sin " not in adjoint and "add t1 t1" in adjoint   # 3 x**2, w.r.t. x only
    after_ad = show(cube_plus, "ad")                   # before the second optimize
    assert len(after_ad.splitlines()) > len(adjoint.splitlines())
    assert "def cube_plus_grad" in show(cube_plus, "lower", grad=True, backend="python")
    assert "define" in show(cube_plus, "lower")        # LLVM IR
    with pytest.raises(ValueError, match="unknown stage 'fold'"):
        show(cube_plus, "fold")


# The names `show` had before the pipeline, kept for users' scripts (api.ALIASES), and the
# stage and options each stands for: the only place the tests name them.
OLD_NAMES = {
    "ir": dict(stage="frontend"), "optimized": dict(stage="optimize"),
    "adjoint": dict(stage="optimize", grad=True),
    "python": dict(stage="lower", backend="python"),
    "python-grad": dict(stage="lower", grad=True, backend="python"),
    "llvm": dict(stage="lower"), "llvm-grad": dict(stage="lower", grad=True),
    "dot": dict(stage="optimize", dot=True),
    "dot-grad": dict(stage="optimize", grad=True, dot=True),
}


def test_show_keeps_the_old_names_of_stages(capsys):
    assert set(ALIASES) == set(OLD_NAMES)
    target = f"{SUPPORT}/pipeline_examples.py:cube_plus"
    for old, current in OLD_NAMES.items():
        assert show(cube_plus, old) == show(cube_plus, **current), old
        assert main(["show", target, "--stage", old]) == 0
        assert capsys.readouterr().out == show(cube_plus, **current), old


def test_cli_show_takes_the_stage_names(capsys):
    target = f"{SUPPORT}/pipeline_examples.py:cube_plus"
    assert main(["show", target, "--stage", "ad"]) == 0
    assert capsys.readouterr().out == show(cube_plus, "ad")
    assert main(["show", target, "--stage", "lower", "--grad", "--backend", "python"]) == 0
    assert capsys.readouterr().out == show(cube_plus, "lower", grad=True, backend="python")
    assert main(["show", target, "--stage", "optimize", "--grad"]) == 0
    assert capsys.readouterr().out == show(cube_plus, "optimize", grad=True)


def test_adlite_dump_prints_after_the_named_stages(monkeypatch, capsys):
    monkeypatch.setenv("ADLITE_DUMP", "frontend,ad,scatter")
    g = grad(squares_sum)
    x = np.linspace(0.0, 1.0, 16)
    assert np.allclose(g(x), 2 * x, rtol=1e-15)
    err = capsys.readouterr().err
    heads = [line for line in err.splitlines() if line.startswith("--- after")]
    assert heads == ["--- after stage frontend ---", "--- after scatter (changed) ---",
                     "--- after stage ad ---"], heads


def test_verifier_runs_after_every_stage(monkeypatch):
    verified = []
    monkeypatch.setenv("ADLITE_VERIFY", "1")
    monkeypatch.setattr(pipeline, "verify", lambda graph: verified.append(graph.name))
    stages = []
    for name, stage in pipeline.PIPELINE:
        monkeypatch.setitem(pipeline.STAGES, name,
                            lambda c, stage=stage, name=name: (stages.append(name), stage(c)))
    assert grad(cube_plus)(2.0, 0.5) == pytest.approx(12.0, rel=1e-15)
    assert stages == list(pipeline.DIFFERENTIATE)
    assert verified == ["cube_plus", "cube_plus", "cube_plus_grad", "cube_plus_grad"]
    stages.clear()
    verified.clear()
    assert jit(cube_plus)(2.0, 0.5) == pytest.approx(8.0 + np.sin(0.5), rel=1e-15)
    assert stages == list(pipeline.JIT) and verified == ["cube_plus", "cube_plus"]


def test_scatter_pass_runs_after_ad_for_reverse_mode_only():
    c = pipeline.run(pipeline.Compilation(lx.running_squares, (VECTOR,),
                                          pipeline.Derivative("grad", (0,))),
                     ("frontend", "optimize", "ad"))
    scatters = [e for e in walk_eqns(c.graph)
                if e.prim == "index_update" and e.params["mode"] == "add"]
    assert scatters
    roots = {id(e.inputs[0]) for e in scatters}
    fills = {id(e.outputs[0]) for e in walk_eqns(c.graph) if e.prim == "full"}
    assert not roots & fills                           # every scatter adds into an array
    x = np.linspace(0.5, 1.5, 16)
    _, pullback = vjp(lx.running_squares, x)
    inverse_roots = 1.0 / np.sqrt(np.cumsum(x * x) + 1.0)
    expected = x * np.cumsum(inverse_roots[::-1])[::-1]   # x_j * sum over i >= j
    assert np.allclose(pullback(1.0)[0], expected, rtol=1e-13)
    assert np.allclose(grad(lx.running_squares)(x), expected, rtol=1e-13)


def test_vjp_and_jvp_run_the_same_stages(monkeypatch):
    stages = []
    for name, stage in pipeline.PIPELINE:
        monkeypatch.setitem(pipeline.STAGES, name,
                            lambda c, stage=stage, name=name: (stages.append(name), stage(c)))
    out, pullback = vjp(cube_plus, 1.5, 0.25)
    assert out == pytest.approx(1.5 ** 3 + np.sin(0.25), rel=1e-15)
    assert pullback(1.0) == pytest.approx((3 * 1.5 ** 2, np.cos(0.25)), rel=1e-15)
    assert stages == list(pipeline.DIFFERENTIATE)


def test_generated_python_keeps_the_builtins_it_calls():
    # a function named `abs_` became `def abs(x): return abs(x),`: it called itself forever
    x = np.array([-1.5, 2.0, -0.0])
    np.testing.assert_array_equal(jit(abs_, backend="python")(x), np.abs(x))
    assert jit(max_, backend="python")(1.0, 3.0) == 6.0
    assert "def abs_(" in show(abs_, "lower", [Type("f64", (3,))], backend="python")
