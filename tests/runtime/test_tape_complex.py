"""Complex tensors on the eager tape: values against numpy, gradients in PyTorch's convention
against central differences along the real and the imaginary direction of every element
(`expected_gradient`), second order where cheap, mixed real and complex operands, the
refusals, and autograd's convention in `transforms`."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from adlite.runtime import Function, GradcheckError, Tensor, autograd, gradcheck
from adlite.runtime.transforms import elementwise_grad, grad

STEP = 1e-6


def expected_gradient(loss, args, i):
    """PyTorch's gradient of the real number `loss(*args)` (numpy arrays in, a float out)
    with respect to `args[i]`: `dL/dx + i dL/dy` by central differences along the real
    (`x`) and, for a complex argument, the imaginary (`y`) direction of each element."""
    x = np.asarray(args[i])
    directions = (1.0, 1j) if np.iscomplexobj(x) else (1.0,)
    out = np.zeros(x.shape, dtype=complex if np.iscomplexobj(x) else float)
    for index in np.ndindex(x.shape):
        for d in directions:
            moved = []
            for sign in (1.0, -1.0):
                shifted = x.astype(complex if np.iscomplexobj(x) else float)
                shifted[index] += sign * STEP * d
                moved.append(float(loss(*args[:i], shifted, *args[i + 1:])))
            out[index] += d * (moved[0] - moved[1]) / (2 * STEP)
    return out


def contraction(out, u):
    """A real number of a (complex) result: the sum of Re(conj(u) * out)."""
    return np.sum(np.real(np.conj(u) * out))


def random(rng, shape, kind):
    real = rng.standard_normal(shape)
    if kind == "real":
        return real
    value = real + 1j * rng.standard_normal(shape)
    return value.astype(np.complex64) if kind == "complex64" else value


def check(fn, args, rng, *, rtol=1e-6, atol=1e-7, wrt=None):
    """`fn` on Tensors against numpy's value, then the tape's gradients of a random real
    contraction of its result against `expected_gradient`."""
    want = fn(*args)
    leaves = [Tensor(a, requires_grad=True) for a in args]
    got = fn(*leaves)
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got.data, want, rtol=1e-12 if got.dtype.itemsize > 8 else 1e-5,
                               atol=1e-12)
    u = random(rng, np.shape(want), "complex" if np.iscomplexobj(want) else "real")
    contraction(got, u).backward()
    high = [a.astype(np.complex128) if np.iscomplexobj(a) else np.asarray(a, float)
            for a in args]
    for i in range(len(args)) if wrt is None else wrt:
        expected = expected_gradient(lambda *xs: contraction(fn(*xs), u), high, i)
        assert leaves[i].grad.dtype == np.asarray(args[i]).dtype
        np.testing.assert_allclose(leaves[i].grad.data, expected, rtol=rtol, atol=atol)


HOLOMORPHIC = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "log1p": np.log1p,
    "expm1": np.expm1, "log2": np.log2, "log10": np.log10, "arcsin": np.arcsin,
    "arccos": np.arccos, "arctan": np.arctan, "arcsinh": np.arcsinh, "arctanh": np.arctanh,
    "square": np.square, "reciprocal": np.reciprocal, "cube": lambda z: z ** 3,
    "exp2": np.exp2, "negative": np.negative, "half_power": lambda z: z ** 0.5,
}
NOT_HOLOMORPHIC = {
    "abs": np.abs, "real": np.real, "imag": np.imag, "conj": np.conj, "angle": np.angle,
    "angle_deg": lambda z: np.angle(z, deg=True), "abs_squared": lambda z: np.abs(z) ** 2,
    "z_conj_z": lambda z: z * np.conj(z), "real_times_imag": lambda z: np.real(z) * np.imag(z),
}


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("name", sorted(HOLOMORPHIC) + sorted(NOT_HOLOMORPHIC))
def test_elementwise_functions(name, shape):
    rng = np.random.default_rng([len(shape), *map(ord, name)])
    fn = HOLOMORPHIC.get(name) or NOT_HOLOMORPHIC[name]
    z = 0.5 * random(rng, shape, "complex")  # inside the unit disc: off the branch cuts
    check(fn, [z], rng)


@pytest.mark.parametrize("kinds", ["complex-complex", "real-complex", "complex-real"])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "power"])
def test_arithmetic_mixed_operands(name, kinds):
    """Broadcasting operands, real and complex: a real leaf's gradient is real."""
    rng = np.random.default_rng(len(name) + 7 * len(kinds))
    first, second = kinds.split("-")
    x = random(rng, (2, 3), first) + 2.0
    y = random(rng, (3,), second) + 1.5
    check(getattr(np, name), [x, y], rng)


def test_python_complex_scalars_keep_complex64():
    rng = np.random.default_rng(3)
    z = random(rng, (3,), "complex64")
    check(lambda z: z * 1j + 2.0, [z], rng, rtol=1e-3, atol=1e-4)
    check(lambda x: x * (1 + 2j), [rng.standard_normal(3).astype(np.float32)], rng,
          rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
def test_reductions(name, axis):
    rng = np.random.default_rng(11)
    check(lambda z: getattr(np, name)(z, axis=axis), [random(rng, (3, 4), "complex")], rng)


PRODUCTS = {
    "dot": np.dot, "matmul": np.matmul, "outer": np.outer, "kron": np.kron,
    "einsum": lambda a, b: np.einsum("ij,jk->ik", a, b),
    "tensordot": lambda a, b: np.tensordot(a, b, axes=1), "chain": lambda a, b: a @ b.T @ a}


@pytest.mark.parametrize("kinds", ["complex-complex", "real-complex"])
@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_products(name, kinds):
    rng = np.random.default_rng(5)
    first, second = kinds.split("-")
    check(PRODUCTS[name], [random(rng, (3, 3), first), random(rng, (3, 3), second)], rng)


SHAPES = {
    "reshape": lambda z: np.reshape(z, (4, 3)), "T": lambda z: z.T,
    "slice": lambda z: z[1:, ::2], "gather": lambda z: z[[0, 2, 2]],
    "concatenate": lambda z: np.concatenate([z, 2 * z], axis=1),
    "stack": lambda z: np.stack([z, z * z]), "flip": lambda z: np.flip(z, 0),
    "roll": lambda z: np.roll(z, 2), "where": lambda z: np.where(np.real(z) > 0, z, np.conj(z)),
    "trace": lambda z: np.trace(z[:, :3]), "cumsum": lambda z: np.cumsum(z, axis=1),
    "fftshift": np.fft.fftshift, "ifftshift": lambda z: np.fft.ifftshift(z, axes=1)}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shapes_and_indexing(name):
    rng = np.random.default_rng(9)
    check(SHAPES[name], [random(rng, (3, 4), "complex")], rng)


ONE_AXIS = [
    {}, {"n": 3}, {"n": 8}, {"axis": 0}, {"norm": "ortho"}, {"norm": "forward"},
    {"n": 7, "axis": 0, "norm": "backward"}, {"n": 4, "norm": "ortho"}]


@pytest.mark.parametrize("options", ONE_AXIS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
def test_fft_one_axis(name, options):
    rng = np.random.default_rng(len(name) + len(options))
    fn = getattr(np.fft, name)
    z = random(rng, (5, 6), "real" if name == "rfft" else "complex")
    check(lambda z: fn(z, **options), [z], rng)


def test_fft_of_a_real_input_gives_it_a_real_gradient():
    rng = np.random.default_rng(2)
    check(lambda x: np.fft.fft(x, n=7), [random(rng, (2, 5), "real")], rng)
    check(lambda x: np.fft.ifft2(x), [random(rng, (3, 4), "real")], rng)


SEVERAL_AXES = [{}, {"s": (5, 3)}, {"s": (2, 7), "axes": (0, 2)}, {"axes": (2, 0)},
                {"norm": "ortho", "axes": (0, 1)}, {"s": (4, 6), "norm": "forward"}]


@pytest.mark.parametrize("options", SEVERAL_AXES)
@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
                                  "rfftn", "irfftn"])
def test_fft_several_axes(name, options):
    rng = np.random.default_rng(len(name) * 3 + len(options))
    fn = getattr(np.fft, name)
    z = random(rng, (3, 4, 5), "real" if name.startswith("rfft") else "complex")
    check(lambda z: fn(z, **options), [z], rng)


def test_fft_of_complex64_stays_complex64():
    rng = np.random.default_rng(4)
    check(lambda z: np.fft.fft(z), [random(rng, (6,), "complex64")], rng, rtol=1e-3,
          atol=1e-4)


def test_fftfreq_with_a_tensor_spacing():
    rng = np.random.default_rng(1)
    for fn in (np.fft.fftfreq, np.fft.rfftfreq):
        check(lambda d, fn=fn: fn(7, d), [np.array(0.3)], rng)
    assert np.array_equal(np.fft.fftfreq(8, Tensor(0.1)).data, np.fft.fftfreq(8, 0.1))


def test_an_fft_pipeline_mixing_real_and_complex_leaves():
    """A real filter applied in the frequency domain to a complex signal."""
    rng = np.random.default_rng(8)

    def filtered(signal, taps):
        return np.fft.ifft(np.fft.fft(signal) * np.fft.fft(taps, n=8))

    check(filtered, [random(rng, (8,), "complex"), random(rng, (3,), "real")], rng)


def test_gradient_follows_pytorchs_convention():
    """|z|**2 has gradient 2z (dL/dx + i dL/dy), so z - lr * z.grad descends."""
    z = Tensor(np.array([1.0 + 2.0j, -0.5j]), requires_grad=True)
    np.sum(np.abs(z) ** 2).backward()
    np.testing.assert_allclose(z.grad.data, 2 * z.data)
    z.grad = None
    np.sum(np.real(z ** 2)).backward()  # Re(z^2) = x^2 - y^2
    np.testing.assert_allclose(z.grad.data, 2 * np.conj(z.data))


def test_backward_of_a_complex_scalar_needs_a_gradient():
    z = Tensor(np.array(1.0 + 1.0j), requires_grad=True)
    with pytest.raises(RuntimeError, match="only for real scalar outputs"):
        (z * z).backward()
    (z * z).backward(np.array(1.0 + 0.0j))  # the VJP with 1: conj(2z)
    np.testing.assert_allclose(z.grad.data, np.conj(2 * z.data))


SECOND_ORDER = {"exp": np.exp, "abs": np.abs, "angle": np.angle,
                "fft": lambda z: np.fft.fft(z * z), "irfft": lambda z: np.fft.irfft(z * z),
                "prod": np.prod}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order(name):
    """create_graph: the gradient of a real contraction of the (complex) first gradient
    against differences of that first gradient (each checked at first order above)."""
    fn = SECOND_ORDER[name]
    rng = np.random.default_rng(6)
    z0 = 0.5 * random(rng, (4,), "complex") + 0.3
    u = random(rng, np.shape(fn(z0)), "complex" if np.iscomplexobj(fn(z0)) else "real")
    v = random(rng, (4,), "complex")

    def first(z):
        leaf = Tensor(z, requires_grad=True)
        (g,) = autograd.grad(contraction(fn(leaf), u), [leaf], create_graph=True)
        return g

    z = Tensor(z0, requires_grad=True)
    (g,) = autograd.grad(contraction(fn(z), u), [z], create_graph=True)
    contraction(g, v).backward()
    expected = expected_gradient(lambda w: contraction(first(w).data, v), [z0], 0)
    np.testing.assert_allclose(z.grad.data, expected, rtol=1e-5, atol=1e-6)


REFUSED = {
    "norm": np.linalg.norm, "maximum": lambda z: np.maximum(z, 0),
    "hypot": lambda z: np.hypot(z, z), "clip": lambda z: np.clip(z, 0, 1),
    "sign": np.sign,  # z / |z|: not a constant for complex numbers
    "det": lambda z: np.linalg.det(np.reshape(z, (2, 2))),
    "repeated axis": lambda z: np.fft.fftn(np.reshape(z, (2, 2)), axes=(0, 0))}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_complex_refusals(name):
    z = Tensor(np.array([1 + 1j, 2 - 1j, 0.5j, 1.0]), requires_grad=True)
    with pytest.raises((TypeError, NotImplementedError), match=name.split()[-1]):
        REFUSED[name](z)


def test_transforms_give_autograds_convention():
    """autograd's gradient of a real function is dL/dx - i dL/dy, the conjugate of the
    tape's; a complex result is refused, as autograd refuses it."""
    z0 = np.array([0.3 + 0.4j, -1.0 + 0.2j])

    def loss(z):
        return np.sum(np.abs(np.sin(z)) + np.angle(z))

    want = np.conj(expected_gradient(loss, [z0], 0))
    np.testing.assert_allclose(grad(loss)(z0).data, want, rtol=1e-6)
    assert np.isrealobj(grad(lambda x: np.sum(np.real(x)))(2.0).data)
    assert np.iscomplexobj(grad(lambda x: np.sum(np.real(x)))(1.0j).data)
    d_abs = grad(np.abs)
    second = grad(lambda z: np.real(d_abs(z)))(1.1 + 1.3j)
    want = np.conj(expected_gradient(lambda z: np.real(np.conj(z) / np.abs(z)),
                                     [np.array(1.1 + 1.3j)], 0))
    np.testing.assert_allclose(second.data, want, rtol=1e-6)
    for transform in (grad, elementwise_grad):
        with pytest.raises(TypeError, match="real results"):
            transform(lambda z: z * z)(1.0 + 1.0j)


def test_tensor_attributes_real_imag_conj():
    rng = np.random.default_rng(12)
    check(lambda z: z.real * z.imag + z.conj() * z.conjugate(), [random(rng, (3,), "complex")],
          rng)
    x = Tensor(np.array([1.5, -2.0]), requires_grad=True)
    assert x.real is x and not x.imag.requires_grad


def test_gradcheck_takes_complex_inputs():
    rng = np.random.default_rng(13)
    z, x = random(rng, (4,), "complex"), random(rng, (4,), "real")
    assert gradcheck(lambda z, x: np.fft.ifft(np.exp(z) * x) * np.conj(z), [z, x], order=2)

    class Square(Function):  # a custom Function's rule in PyTorch's convention
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * np.conj(2 * z)

    class WithoutConjugation(Square):  # the rule g * s'(z), not g * conj(s'(z))
        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * 2 * z

    assert gradcheck(Square.apply, [z], order=1)
    with pytest.raises(GradcheckError):
        gradcheck(WithoutConjugation.apply, [z], order=1)


def test_a_custom_functions_complex_gradient_of_a_real_input_is_its_real_part():
    class Rotate(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1j

        @staticmethod
        def backward(ctx, g):
            return g * -1j  # conj(1j) * g, complex

    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: nothing casts it silently
        np.sum(np.real(Rotate.apply(x) * (2.0 - 3.0j))).backward()  # Re(x (3 + 2j)) = 3x
    assert x.grad.dtype == np.float64
    np.testing.assert_allclose(x.grad.data, [3.0, 3.0])


ARGUMENT_ERRORS = {
    "n=0": lambda a: np.fft.fft(a, n=0), "n=-1": lambda a: np.fft.irfft(a, n=-1),
    "axis out of range": lambda a: np.fft.fft(a, axis=2),
    "s and axes": lambda a: np.fft.fftn(a, s=(2,), axes=(0, 1)),
    "axes out of range": lambda a: np.fft.rfftn(a, axes=(0, 5)),
    "float n": lambda a: np.fft.ifft(a, n=2.5), "norm": lambda a: np.fft.fft2(a, norm="bad")}


@pytest.mark.parametrize("name", sorted(ARGUMENT_ERRORS))
def test_fft_arguments_numpy_refuses_raise_numpys_error(name):
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(Exception) as numpy_error:
        ARGUMENT_ERRORS[name](x)
    with pytest.raises(type(numpy_error.value), match=re.escape(str(numpy_error.value))):
        ARGUMENT_ERRORS[name](Tensor(x, requires_grad=True))
