"""np.linalg in compiled code (`solve`, `inv`, `det`, `slogdet`, `cholesky`): values against
numpy's, gradients against central differences (plain numpy) and the eager tape, forward mode
and Hessians, and numpy's LinAlgError for singular / not positive definite matrices."""

import zlib

import numpy as np
import pytest

from adlite import compiler
from adlite.compiler import AdliteSyntaxError
from adlite.runtime import tensor

from ..support.array_programs import LINALG, cholesky, inv, solve
from ..support.gradients import central_differences

BACKENDS = ["llvm", "python"]


def operand(kind, rng):
    if kind == "matrix":
        return rng.standard_normal((3, 3)) * 0.5 + 3.0 * np.eye(3)
    if kind == "free":
        return rng.standard_normal((3, 3))
    return rng.standard_normal({"vector": (3,), "rhs": (3, 2)}[kind])


def taped(fn, args):
    tensors = [tensor(a, requires_grad=True) for a in args]
    fn(*tensors).backward()
    return [t.grad.data for t in tensors]


def _args(name, kinds):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return [operand(k, rng) for k in kinds]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,fn,kinds", LINALG, ids=[c[0] for c in LINALG])
def test_values_and_gradients_against_numpy_differences_and_the_tape(backend, name, fn, kinds):
    args = _args(name, kinds)
    assert compiler.jit(fn, backend=backend)(*args) == pytest.approx(fn(*args), rel=1e-12)
    compiled = compiler.grad(fn, wrt=tuple(range(len(args))), backend=backend)(*args)
    compiled = compiled if isinstance(compiled, tuple) else (compiled,)
    for c, d, t in zip(compiled, central_differences(fn, args), taped(fn, args), strict=True):
        np.testing.assert_allclose(c, d, atol=1e-7, rtol=1e-7)
        np.testing.assert_allclose(c, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,fn,kinds", LINALG, ids=[c[0] for c in LINALG])
def test_forward_mode_against_directional_differences(name, fn, kinds):
    args = _args(name, kinds)
    rng = np.random.default_rng(5)
    directions = [rng.standard_normal(a.shape) for a in args]
    value, tangent = compiler.jvp(fn, args, directions)
    eps = 1e-6
    expected = (fn(*[a + eps * d for a, d in zip(args, directions, strict=True)])
                - fn(*[a - eps * d for a, d in zip(args, directions, strict=True)])) / (2 * eps)
    assert value == pytest.approx(fn(*args), rel=1e-12)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-7)


A = np.array([[4.0, 1.0, 0.5], [1.2, 3.0, 0.2], [0.3, -0.1, 2.0]])
B = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]])
SPD = A @ A.T + np.eye(3)


def _logdet(a):
    return np.linalg.slogdet(a)[1]


def _det(a):
    return np.linalg.det(a)


def _numpy_hessian(gradient, a, eps=1e-6):
    """Central differences of a gradient written with numpy: H[i, j] = d grad[j] / d a[i]."""
    rows = []
    for i in np.ndindex(a.shape):
        step = np.zeros_like(a)
        step[i] = eps
        rows.append(((gradient(a + step) - gradient(a - step)) / (2 * eps)).ravel())
    return np.array(rows)


@pytest.mark.parametrize("fn,gradient", [
    (_logdet, lambda a: np.linalg.inv(a).T),
    (_det, lambda a: np.linalg.det(a) * np.linalg.inv(a).T)], ids=["logdet", "det"])
def test_hessians_against_differences_of_the_numpy_gradient(fn, gradient):
    h = compiler.hessian(fn)(A)
    np.testing.assert_allclose(np.reshape(h, (9, 9)), _numpy_hessian(gradient, A),
                               rtol=1e-6, atol=1e-7)


def _cholesky_sum(m, k):
    return np.sum(np.sin(np.linalg.cholesky(m @ m.T + k @ k.T)))


def test_cholesky_hessian_against_differences_of_the_tapes_gradient():
    def tape_gradient(m):
        return taped(lambda m: _cholesky_sum(m, tensor(A)), [m])[0]

    m = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [0.0, 0.2, 0.6]])
    h = compiler.hessian(_cholesky_sum)(m, A)
    np.testing.assert_allclose(np.reshape(h, (9, 9)), _numpy_hessian(tape_gradient, m),
                               rtol=1e-6, atol=1e-7)


def _all_functions(a, b, spd):
    sign, logdet = np.linalg.slogdet(a)
    return (np.linalg.solve(a, b), np.linalg.solve(a, b[:, 0]), np.linalg.inv(a),
            np.linalg.det(a), sign, logdet, np.linalg.cholesky(spd),
            np.linalg.cholesky(spd, upper=True))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_values_are_numpys(backend, dtype):
    args = [A.astype(dtype), B.astype(dtype), SPD.astype(dtype)]
    compiled = compiler.jit(_all_functions, backend=backend)(*args)
    rtol = 1e-12 if dtype == np.float64 else 2e-6
    for c, e in zip(compiled, _all_functions(*args), strict=True):
        np.testing.assert_allclose(c, e, rtol=rtol, atol=rtol)
        if np.ndim(e):
            assert c.dtype == e.dtype


def _negative_det(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign, logdet


def test_slogdet_sign_of_a_negative_determinant():
    a = A[[1, 0, 2]]  # one row swap: the determinant changes sign
    for backend in BACKENDS:
        sign, logdet = compiler.jit(_negative_det, backend=backend)(a)
        expected = np.linalg.slogdet(a)
        assert (sign, logdet) == (pytest.approx(expected[0]), pytest.approx(expected[1]))
        assert sign == -1.0


SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 1.0]])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", [(solve, (SINGULAR, B)), (inv, (SINGULAR,)),
                                     (cholesky, (A - 3.5 * np.eye(3),))],
                         ids=["solve", "inv", "cholesky"])
def test_singular_and_indefinite_matrices_raise_numpys_error(backend, fn, args):
    with pytest.raises(np.linalg.LinAlgError) as numpy_error:
        fn(*args)
    with pytest.raises(np.linalg.LinAlgError) as compiled_error:
        compiler.jit(fn, backend=backend)(*args)
    assert type(compiled_error.value) is type(numpy_error.value)
    assert str(compiled_error.value) == str(numpy_error.value)


def _det_and_slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.linalg.det(a), sign, logdet


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_singular_matrix_has_numpys_determinant(backend):
    assert compiler.jit(_det_and_slogdet, backend=backend)(SINGULAR) == \
        (0.0, 0.0, -np.inf) == tuple(_det_and_slogdet(SINGULAR))


def _with_nans(a, b):
    sign, logdet = np.linalg.slogdet(a)
    return np.linalg.cholesky(a), np.linalg.solve(a, b), np.linalg.det(a), sign, logdet


@pytest.mark.parametrize("backend", BACKENDS)
def test_nan_matrices_give_nans_and_no_error(backend):
    """As numpy: no LinAlgError, NaN results; Cholesky's NaN pattern is numpy's (which entries
    of `solve` are NaN is OpenBLAS's blocking's business: compiled ones are a superset)."""
    a = np.eye(3)
    a[1, 1] = np.nan
    with np.errstate(invalid="ignore"):
        expected = _with_nans(a, B)
        compiled = compiler.jit(_with_nans, backend=backend)(a, B)
    np.testing.assert_array_equal(compiled[0], expected[0])
    assert np.all(np.isnan(compiled[1])[np.isnan(expected[1])])
    assert np.isnan(compiled[2]) and np.isnan(compiled[4])


def _solve_scalars(p, q):
    m = np.reshape(np.array([p, q, q, p]), (2, 2))
    return np.sum(np.linalg.solve(m, np.array([1.0, 2.0])))


def test_scalar_arguments_with_a_singular_matrix_inside():
    """Code taking only numbers (called through the CPython entry point otherwise) raises
    numpy's LinAlgError too."""
    f = compiler.jit(_solve_scalars)
    assert f(3.0, 1.0) == pytest.approx(_solve_scalars(3.0, 1.0), rel=1e-14)
    with pytest.raises(np.linalg.LinAlgError, match="^Singular matrix$"):
        f(2.0, 2.0)


def _solves_in_a_loop(a, x, n):
    for _ in range(n):
        x = np.linalg.solve(a, x) + x
    return np.sum(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_solves_in_a_loop_and_their_gradient(backend):
    x = np.array([1.0, -1.0, 0.5])
    assert compiler.jit(_solves_in_a_loop, backend=backend)(A, x, 4) == \
        pytest.approx(_solves_in_a_loop(A, x, 4), rel=1e-12)
    g = compiler.grad(_solves_in_a_loop, backend=backend)(A, x, 4)
    expected = central_differences(lambda a: _solves_in_a_loop(a, x, 4), [A])[0]
    np.testing.assert_allclose(g, expected, rtol=1e-7, atol=1e-7)
    with pytest.raises(np.linalg.LinAlgError, match="^Singular matrix$"):
        compiler.jit(_solves_in_a_loop, backend=backend)(SINGULAR, x, 2)


def _mismatched(a, b):
    return np.linalg.solve(a, b)


def _not_square(a):
    return np.linalg.inv(a)


def test_shapes_numpy_rejects_are_refused_at_the_line_with_numpys_message():
    with pytest.raises(ValueError) as numpy_error:
        np.linalg.solve(np.eye(3), np.ones(2))
    with pytest.raises(AdliteSyntaxError) as error:
        compiler.jit(_mismatched)(A, np.ones(2))
    assert str(numpy_error.value) in str(error.value) and "test_linalg.py" in str(error.value)
    with pytest.raises(AdliteSyntaxError, match="Last 2 dimensions of the array must be square"):
        compiler.jit(_not_square)(np.ones((2, 3)))


_first = compiler.grad(_cholesky_sum)


def _cholesky_gradient_along_sin(m, k):
    return np.sum(_first(m, k) * np.sin(m))


def test_cholesky_reverse_over_reverse():
    """grad of an expression of a gradient: differentiates the adjoint code itself (the
    adjoint of `tril_halfdiag`, phi, is phi: an earlier rule transposed it)."""
    def numpy_side(m):
        return np.sum(taped(lambda m: _cholesky_sum(m, tensor(A)), [m])[0] * np.sin(m))

    m = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [0.0, 0.2, 0.6]])
    expected = central_differences(numpy_side, [m])[0]
    for backend in BACKENDS:
        g = compiler.grad(_cholesky_gradient_along_sin, backend=backend)(m, A)
        np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-7)
