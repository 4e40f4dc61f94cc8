"""Checkpointed reverse mode of loops (`compiler/ad/checkpoint.py`, `checkpoint=` on `grad`,
`ADLITE_TAPE_BUDGET`): the gradients are those of the unbounded tape bit for bit (fori-style
and data-dependent `while` loops, scalar and array carries, nested loops, branches in loops,
both backends), agree with the eager tape and central differences, work at second order,
refuse budgets too small for one snapshot naming the argument, and keep the memory of a
10-million-step loop bounded."""

import sys

import numpy as np
import pytest

from adlite.compiler import grad, hessian, value_and_grad, vjp
from adlite.compiler.ad.storage import CHECKPOINT_LOOPS
from adlite.compiler.ir.core import F64, I64, Type, walk_eqns
from adlite.runtime import Tensor
from benchmarks.checkpoint import measure
from benchmarks.workloads import w4_while
from examples.oscillator import oscillator

from ..support.gradients import central_difference_in


def w2_steps(k, c, n):
    x = 1.0
    v = 0.0
    for _ in range(n):
        a = -k * x - c * v
        v = v + 0.01 * a
        x = x + 0.01 * v
    return x


def array_carry(x, k, n):
    for _ in range(n):
        x = x * k + 0.1 * np.sin(x)
    return np.sum(x * x)


def nested(k, c, n):
    x = 0.5
    for _ in range(n):
        for _ in range(3):
            x = x * k + c * np.cos(x)
        x = 0.9 * x
    return x


def branchy(k, c, n):
    x = 0.3
    for i in range(n):
        if i % 3 == 0:
            x = x * k + np.sin(c * x)
        else:
            x = x - 0.1 * c * x * x
    return x


def data_dependent(p, c, n):
    x = 1.0 + 0.0 * n
    total = 0.0
    while x < 50.0:
        x = x * (1.0 + 0.01 * p) + 0.1
        total = total + np.sin(x) * c
    return total


def written_in_place(k, c, n):
    x = np.zeros(6)
    x[0] = c
    for i in range(n):
        j = i % 5
        x[j + 1] = x[j] * k + np.sin(x[j + 1])
    return np.sum(x * x)


def array_while(k, c, n):
    x = np.ones(4) * c
    t = 0.0 * n
    while t < 2.0:
        x = x * k + 0.01
        x[1] = x[0] * 0.5
        t = t + 0.13
    return np.sum(x)


def linear_stencil(u0, c, n):
    u = u0.copy()
    for _ in range(n):
        un = u.copy()
        u[1:] = un[1:] - c * (un[1:] - un[:-1])
    return np.sum(u ** 2)


def printing(k, c, n):
    x = 1.0
    for i in range(n):
        x = x * k + c
        print("step", i)
    return x


VEC = np.linspace(-0.8, 0.9, 5)
CASES = {  # name: (function, arguments, differentiated positions)
    "w2": (w2_steps, (1.3, 0.2, 200), (0, 1)),
    "array_carry": (array_carry, (VEC, 0.97, 40), (0, 1)),
    "nested": (nested, (0.6, 0.3, 25), (0, 1)),
    "branchy": (branchy, (0.9, 0.7, 31), (0, 1)),
    "data_dependent": (data_dependent, (0.7, 1.1, 0), (0, 1)),
    "written_in_place": (written_in_place, (0.9, 1.0, 23), (0, 1)),
    "array_while": (array_while, (1.1, 0.5, 0), (0, 1)),
    "linear_stencil_du": (linear_stencil, (np.linspace(0.5, 1.5, 6), 0.3, 17), (0,)),
}
WRITES = {"written_in_place", "array_while", "linear_stencil_du"}  # cases writing into arrays
POLICIES = (1, 3, 7, "200B", "1MB")


def _eager(fn, args, wrt):
    tensors = [Tensor(np.array(a, dtype=float), requires_grad=True) if i in wrt else a
               for i, a in enumerate(args)]
    fn(*tensors).backward()
    return [np.asarray(tensors[i].grad.numpy() if hasattr(tensors[i].grad, "numpy")
                       else tensors[i].grad) for i in wrt]


def _same(a, b):
    """Bit for bit: equal values, arrays included (no NaN occurs here)."""
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(np.asarray(x), np.asarray(y)), (x, y)


@pytest.mark.parametrize("backend", ["llvm", "python"])
@pytest.mark.parametrize("name", CASES)
def test_checkpointed_gradients_are_the_unbounded_tapes_bit_for_bit(name, backend):
    fn, args, wrt = CASES[name]
    unbounded = grad(fn, wrt=wrt, backend=backend, checkpoint=False)(*args)
    for policy in POLICIES:
        _same(grad(fn, wrt=wrt, backend=backend, checkpoint=policy)(*args), unbounded)


@pytest.mark.parametrize("name", CASES)
def test_checkpointed_gradients_match_eager_tape_and_differences(name):
    fn, args, wrt = CASES[name]
    compiled = grad(fn, wrt=wrt, checkpoint=2)(*args)
    # the eager tape does not take writes into numpy arrays: differences only there
    eager = [None] * len(wrt) if name in WRITES else _eager(fn, args, wrt)
    for g, e, i in zip(compiled, eager, wrt, strict=True):
        if e is not None:
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(g, central_difference_in(fn, args, i), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("n", [0, 1, 5, 6, 7, 12])
def test_trip_counts_around_the_segment_length(n):
    """Segments of 3 steps: none, a partial one, exact multiples, one more."""
    unbounded = grad(w2_steps, wrt=(0, 1), checkpoint=False)(1.3, 0.2, n)
    _same(grad(w2_steps, wrt=(0, 1), checkpoint=3)(1.3, 0.2, n), unbounded)
    eager = _eager(w2_steps, (1.3, 0.2, n), (0, 1)) if n else [0.0, 0.0]
    np.testing.assert_allclose(unbounded, eager, rtol=1e-12, atol=1e-14)


def test_data_dependent_while_of_the_benchmarks():
    """W4: the trip count is known only when the loop ends (JAX cannot reverse it)."""
    unbounded = grad(w4_while, checkpoint=False)(0.7)
    for policy in POLICIES:
        assert grad(w4_while, checkpoint=policy)(0.7) == unbounded
    # the trip count jumps with p (differences straddle the jumps): the eager tape is the
    # reference
    assert unbounded == pytest.approx(float(_eager(w4_while, (0.7,), (0,))[0]), rel=1e-12)


@pytest.mark.parametrize("budget", ["48", "100", "1KB"])
def test_automatic_mode_past_the_budget(monkeypatch, budget):
    """`ADLITE_TAPE_BUDGET`: the ordinary tape first, then segments (W2 stores 16 B per
    step: 48 B checkpoints from the second step, 1 KB from the 33rd)."""
    monkeypatch.setenv("ADLITE_TAPE_BUDGET", budget)
    for name in ("w2", "nested", "data_dependent"):
        fn, args, wrt = CASES[name]
        _same(grad(fn, wrt=wrt)(*args), grad(fn, wrt=wrt, checkpoint=False)(*args))


def test_value_and_grad_and_vjp_take_the_policy():
    value, gradient = value_and_grad(w2_steps, wrt=(0, 1), checkpoint=4)(1.3, 0.2, 50)
    assert value == w2_steps(1.3, 0.2, 50)
    _same(gradient, grad(w2_steps, wrt=(0, 1), checkpoint=False)(1.3, 0.2, 50))
    out, pullback = vjp(array_carry, VEC, 0.97, 40, checkpoint="300B")
    _, plain = vjp(array_carry, VEC, 0.97, 40, checkpoint=False)
    assert out == array_carry(VEC, 0.97, 40)
    _same(pullback(1.0), plain(1.0))


def test_prints_run_once_per_step(capsys):
    """The recomputation runs the body without its prints."""
    grad(printing, wrt=(0, 1), checkpoint=2)(0.9, 0.1, 5)
    assert capsys.readouterr().out == "".join(f"step {i}\n" for i in range(5))


@pytest.mark.parametrize("name", ["w2", "nested", "branchy", "data_dependent"])
def test_second_order_through_checkpointed_loops(name):
    """Forward over reverse: the recomputation is ordinary IR, differentiated again."""
    fn, args, _ = CASES[name]
    for i in (0, 1):
        h = hessian(fn, wrt=i, checkpoint=3)(*args)
        assert h == hessian(fn, wrt=i, checkpoint=False)(*args)

        def eager_gradient(*a, i=i):
            return float(_eager(fn, a, (i,))[0])

        assert h == pytest.approx(central_difference_in(eager_gradient, args, i), rel=1e-5,
                                  abs=1e-7)


def test_budget_too_small_for_one_snapshot_names_the_argument():
    with pytest.raises(ValueError, match=r"checkpoint='40B': a budget of 40 bytes is too "
                                         r"small for one snapshot"):
        grad(w2_steps, wrt=(0, 1), checkpoint="40B")(1.3, 0.2, 10)


def test_environment_budget_too_small_names_the_variable(monkeypatch):
    monkeypatch.setenv("ADLITE_TAPE_BUDGET", "8")
    with pytest.raises(ValueError, match="ADLITE_TAPE_BUDGET: a budget of 8 bytes is too small"):
        grad(w2_steps, wrt=(0, 1))(1.3, 0.2, 10)


@pytest.mark.parametrize("value, error, message", [
    (0, ValueError, "checkpoint=0: the steps between snapshots must be at least 1"),
    (-3, ValueError, "checkpoint=-3"),
    ("lots", ValueError, "checkpoint='lots': cannot read 'lots' as a size in bytes"),
    ("0.5B", ValueError, "checkpoint='0.5B': a budget must be at least 1 byte"),
    ([64], TypeError, r"checkpoint=\[64\]: expected False, True, None, an int"),
], ids=["zero_steps", "negative_steps", "unreadable_size", "budget_under_a_byte", "a_list"])
def test_values_the_argument_cannot_take(value, error, message):
    with pytest.raises(error, match=message):
        grad(w2_steps, checkpoint=value)


def test_unreadable_environment_budget(monkeypatch):
    monkeypatch.setenv("ADLITE_TAPE_BUDGET", "plenty")
    with pytest.raises(ValueError, match="ADLITE_TAPE_BUDGET: cannot read 'plenty'"):
        grad(w2_steps, wrt=(0, 1))(1.3, 0.2, 10)


@pytest.mark.skipif(sys.platform != "linux", reason="peak memory from /proc (Linux)")
def test_memory_of_a_long_loop_stays_bounded():
    """16 B per step unbounded: 160 MB of tape at 1e7 steps of the undamped oscillator; a 4 MB
    budget keeps it under it (`checkpoint=False` fails the first assertion)."""
    _, bounded, value = measure(10_000_000, "4MB")
    _, unbounded, reference = measure(10_000_000, False)
    assert bounded < 24
    assert unbounded > 100
    assert value == reference


def _checkpointed_loops(fn, types, **kwargs):
    graph, _ = grad(fn, wrt=(0, 1), **kwargs).ir_for(types)
    return sum(e.prim == "while" and e.params["body"].name.startswith(CHECKPOINT_LOOPS)
               for e in walk_eqns(graph))


def test_automatic_mode_leaves_loops_that_surely_fit(monkeypatch):
    """`for _ in range(1000)` (W2) stores at most a few hundred bytes per step: far below
    the default budget, it keeps the ordinary scheme; a run-time trip count is unknown when
    compiling, so that loop is checkpointed past the budget; a small budget checkpoints W2."""
    assert _checkpointed_loops(oscillator, [F64, F64]) == 0
    assert _checkpointed_loops(w2_steps, [F64, F64, I64]) == 2  # snapshots, recomputation
    monkeypatch.setenv("ADLITE_TAPE_BUDGET", "1KB")
    assert _checkpointed_loops(oscillator, [F64, F64]) == 2
    _same(grad(oscillator, wrt=(0, 1))(1.3, 0.2),
          grad(oscillator, wrt=(0, 1), checkpoint=False)(1.3, 0.2))


def test_reverse_over_reverse_through_checkpointed_loops():
    """grad of grad: the outer reverse mode differentiates the snapshots, the recomputation
    and the adjoint loops (they touch the tape, so it keeps its ordinary scheme). Its sums
    run in another order than over the unbounded tape's adjoint: equal to rounding."""
    args = (1.3, 0.2, 20)
    for i, j in ((0, 0), (0, 1)):
        twice = grad(grad(w2_steps, wrt=i, checkpoint=3), wrt=j)(*args)
        assert twice == pytest.approx(
            grad(grad(w2_steps, wrt=i, checkpoint=False), wrt=j)(*args), rel=1e-13)
        numeric = central_difference_in(lambda *a, i=i: float(_eager(w2_steps, a, (i,))[0]),
                                        args, j)
        assert twice == pytest.approx(numeric, rel=1e-6)


def _stored(fn, types, wrt):
    """The types of the values the gradient's loops push on a tape, sorted."""
    graph, _ = grad(fn, wrt=wrt).ir_for(types)
    return sorted(str(e.inputs[0].type) for e in walk_eqns(graph) if e.prim == "push")


def test_a_checkpointed_loop_stores_only_what_the_derivative_reads():
    """A run-time step count checkpoints the loop (taped prefix, segments). The derivative
    w.r.t. the field of a linear stencil reads no residual: no array is stored, and no
    segment is recomputed, so its snapshots keep only their step counts. d/dc reads the
    differences of the field at every step: the field is stored (by the prefix, by the
    recomputed segments, and in the snapshots), the differences made again from it
    (`ad/storage.py`). This fails when the
    cotangent of `c` stays carried through the reverse loops (`passes/dce.py`) or when the
    records shared by the prefix and the segments are not pruned (`passes/tape.py`)."""
    types = [Type("f64", (50,)), F64, I64]
    assert _stored(linear_stencil, types, (0,)) == ["i64"]
    assert _stored(linear_stencil, types, (0, 1)) == ["f64[50]"] * 3 + ["i64"]
