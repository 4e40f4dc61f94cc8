"""The Cholesky factor's adjoint (`derivatives/linalg.py`) is two triangular solves against
the factor, as JAX computes it, not an inverse and two matrix products: the compiled
gradient's graph says so, and its values match central differences and the eager tape at a
size whose solves cross the LAPACK copies' tiles.
"""

from __future__ import annotations

import numpy as np

from adlite.compiler import grad
from adlite.compiler.ir.core import Type, walk_eqns
from adlite.runtime import Tensor
from benchmarks.linalg import cholesky_logdet

from ..support.gradients import central_differences


def _spd(n, seed=0):
    m = np.random.default_rng(seed).standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def test_the_adjoint_is_two_triangular_solves():
    graph, _ = grad(cholesky_logdet).ir_for((Type("f64", (40, 40)),))
    prims = [e.prim for e in walk_eqns(graph)]
    assert prims.count("solve_triangular") == 2, prims
    assert not {"inv", "solve"} & set(prims), prims


def test_gradient_matches_references():
    a = _spd(37)
    g = grad(cholesky_logdet)(a)
    t = Tensor(a, requires_grad=True)
    cholesky_logdet(t).backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-10, atol=1e-12)
    small = _spd(6, seed=1)
    np.testing.assert_allclose(grad(cholesky_logdet)(small),
                               central_differences(cholesky_logdet, (small,))[0],
                               rtol=1e-6, atol=1e-8)
