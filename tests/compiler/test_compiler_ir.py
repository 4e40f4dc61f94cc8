"""IR: printer/parser round trip, verifier, primitive table completeness and rules, passes."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from adlite.compiler import grad, jit, jvp, show, value_and_grad, vjp
from adlite.compiler.ad import jvp_graph, vjp_graph
from adlite.compiler.api import Transformed
from adlite.compiler.ir.builder import Builder
from adlite.compiler.ir.core import BOOL, F64, I64, Const, Eqn, Graph, Type, Var
from adlite.compiler.ir.evaluate import evaluate
from adlite.compiler.ir.index import Int, NewAxis, Slice
from adlite.compiler.ir.parser import IRSyntaxError, parse_graph
from adlite.compiler.ir.printer import print_graph
from adlite.compiler.ir.verify import IRVerificationError, verify
from adlite.compiler.passes import optimize
from adlite.compiler.passes.complex_pairs import LOWERED
from adlite.compiler.passes.custom_calls import EXPANDED
from adlite.compiler.primitives import PRIMITIVES
from adlite.compiler.primitives.lists import LIST_PRIMITIVES
from adlite.compiler.primitives.special import SCIPY_FUNCTIONS

from ..support import compiler_examples as ex
from ..support.array_programs import AXIS_CASES, PROGRAMS
from ..support.corpus_arrays import ARRAY_CORPUS
from ..support.corpus_scalar import CORPUS
from ..support.op_table import SWEPT, swept_arguments
from ..support.op_table_harness import loss_of
from ..support.paths import ROOT


def _types(kinds):
    return tuple(I64 if k.startswith("i") else F64 for k in kinds)


@pytest.mark.parametrize("name,fn,kinds", CORPUS, ids=[c[0] for c in CORPUS])
def test_print_parse_round_trip_and_verify(name, fn, kinds):
    types = _types(kinds)
    wrt = tuple(i for i, t in enumerate(types) if t == F64)
    for kind in ("jit", "grad"):
        _, graph, _ = Transformed(fn, kind, wrt).graphs(types)
        verify(graph)
        text = print_graph(graph)
        again = parse_graph(text)
        verify(again)
        assert print_graph(again) == text


def _array_type(spec, dtype):
    """The argument type of a corpus spec (see `corpus_arrays`), arrays of `dtype`."""
    if spec == "f":
        return F64
    if spec[0] == "i":
        return I64
    return Type(dtype, tuple(spec[1] if spec[0] in ("p", "z") else spec))


def _shapes(arity: int) -> list[tuple]:
    return [(3,), (2, 3)] if arity == 2 else [(2, 3)] * arity


def _row_signature(row):
    """The op-table row's scalar loss (op_table_harness) and its operand shapes."""
    shapes = _shapes(len(row.inputs))
    result = row.fn(*swept_arguments(row, tuple(shapes), np.random.default_rng(0)))
    return row.name, loss_of(row.fn, np.ndim(result) == 0, len(shapes)), shapes


ARRAY_SIGNATURES = (
    [(name, fn, specs) for name, fn, specs in ARRAY_CORPUS]
    + [_row_signature(row) for row in SWEPT if row.compiled]
    + [(name, fn, _shapes(len(kinds))) for name, fn, kinds in PROGRAMS]
    + [(name, fn, [(2, 3)]) for name, fn in AXIS_CASES])


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize("name,fn,specs", ARRAY_SIGNATURES, ids=[c[0] for c in ARRAY_SIGNATURES])
def test_array_graphs_print_parse_round_trip(name, fn, specs, dtype):
    """Every array graph (primal, optimised, gradient) survives `parse(print(g))`: shapes,
    index specs, axes, dtypes, typed constants, tape types and subgraphs."""
    types = tuple(_array_type(s, dtype) for s in specs)
    wrt = tuple(i for i, t in enumerate(types) if t.is_float)
    for kind in ("jit", "grad"):
        for graph in Transformed(fn, kind, wrt).graphs(types)[:2]:
            text = print_graph(graph)
            again = parse_graph(text)
            verify(again)
            assert print_graph(again) == text
            assert again.in_types == graph.in_types and again.out_types == graph.out_types


def test_printer_golden():
    b = Builder(loc=7)
    x, n = Var(F64, "x"), Var(I64, "n")
    y = b.mul(x, 2.0)
    z = b.convert(n, to=F64)
    graph = Graph([x, n], b.eqns, [b.add(y, z)], "f")
    assert print_graph(graph) == (
        "{ lambda x:f64 n:i64 .\n"
        "  let t1:f64 = mul x 2.0  # L7\n"
        "      t2:f64 = convert[to=f64] n  # L7\n"
        "      t3:f64 = add t1 t2  # L7\n"
        "  in (t3) }\n")


def test_index_specs_print_and_parse():
    """Every kind of index item (the corpus has no steps or new axes) prints as in numpy and
    parses back to the same item; the graph computes numpy's result."""
    b = Builder()
    x, k = Var(Type("f64", (5, 4)), "x"), Var(I64, "k")
    spec = (NewAxis(), Slice(4, None, -2), Int())
    y = b.index(x, k, spec=spec)
    total = b.sum(y, axis=None, keepdims=False)
    z = b.index_update(x, total, spec=(Slice(None, -1), Slice(1, 3)), mode="add")
    graph = Graph([x, k], b.eqns, [y, z])
    text = print_graph(graph)
    assert "index[spec=(newaxis, 4::-2, int)] x k" in text
    assert "index_update[mode='add', spec=(:-1, 1:3)] x t2" in text
    again = parse_graph(text)
    assert again.eqns[0].params["spec"] == spec
    assert print_graph(again) == text
    a = np.arange(20.0).reshape(5, 4)
    want_z = a.copy()
    want_z[:-1, 1:3] += a[None, 4::-2, 3].sum()
    got_y, got_z = evaluate(again, [a, 3])
    np.testing.assert_array_equal(got_y, a[None, 4::-2, 3])
    np.testing.assert_array_equal(got_z, want_z)


def test_dtypes_name_types_and_survive_pickling():
    import pickle

    from adlite.compiler.ir import dtypes

    assert Type("f32", (2, 3)) == Type(dtypes.F32, (2, 3)) and Type("f32").dtype is dtypes.F32
    assert [str(Type(d, (2,))) for d in dtypes.DTYPES.values()] == \
        ["f64[2]", "f32[2]", "i64[2]", "bool[2]", "c128[2]", "c64[2]"]
    assert [d.itemsize for d in dtypes.DTYPES.values()] == [8, 4, 8, 1, 16, 8]
    assert [d.is_float for d in dtypes.DTYPES.values()] == [True, True, False, False, False,
                                                           False]
    assert [d.real_dtype.name for d in dtypes.DTYPES.values()] == \
        ["f64", "f32", "i64", "bool", "f64", "f32"]
    assert type(Const(np.float32(0.5), Type("f32")).value) is float
    assert pickle.loads(pickle.dumps(Type("bool", (3,)))) == Type("bool", (3,))


def test_parser_rejects_garbage():
    with pytest.raises(IRSyntaxError):
        parse_graph("{ lambda x:f64 . in (y) }")


def test_verifier_catches_malformed_graphs():
    x = Var(F64, "x")
    y = Var(F64, "y")
    used_before_defined = Graph([x], [Eqn("add", [x, y], [Var(F64)])], [x])
    with pytest.raises(IRVerificationError, match="used before definition"):
        verify(used_before_defined)
    wrong_type = Graph([x], [Eqn("lt", [x, x], [Var(F64)])], [x])
    with pytest.raises(IRVerificationError, match="type rule says"):
        verify(wrong_type)
    mixed = Graph([x, Var(I64)], [], [x])
    mixed.eqns.append(Eqn("add", [x, mixed.inputs[1]], [Var(F64)]))
    with pytest.raises(IRVerificationError, match="same element type"):
        verify(mixed)
    twice = Var(F64)
    with pytest.raises(IRVerificationError, match="defined twice"):
        verify(Graph([x], [Eqn("neg", [x], [twice]), Eqn("neg", [x], [twice])], [twice]))


def test_every_primitive_has_every_rule():
    for name, prim in PRIMITIVES.items():
        assert prim.type_rule is not None, name
        assert prim.impl is not None, name
        if prim.differentiable and name not in LOWERED:
            assert prim.jvp is not None, name
            assert prim.vjp is not None or prim.ad_forward is not None, name
        if name not in ("while", "cond", *EXPANDED, *LOWERED):  # structural / gone before it
            assert prim.py is not None, name


UNARY_DOMAIN = {"log": 1.3, "sqrt": 1.7, "arcsin": 0.3, "arccos": -0.4, "log1p": 0.6}
BINARY = {"add", "sub", "mul", "div", "pow", "mod", "maximum", "minimum", "arctan2",
          "fmod"}
ARRAY_PRIMITIVES = {"sum", "max", "min", "prod", "reshape", "transpose", "broadcast_to", "sum_to",
                    "matmul", "index", "index_update", "full", "pack", "arange",
                    "concatenate", "solve", "inv", "det", "slogdet", "cholesky",
                    "tril_halfdiag", "take", "take_add", "put", "scipy_cholesky",
                    "solve_triangular", "check_finite", "triangle"}
ARRAY_PRIMITIVES |= {"eigh", "eigvalsh", "svd", "svdvals", "qr", "lstsq",  # test_decompositions
                     "full_rank_residuals", "no_derivative",
                     "fft", "rfft", "irfft",  # tests/transformations/test_fft.py
                     # tests/transformations/test_complex_linalg.py
                     "eig", "eigvals", "complex_slogdet"}
# the run-time lists' rules: tests/frontend/test_run_time_lists.py; scipy's C functions (of
# several operands) and polygamma (an order parameter): test_scipy_special_functions.py;
# complex_special (function and part parameters): tests/transformations/test_complex_special.py
SKIP = {"while", "cond", "push", "pop", *LIST_PRIMITIVES, "convert", "select", "floordiv",
        "sign", "floor", "ceil", "polygamma", "complex_special", *SCIPY_FUNCTIONS, *EXPANDED,
        *LOWERED} | ARRAY_PRIMITIVES


@pytest.mark.parametrize("name", sorted(n for n, p in PRIMITIVES.items()
                                        if p.differentiable and n not in SKIP))
def test_scalar_rules_against_finite_differences(name):
    n_args = 3 if name == "clip" else 2 if name in BINARY else 1
    point = [UNARY_DOMAIN.get(name, 0.7), 1.9, 2.6][:n_args]
    xs = [Var(F64, f"x{i}") for i in range(n_args)]
    b = Builder()
    out = b.op(name, *xs)
    graph = Graph(xs, b.eqns, [out], name)
    vjp_g, jvp_g = vjp_graph(graph), jvp_graph(graph)
    eps = 1e-6
    for i in range(n_args):
        hi, lo = list(point), list(point)
        hi[i] += eps
        lo[i] -= eps
        fd = (evaluate(graph, hi)[0] - evaluate(graph, lo)[0]) / (2 * eps)
        reverse = evaluate(vjp_g, point + [1.0])[1 + i]
        tangent = [1.0 if j == i else 0.0 for j in range(n_args)]
        forward = evaluate(jvp_g, point + tangent)[1]
        np.testing.assert_allclose([reverse, forward], [fd, fd], rtol=1e-6, atol=1e-8)


def test_simplifications_are_exact_for_nan_inf_and_negative_zero():
    x = Var(F64, "x")
    b = Builder()
    keep = b.add(x, 0.0)          # x + 0 -> x would turn -0.0 into -0.0 (wrong: must be 0.0)
    zero = b.mul(x, 0.0)          # x * 0 -> 0 would be wrong for inf/nan
    one = b.mul(b.div(x, 1.0), 1.0)
    graph = optimize(Graph([x], b.eqns, [keep, zero, one], "g"))
    for value in (-0.0, math.inf, -math.inf, math.nan, 2.5):
        got = evaluate(graph, [value])
        want = [value + 0.0, value * 0.0, value]
        for a, w in zip(got, want, strict=True):
            assert (math.isnan(a) and math.isnan(w)) or (a == w and math.copysign(1, a) ==
                                                         math.copysign(1, w))
    assert "mul x 0.0" in print_graph(graph) and "add x 0.0" in print_graph(graph)


def test_the_pipeline_stops_once_every_pass_ran_since_the_last_change(monkeypatch):
    from adlite.compiler import passes

    runs = []
    original = passes.run_pass
    monkeypatch.setattr(passes, "run_pass", lambda name, fn, graph: runs.append(
        (name, original(name, fn, graph))) or runs[-1][1])
    x = Var(F64, "x")
    b = Builder()
    total = b.add(b.mul(x, x), b.mul(x, x))  # cse merges the two products in the first round
    graph = optimize(Graph([x], b.eqns, [total], "g"))
    assert print_graph(graph).count("mul") == 1
    changed = [i for i, (_, c) in enumerate(runs) if c]
    # every pass runs once more after the last change, and no pass twice without one between
    assert len(runs) - 1 - changed[-1] == len(passes.PIPELINE)


def test_constant_folding_and_branch_folding():
    b = Builder()
    x = Var(F64, "x")
    c = b.add(Const(2.0, F64), Const(3.0, F64))
    flag = b.gt(c, 4.0)
    arm_x = Var(F64, "a")
    then = Graph([arm_x], [], [arm_x], "then")
    other = Var(F64, "b")
    else_ = Graph([other], [], [Const(0.0, F64)], "else")
    (picked,) = b.emit("cond", [flag, x], branches=(else_, then))
    graph = optimize(Graph([x], b.eqns, [b.mul(picked, c)], "h"))
    assert print_graph(graph) == "{ lambda x:f64 .\n  let t1:f64 = mul x 5.0\n  in (t1) }\n"


def test_dce_removes_unused_loop_carries():
    # euler's `a` is assigned in the loop but never read after it, and the gradient w.r.t. k
    # alone needs no cotangent of `a` or `c` carried through the adjoint loop
    graph, _ = Transformed(ex.euler, "grad", 0).ir_for((F64, F64))
    forward, adjoint = [e for e in graph.eqns if e.prim == "while"]
    carried = [{v.hint for v in loop.params["body"].inputs[loop.params["n_consts"]:]}
               for loop in (forward, adjoint)]
    assert {"v", "x"} <= carried[0] and "a" not in carried[0], carried
    assert {"dv", "dx", "dk"} <= carried[1] and not {"da", "dc"} & carried[1], carried


def test_value_and_grad_vjp_jvp():
    f = ex.second_order_target
    x, y = 0.3, 0.7
    value, (gx, gy) = value_and_grad(f, wrt=(0, 1))(x, y)
    assert value == pytest.approx(f(x, y), rel=1e-15)
    out, pullback = vjp(f, x, y)
    assert out == pytest.approx(value) and pullback(1.0) == pytest.approx((gx, gy))
    assert pullback(2.0) == pytest.approx((2 * gx, 2 * gy))
    out2, tangent = jvp(f, (x, y), (1.0, 0.0))
    assert out2 == pytest.approx(value) and tangent == pytest.approx(gx)
    outs, tangents = jvp(ex.returns_tuple, (x, y), (0.0, 1.0))
    assert outs == (x * y, x + y) and tangents == pytest.approx((x, 1.0))


def test_forward_mode_through_loops_and_branches():
    for name, fn, kinds in CORPUS[:40]:
        rng = np.random.default_rng(3)
        from ..support.gradients import sample

        args = [sample(k, rng) for k in kinds]
        floats = [i for i, k in enumerate(kinds) if not k.startswith("i")]
        tangents = [1.0 if j == 0 else 0.0 for j in range(len(floats))]
        _, t = jvp(fn, args, tangents)
        g = grad(fn, wrt=floats[0])(*args)
        assert t == pytest.approx(g, rel=1e-9, abs=1e-12), name


def test_higher_order_on_loop_free_code():
    assert grad(grad(ex.cube))(2.0) == 12.0
    assert grad(grad(grad(ex.cube)))(2.0) == 6.0
    mixed = grad(grad(ex.second_order_target, wrt=0), wrt=1)(0.3, 0.7)
    x, y = 0.3, 0.7
    want = 2 * x + np.cos(x * y) - x * y * np.sin(x * y)
    assert mixed == pytest.approx(want, rel=1e-12)


def test_reverse_over_reverse_through_loops():
    f = ex.loop_for_second_order  # x -> x^8 by repeated squaring in a loop
    x = 1.1
    assert grad(grad(f))(x) == pytest.approx(56 * x ** 6, rel=1e-12)
    assert grad(grad(grad(f)))(x) == pytest.approx(336 * x ** 5, rel=1e-12)


@pytest.mark.parametrize("name,fn,kinds", CORPUS, ids=[c[0] for c in CORPUS])
def test_grad_of_grad_matches_forward_over_reverse(name, fn, kinds):
    """Reverse over reverse (load cotangents travel back on transport tapes) agrees with
    forward over reverse on every corpus function."""
    from ..support.gradients import sample

    rng = np.random.default_rng(5)
    floats = [i for i, k in enumerate(kinds) if not k.startswith("i")]
    args = [sample(k, rng) for k in kinds]
    first = floats[0]
    second = grad(grad(fn, wrt=first), wrt=tuple(floats))(*args)
    tangents = [1.0 if i == first else 0.0 for i in floats]
    _, hv = jvp(grad(fn, wrt=tuple(floats)), args, tangents)
    np.testing.assert_allclose(np.array(second), np.array(hv), rtol=1e-9, atol=1e-10,
                               err_msg=name)


@pytest.mark.parametrize("name,fn,kinds", CORPUS, ids=[c[0] for c in CORPUS])
def test_forward_over_reverse_hessian_vector_products(name, fn, kinds):
    """jvp(grad(f)) differentiates the adjoint code, loops and tape included."""
    from ..support.gradients import sample

    rng = np.random.default_rng(11)
    floats = tuple(i for i, k in enumerate(kinds) if not k.startswith("i"))
    g = grad(fn, wrt=floats)
    args = [sample(k, rng) for k in kinds]
    direction = [float(rng.standard_normal()) for _ in floats]
    _, hv = jvp(g, args, direction)
    eps = 1e-6
    hi, lo = list(args), list(args)
    for i, d in zip(floats, direction, strict=True):
        hi[i], lo[i] = args[i] + eps * d, args[i] - eps * d
    numeric = (np.array(g(*hi)) - np.array(g(*lo))) / (2 * eps)
    np.testing.assert_allclose(np.array(hv), numeric, rtol=1e-4, atol=1e-5, err_msg=name)


def test_calling_transformed_functions_from_compiled_code():
    x = 0.5
    expected = np.cos(2 * x) * 2 * x + np.sin(2 * x) + x
    assert jit(ex.calls_a_gradient)(x) == pytest.approx(expected, rel=1e-14)
    assert grad(ex.calls_a_gradient)(x) == pytest.approx(
        2 * (-np.sin(2 * x) * 2 * x + 2 * np.cos(2 * x)) + 1.0, rel=1e-12)


@pytest.mark.parametrize("backend", ["llvm", "python"])
def test_bool_and_int_types(backend):
    graph, _ = jit(ex.int_and_bool).ir_for((I64, F64))
    assert [a.type for a in graph.outputs] == [I64, BOOL]
    f = jit(ex.int_and_bool, backend=backend)
    for n, x in ((5, 1.0), (2, 1.0), (5, -1.0), (-(2**40), 0.5)):
        out = f(n, x)
        assert out == ex.int_and_bool(n, x)
        assert [type(v) for v in out] == [int, bool]


def test_every_primitive_has_an_llvm_lowering():
    """Found in the table (`llvm`), for every primitive a graph still has when lowered."""
    for name, prim in PRIMITIVES.items():
        assert (prim.llvm is not None) != (name in EXPANDED or name in LOWERED), name


def test_hessian_through_loops_scalars_and_arrays():
    from adlite.compiler import hessian

    from ..support import llvm_examples as lx

    h = hessian(ex.loop_for_second_order)(1.1)  # x -> x^8
    assert h == pytest.approx(56 * 1.1 ** 6, rel=1e-12)
    x = np.array([0.3, -0.2, 0.5, 0.1])
    hm = hessian(lx.running_squares)(x)
    assert hm.shape == (4, 4)
    np.testing.assert_allclose(hm, hm.T, rtol=1e-12, atol=1e-12)
    eps = 1e-6
    g = grad(lx.running_squares)
    numeric = np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(4)],
                       axis=-1)
    np.testing.assert_allclose(hm, numeric, rtol=1e-5, atol=1e-6)


def test_vjp_with_array_outputs():
    from ..support import llvm_examples as lx

    out, pullback = vjp(lx.int_division, 7, 2)
    assert out == (3, 1) and pullback() == ()
    x = np.array([1.0, 2.0])
    value, pb = vjp(ex.double_array, x)
    np.testing.assert_allclose(value, 2 * x)
    np.testing.assert_allclose(pb(np.array([1.0, -1.0]))[0], [2.0, -2.0])


def _cluster(dot: str, label: str) -> str:
    start = dot.index(f'label="{label}"')
    return dot[start:dot.index("}", start)]


def test_graphviz_export_of_the_ir():
    dot = show(ex.counter, "optimize", dot=True)
    assert dot.startswith("digraph adlite_ir {") and dot.rstrip().endswith("}")
    assert dot.count('[label="while\\n') == 1
    cond, body = _cluster(dot, "while cond"), _cluster(dot, "while body")
    assert cond.count('[label="lt\\n') == 1 and '[label="add' not in cond
    assert body.count('[label="add\\n') == 2        # a += 2; b += 1
    assert '[label="2", shape=plaintext]' in body and '[label="1", shape=plaintext]' in body
    assert "mul" in show(ex.cube, "optimize", grad=True, dot=True)


def test_graphviz_export_is_deterministic_across_processes():
    root = str(ROOT)
    script = (f"import sys; sys.path.insert(0, {root!r})\n"
              "from adlite.compiler import show\n"
              "from tests.support import compiler_examples as ex\n"
              # other graphs first: fresh variable ids
              "show(ex.euler, 'optimize', grad=True, dot=True)\n"
              "sys.stdout.write(show(ex.counter, 'optimize', dot=True))\n")
    outputs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2")}
    assert outputs == {show(ex.counter, "optimize", dot=True)}


def test_linearity_and_recompute_cost_are_facts_of_the_table():
    """The AD's 'contributions that vanish' and 'values worth recomputing', and the LLVM
    backend's fusion of shared operands, read the same two fields of the primitive table."""
    from adlite.compiler.ir.primitive import ARITHMETIC, CHEAP, PRIMITIVES

    linear = {n for n, p in PRIMITIVES.items() if p.linear}
    assert {"add", "sub", "neg", "mul", "div", "select", "convert", "sum", "index",
            "reshape", "transpose", "broadcast_to", "full"} <= linear
    assert not linear & {"exp", "sqrt", "max", "prod", "matmul", "pow", "abs"}
    arithmetic = {n for n, p in PRIMITIVES.items() if p.cost == ARITHMETIC}
    assert arithmetic == {"neg", "add", "sub", "mul", "convert"}
    cheap = {n for n, p in PRIMITIVES.items() if p.cost == CHEAP}
    assert {"select", "lt", "ne", "and_", "not_", "index"} <= cheap
    assert not cheap & {"exp", "div", "matmul", "sum"}
