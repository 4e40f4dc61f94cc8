"""Complex decompositions in compiled code and on the tape (issue 27): `eigh` / `eigvalsh` /
`svd` / `eig` give numpy's values bit for bit on both backends (LAPACK's complex routines;
`dgeev` for a real matrix's `eig`), their gradients (JAX's convention) agree with central
differences along the real and imaginary directions and with the eager tape (PyTorch's, the
conjugate), forward mode with differences, second derivatives with second differences; the
derivatives of `abs` / `sqrt` / `log` hold where a part is exactly zero."""

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit, jvp

from ..support import complex_programs as P
from .test_complex_numbers import (
    BACKENDS,
    conjugate_gradient_by_differences,
    random_complex,
    tape_gradient,
)

SQUARE, WIDE, TALL = (4, 4), (3, 5), (5, 3)
VALUE_CASES = [
    (P.eigh_parts, SQUARE), (P.eigh_upper_parts, SQUARE), (P.eigvalsh_values, SQUARE),
    (P.svd_parts, WIDE), (P.svd_parts, TALL), (P.svd_full_parts, TALL),
    (P.singular_values, WIDE), (P.eig_parts, SQUARE), (P.eigh_parts, (2, 3, 3)),
    (P.svd_parts, (2, 4, 3)), (P.eig_parts, (2, 3, 3)), (P.eigenvalues, SQUARE),
    (P.eigenvalues, (2, 3, 3))]


def _ids(case):
    fn, shape = case
    return f"{fn.__name__}-{'x'.join(map(str, shape))}"


def _leaves(value):
    return list(value) if isinstance(value, tuple) else [value]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", VALUE_CASES, ids=_ids)
def test_values_are_numpys_bit_for_bit(case, backend):
    fn, shape = case
    a = random_complex(shape, 3)
    for got, want in zip(_leaves(jit(fn, backend=backend)(a)), _leaves(fn(a)), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_precision_gives_numpys_types(backend):
    a = random_complex(SQUARE, 4, np.complex64)
    for fn in (P.eigh_parts, P.svd_parts, P.eig_parts):
        for got, want in zip(_leaves(jit(fn, backend=backend)(a)), _leaves(fn(a)),
                             strict=True):
            assert got.dtype == want.dtype
            np.testing.assert_allclose(np.abs(got), np.abs(want), rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_eig_of_a_real_matrix_is_numpys_and_refuses_all_real_eigenvalues(backend):
    a = np.random.default_rng(5).standard_normal((6, 6))
    for got, want in zip(jit(P.eig_parts, backend=backend)(a), P.eig_parts(a), strict=True):
        assert got.dtype == np.complex128 == want.dtype
        np.testing.assert_array_equal(got, want)
    symmetric = a + a.T
    with pytest.raises(TypeError, match=r"complex_programs.py:\d+: np.linalg.eig of a real "
                                        r"matrix whose eigenvalues are all real"):
        jit(P.eig_parts, backend=backend)(symmetric)
    got = jit(P.eig_parts, backend=backend)(symmetric + 0j)
    np.testing.assert_array_equal(got[0], np.linalg.eig(symmetric + 0j)[0])


LOSSES = [(P.eigh_loss, SQUARE), (P.eigh_upper_loss, SQUARE), (P.svd_loss, WIDE),
          (P.svd_loss, TALL), (P.svd_loss, SQUARE), (P.singular_values_loss, TALL),
          (P.eig_loss, SQUARE), (P.svd_rank_one_loss, WIDE), (P.svd_rank_one_loss, TALL),
          (P.eigenvalues_loss, SQUARE)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", LOSSES, ids=_ids)
def test_gradients_agree_with_differences_and_the_tape(case, backend):
    fn, shape = case
    a = random_complex(shape, 7)
    got = grad(fn, backend=backend)(a)
    want = conjugate_gradient_by_differences(fn, (a,), 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, tape_gradient(fn, (a,))[0], rtol=1e-10, atol=1e-11)


def test_gradient_of_eig_of_a_real_matrix_is_real():
    a = np.random.default_rng(8).standard_normal((5, 5))
    got = grad(P.eig_loss)(a)
    assert got.dtype == np.float64
    want = conjugate_gradient_by_differences(P.eig_loss, (a + 0j,), 0).real
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, tape_gradient(P.eig_loss, (a,))[0], rtol=1e-10)


@pytest.mark.parametrize("case", LOSSES, ids=_ids)
def test_forward_mode_is_the_directional_derivative(case):
    fn, shape = case
    a, t = random_complex(shape, 9), random_complex(shape, 10)
    _, got = jvp(fn, (a,), (t,))
    eps = 1e-6
    want = (fn(a + eps * t) - fn(a - eps * t)) / (2 * eps)
    assert got == pytest.approx(want, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("fn", [P.eig_of_parts_loss, P.eigh_of_parts_loss],
                         ids=lambda f: f.__name__)
def test_second_derivatives_agree_with_second_differences(fn):
    rng = np.random.default_rng(11)
    x, y, u, v = (rng.standard_normal((5, 5)) for _ in range(4))
    h = hessian(fn, wrt=(0, 1))(x, y)
    direction = np.concatenate([u.ravel(), v.ravel()])
    blocks = np.block([[np.reshape(h[i][j], (25, 25)) for j in range(2)] for i in range(2)])
    step = 1e-4
    second = (fn(x + step * u, y + step * v) - 2 * fn(x, y) +
              fn(x - step * u, y - step * v)) / step ** 2
    assert direction @ blocks @ direction == pytest.approx(second, rel=1e-4)


@pytest.mark.parametrize("fn, point", [(P.sqrt_real_part, (0.0, 2.0)),
                                       (P.sqrt_real_part, (3.0, 0.0)),
                                       (P.magnitude, (0.0, 2.0)), (P.magnitude, (2.0, 0.0)),
                                       (P.log_magnitude, (0.0, -2.0)),
                                       (P.log_magnitude, (-2.0, 0.0))],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_derivatives_where_a_part_is_exactly_zero(fn, point):
    """A real number as a complex one has an imaginary part exactly 0 (and LAPACK's
    eigenvectors have real components): the derivatives must not see |0|'s kink."""
    eps = 1e-5
    x, y = point
    got = grad(fn, wrt=(0, 1))(x, y)
    want = ((fn(x + eps, y) - fn(x - eps, y)) / (2 * eps),
            (fn(x, y + eps) - fn(x, y - eps)) / (2 * eps))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    h = hessian(fn, wrt=(0, 1))(x, y)
    for k, (dx, dy) in enumerate(((eps, 0.0), (0.0, eps))):
        second = (fn(x + dx, y + dy) - 2 * fn(x, y) + fn(x - dx, y - dy)) / eps ** 2
        assert h[k][k] == pytest.approx(second, rel=1e-4, abs=1e-5)


def test_gradients_agree_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def eigh_loss(a):
        w, v = jnp.linalg.eigh(a, UPLO="L", symmetrize_input=False)
        return jnp.sum(w ** 3 * P.WEIGHTS[0, :4]) + jnp.sum(jnp.abs(v) ** 3 * P.WEIGHTS[:4, :4])

    def svd_loss(a):
        u, s, vt = jnp.linalg.svd(a, full_matrices=False)
        return jnp.sum(jnp.abs(u) ** 3 * P.WEIGHTS[:3, :3]) + jnp.sum(s ** 3) + \
            jnp.sum(jnp.abs(vt) ** 3 * P.WEIGHTS[:3, :5])

    a = random_complex(SQUARE, 12)
    hermitian = np.tril(a, -1) + np.tril(a, -1).conj().T + np.diag(a.diagonal().real)
    whole = np.asarray(jax.grad(eigh_loss)(hermitian))
    # numpy reads the lower triangle: an entry below the diagonal stands for itself and,
    # conjugated, for its mirror; the diagonal's imaginary part is not read
    want = np.tril(whole, -1) + np.triu(whole, 1).conj().T + np.diag(whole.diagonal().real)
    np.testing.assert_allclose(grad(P.eigh_loss)(hermitian), want, rtol=1e-9, atol=1e-10)
    b = random_complex(WIDE, 13)
    np.testing.assert_allclose(grad(P.svd_loss)(b), np.asarray(jax.grad(svd_loss)(b)),
                               rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shapes", [((4, 4), (4,)), ((4, 4), (4, 2)), ((2, 3, 3), (2, 3, 1))],
                         ids=str)
def test_solve_and_inv_of_complex_matrices(shapes, backend):
    """Through the real system of twice the size: numpy's values to rounding (not its
    bits: numpy calls zgesv)."""
    a, b = random_complex(shapes[0], 14), random_complex(shapes[1], 15)
    for got, want in zip(jit(P.solve_and_inverse, backend=backend)(a, b),
                         P.solve_and_inverse(a, b), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("real_rhs", [False, True])
def test_solve_and_inv_gradients(real_rhs):
    a = random_complex((4, 4), 16)
    b = random_complex(4, 17).real if real_rhs else random_complex(4, 17)
    got = grad(P.solve_loss, wrt=(0, 1))(a, b)
    tape = tape_gradient(P.solve_loss, (a, b))
    for k in range(2):
        # a real b's derivative: the real part of the one along complex b's directions
        want = conjugate_gradient_by_differences(P.solve_loss, (a, b + 0j), k)
        want = want.real if k == 1 and real_rhs else want
        np.testing.assert_allclose(got[k], want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[k], tape[k], rtol=1e-10, atol=1e-11)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 3, 3)], ids=str)
def test_determinants_are_numpys_bit_for_bit(shape, backend):
    a = random_complex(shape, 18)
    for got, want in zip(jit(P.determinants, backend=backend)(a), P.determinants(a),
                         strict=True):
        np.testing.assert_array_equal(got, want)
    singular = np.ones((3, 3), complex)
    got = jit(P.determinants, backend=backend)(singular)
    assert (got[1], got[2]) == (0, -np.inf)


def test_determinant_derivatives():
    a, t = random_complex((4, 4), 19), random_complex((4, 4), 20)
    got = grad(P.determinant_loss)(a)
    np.testing.assert_allclose(got, conjugate_gradient_by_differences(P.determinant_loss,
                                                                      (a,), 0),
                               rtol=1e-5, atol=1e-6)
    _, tangent = jvp(P.determinant_loss, (a,), (t,))
    eps = 1e-6
    want = (P.determinant_loss(a + eps * t) - P.determinant_loss(a - eps * t)) / (2 * eps)
    assert tangent == pytest.approx(want, rel=1e-6)
