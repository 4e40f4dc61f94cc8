"""scipy.special's error functions of complex values in compiled code: values against scipy's
bit for bit on both backends (complex128 and complex64, scalars and arrays, zeros, the axes,
large arguments, infinities and NaN), real operands, gradients of real losses in JAX's
convention against central differences along the real and imaginary directions, forward
mode, holomorphic derivatives against the closed forms, JAX's `wofz` where it is installed,
vmap, and ahead-of-time kernels' refusal."""

import math
import shutil

import numpy as np
import pytest

sc = pytest.importorskip("scipy.special")

from adlite.compiler import grad, jit, jvp, vmap  # noqa: E402
from adlite.compiler.aot import AotError, compile_aot  # noqa: E402
from adlite.compiler.ir.core import Type  # noqa: E402

from .test_complex_numbers import (  # noqa: E402
    BACKENDS,
    conjugate_gradient_by_differences,
    random_complex,
)

INF, NAN = math.inf, math.nan
SPECIAL = np.array([0j, complex(-0.0, 0.0), complex(0.0, -0.0), 0.5 + 0j, -2 + 0j, 0.7j,
                    -3j, 1e-300 + 1e-300j, 1e-8 - 2e-8j, 1 + 1j, -2.5 + 0.1j, 3 - 4j,
                    6 + 6j, -6 + 6j, 30 + 0.5j, 0.5 + 30j, -30 - 30j, 1e10 + 1e10j,
                    1e200 - 1e200j, 26 + 0j, 27j, complex(INF, 0), complex(-INF, 0),
                    complex(0, INF), complex(0, -INF), complex(INF, INF), complex(NAN, 0),
                    complex(0, NAN), complex(1, INF), complex(NAN, NAN)])


def erf(z):
    return sc.erf(z)


def erfc(z):
    return sc.erfc(z)


def wofz(z):
    return sc.wofz(z)


def erfcx(z):
    return sc.erfcx(z)


def erfi(z):
    return sc.erfi(z)


def dawsn(z):
    return sc.dawsn(z)


FUNCTIONS = {"erf": erf, "erfc": erfc, "wofz": wofz, "erfcx": erfcx, "erfi": erfi,
             "dawsn": dawsn}
REAL = ("erf", "erfc", "erfcx", "erfi", "dawsn")  # with real loops too
SQRT_PI = math.sqrt(math.pi)
DERIVATIVES = {  # f'(z)
    "erf": lambda z: 2 / SQRT_PI * np.exp(-z * z),
    "erfc": lambda z: -2 / SQRT_PI * np.exp(-z * z),
    "wofz": lambda z: -2 * z * sc.wofz(z) + 2j / SQRT_PI,
    "erfcx": lambda z: 2 * z * sc.erfcx(z) - 2 / SQRT_PI,
    "erfi": lambda z: 2 / SQRT_PI * np.exp(z * z),
    "dawsn": lambda z: 1 - 2 * z * sc.dawsn(z),
}


def assert_same_bits(got, want):
    """The same values (NaN where scipy's is NaN, zeros' signs included) and dtype."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    for part in (np.real, np.imag):
        np.testing.assert_array_equal(part(got), part(want))
        np.testing.assert_array_equal(np.signbit(part(got)), np.signbit(part(want)))


# ---- values ----------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_values_are_scipys_bits(name, backend, dtype):
    """The LLVM backend calls the function scipy's 'D->D' loop calls, with the same argument,
    so the bits agree; complex64 is computed in double and rounded, as scipy's 'F->F'."""
    f = FUNCTIONS[name]
    compiled = jit(f, backend=backend)
    with np.errstate(all="ignore"):
        for z in (SPECIAL.astype(dtype), random_complex((3, 4), 1, dtype) * 3,
                  SPECIAL.astype(dtype).reshape(5, 6)):
            assert_same_bits(compiled(z), f(z))
        if dtype == np.complex128:  # (numpy's complex scalars are not taken yet)
            for z in SPECIAL.tolist():
                got = compiled(z)
                assert type(got) is complex
                assert_same_bits(got, f(z))


@pytest.mark.parametrize("backend", BACKENDS)
def test_real_operands(backend):
    """Real operands stay real (erfcx, erfi, dawsn: scipy's real functions, bit for bit);
    wofz of a real number is complex128 (float32 too), ints are float64, as scipy's loops."""
    x = np.array([-30.0, -3.0, -0.5, -0.0, 0.0, 1e-300, 0.7, 2.0, 26.0, 1e10, INF, -INF, NAN])
    for name in REAL:
        f = FUNCTIONS[name]
        with np.errstate(all="ignore"):
            for arg in (x, x.astype(np.float32), np.arange(3)):
                got = jit(f, backend=backend)(arg)
                assert got.dtype == f(arg).dtype
                if name in ("erf", "erfc"):  # the C library's (see primitives/special.py)
                    np.testing.assert_allclose(got, f(arg), rtol=1e-15)
                else:
                    np.testing.assert_array_equal(got, f(arg))
        derivative = grad(f, backend=backend)
        for v in (-3.0, -0.5, 0.0, 0.7, 2.0):
            assert derivative(v) == pytest.approx(DERIVATIVES[name](v), rel=1e-13)
    for arg in (x, x.astype(np.float32), np.arange(3), 0.5):
        assert_same_bits(jit(wofz, backend=backend)(arg), wofz(arg))


def mixed(z, x):
    return sc.erf(z * x + 1.0) - sc.wofz(x) * sc.erfc(np.conj(z))


@pytest.mark.parametrize("backend", BACKENDS)
def test_inside_complex_arithmetic(backend):
    z, x = random_complex(5, 2), np.linspace(-1, 1, 5)
    np.testing.assert_allclose(jit(mixed, backend=backend)(z, x), mixed(z, x), rtol=1e-14)


def test_vmap_maps_the_parts():
    z = random_complex((3, 2), 3)
    np.testing.assert_array_equal(vmap(erf)(z), sc.erf(z))


# ---- derivatives -----------------------------------------------------------------------------

def loss(z):
    return np.sum(np.abs(sc.erf(z)) ** 2) + np.sum(np.real(sc.erfc(z))) + \
        np.sum(np.imag(sc.wofz(z) * z))


def part_loss(z, w):
    return np.real(sc.erf(z)) * np.imag(sc.erfc(w)) + np.abs(sc.wofz(z * w))


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_agree_with_differences(backend):
    z = random_complex(4, 11)
    got = grad(loss, backend=backend)(z)
    np.testing.assert_allclose(got, conjugate_gradient_by_differences(loss, (z,), 0),
                               rtol=1e-6, atol=1e-8)
    z0, w0 = 0.4 - 0.9j, -1.1 + 0.3j
    got = grad(part_loss, wrt=(0, 1), backend=backend)(z0, w0)
    for k in range(2):
        want = conjugate_gradient_by_differences(part_loss, (np.array(z0), np.array(w0)), k)
        assert got[k] == pytest.approx(complex(want), rel=1e-6)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_holomorphic_derivatives_and_jvp(name):
    """grad(holomorphic=True) is f'(z); jvp is f'(z) t for real, imaginary and complex t and
    the directional difference quotient."""
    f = FUNCTIONS[name]
    for z in (0.3 - 1.2j, -2.0 + 0.5j, 1.5 + 2.5j, 0j):
        want = DERIVATIVES[name](z)
        assert grad(f, holomorphic=True)(z) == pytest.approx(want, rel=1e-13, abs=1e-300)
        for t in (1.0 + 0j, 1j, 0.6 - 2j):
            value, tangent = jvp(f, (z,), (t,))
            assert value == f(z)
            assert tangent == pytest.approx(want * t, rel=1e-13, abs=1e-300)
            eps = 1e-6
            quotient = (f(z + eps * t) - f(z - eps * t)) / (2 * eps)
            assert tangent == pytest.approx(quotient, rel=1e-6)


def test_jvp_of_arrays_and_complex64():
    z, t = random_complex(6, 4), random_complex(6, 5)
    _, tangent = jvp(erfc, (z,), (t,))
    np.testing.assert_allclose(tangent, DERIVATIVES["erfc"](z) * t, rtol=1e-13)
    value, tangent = jvp(erf, (z.astype(np.complex64),), (t.astype(np.complex64),))
    assert value.dtype == tangent.dtype == np.complex64
    np.testing.assert_allclose(tangent, DERIVATIVES["erf"](z) * t, rtol=1e-5)


def test_gradients_agree_with_jax():
    """JAX has `wofz` and `erfcx` of complex numbers (not `erf`): erf's gradient through
    erf(z) = 1 - exp(-z^2) w(iz), and wofz's and erfcx's own."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp, jsc = jax.numpy, jax.scipy.special

    def jax_loss(z):
        erf_z = 1.0 - jnp.exp(-z * z) * jsc.wofz(1j * z)
        return jnp.sum(jnp.abs(erf_z) ** 2) + jnp.sum(jnp.real(1.0 - erf_z)) + \
            jnp.sum(jnp.imag(jsc.wofz(z) * z))

    z = random_complex(5, 6) + 0.5
    np.testing.assert_allclose(grad(loss)(z), np.asarray(jax.grad(jax_loss)(z)), rtol=1e-9)
    np.testing.assert_allclose(jit(erfcx)(z), np.asarray(jsc.erfcx(z)), rtol=1e-13)
    np.testing.assert_allclose(grad(erfcx_loss)(z),
                               np.asarray(jax.grad(lambda v: jnp.sum(jnp.abs(jsc.erfcx(v))))(z)),
                               rtol=1e-12)


def erfcx_loss(z):
    return np.sum(np.abs(sc.erfcx(z)))


# ---- ahead of time ---------------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_ahead_of_time_kernels_refuse_them(tmp_path):
    with pytest.raises(AotError, match="scipy.special's C functions"):
        compile_aot(erf, tmp_path, [Type("c128", (3,))])
