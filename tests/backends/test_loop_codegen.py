"""The loops the LLVM backend generates for array code (issue 12 item 2).

Structure: the W1 (Rosenbrock) gradient adds the adjoints of `x[1:]` and `x[:-1]` into one
buffer. Its loop is split at the slice boundaries, so the inner loop reads contiguous vectors,
with no per-element select of a clamped index and no masked gather (it had both), and the
constant-slice views of `x` are read in place, not copied into scratch. Values: programs whose
slices overlap (1-D and 2-D, negative and non-unit steps, slices at both ends) match numpy
bitwise where elementwise, and their gradients match central differences and the eager tape.
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import numpy as np
import pytest

from adlite import compiler
from adlite.compiler.backends.llvm.jit import host_target_machine
from adlite.compiler.ir.core import Type
from adlite.runtime import Tensor

from ..support.gradients import central_differences


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def three_point(x):
    return np.sum(np.sin(x[2:]) * x[:-2] - x[1:-1] ** 2)


def reversed_pairs(x):
    return np.sum(x[::-1][1:] * x[:-1] ** 2)


def negative_step(x):
    return np.sum(np.tanh(x[-2::-1]) * x[1:])


def strided(x):
    m = x.shape[0] // 2
    return np.sum(x[:2 * m:2] * x[1:2 * m:2]) + np.sum(x[5:1:-2]) * np.sum(x[:2])


def ends(x):
    return np.sum(x[:1] * x[-1:]) + np.sum(x[-3:] ** 2) + np.sum(x[:3] * x[1:4])


def grid(u):
    return np.sum((u[1:, :] - u[:-1, :]) ** 2) + np.sum(u[:, 2:] * u[:, :-2])


def laplace(u):
    c = u[1:-1, 1:-1]
    return np.sum(c * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c) ** 2)


def grid_reversed(u):
    return np.sum(u[::-1, 1:] * np.cos(u[:, :-1])) + np.sum(u[-1::-2, ::-1][:, 1:] ** 3)


def wide_stencil(u):  # 7 ranges per axis at 9x12: over MAX_PIECES, one loop with selects
    return np.sum(u[3:, 3:] * u[:-3, :-3]) + np.sum(u[2:, 1:] * u[:-2, :-1]) + \
        np.sum(u[1:, 2:] * np.exp(u[:-1, :-2]))


def padded(x):
    y = np.zeros(x.shape)
    y[1:-1] = x[2:] - x[:-2]
    return np.sum(y * y * x)


def shifted(x):
    y = np.zeros(x.shape)
    y[1:] = x[:-1] * 2.0
    y[::-3] = y[::-3] + x[::-3]
    return y


def broadcast_row(x):
    z = np.zeros((1, x.shape[1]))
    z[:, 1:] = x[:, :-1]
    return np.broadcast_to(z, (3, x.shape[1])) * 2.0


ONE_D = [rosenbrock, three_point, reversed_pairs, negative_step, strided, ends]
TWO_D = [grid, laplace, grid_reversed, wide_stencil]


def _code(fn, shape, grad: bool) -> tuple[str, str]:
    """The optimised LLVM IR and the host assembly of `fn` (or its gradient) at `shape`."""
    text = compiler.show(fn, "lower", types=[Type("f64", shape)], grad=grad)
    with host_target_machine(jit=False) as tm:
        return text, tm.emit_assembly(llvm.parse_assembly(text))


def _function(text: str, suffix: str) -> str:
    """The body of the module's function whose name ends with `suffix`."""
    match = re.search(rf"define [^\n]*{suffix}\(.*?\n}}", text, re.S)
    assert match, text
    return match.group(0)


@pytest.mark.parametrize("grad", [False, True], ids=["primal", "gradient"])
def test_w1_loops_read_contiguous_vectors_without_selects_or_gathers(grad):
    text, asm = _code(rosenbrock, (1000,), grad)
    body = _function(text, "_grad" if grad else "rosenbrock")
    assert "gather" not in body and "scatter" not in body
    assert not re.search(r"\bv(p)?gather|\bv(p)?scatter", asm)
    assert not re.search(r" select i1 [^,]*, i64 ", body)  # no clamped index
    if grad:  # the primal's sum stays in order (scalar); the gradient's loop is vectorised
        assert re.search(r"load <\d+ x double>", body), body
        assert re.search(r"store <\d+ x double>", body), body


@pytest.mark.parametrize("grad", [False, True], ids=["primal", "gradient"])
def test_w1_reads_the_slices_of_x_in_place(grad):
    text, _ = _code(rosenbrock, (1000,), grad)
    scratch = _function(text, "_scratch")
    assert re.search(r"ret i64 0\b", scratch), scratch  # no buffer: x[:-1] is not copied


@pytest.mark.parametrize(("fn", "shape"), [
    (three_point, (1000,)), (reversed_pairs, (1000,)), (negative_step, (1000,)),
    (grid, (40, 50)), (laplace, (40, 50))],
    ids=["three_point", "reversed_pairs", "negative_step", "grid", "laplace"])
def test_gradients_of_unit_step_slices_have_no_per_element_select(fn, shape):
    text, asm = _code(fn, shape, True)
    body = _function(text, "_grad")
    assert "gather" not in body and " select " not in body
    assert not re.search(r"\bv(p)?gather", asm)


def _eager(fn, x):
    t = Tensor(np.array(x), requires_grad=True)
    fn(t).backward()
    return t.grad.numpy()


@pytest.mark.parametrize("n", [6, 7, 33])
@pytest.mark.parametrize("fn", ONE_D + [padded], ids=lambda f: f.__name__)
def test_one_d_overlapping_slices(fn, n):
    x = np.random.default_rng(n).uniform(-1.0, 1.0, n)
    assert compiler.jit(fn)(x) == pytest.approx(fn(x), rel=1e-13)
    g = compiler.grad(fn)(x)
    np.testing.assert_allclose(g, central_differences(fn, [x])[0], rtol=1e-6, atol=1e-7)
    if fn is not padded:  # the eager tape has no item assignment
        np.testing.assert_allclose(g, _eager(fn, x), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("shape", [(4, 5), (5, 4), (3, 3), (9, 12)])
@pytest.mark.parametrize("fn", TWO_D, ids=lambda f: f.__name__)
def test_two_d_overlapping_slices(fn, shape):
    u = np.random.default_rng(sum(shape)).uniform(-1.0, 1.0, shape)
    assert compiler.jit(fn)(u) == pytest.approx(fn(u), rel=1e-13)
    g = compiler.grad(fn)(u)
    np.testing.assert_allclose(g, central_differences(fn, [u])[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g, _eager(fn, u), rtol=1e-13, atol=1e-15)


def test_three_d_overlapping_slices():
    def f(v):
        return np.sum(v[1:, :, ::-1] * np.sin(v[:-1, :, :])) + np.sum(v[:, 1:, 2:] ** 2)

    v = np.random.default_rng(3).uniform(-1.0, 1.0, (3, 4, 5))
    g = compiler.grad(f)(v)
    np.testing.assert_allclose(g, central_differences(f, [v])[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g, _eager(f, v), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 5, 10])
def test_slice_updates_are_bitwise_numpy(n):
    x = np.random.default_rng(n).uniform(-1.0, 1.0, n)
    assert compiler.jit(shifted)(x).tobytes() == shifted(x).tobytes()


def test_a_fused_scatter_broadcast_along_its_unit_axis():
    # each row of the broadcast reads row 0 of the scatter (rows > 0 gave the fill value, 0.0)
    x = np.arange(1.0, 5.0).reshape(1, 4)
    assert compiler.jit(broadcast_row)(x).tobytes() == broadcast_row(x).tobytes()
