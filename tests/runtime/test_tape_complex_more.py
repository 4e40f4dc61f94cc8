"""Complex tensors on the eager tape, the functions added after `test_tape_complex`: the
reductions max/min (numpy's lexicographic order: real part, then imaginary part) and var/std
(real results), numpy's arccosh and sinc, scipy.special's erf and erfc.

Values equal numpy's / scipy's, NaN, infinities and the two lips of arccosh's branch cut
included; gradients (PyTorch's convention, dL/dx + i dL/dy for a real L) against central
differences along the real and the imaginary direction of every element
(`test_tape_complex.check`), on several shapes, axes and seeded random inputs, to second order
through `create_graph`, and against JAX's gradient conjugated (JAX gives dL/dx - i dL/dy)
where JAX is installed (skipped otherwise).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sc

from adlite.runtime import Tensor, autograd

from .test_tape_complex import check, contraction, expected_gradient, random

# (shape, axis) of the reductions; the ids name them
LAYOUTS = {
    "vector": ((5,), None), "vector-axis0": ((5,), 0), "matrix": ((3, 4), None),
    "matrix-axis1": ((3, 4), 1), "matrix-axis-2": ((3, 4), -2), "cube-axes02": ((2, 3, 4), (0, 2)),
    "cube-axis1": ((2, 3, 4), 1),
}
EXTREMA = {
    "max": np.max, "min": np.min, "amax": np.amax, "amin": np.amin,
    "method max": lambda z, **options: z.max(**options),
    "method min": lambda z, **options: z.min(**options),
}
SPREADS = {
    "var": np.var, "std": np.std,
    "method var": lambda z, **options: z.var(**options),
    "method std": lambda z, **options: z.std(**options),
}
ELEMENTWISE = {"arccosh": np.arccosh, "sinc": np.sinc, "erf": sc.erf, "erfc": sc.erfc}


def seeded(*words: object) -> np.random.Generator:
    """A generator seeded by the test's parameters (deterministic across runs)."""
    return np.random.default_rng([ord(c) for c in repr(words)])


def off_the_real_axis(z: np.ndarray) -> np.ndarray:
    """`z` moved at least 0.1 away from the real axis (off arccosh's cut, for differences)."""
    return np.real(z) + 1j * np.copysign(0.1 + np.abs(np.imag(z)), np.imag(z))


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    """Equal real and imaginary parts, NaN where numpy has NaN."""
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.real(got), np.real(want))
    np.testing.assert_array_equal(np.imag(got), np.imag(want))


# ---- max / min ------------------------------------------------------------------------------

@pytest.mark.parametrize("keepdims", [False, True], ids=["dropped", "kept"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(EXTREMA))
def test_extrema(name, layout, keepdims):
    shape, axis = LAYOUTS[layout]
    rng = seeded(name, layout, keepdims)
    fn = EXTREMA[name]
    check(lambda z: fn(z, axis=axis, keepdims=keepdims), [random(rng, shape, "complex")], rng)


def test_extrema_order_real_parts_first_then_imaginary_parts():
    """Equal real parts are ordered by the imaginary parts: the gradient goes to that
    element; equal values (ties) share it evenly, as the real max does."""
    z = Tensor(np.array([1 + 2j, 1 + 3j, 1 + 3j, 0.5 + 9j, 1 - 5j]), requires_grad=True)
    u = 2.0 - 1.0j
    for fn, chosen in ((np.max, [0, 0.5, 0.5, 0, 0]), (np.min, [0, 0, 0, 1, 0])):
        out = fn(z)
        assert out.item() == fn(z.data)
        z.grad = None
        contraction(out, u).backward()
        np.testing.assert_array_equal(z.grad.data, u * np.array(chosen))
    real = Tensor(np.array([1.0, 3.0, 3.0, 0.5]), requires_grad=True)
    np.max(real).backward()
    np.testing.assert_array_equal(real.grad.data, [0, 0.5, 0.5, 0])


NAN = complex(np.nan, 0.0)
WITH_NANS = np.array([[1 + 1j, NAN, 3.0, complex(2.0, np.nan)],
                      [1.0, 2.0 - 1j, 2.0 + 1j, 4.0],
                      [complex(1.0, np.nan), complex(np.nan, 1.0), 0.0, 9j],
                      [-np.inf, complex(np.inf, -1.0), complex(np.inf, 1.0), 0.0]])


@pytest.mark.parametrize("axis", [None, 0, 1], ids=["all", "axis0", "axis1"])
@pytest.mark.parametrize("name", ["max", "min"])
def test_extrema_of_nans_and_infinities_are_numpys(name, axis):
    """numpy keeps the first element with a NaN part; a slice holding one gets NaN
    gradients (no element equals NaN), as the real max's, the others theirs."""
    fn = getattr(np, name)
    z = Tensor(WITH_NANS, requires_grad=True)
    out = fn(z, axis=axis)
    assert_same(out.data, fn(WITH_NANS, axis=axis))
    np.sum(np.real(out)).backward()
    slices = np.isnan(out.data)
    spread = slices if axis is None else np.expand_dims(slices, axis)
    np.testing.assert_array_equal(np.isnan(z.grad.data), np.broadcast_to(spread, z.shape))


# ---- var / std ------------------------------------------------------------------------------

@pytest.mark.parametrize("ddof", [0, 1], ids=["ddof0", "ddof1"])
@pytest.mark.parametrize("keepdims", [False, True], ids=["dropped", "kept"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(SPREADS))
def test_spreads(name, layout, keepdims, ddof):
    shape, axis = LAYOUTS[layout]
    rng = seeded(name, layout, keepdims, ddof)
    fn = SPREADS[name]
    check(lambda z: fn(z, axis=axis, keepdims=keepdims, ddof=ddof),
          [random(rng, shape, "complex")], rng)


@pytest.mark.parametrize("name", ["var", "std"])
def test_spreads_of_complex64_are_float32(name):
    rng = seeded(name)
    fn = getattr(np, name)
    check(lambda z: fn(z, axis=1), [random(rng, (3, 4), "complex64")], rng,
          rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("name", ["var", "std"])
def test_spreads_of_one_element_have_zero_gradients(name):
    """One element reduced: the spread is 0 and so is its gradient (std without the
    infinite slope of sqrt at 0, as for real numbers); ddof=1 gives numpy's NaN."""
    fn = getattr(np, name)
    z = Tensor(np.array([[1 + 2j], [3 - 1j]]), requires_grad=True)
    out = fn(z, axis=1)
    np.testing.assert_array_equal(out.data, [0.0, 0.0])
    np.sum(out).backward()
    np.testing.assert_array_equal(z.grad.data, np.zeros((2, 1)))
    with np.errstate(all="ignore"):
        assert_same(fn(z, axis=1, ddof=1).data, fn(z.data, axis=1, ddof=1))


# ---- elementwise ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=["scalar", "vector", "matrix"])
@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise(name, shape):
    rng = seeded(name, shape)
    z = off_the_real_axis(0.8 * random(rng, shape, "complex"))  # erf grows as exp(y**2)
    check(ELEMENTWISE[name], [z], rng)


SPECIAL_VALUES = np.array([
    complex(-3.0, 0.0), complex(-3.0, -0.0), complex(-1.0, 0.0), complex(-1.0, -0.0),
    complex(-0.5, 0.0), complex(-0.5, -0.0), complex(0.0, 0.0), complex(-0.0, -0.0),
    complex(0.5, -0.0), complex(1.0, 0.0), complex(2.0, -0.0), complex(0.0, 2.0),
    complex(np.inf, 0.0), complex(-np.inf, 0.0), complex(0.0, np.inf), complex(0.0, -np.inf),
    complex(np.inf, np.inf), complex(-np.inf, -np.inf), complex(np.nan, 0.0),
    complex(0.0, np.nan), complex(np.nan, np.nan), complex(30.0, 30.0), complex(-6.0, 0.5)])


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_special_values_are_numpys(name, dtype):
    """Branch cuts (both lips, by the sign of a zero imaginary part), zeros, infinities,
    NaN and large arguments give numpy's / scipy's values, in the operand's dtype."""
    z = SPECIAL_VALUES.astype(dtype)
    with np.errstate(all="ignore"):
        assert_same(ELEMENTWISE[name](Tensor(z)).data, ELEMENTWISE[name](z))


# function -> (the axis along which its cuts run, points on them)
CUTS = {
    "arccosh": (np.arccosh, 1.0, [-3.0, -1.5, -0.5, 0.2, 0.9]),
    "arcsin": (np.arcsin, 1.0, [-3.0, -1.5, 1.5, 3.0]),
    "arccos": (np.arccos, 1.0, [-3.0, -1.5, 1.5, 3.0]),
    "arctanh": (np.arctanh, 1.0, [-3.0, -1.5, 1.5, 3.0]),
    "log": (np.log, 1.0, [-3.0, -0.5]), "sqrt": (np.sqrt, 1.0, [-3.0, -0.5]),
    "log1p": (np.log1p, 1.0, [-3.0, -1.5]),
    "arcsinh": (np.arcsinh, 1j, [-3.0, -1.5, 1.5, 3.0]),
    "arctan": (np.arctan, 1j, [-3.0, -1.5, 1.5, 3.0]),
}


@pytest.mark.parametrize("lip", [0.0, -0.0], ids=["lip+0", "lip-0"])
@pytest.mark.parametrize("name", sorted(CUTS))
def test_gradients_on_branch_cuts_are_their_lips(name, lip):
    """On a cut the derivative is that of the lip the sign of the zero part across it picks
    (numpy's value there): the difference along the cut (a holomorphic function's gradient of
    Re is the conjugate of its derivative); arccosh, arcsin, arccos and arcsinh have their
    own complex partials for it (the shared formulas lose that sign)."""
    fn, along, points = CUTS[name]

    def on_the_cut(ts):  # built from parts: adding a step to z would turn -0 into +0
        return np.array([complex(t, lip) if along == 1.0 else complex(lip, t) for t in ts])

    z = Tensor(on_the_cut(points), requires_grad=True)
    np.sum(np.real(fn(z))).backward()
    step = 1e-6
    ahead, behind = (fn(on_the_cut(np.add(points, d))) for d in (step, -step))
    derivative = (ahead - behind) / (2 * step * along)
    np.testing.assert_allclose(z.grad.data, np.conj(derivative), rtol=1e-7)


# ---- second order ---------------------------------------------------------------------------

SECOND_ORDER = {"max": lambda z: np.max(z * z, axis=1), "var": lambda z: np.var(z * z, axis=0),
                "std": lambda z: np.std(z * z), "arccosh": np.arccosh, "erf": sc.erf,
                "sinc": np.sinc, "arcsin": np.arcsin, "arccos": np.arccos,
                "arcsinh": np.arcsinh}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order(name):
    """The gradient of a real contraction of the first (complex) gradient, recorded with
    `create_graph`, against differences of that first gradient."""
    fn = SECOND_ORDER[name]
    rng = seeded(name)
    z0 = off_the_real_axis(random(rng, (2, 3), "complex"))
    want = fn(z0)
    u = random(rng, np.shape(want), "complex" if np.iscomplexobj(want) else "real")
    v = random(rng, z0.shape, "complex")

    def first(z):
        (g,) = autograd.grad(contraction(fn(z), u), [z], create_graph=True)
        return g

    z = Tensor(z0, requires_grad=True)
    contraction(first(z), v).backward()
    expected = expected_gradient(
        lambda w: contraction(first(Tensor(w, requires_grad=True)).data, v), [z0], 0)
    np.testing.assert_allclose(z.grad.data, expected, rtol=1e-5, atol=1e-6)


# ---- JAX ------------------------------------------------------------------------------------

def _jax_cases(jnp):
    """name -> (tape function, JAX function); erf/erfc are not there (JAX refuses complex)."""
    return {
        "max": (lambda z: np.max(z, axis=1), lambda z: jnp.max(z, axis=1)),
        "min": (lambda z: np.min(z, axis=0, keepdims=True),
                lambda z: jnp.min(z, axis=0, keepdims=True)),
        "var": (lambda z: np.var(z, axis=1, ddof=1), lambda z: jnp.var(z, axis=1, ddof=1)),
        "std": (np.std, jnp.std),
        "arccosh": (np.arccosh, jnp.arccosh),
        "sinc": (np.sinc, jnp.sinc),
    }


@pytest.mark.parametrize("name", ["arccosh", "max", "min", "sinc", "std", "var"])
def test_gradients_are_jaxs_conjugated(name):
    """In the right half-plane: there JAX's arccosh derivative, 1 / sqrt(z**2 - 1), is
    right (not where Re z < 0, jax 0.10)."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    ours, theirs = _jax_cases(jax.numpy)[name]
    rng = seeded(name)
    z = random(rng, (3, 4), "complex")
    z0 = off_the_real_axis(0.1 + np.abs(np.real(z)) + 1j * np.imag(z))
    u = random(rng, np.shape(ours(z0)), "complex" if np.iscomplexobj(ours(z0)) else "real")
    z = Tensor(z0, requires_grad=True)
    contraction(ours(z), u).backward()
    want = jax.grad(lambda w: jax.numpy.sum(jax.numpy.real(jax.numpy.conj(u) * theirs(w))))(z0)
    np.testing.assert_allclose(z.grad.data, np.conj(np.asarray(want)), rtol=1e-10, atol=1e-12)
