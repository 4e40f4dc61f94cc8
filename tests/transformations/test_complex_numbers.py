"""Complex numbers in compiled code (issue 27): values against numpy on both backends (special
values on the branch cuts included), gradients in JAX's convention against central
differences along the real and imaginary directions, against the eager tape (PyTorch's
convention, the conjugate) and against JAX where it is installed; forward mode, vjp,
holomorphic derivatives and the refusals."""

import numpy as np
import pytest

from adlite.compiler import (
    AdliteError,
    grad,
    hessian,
    jacobian,
    jit,
    jvp,
    value_and_grad,
    vjp,
    vmap,
)
from adlite.compiler.arguments import flatten
from adlite.compiler.frontend.to_ir import build_graph
from adlite.compiler.ir.core import Type, walk_eqns
from adlite.runtime import Tensor

from ..support import complex_programs as P

BACKENDS = ("llvm", "python")
SPECIAL = np.array([0j, complex(-0.0, 0.0), complex(0.0, -0.0), -4 + 0j, complex(-4, -0.0),
                    4 + 0j, 1e200 + 1e200j, -1e-300 + 1e-300j, 3 - 4j, -2.5 + 0.1j,
                    complex(-1, -0.0), 1 + 1e-20j, 25 + 3j, -25 - 3j, 0.5j, -0.5j, 1 + 0j,
                    -1 + 0j, 2j, 1e-8 - 2e-8j])


def random_complex(shape, seed, dtype=np.complex128):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def assert_close(got, want, rtol):
    """Elementwise |got - want| <= rtol |want| (NaN where numpy has NaN), same dtype."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    with np.errstate(invalid="ignore"):
        ok = (np.abs(got - want) <= rtol * np.abs(want)) | (got == want) | (
            np.isnan(got) & np.isnan(want))
    assert ok.all(), (got[~ok], want[~ok])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", P.UNARY)
def test_elementwise_functions_give_numpys_values(name, backend):
    f = P.UNARY_FUNCTIONS[name]
    for z, rtol in ((SPECIAL, 1e-13), (random_complex((2, 5), 1), 1e-13),
                    (random_complex(7, 2, np.complex64), 2e-6)):
        with np.errstate(all="ignore"):
            want = f(z)
        if name == "log1p":  # numpy rounds 1 + z first, losing a small z's digits
            small = np.abs(z) < 1e-4
            want[small] = (z - z * z / 2 + z ** 3 / 3)[small]
        assert_close(jit(f, backend=backend)(z), want, rtol)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_arithmetic_and_promotion_are_numpys(backend, dtype):
    z, w = random_complex(6, 3, dtype), random_complex(6, 4, dtype)
    rtol = 1e-13 if dtype == np.complex128 else 1e-5
    assert_close(jit(P.arithmetic, backend=backend)(z, w), P.arithmetic(z, w), rtol)
    x = np.linspace(-1, 2, 6).astype(np.float32 if dtype == np.complex64 else np.float64)
    assert_close(jit(P.mixed, backend=backend)(x, z), P.mixed(x, z), rtol)
    for got, want in zip(jit(P.powers, backend=backend)(z), P.powers(z), strict=True):
        assert_close(got, want, 1e3 * rtol)


def test_division_matches_numpys_bits():
    """numpy's complex division (Smith's algorithm, its order of operations) bit for bit."""
    z, w = random_complex(1000, 5), random_complex(1000, 6)
    w[:3] = [0j, 1e-300 + 1e300j, 3 + 0j]
    with np.errstate(all="ignore"):
        want = z / w
    got = jit(P.divide)(z, w)
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("backend", BACKENDS)
def test_products_reductions_builders_and_selections(backend):
    a, b = random_complex((3, 3), 7), random_complex((3, 3), 8)
    z = random_complex((3, 4), 9)
    z[1, 2] = z[1, 1].real + 5j  # a tie of real parts: max/min look at the imaginary ones
    x = np.array([0.5, -1.5, 2.0])
    for fn, args in ((P.products, (a, b)), (P.reductions, (z,)), (P.builders, (x,)),
                     (P.selections, (z, np.conj(z))), (P.python_numbers, (0.3, -1.2))):
        for got, want in zip(jit(fn, backend=backend)(*args), fn(*args), strict=True):
            if isinstance(want, np.ndarray) and want.dtype == bool:
                assert np.array_equal(got, want)
            elif isinstance(want, np.ndarray):
                assert_close(got, want, 1e-13)
            else:
                assert got == pytest.approx(want, rel=1e-13) and type(got) is type(want) or \
                    isinstance(want, np.generic) and got == pytest.approx(want, rel=1e-13)


def test_arrays_read_from_outside_are_read_at_every_call():
    x = np.array([0.5 + 0.1j, -1.0 + 0j])
    compiled = jit(P.reads_outside)
    assert_close(compiled(x), P.reads_outside(x), 1e-15)
    P.OUTSIDE[0, 0] = 5 - 1j
    try:
        assert_close(compiled(x), P.reads_outside(x), 1e-15)
    finally:
        P.OUTSIDE[0, 0] = 1 + 1j


def test_no_complex_value_reaches_the_ir_the_passes_see():
    """The `complex_pairs` pass leaves real values only (inside loops too)."""
    tree = flatten(random_complex(4, 0), "z")[0]
    for fn, trees in ((P.loss, [tree, tree]), (P.loop_loss, [flatten(0.5j, "c")[0],
                                                             Type("i64")])):
        graph, _, _ = build_graph(fn, trees)
        assert not any(v.type.is_complex for v in graph.inputs)
        assert not any(a.type.is_complex for e in walk_eqns(graph)
                       for a in [*e.inputs, *e.outputs])


# ---- derivatives ---------------------------------------------------------------------------

def conjugate_gradient_by_differences(f, args, k, eps=1e-6):
    """d f / d Re z - i d f / d Im z of argument `k` (JAX's convention), by central
    differences, element by element."""
    z = np.asarray(args[k])
    out = np.zeros(z.shape, complex)
    for index in np.ndindex(z.shape):
        for direction, weight in ((1.0, 1.0), (1j, -1j)):
            moved = []
            for step in (eps, -eps):
                shifted = z.copy()
                shifted[index] += step * direction
                moved.append(f(*args[:k], shifted, *args[k + 1:]))
            out[index] += weight * (moved[0] - moved[1]) / (2 * eps)
    return out


def tape_gradient(f, args):
    """The eager tape's gradients (PyTorch's convention), conjugated into JAX's."""
    tensors = [Tensor(np.asarray(a), requires_grad=True) for a in args]
    f(*tensors).backward()
    return [np.conj(t.grad.data) for t in tensors]


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_agree_with_differences_and_the_tape(backend):
    z, w = random_complex(4, 11), random_complex(4, 12)
    got = grad(P.loss, wrt=(0, 1), backend=backend)(z, w)
    tape = tape_gradient(P.loss, (z, w))
    for k in range(2):
        want = conjugate_gradient_by_differences(P.loss, (z, w), k)
        np.testing.assert_allclose(got[k], want, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(got[k], tape[k], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn, args", [(P.loop_loss, (np.array(0.25 + 0.4j), 6)),
                                      (P.branch_loss, (np.array(0.3 - 0.2j),)),
                                      (P.branch_loss, (np.array(1.3 - 0.2j),))])
def test_gradients_through_loops_and_branches(fn, args):
    got = grad(fn)(complex(args[0]), *args[1:])
    want = conjugate_gradient_by_differences(lambda z, *rest: fn(complex(z), *rest),
                                             args, 0)
    assert got == pytest.approx(complex(want), rel=1e-6)


def test_gradients_agree_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def loss(z, w):
        u = jnp.exp(1j * z) * w + jnp.sqrt(z * z + 1.0)
        return jnp.sum(jnp.abs(u) ** 2) + jnp.real(jnp.sum(jnp.conj(z) * w)) + \
            jnp.sum(jnp.angle(w))

    z, w = random_complex(5, 13), random_complex(5, 14)
    for got, want in zip(grad(P.loss, wrt=(0, 1))(z, w), jax.grad(loss, (0, 1))(z, w),
                         strict=True):
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12)


def test_holomorphic_derivative_and_its_rules():
    z = 0.3 - 1.2j
    want = (3 * z ** 2 + z ** 3) * np.exp(z) - (np.cos(z) * (z + 2) - np.sin(z)) / (z + 2) ** 2
    assert grad(P.holomorphic, holomorphic=True)(z) == pytest.approx(want, rel=1e-13)
    with pytest.raises(TypeError, match="holomorphic=True"):
        grad(P.holomorphic)(z)
    with pytest.raises(TypeError, match="requires complex arguments"):
        grad(P.holomorphic, holomorphic=True)(0.3)
    with pytest.raises(TypeError, match="complex number"):
        value_and_grad(P.holomorphic)(z)


def test_jvp_is_the_directional_derivative_and_complex_linear():
    z, w = random_complex(3, 15), random_complex(3, 16)
    t, u = random_complex(3, 17), random_complex(3, 18)
    value, tangent = jvp(P.arithmetic, (z, w), (t, u))
    eps = 1e-6
    want = (P.arithmetic(z + eps * t, w + eps * u) - P.arithmetic(z - eps * t, w - eps * u)) / (
        2 * eps)
    assert_close(value, P.arithmetic(z, w), 1e-13)
    np.testing.assert_allclose(tangent, want, rtol=1e-6)
    # holomorphic: the tangent is f'(z) t for every complex t
    z0 = 0.3 - 1.2j
    derivative = grad(P.holomorphic, holomorphic=True)(z0)
    for t0 in (1.0 + 0j, 1j, 0.6 - 2j):
        assert jvp(P.holomorphic, (z0,), (t0,))[1] == pytest.approx(derivative * t0, rel=1e-12)


def test_vjp_is_the_transpose_of_jvp_in_jaxs_pairing():
    """JAX's vjp of a cotangent c is v with Re sum(v t) = Re sum(c J t) for every t (the
    bilinear pairing: vjp(c) = conj(real-transpose(conj c)))."""
    z, w = random_complex(3, 19), random_complex(3, 20)
    t, u = random_complex(3, 21), random_complex(3, 22)
    c = random_complex(3, 23)
    _, pullback = vjp(P.arithmetic, z, w)
    vz, vw = pullback(c)
    _, jt = jvp(P.arithmetic, (z, w), (t, u))
    lhs = np.real(np.sum(vz * t) + np.sum(vw * u))
    assert lhs == pytest.approx(np.real(np.sum(c * jt)), rel=1e-12)


# ---- refusals ------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_real_if_close_is_complex_or_refuses_where_numpy_is_real(backend):
    z = random_complex(3, 24)
    got = jit(P.real_if_close, backend=backend)(z)
    assert got.dtype == np.complex128
    np.testing.assert_array_equal(got, np.real_if_close(z))
    close = z.real + 1e-15j  # within 100 eps: numpy returns the real parts
    assert np.real_if_close(close).dtype == np.float64
    with pytest.raises(TypeError, match=r"complex_programs.py:\d+: np.real_if_close: every "
                                        "imaginary part is within tol"):
        jit(P.real_if_close, backend=backend)(close)


def test_refusals_name_the_users_line():
    z = random_complex(3, 24)
    with pytest.raises(AdliteError, match="complex argument array"):
        jit(P.writes_argument)(z.copy())
    with pytest.raises(AdliteError, match=r"complex_programs.py:\d+.*c128"):
        jit(P.unsupported)(z)
    with pytest.raises(ValueError, match="math domain error"):
        jit(P.cmath_domain)(0.0)


def test_jacobians_of_complex_numbers_are_refused_and_vmap_maps():
    z = random_complex((3, 2), 25)
    for transform in (jacobian, hessian):
        with pytest.raises(TypeError, match="Jacobians and Hessians of complex numbers"):
            transform(P.norm_squared)(z[0])
    np.testing.assert_allclose(vmap(P.norm_squared)(z), np.sum(np.abs(z) ** 2, axis=1),
                               rtol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_numpy_complex_scalars_and_0d_arrays_as_arguments(backend):
    """np.complex128 / np.complex64 numbers and 0-d complex arrays are complex numbers of
    their precision (they crashed the compile log and the entry points once)."""
    f = jit(P.f_exp, backend=backend)
    for z, kind in ((np.complex128(0.3 + 1j), complex), (np.asarray(0.3 + 1j), complex),
                    (np.complex64(0.3 + 1j), np.complex64),
                    (np.asarray(0.3 + 1j, np.complex64), np.complex64)):
        got = f(z)
        assert type(got) is kind
        assert got == pytest.approx(complex(np.exp(z)), rel=1e-6 if kind is np.complex64
                                    else 1e-15)
    g = grad(P.norm_squared, backend=backend)
    assert type(g(np.complex64(0.5 - 2j))) is np.complex64
    assert g(np.complex128(0.5 - 2j)) == pytest.approx(2 * (0.5 + 2j))
