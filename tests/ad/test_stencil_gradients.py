"""Gradients of slice-stencil time loops (issue 12 item 4): vectorised slice updates inside
time loops (1-D and 2-D), np.roll shifts, swapped buffers and nonlinear stencils whose
carried array is itself stored on the AD tape.

- Structure: every loop of the adjoint code frees its iterations' buffers (the forward loop
  too, although it stores arrays on the tape: those move to the "stored" list), so the
  memory of a forward sweep holds its tape and not a copy of the carried array per step.
- A parameter used twice in one update (2-D convection's `c`) is summed once per reverse
  step: the cotangents of its uses are added before the one reduction.
- Values: compiled gradients agree with central differences of the plain Python function
  and with the eager tape; second order (hessian) agrees with central second differences.
"""

import re

import numpy as np
import pytest

from adlite.compiler import grad, hessian
from adlite.compiler.ad.storage import tape_bytes_per_iteration
from adlite.compiler.backends.llvm.lower import lower_module
from adlite.compiler.ir.core import F64, Type, walk_eqns
from adlite.runtime import Tensor
from benchmarks import stencil

from ..support.gradients import central_difference_in


def convection_1d(u0, c):
    u = u0.copy()
    for _ in range(20):
        un = u.copy()
        u[1:] = un[1:] - c * (un[1:] - un[:-1])
    return np.sum(u ** 2)


def convection_2d(u0, c):
    u = u0.copy()
    for _ in range(6):
        un = u.copy()
        u[1:, 1:] = (un[1:, 1:] - c * (un[1:, 1:] - un[1:, :-1])
                     - c * (un[1:, 1:] - un[:-1, 1:]))
        u[0, :] = 1.0
        u[:, -1] = 1.0
    return np.sum(u ** 2)


def diffusion_2d(u0, nu):
    return stencil.diffusion_2d(u0, nu, 6)


def roll_advection(u0, c):
    u = u0
    for _ in range(15):
        u = u - c * (u - np.roll(u, 1))
    return np.sum(u ** 3)


def swapped_buffers(u0, c):
    return stencil.swapped_diffusion(u0, c, 15)


def burgers_1d(u0, dt):
    u = u0.copy()
    for _ in range(15):
        un = u.copy()
        u[1:] = un[1:] - dt * un[1:] * (un[1:] - un[:-1])
    return np.sum(u ** 2)


def carried_nonlinear(u0, a):
    u = u0
    for _ in range(12):
        u = np.sin(u) * a + u * u * 0.1  # the carried u itself is stored on the tape
    return np.sum(u)


RNG = np.random.default_rng(12)
CASES = {
    "convection_1d": (convection_1d, 1.0 + RNG.random(12), 0.3),
    "convection_2d": (convection_2d, 1.0 + RNG.random((6, 7)), 0.2),
    "diffusion_2d": (diffusion_2d, RNG.random((6, 6)), 0.2),
    "roll_advection": (roll_advection, 1.0 + RNG.random(10), 0.3),
    "swapped_buffers": (swapped_buffers, RNG.random(11), 0.25),
    "burgers_1d": (burgers_1d, 1.0 + 0.5 * RNG.random(12), 0.05),
    "carried_nonlinear": (carried_nonlinear, 0.5 * RNG.random(8), 0.9),
}


def _types(u0):
    return [Type("f64", u0.shape), F64]


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_adjoint_loop_frees_its_iterations_buffers(name):
    fn, u0, _ = CASES[name]
    graph = grad(fn, wrt=0).ir_for(_types(u0))[0]
    loops = sum(e.prim == "while" for e in walk_eqns(graph))
    stores = any(e.prim == "push" and e.inputs[0].type.is_array for e in walk_eqns(graph))
    text = str(lower_module(graph, "adlite_stencil_test"))
    calls = re.findall(r'call \w+ @"?(adlite_\w+)', text)
    assert loops >= 2
    assert calls.count("adlite_reclaim") == loops
    assert ("adlite_retire" in calls) == stores


@pytest.mark.parametrize("name", ["convection_1d", "convection_2d", "diffusion_2d"])
def test_linear_stencil_stores_nothing_for_the_field_gradient(name):
    """The forward loop stored `un[1:] - un[:-1]` (a full-size array per step) for the
    cotangent of `c`, also when only the field's gradient is asked for."""
    fn, u0, _ = CASES[name]
    for_field = grad(fn, wrt=0).ir_for(_types(u0))[0]
    assert not [e for e in walk_eqns(for_field) if e.prim in ("push", "pop")]
    for_both = grad(fn, wrt=(0, 1)).ir_for(_types(u0))[0]
    assert sum(tape_bytes_per_iteration(for_both)) > 0


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_central_differences(name):
    fn, u0, p = CASES[name]
    expected = central_difference_in(fn, (u0, p), 0)
    np.testing.assert_allclose(grad(fn, wrt=0)(u0.copy(), p), expected, rtol=1e-6, atol=1e-8)
    expected_p = central_difference_in(fn, (u0, p), 1)
    np.testing.assert_allclose(grad(fn, wrt=1)(u0.copy(), p), expected_p, rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_eager_tape(name):
    fn, u0, p = CASES[name]
    x = Tensor(u0, requires_grad=True)
    fn(x, p).backward()
    np.testing.assert_allclose(grad(fn, wrt=0)(u0.copy(), p), x.grad.numpy(), rtol=1e-12,
                               atol=1e-14)


def test_a_parameter_used_twice_is_summed_once_per_step():
    """2-D convection multiplies two differences by `c`: the cotangents of both uses are
    added, then summed (`sum_to(x) + sum_to(y)` is `sum_to(x + y)`), one pass over the field
    per reverse step instead of two. The sum of the added terms is the same sum (its rounding
    that of one pairwise sum), checked against the eager tape (which sums each use) and
    central differences, first and second order."""
    fn, u0, c = CASES["convection_2d"]
    graph = grad(fn, wrt=(0, 1)).ir_for(_types(u0))[0]
    sums = [e for e in walk_eqns(graph) if e.prim == "sum_to"]
    assert [e.inputs[0].type.shape for e in sums] == [(5, 6)]
    du, dc = grad(fn, wrt=(0, 1))(u0.copy(), c)
    x, p = Tensor(u0, requires_grad=True), Tensor(c, requires_grad=True)
    fn(x, p).backward()
    np.testing.assert_allclose(du, x.grad.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dc, p.grad.item(), rtol=1e-12)
    np.testing.assert_allclose(dc, central_difference_in(fn, (u0, c), 1), rtol=1e-6)
    eps = 1e-4
    second = (fn(u0, c + eps) - 2 * fn(u0, c) + fn(u0, c - eps)) / eps ** 2
    np.testing.assert_allclose(hessian(fn, wrt=1)(u0.copy(), c), second, rtol=1e-4)


def test_uses_of_one_shape_are_summed_together():
    """A number used with two matrices and a row, the row's use between the matrices': the
    two (3, 4) contributions are added and summed once, the (4,) one summed apart."""
    def mixed(s, a, b):
        return np.sum(np.sin(s * a) + s * b + a * s)
    rng = np.random.default_rng(5)
    args = (0.7, rng.standard_normal((3, 4)), rng.standard_normal(4))
    graph = grad(mixed, wrt=0).ir_for([F64, Type("f64", (3, 4)), Type("f64", (4,))])[0]
    to_number = sorted(e.inputs[0].type.shape for e in walk_eqns(graph)
                       if e.prim == "sum_to" and e.params["shape"] is None)
    assert to_number == [(3, 4), (4,)]
    s = Tensor(args[0], requires_grad=True)
    mixed(s, *args[1:]).backward()
    np.testing.assert_allclose(grad(mixed, wrt=0)(*args), s.grad.item(), rtol=1e-12)
    np.testing.assert_allclose(grad(mixed, wrt=0)(*args), central_difference_in(mixed, args, 0),
                               rtol=1e-7)


def test_long_forward_sweep_keeps_stored_arrays():
    """Many steps: the buffers freed each iteration are reused by malloc, so an array stored
    on the tape but freed would be overwritten and give a wrong gradient."""
    def f(u0, a):
        u = u0
        for _ in range(400):
            u = np.sin(u) * a + u * 0.5
        return np.sum(u * u)
    u0 = np.linspace(0.1, 0.9, 50)
    expected = central_difference_in(f, (u0, 0.7), 0)
    np.testing.assert_allclose(grad(f, wrt=0)(u0, 0.7), expected, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", ["burgers_1d", "diffusion_2d"])
def test_second_order_matches_central_second_differences(name):
    fn, u0, p = CASES[name]
    v = np.random.default_rng(3).standard_normal(u0.shape)
    h = hessian(fn, wrt=0)(u0.copy(), p)
    vhv = float(np.tensordot(v, np.tensordot(h, v, axes=v.ndim), axes=v.ndim))
    eps = 1e-4
    expected = (fn(u0 + eps * v, p) - 2 * fn(u0, p) + fn(u0 - eps * v, p)) / eps ** 2
    np.testing.assert_allclose(vhv, expected, rtol=1e-3, atol=1e-6)
