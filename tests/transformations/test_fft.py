"""np.fft in compiled code (issue 27): numpy's values bit for bit on both backends (numpy's
own pocketfft loops), for lengths with every small factor, axes, normalisations, padding and
truncation, float32 and float64; gradients against central differences and JAX; the
primitives' derivatives as transposes; the refusals."""

import numpy as np
import pytest

from adlite.compiler import AdliteError, grad, jit, jvp, vjp, vmap
from adlite.compiler.aot import AotError, compile_aot
from adlite.compiler.ir.builder import Builder
from adlite.compiler.ir.core import Graph, Type, Var

from ..support import complex_programs as P
from .test_complex_numbers import conjugate_gradient_by_differences, random_complex

BACKENDS = ("llvm", "python")


def assert_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), np.max(np.abs(got - want))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("shape", [(1, 4), (5, 4), (8, 6), (17, 4), (12, 7)])
def test_transforms_give_numpys_bits(shape, dtype, backend):
    z = random_complex(shape, sum(shape), dtype)
    for got, want in zip(jit(P.transforms, backend=backend)(z), P.transforms(z), strict=True):
        assert_bits(got, want)
    x = z.real.copy()
    for got, want in zip(jit(P.real_transforms, backend=backend)(x), P.real_transforms(x),
                         strict=True):
        assert_bits(got, want)


@pytest.mark.parametrize("n", [1, 2, 3, 16, 31, 97, 128, 1000])
def test_lengths_with_every_factor(n):
    z = random_complex((3, n), n)
    for got, want in zip(jit(P.one_axis)(z), P.one_axis(z), strict=True):
        assert_bits(got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_agree_with_differences(backend):
    u = np.sin(np.linspace(0, 2 * np.pi, 12, endpoint=False)) + 0.1 * np.arange(12) / 12
    k = np.fft.rfftfreq(12, 1 / 12)
    got = grad(P.spectral_loss, backend=backend)(u, k)
    eps = 1e-6
    want = [(P.spectral_loss(u + eps * e, k) - P.spectral_loss(u - eps * e, k)) / (2 * eps)
            for e in np.eye(12)]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    x, h = random_complex(6, 30), random_complex(6, 31)
    gx, gh = grad(P.convolution_loss, wrt=(0, 1), backend=backend)(x, h)
    np.testing.assert_allclose(gx, conjugate_gradient_by_differences(
        P.convolution_loss, (x, h), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gh, conjugate_gradient_by_differences(
        P.convolution_loss, (x, h), 1), rtol=1e-6, atol=1e-8)
    z = random_complex((5, 4), 32)
    np.testing.assert_allclose(grad(P.two_dimensional_loss, backend=backend)(z),
                               conjugate_gradient_by_differences(P.two_dimensional_loss, (z,), 0),
                               rtol=1e-6, atol=1e-8)


def test_gradients_agree_with_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def convolution(x, h):
        y = jnp.fft.ifft(jnp.fft.fft(x) * jnp.fft.fft(h, norm="ortho"))
        return jnp.sum(jnp.abs(y - 0.5) ** 2)

    x, h = random_complex(9, 33), random_complex(9, 34)
    for got, want in zip(grad(P.convolution_loss, wrt=(0, 1))(x, h),
                         jax.grad(convolution, (0, 1))(x, h), strict=True):
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12)


@pytest.mark.parametrize("prim, params, shape", [
    ("fft", {"axis": 1, "inverse": False, "scale": 1.0, "double": False}, (2, 3, 5)),
    ("fft", {"axis": 0, "inverse": True, "scale": 0.25, "double": False}, (2, 4, 3)),
    ("rfft", {"axis": 0, "scale": 1.0, "double": True}, (6, 2)),
    ("rfft", {"axis": 1, "scale": 0.5, "double": False}, (3, 7)),
    ("irfft", {"axis": 1, "n": 8, "scale": 0.125, "double": False}, (2, 3, 5)),
    ("irfft", {"axis": 0, "n": 7, "scale": 1.0, "double": True}, (2, 4, 2))])
def test_each_primitive_derivative_is_its_transpose(prim, params, shape):
    """<J v, u> = <v, J^T u> with J^T the VJP and J v the JVP, against the primitive's
    numpy values (`impl`): the transposes (irfft's doubled frequencies included) hold."""
    from adlite.compiler.ad import jvp_graph, vjp_graph
    from adlite.compiler.ir.evaluate import run_graph

    rng = np.random.default_rng(len(shape))
    x = Var(Type("f64", shape))
    b = Builder()
    (y,) = b.emit(prim, [x], **params)
    graph = Graph([x], b.eqns, [y])
    v = rng.standard_normal(shape)
    u = rng.standard_normal(y.type.shape)
    x0 = rng.standard_normal(shape)
    _, jv = run_graph(jvp_graph(graph, [0]), [x0, v])
    outputs = run_graph(vjp_graph(graph), [x0, u])
    assert np.sum(jv * u) == pytest.approx(np.sum(v * outputs[1]), rel=1e-12)
    # and the JVP is the linear map itself, numpy's values
    np.testing.assert_allclose(jv, run_graph(graph, [v])[0], rtol=1e-15)


def test_forward_mode_and_vjp():
    x, h = random_complex(5, 35), random_complex(5, 36)
    t, s = random_complex(5, 37), random_complex(5, 38)
    eps = 1e-6
    _, tangent = jvp(P.convolution_loss, (x, h), (t, s))
    want = (P.convolution_loss(x + eps * t, h + eps * s) -
            P.convolution_loss(x - eps * t, h - eps * s)) / (2 * eps)
    assert tangent == pytest.approx(want, rel=1e-6)
    _, pullback = vjp(P.transforms, random_complex((4, 3), 39))
    assert len(pullback(*[random_complex(np.shape(o), 40) for o in P.transforms(
        random_complex((4, 3), 39))])) == 1


def test_refusals():
    with pytest.raises(AdliteError, match="repeated axis"):
        jit(P.repeated_axis)(random_complex((3, 3), 41))
    with pytest.raises(AdliteError, match="Invalid number of FFT data points"):
        jit(P.no_points)(random_complex(3, 42))
    with pytest.raises(ZeroDivisionError):  # numpy's error for n = 0: 1 / (n d)
        P.no_frequencies(1.0)
    with pytest.raises(AdliteError, match=r"fftfreq\(0\): numpy takes n >= 1"):
        jit(P.no_frequencies)(1.0)
    with pytest.raises(AotError, match="pocketfft"):
        compile_aot(P.spectral_loss, "/tmp/adlite-test-fft-aot", [Type("f64", (8,)),
                                                                   Type("f64", (5,))])



def test_vmap_transforms_each_example_directly():
    """The FFT primitives' batching rule (no per-example loop): numpy's bits per example."""
    z = random_complex((3, 4, 5), 43)
    for fn, batch, compare in ((P.transforms, z, assert_bits),
                               (P.real_transforms, z.real.copy(), _close)):
        per_example = [fn(e) for e in batch]
        for k, got in enumerate(vmap(fn)(batch)):
            compare(got, np.stack([outputs[k] for outputs in per_example]))


def _close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-13)
