"""Stencil gradients, continued (issue 12 item 4): the lowering of chains of slice updates and
of the loops over 2-D fields, on 1-D / 2-D / np.roll programs and a lid-driven cavity flow
(velocity updates by slices, a pressure Poisson loop with Neumann boundaries nested in the
time loop: `benchmarks/stencil.py`).

- Structure: an `index_update` whose array is the dying result of the update before it (read
  before it only by row or element reads) writes into that buffer, so a chain of boundary
  updates copies the field once, not once per link; an adjoint loop zeroes the boundary of
  its cotangent in place (copied once at loop entry, not once per step); the innermost loop
  over a 2-D field's rows is kept as a loop, so LLVM vectorises it (contiguous loads and
  stores) instead of the loop over rows (gathers and scatters).
- Values: compiled values and gradients agree with the plain Python function, the eager tape
  and central differences.
"""

import re

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.compiler.backends.llvm import host_target_machine, parse_and_optimize
from adlite.compiler.backends.llvm.inplace import in_place_updates
from adlite.compiler.backends.llvm.lower import lower_module
from adlite.compiler.ir.core import F64, Type, walk_eqns
from adlite.runtime import Tensor
from benchmarks.stencil import cavity_flow, convection_2d

from ..support.gradients import central_difference_in


def boundary_convection(u0, c):
    """2-D convection with the four boundaries reset after each step (5 steps)."""
    return convection_2d(u0, c, 5)


def neumann_poisson(p0, b):
    """Jacobi sweeps with copied-neighbour (Neumann) boundaries, as in the cavity's pressure
    loop: each boundary update reads a row of the result of the update before it."""
    p = p0.copy()
    for _ in range(6):
        pn = p.copy()
        p[1:-1, 1:-1] = 0.25 * (pn[1:-1, 2:] + pn[1:-1, :-2] + pn[2:, 1:-1]
                                + pn[:-2, 1:-1]) - b[1:-1, 1:-1]
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0.0
    return np.sum(p ** 2) + np.sum(p * b)


def diffusion_32(u0, nu):
    """2-D diffusion on a 32x32 field: rows of 30 interior points."""
    u = u0.copy()
    for _ in range(4):
        un = u.copy()
        u[1:-1, 1:-1] = un[1:-1, 1:-1] + nu * (un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:]
                                               + un[1:-1, :-2] - 4 * un[1:-1, 1:-1])
    return np.sum(u ** 2)


def roll_2d(u0, c):
    """Periodic 2-D advection with np.roll along both axes."""
    u = u0
    for _ in range(6):
        u = u - c * (2 * u - np.roll(u, 1, axis=0) - np.roll(u, 1, axis=1))
    return np.sum(u ** 2)


def small_cavity(u0, nu):
    return cavity_flow(u0, nu, nt=4, nit=3)


RNG = np.random.default_rng(41)
LID = np.zeros((9, 9))
LID[-1, :] = 1.0
CASES = {
    "boundary_convection": (boundary_convection, 1.0 + RNG.random((7, 8)), 0.2),
    "neumann_poisson": (neumann_poisson, RNG.random((7, 7)), RNG.random((7, 7))),
    "diffusion_32": (diffusion_32, RNG.random((32, 32)), 0.2),
    "roll_2d": (roll_2d, RNG.random((6, 5)), 0.2),
    "small_cavity": (small_cavity, LID + 0.01 * RNG.random((9, 9)), 0.1),
}


def _types(*args):
    return [Type("f64", a.shape) if isinstance(a, np.ndarray) else F64 for a in args]


def _llvm(transform, args) -> str:
    return str(lower_module(transform.ir_for(_types(*args))[0], "adlite_stencil_more"))


def _memcpy_sites(text: str) -> int:
    return len(re.findall(r'call \S+ @"?memcpy', text))


@pytest.mark.parametrize("name", ["boundary_convection", "neumann_poisson"])
def test_chained_boundary_updates_copy_the_field_once(name):
    """Each boundary update's array is the dying result of the update before it (the Neumann
    ones read a row of it first), so the chain writes into one buffer: one memcpy site per
    chain (the interior update), where each link copied the whole field."""
    fn, u0, p = CASES[name]
    for transform in (jit(fn), grad(fn, wrt=0)):
        graph = transform.ir_for(_types(u0, p))[0]
        links = sum(e.prim == "index_update" and e.params["mode"] == "set"
                    and e.inputs[0].type.shape == u0.shape for e in walk_eqns(graph))
        assert links >= 4
        assert _memcpy_sites(_llvm(transform, (u0, p))) <= links - 3


def test_cavity_updates_copy_less_than_once_per_link():
    fn, u0, nu = CASES["small_cavity"]
    transform = grad(fn, wrt=0)
    graph = transform.ir_for(_types(u0, nu))[0]
    links = sum(e.prim == "index_update" and e.inputs[0].type.shape == u0.shape
                for e in walk_eqns(graph))
    assert _memcpy_sites(_llvm(transform, (u0, nu))) <= links // 3


@pytest.mark.parametrize("name", ["boundary_convection", "neumann_poisson", "small_cavity"])
def test_adjoint_loops_zero_the_cotangent_boundary_in_place(name):
    """The adjoint of `u[0, :] = 1.0` (etc.) zeroes rows of the carried cotangent, then the
    new cotangent is computed into a new buffer from views of it: those updates write into
    the loop's private buffer (the cotangent was copied before them in every step)."""
    fn, u0, p = CASES[name]
    graph = grad(fn, wrt=0).ir_for(_types(u0, p))[0]
    adjoints = [e for e in walk_eqns(graph) if e.prim == "while" and any(
        x.prim == "index_update" and x.params["mode"] == "add" for x in e.params["body"].eqns)]
    assert adjoints
    for loop in adjoints:
        planned = in_place_updates(loop)
        assert planned
        carries = loop.params["body"].inputs[loop.params["n_consts"]:]
        assert all(carries[j].type.shape == u0.shape for j in planned)


@pytest.mark.parametrize("name", ["diffusion_32", "small_cavity"])
def test_row_loops_of_2d_fields_vectorise_without_gathers(name):
    """With rows of 16 or more points, the inner loop keeps its loop (`unroll.disable`): it
    was fully unrolled and the loop over rows vectorised with masked scatters instead."""
    fn, u0, p = CASES[name]
    if name == "small_cavity":  # the cavity at the benchmark's size: rows of 30
        u0 = np.zeros((32, 32))
    text = _llvm(grad(fn, wrt=0), (u0, p))
    optimized = str(parse_and_optimize(text, host_target_machine()))
    assert "masked.scatter" not in optimized
    if name == "diffusion_32":  # only contiguous slices: no gather either
        assert "masked.gather" not in optimized
    assert "llvm.loop.unroll.disable" in text


def test_short_rows_are_left_to_llvm():
    """Rows shorter than 16 points: no loop metadata (LLVM may unroll them fully)."""
    fn, u0, p = CASES["boundary_convection"]
    assert "llvm.loop" not in _llvm(grad(fn, wrt=0), (u0, p))


@pytest.mark.parametrize("name", sorted(CASES))
def test_value_matches_python(name):
    fn, u0, p = CASES[name]
    np.testing.assert_allclose(jit(fn)(u0.copy(), p), fn(u0.copy(), p), rtol=1e-13)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_eager_tape(name):
    fn, u0, p = CASES[name]
    x = Tensor(u0, requires_grad=True)
    fn(x, p).backward()
    np.testing.assert_allclose(grad(fn, wrt=0)(u0.copy(), p), x.grad.numpy(), rtol=1e-11,
                               atol=1e-13)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_central_differences(name):
    """Along a random direction (the full difference quotient of a 32x32 field is slow)."""
    fn, u0, p = CASES[name]
    v = np.random.default_rng(5).standard_normal(u0.shape)
    eps = 1e-6
    expected = (fn(u0 + eps * v, p) - fn(u0 - eps * v, p)) / (2 * eps)
    g = grad(fn, wrt=0)(u0.copy(), p)
    np.testing.assert_allclose(np.sum(g * v), expected, rtol=1e-6, atol=1e-7)
    expected_p = central_difference_in(fn, (u0, p), 1)
    np.testing.assert_allclose(grad(fn, wrt=1)(u0.copy(), p), expected_p, rtol=1e-6,
                               atol=1e-7)
