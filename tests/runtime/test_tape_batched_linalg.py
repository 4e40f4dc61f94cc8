"""Stacks of matrices on the eager tape: numpy's batched linear algebra (operands `(..., m, n)`)
and scipy.linalg's, for batch shapes (2,) and (2, 3) and matrices of order 1 and 3.

For each function the value is numpy's (scipy's) on the plain stack, to the last bit, and the
gradient of a weighted sum of its results equals both the gradients taken matrix by matrix on
the 2-D tape path (a loop, operands broadcast per matrix, summed back) and central
differences of numpy's own function. Eigen- and singular vectors, defined up to their sign,
enter squared. Second order on stacks: Hessian-vector products by double backward against
differences of the tape's first-order gradient. The shared forward-mode rules (which only the
compiler runs, on 2-D operands) run on stacks through the tape's vocabulary against
directional differences of the primitives. `scipy.integrate.odeint` refuses Tensors that
require grad with a TypeError naming it.
"""

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.integrate
import scipy.linalg as sl

from adlite import derivatives
from adlite.runtime import autograd, tensor
from adlite.runtime import linalg as tape_linalg
from adlite.runtime.primitives import PRIMITIVES
from adlite.runtime.vocabulary import TENSOR_OPS

from ..support.gradients import central_differences

BATCHES = {"b2": (2,), "b2x3": (2, 3)}
ORDERS = (1, 3)


class _Plain:
    """scipy.linalg's functions, on arrays."""

    solve_triangular, cholesky = sl.solve_triangular, sl.cholesky
    cho_factor, cho_solve = sl.cho_factor, sl.cho_solve


class _Tape:
    """The tape's scipy.linalg functions (scipy's own do not dispatch on Tensors)."""

    solve_triangular, cholesky = tape_linalg.solve_triangular, tape_linalg.scipy_cholesky
    cho_factor, cho_solve = tape_linalg.cho_factor, tape_linalg.cho_solve


# ---- operands -----------------------------------------------------------------------------

def _general(rng, batch, n):
    """Well-conditioned square matrices."""
    return rng.standard_normal((*batch, n, n)) + (n + 2) * np.eye(n)


def _positive_definite(rng, batch, n):
    b = rng.standard_normal((*batch, n, n))
    return b @ np.swapaxes(b, -1, -2) + n * np.eye(n)


def _orthogonal(rng, batch, n):
    return np.linalg.qr(rng.standard_normal((*batch, n, n)))[0]


def _with_singular_values(rng, batch, m, n):
    """`U diag(s) V^T` with singular values at least 0.5 apart (and from 0)."""
    k = min(m, n)
    s = np.arange(1.0, k + 1.0) + rng.uniform(0.0, 0.5, (*batch, k))
    u, v = _orthogonal(rng, batch, m)[..., :k], _orthogonal(rng, batch, n)[..., :k]
    return (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)


def _symmetric_read_lower(rng, batch, n):
    """A symmetric matrix with eigenvalues at least 0.5 apart in the lower triangle, noise in
    the strictly upper one (which numpy's UPLO='L' never reads)."""
    q = _orthogonal(rng, batch, n)
    w = np.arange(1.0, n + 1.0) + rng.uniform(0.0, 0.5, (*batch, n))
    sym = (q * w[..., None, :]) @ np.swapaxes(q, -1, -2)
    return np.tril(sym) + np.triu(rng.standard_normal((*batch, n, n)), 1)


OPERANDS: dict[str, Callable] = {
    "general": _general,
    "spd": _positive_definite,
    "sym": _symmetric_read_lower,
    "sym_upper": lambda rng, batch, n: np.swapaxes(_symmetric_read_lower(rng, batch, n), -1,
                                                   -2),
    "tall": lambda rng, batch, n: _with_singular_values(rng, batch, n + 1, n),
    "wide": lambda rng, batch, n: _with_singular_values(rng, batch, n, n + 1),
    "square": lambda rng, batch, n: _with_singular_values(rng, batch, n, n),
    "columns": lambda rng, batch, n: rng.standard_normal((*batch, n, 2)),
    "shared_columns": lambda rng, batch, n: rng.standard_normal((n, 2)),
    "shared_general": lambda rng, batch, n: _general(rng, (), n),
    "vector": lambda rng, batch, n: rng.standard_normal(n),
}
CORES = {"columns": 2, "shared_columns": 2, "vector": 1}  # matrix operands have 2 core axes


# ---- cases --------------------------------------------------------------------------------

def _squares(*which):
    """The results with those at positions `which` squared (vectors defined up to sign)."""
    return lambda results: [r * r if i in which else r for i, r in enumerate(results)]


@dataclass(frozen=True)
class Case:
    name: str
    call: Callable  # call(la, *operands): the function's results (la: _Plain or _Tape)
    operands: tuple[str, ...]
    terms: Callable = list  # the results that are weighted and summed
    rtol: float = 0.0  # of the values: the last bit unless the tape computes them otherwise

    def results(self, la, operands) -> list:
        out = self.call(la, *operands)
        return list(out) if isinstance(out, tuple) else [out]


def _cho_solve(la, a, b, lower):
    return la.cho_solve(la.cho_factor(a, lower=lower), b)


CASES = [
    Case("inv", lambda la, a: np.linalg.inv(a), ("general",)),
    Case("solve-matrix", lambda la, a, b: np.linalg.solve(a, b), ("general", "columns")),
    Case("solve-vector", lambda la, a, b: np.linalg.solve(a, b), ("general", "vector")),
    Case("solve-shared-b", lambda la, a, b: np.linalg.solve(a, b),
         ("general", "shared_columns")),
    Case("solve-shared-a", lambda la, a, b: np.linalg.solve(a, b),
         ("shared_general", "columns")),
    Case("det", lambda la, a: np.linalg.det(a), ("general",)),
    Case("slogdet", lambda la, a: np.linalg.slogdet(a), ("general",),
         lambda r: [r[0] * r[1]]),
    Case("cholesky", lambda la, a: np.linalg.cholesky(a), ("spd",)),
    Case("cholesky-upper", lambda la, a: np.linalg.cholesky(a, upper=True), ("spd",)),
    Case("eigh", lambda la, a: np.linalg.eigh(a), ("sym",), _squares(1)),
    Case("eigh-upper", lambda la, a: np.linalg.eigh(a, UPLO="U"), ("sym_upper",),
         _squares(1)),
    Case("eigvalsh", lambda la, a: np.linalg.eigvalsh(a), ("sym",)),
    Case("svd-square", lambda la, a: np.linalg.svd(a), ("square",), _squares(0, 2)),
    Case("svd-tall-reduced", lambda la, a: np.linalg.svd(a, full_matrices=False), ("tall",),
         _squares(0, 2)),
    Case("svd-wide-reduced", lambda la, a: np.linalg.svd(a, full_matrices=False), ("wide",),
         _squares(0, 2)),
    # full matrices of a non-square stack: the extra singular vectors are not unique
    Case("svd-tall-full", lambda la, a: np.linalg.svd(a), ("tall",),
         lambda r: [r[0][..., :-1] ** 2, r[1], r[2] ** 2]),
    Case("svdvals-tall", lambda la, a: np.linalg.svd(a, compute_uv=False), ("tall",)),
    Case("svdvals-wide", lambda la, a: np.linalg.svd(a, full_matrices=False,
                                                     compute_uv=False), ("wide",)),
    Case("pinv-tall", lambda la, a: np.linalg.pinv(a), ("tall",)),
    Case("pinv-wide", lambda la, a: np.linalg.pinv(a), ("wide",)),
    Case("qr-tall", lambda la, a: np.linalg.qr(a), ("tall",)),
    Case("qr-complete-square", lambda la, a: np.linalg.qr(a, mode="complete"), ("square",)),
    Case("qr-r", lambda la, a: np.linalg.qr(a, mode="r"), ("tall",)),
    Case("norm-2", lambda la, a: np.linalg.norm(a, 2, axis=(-2, -1)), ("tall",)),
    Case("norm-minus-2", lambda la, a: np.linalg.norm(a, -2, axis=(-1, -2)), ("wide",)),
    Case("norm-nuc-keepdims", lambda la, a: np.linalg.norm(a, "nuc", axis=(-2, -1),
                                                           keepdims=True), ("tall",)),
    Case("norm-fro", lambda la, a: np.linalg.norm(a, "fro", axis=(-2, -1)), ("wide",)),
    Case("norm-default", lambda la, a: np.linalg.norm(a, axis=(-2, -1)), ("tall",)),
    Case("norm-1", lambda la, a: np.linalg.norm(a, 1, axis=(-2, -1)), ("general",)),
    Case("norm-inf", lambda la, a: np.linalg.norm(a, np.inf, axis=(-2, -1)), ("general",)),
    Case("cond", lambda la, a: np.linalg.cond(a), ("square",)),
    Case("cond-2", lambda la, a: np.linalg.cond(a, 2), ("tall",)),
    Case("cond-minus-2", lambda la, a: np.linalg.cond(a, -2), ("wide",)),
    Case("scipy-cholesky", lambda la, a: la.cholesky(a), ("spd",)),
    Case("scipy-cholesky-lower", lambda la, a: la.cholesky(a, lower=True), ("spd",)),
    Case("scipy-cho-factor", lambda la, a: la.cho_factor(a)[0], ("spd",)),
    # scipy's potrs against the tape's two triangular solves: a few ulps apart, as in 2-D
    Case("scipy-cho-solve-matrix", lambda la, a, b: _cho_solve(la, a, b, False),
         ("spd", "columns"), rtol=1e-14),
    Case("scipy-cho-solve-vector", lambda la, a, b: _cho_solve(la, a, b, True),
         ("spd", "vector"), rtol=1e-14),
    Case("scipy-solve-triangular-lower", lambda la, a, b: la.solve_triangular(a, b, lower=True),
         ("general", "columns")),
    Case("scipy-solve-triangular-trans-vector",
         lambda la, a, b: la.solve_triangular(a, b, trans=1), ("general", "vector")),
    Case("scipy-solve-triangular-unit-shared",
         lambda la, a, b: la.solve_triangular(a, b, trans="T", lower=True, unit_diagonal=True),
         ("general", "shared_columns")),
]
CASE_IDS = [c.name for c in CASES]
SHAPES = [(batch, n) for batch in BATCHES.values() for n in ORDERS]
SHAPE_IDS = [f"{name}-n{n}" for name in BATCHES for n in ORDERS]


def _seed(*parts) -> int:
    return zlib.crc32(repr(parts).encode())


def _operands(case, batch, n):
    rng = np.random.default_rng(_seed(case.name, batch, n))
    return [OPERANDS[kind](rng, batch, n) for kind in case.operands]


def _weights(case, operands):
    rng = np.random.default_rng(_seed("weights", case.name, operands[0].shape))
    return [rng.standard_normal(np.shape(t)) for t in case.terms(case.results(_Plain,
                                                                              operands))]


def _loss(case, la, operands, weights):
    terms = case.terms(case.results(la, operands))
    return sum(np.sum(w * t) for w, t in zip(weights, terms, strict=True))


def _taped_gradients(case, operands, weights):
    tensors = [tensor(x, requires_grad=True) for x in operands]
    _loss(case, _Tape, tensors, weights).backward()
    return [t.grad.data for t in tensors]


def _sum_to(g, shape):
    """`g` summed over the leading axes broadcasting added to `shape`."""
    return g.reshape(-1, *shape).sum(axis=0)


def _matrix_by_matrix(case, operands, weights):
    """The gradients taken on the 2-D tape path, one matrix (and its operands) at a time."""
    cores = [CORES.get(kind, 2) for kind in case.operands]
    cores_shapes = [x.shape[x.ndim - c:] for x, c in zip(operands, cores, strict=True)]
    batch = np.broadcast_shapes(*(x.shape[:x.ndim - c] for x, c in
                                  zip(operands, cores, strict=True)))
    full = [np.broadcast_to(x, (*batch, *core)) for x, core in
            zip(operands, cores_shapes, strict=True)]
    grads = [np.zeros(x.shape) for x in full]
    for i in np.ndindex(batch):
        each = _taped_gradients(case, [x[i] for x in full], [w[i] for w in weights])
        for g, gi in zip(grads, each, strict=True):
            g[i] = gi
    return [_sum_to(g, x.shape) for g, x in zip(grads, operands, strict=True)]


@pytest.mark.parametrize("batch,n", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_values_are_numpys_on_the_stack(case, batch, n):
    operands = _operands(case, batch, n)
    expected = case.results(_Plain, operands)
    got = case.results(_Tape, [tensor(x) for x in operands])
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(np.asarray(g.data), e, rtol=case.rtol, atol=0.0)


@pytest.mark.parametrize("batch,n", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_gradients_match_the_matrix_by_matrix_tape_and_differences(case, batch, n):
    operands = _operands(case, batch, n)
    weights = _weights(case, operands)
    got = _taped_gradients(case, operands, weights)
    differences = central_differences(lambda *xs: _loss(case, _Plain, xs, weights), operands)
    for g, each, d in zip(got, _matrix_by_matrix(case, operands, weights), differences,
                          strict=True):
        np.testing.assert_allclose(g, each, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g, d, rtol=1e-6, atol=1e-8)


# ---- second order -------------------------------------------------------------------------

SECOND_ORDER = [c for c in CASES if c.name in (
    "inv", "solve-matrix", "solve-vector", "solve-shared-b", "det", "slogdet", "cholesky",
    "cholesky-upper", "eigh", "svd-tall-reduced", "qr-tall", "scipy-cholesky",
    "scipy-cho-solve-vector", "scipy-solve-triangular-lower")]


def _gradient_along(case, operands, weights, directions):
    """`sum(v * grad)` over the operands, the gradient by the tape (first order)."""
    grads = _taped_gradients(case, operands, weights)
    return sum(np.sum(v * g) for v, g in zip(directions, grads, strict=True))


@pytest.mark.parametrize("case", SECOND_ORDER, ids=[c.name for c in SECOND_ORDER])
def test_double_backward_against_differences_of_the_gradient(case):
    batch, n = (2,), 3
    operands = _operands(case, batch, n)
    weights = _weights(case, operands)
    rng = np.random.default_rng(_seed("directions", case.name))
    directions = [rng.standard_normal(x.shape) for x in operands]
    tensors = [tensor(x, requires_grad=True) for x in operands]
    grads = autograd.grad(_loss(case, _Tape, tensors, weights), tensors, create_graph=True)
    sum(np.sum(v * g) for v, g in zip(directions, grads, strict=True)).backward()
    expected = central_differences(
        lambda *xs: _gradient_along(case, xs, weights, directions), operands)
    for t, d in zip(tensors, expected, strict=True):
        np.testing.assert_allclose(t.grad.data, d, rtol=1e-6, atol=1e-8)


# ---- the shared forward-mode rules on stacks --------------------------------------------

JVP_CASES = [
    ("solve", ("general", "columns"), {}),
    ("solve", ("general", "shared_columns"), {}),
    ("inv", ("general",), {}),
    ("det", ("general",), {}),
    ("slogdet", ("general",), {}),
    ("cholesky", ("spd",), {}),
    ("scipy_cholesky", ("spd",), {"lower": False}),
    ("solve_triangular", ("general", "columns"),
     {"trans": 1, "lower": True, "unit_diagonal": False}),
    ("eigh", ("sym",), {"uplo": "L"}),
    ("eigvalsh", ("sym",), {"uplo": "L"}),
    ("svd", ("tall",), {"full": False}),
    ("svd", ("square",), {"full": True}),
    ("svdvals", ("wide",), {}),
    ("qr", ("tall",), {"complete": False}),
]
JVP_IDS = [f"{name}-{'-'.join(kinds)}-{len(params)}" for name, kinds, params in JVP_CASES]


def _symmetric_in_the_read_triangle(name, kinds, operands):
    """eigh's operand is symmetric (the tape builds it from the triangle numpy reads)."""
    if name not in ("eigh", "eigvalsh"):
        return operands
    a = np.tril(operands[0])
    return [a + np.swapaxes(np.tril(a, -1), -1, -2)]


def _jvp(name, inputs, outputs, tangents, params):
    formula = derivatives.FORMULAS[name]
    shapes = [x.shape for x in inputs]
    wrap = [[tensor(x) for x in xs] for xs in (tangents, inputs, outputs)]
    if isinstance(formula, derivatives.Matrix):
        (t,) = formula.jvp(TENSOR_OPS, *wrap, shapes, **params)
    else:
        (t,) = formula.jvp(TENSOR_OPS, *wrap, shapes, params)
    return t.data


@pytest.mark.parametrize("name,kinds,params", JVP_CASES, ids=JVP_IDS)
def test_forward_rules_on_stacks_against_directional_differences(name, kinds, params):
    batch, n = (2, 3), 3
    rng = np.random.default_rng(_seed("jvp", name, kinds))
    inputs = _symmetric_in_the_read_triangle(
        name, kinds, [OPERANDS[kind](rng, batch, n) for kind in kinds])
    tangents = _symmetric_in_the_read_triangle(
        name, kinds, [rng.standard_normal(x.shape) for x in inputs])
    impl = PRIMITIVES[name].impl
    eps = 1e-6
    up, down = (impl(*[x + s * eps * t for x, t in zip(inputs, tangents, strict=True)],
                     **params) for s in (1, -1))
    got = _jvp(name, inputs, [impl(*inputs, **params)], tangents, params)
    np.testing.assert_allclose(got, (up - down) / (2 * eps), rtol=1e-6, atol=1e-8)


# ---- scipy.integrate.odeint ------------------------------------------------------------------

def _decay(y, t, k):
    return -k * y


@pytest.mark.parametrize("where", ["y0", "args"])
def test_odeint_refuses_tensors_that_require_grad_naming_itself(where):
    y0, t, k = np.array([1.0, 2.0]), np.linspace(0.0, 1.0, 5), np.array(0.5)
    values = {"y0": y0, "args": k}
    values[where] = tensor(values[where], requires_grad=True)
    with pytest.raises(TypeError, match=r"scipy\.integrate\.odeint cannot take adlite Tensors "
                                        r"that require grad.*compiled `grad`"):
        scipy.integrate.odeint(_decay, values["y0"], t, args=(values["args"],))


def test_odeint_takes_tensors_without_grad_as_arrays():
    t = np.linspace(0.0, 1.0, 5)
    got = scipy.integrate.odeint(_decay, tensor([1.0, 2.0]), t, args=(tensor(0.5),))
    np.testing.assert_array_equal(got, scipy.integrate.odeint(_decay, np.array([1.0, 2.0]), t,
                                                              args=(0.5,)))
