"""Building and reshaping arrays in compiled code (issue 11, item 1): np.ravel / x.ravel() /
x.flatten(), np.swapaxes / x.swapaxes, np.moveaxis, np.flip / fliplr / flipud, np.tril /
np.triu, np.column_stack, np.dstack, np.atleast_1d/2d/3d, np.broadcast_to, x.astype, x.T and
np.transpose of any rank, np.meshgrid and np.pad(mode='constant'). Values equal numpy's
running the same code (both backends, float64 and float32), gradients equal central
differences computed here with numpy, forward mode equals directional differences, the eager
tape gives the compiled gradient, and shapes numpy rejects are refused at the user's line."""

import inspect

import numpy as np
import pytest

from adlite.compiler import grad, jit, jvp
from adlite.compiler.errors import AdliteSyntaxError
from adlite.runtime import Tensor

from ..support.gradients import central_difference_in

BACKENDS = ("llvm", "python")
RNG = np.random.default_rng(11)
V = RNG.standard_normal(5)
A = RNG.standard_normal((3, 4))
S = RNG.standard_normal((4, 4))
C = RNG.standard_normal((2, 3, 4))


def ravels(x):
    return np.ravel(x) * 2.0 + x.ravel() - x.flatten() * 0.5


def swaps(x):
    return np.swapaxes(x, 0, -1) + x.swapaxes(-1, 0) * 3.0


def moves(x):
    return np.moveaxis(x, 0, -1) * np.moveaxis(x, [0, 1], [-1, -2]).sum()


def flips(x):
    return np.flip(x) * 2.0 + np.flip(x, axis=0) - np.flip(x, axis=(0, -1)) * 0.5


def flips_2d(x):
    return np.fliplr(x) * 2.0 - np.flipud(x)


def triangles(x):
    return np.tril(x) + np.triu(x, 1) * 2.0 + np.tril(x, -1) * 3.0 - np.triu(x, -2)


def triangles_of_vector(x):
    return np.tril(x, 1) * 2.0 + np.triu(x)


def column_stacks(x):
    return np.column_stack([x, x * 2.0, np.sin(x)])


def column_stacks_2d(x):
    return np.column_stack((x, x[:, :1] * 3.0))


def dstacks(x):
    return np.dstack([x, np.cos(x)])


def at_least(x):
    return np.atleast_3d(x).sum(axis=-1) * np.atleast_2d(x) + np.atleast_1d(x)


def at_least_vector(x):
    a, b = np.atleast_2d(x, x * 2.0)
    return np.atleast_3d(x) * 2.0 + a.sum() + b


def broadcasts(x):
    return np.broadcast_to(x, (2, 3, 4)) * (np.arange(24.0).reshape(2, 3, 4) * 0.1 + 1.0)


def casts(x):
    return x.astype(np.float32).astype(np.float64) * 0.0 + x.astype(float) * 2.0


def transposes(x):
    return x.T * 2.0 + np.transpose(x) + np.transpose(x, axes=None)


def transposes_3d(x):
    return np.transpose(x, (1, 0, 2)) * x.transpose(1, 0, 2) + np.transpose(x, axes=(1, -3, 2))


def grids(x, y):
    gx, gy = np.meshgrid(x, y)
    ix, iy = np.meshgrid(x, y, indexing="ij")
    return (gx * gy ** 2).sum() + (ix - iy * 3.0) * ix.sum()


def pads(x):
    return np.pad(x, 2) * 2.0 + np.pad(x, (1, 3), constant_values=0.25)


def pads_2d(x):
    return np.pad(x, ((1, 0), (2, 1)), mode="constant", constant_values=-1.5) ** 2


CASES = [
    (ravels, (A,)), (ravels, (C,)), (ravels, (V,)), (swaps, (A,)), (swaps, (C,)),
    (moves, (C,)), (flips, (A,)), (flips, (C,)), (flips_2d, (A,)), (flips_2d, (C,)),
    (triangles, (A,)), (triangles, (S,)), (triangles, (C,)), (triangles_of_vector, (V,)),
    (column_stacks, (V,)), (column_stacks_2d, (A,)), (dstacks, (A,)), (dstacks, (V,)),
    (at_least, (A,)), (at_least_vector, (V,)), (broadcasts, (A[0],)), (broadcasts, (A,)),
    (casts, (A,)), (transposes, (V,)), (transposes, (A,)), (transposes, (C,)),
    (transposes_3d, (C,)), (grids, (V, A[0])), (pads, (V,)), (pads, (A,)), (pads_2d, (A,)),
]
IDS = [f"{fn.__name__}-{'x'.join(str(np.shape(a)) for a in args)}" for fn, args in CASES]


def _copies(args, dtype=np.float64):
    return tuple(np.array(a, dtype=dtype) for a in args)


@pytest.mark.parametrize("dtype", (np.float64, np.float32))
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_values_equal_numpy(fn, args, backend, dtype):
    expected = fn(*_copies(args, dtype))
    got = jit(fn, backend=backend)(*_copies(args, dtype))
    assert np.shape(got) == np.shape(expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got, expected, rtol=1e-6 if dtype == np.float32 else 1e-15,
                               atol=1e-6 if dtype == np.float32 else 1e-15)


def _weighted(fn):
    """A scalar loss of `fn`'s result: its elements weighted by fixed, distinct numbers."""
    def loss(*args):
        y = fn(*args)
        return np.sum(np.cos(np.arange(y.size) * 0.7 + 0.3).reshape(y.shape) * y)
    return loss


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_gradients_equal_central_differences(fn, args, backend):
    loss = _weighted(fn)
    for wrt in range(len(args)):
        got = grad(loss, wrt=wrt, backend=backend)(*_copies(args))
        expected = central_difference_in(loss, args, wrt)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn,args", [(moves, (C,)), (flips, (A,)), (triangles, (S,)),
                                     (column_stacks, (V,)), (grids, (V, A[0])),
                                     (pads_2d, (A,))])
def test_forward_mode_equals_directional_differences(fn, args):
    tangents = [np.cos(np.arange(np.size(a)) + 1.0).reshape(np.shape(a)) for a in args]
    _, got = jvp(fn, args, tangents)
    h = 1e-6
    plus = fn(*(a + h * t for a, t in zip(args, tangents, strict=True)))
    minus = fn(*(a - h * t for a, t in zip(args, tangents, strict=True)))
    np.testing.assert_allclose(got, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-6)


TAPE = [c for c in CASES if c[0] not in (ravels, swaps)]  # Tensor has no .ravel, .swapaxes


@pytest.mark.parametrize("fn,args", TAPE, ids=[f"{fn.__name__}-{np.shape(a[0])}"
                                               for fn, a in TAPE])
def test_eager_tape_gives_the_compiled_gradient(fn, args):
    tensors = [Tensor(np.array(a), requires_grad=True) for a in args]
    np.testing.assert_allclose(fn(*tensors).data, fn(*args), rtol=1e-15, atol=1e-15)
    loss = _weighted(fn)
    loss(*tensors).backward()
    for k, t in enumerate(tensors):
        np.testing.assert_allclose(t.grad, grad(loss, wrt=k)(*args), rtol=1e-12, atol=1e-12)


def test_triangles_keep_inf_outside_as_zero():
    """numpy's tril/triu select (no product with a mask): an inf above the diagonal gives 0."""
    def lower(x):
        return np.tril(x) * 2.0

    x = np.array([[1.0, np.inf], [2.0, 3.0]])
    for backend in BACKENDS:
        np.testing.assert_array_equal(jit(lower, backend=backend)(x), [[2.0, 0.0], [4.0, 6.0]])


def test_int_and_bool_arrays_cast_to_float():
    def cast(k, m):
        return k.astype(np.float64) * 0.5 + m.astype(float)

    k, m = np.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3) % 2 == 0
    for backend in BACKENDS:
        got = jit(cast, backend=backend)(k, m)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, cast(k, m))


def bad_swap(x):
    return np.swapaxes(x, 0, 2)


def bad_move(x):
    return np.moveaxis(x, [0, 1], [0])


def bad_flip(x):
    return np.fliplr(x)


def bad_column_stack(x):
    return np.column_stack([x, x[:2]])


def bad_dstack(x):
    return np.dstack([x, x[:, :2]])


def bad_broadcast(x):
    return np.broadcast_to(x, (3, 4))


def bad_transpose(x):
    return np.transpose(x, (0, 0))


def bad_pad(x):
    return np.pad(x, -1)


def bad_pad_mode(x):
    return np.pad(x, 1, mode="reflect")


def bad_grid(x):
    return np.meshgrid(x, x, indexing="xz")[0]


REFUSALS = [
    (bad_swap, A, "axis 2 is out of bounds for", "np.swapaxes"),
    (bad_move, C, "`source` and `destination` arguments must have the same number",
     "np.moveaxis"),
    (bad_flip, V, "Input must be >= 2-d.", "np.fliplr"),
    (bad_column_stack, V, "all the input array dimensions except for the concatenation axis",
     "np.column_stack"),
    (bad_dstack, A, "all the input array dimensions except for the concatenation axis",
     "np.dstack"),
    (bad_broadcast, V, "could not be broadcast", "np.broadcast_to"),
    (bad_transpose, A, "axes don't match array", "np.transpose"),
    (bad_pad, V, "index can't contain negative values", "np.pad"),
    (bad_pad_mode, V, "np.pad(mode='reflect') is not supported", "np.pad"),
    (bad_grid, V, "Valid values for `indexing` are 'xy' and 'ij'.", "np.meshgrid"),
]


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("fn,arg,message,text", REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_shapes_numpy_rejects_are_refused_at_the_users_line(fn, arg, message, text):
    with pytest.raises(AdliteSyntaxError) as info:
        jit(fn)(arg)
    assert message in str(info.value)
    assert info.value.filename == inspect.getsourcefile(fn)
    assert info.value.line == _line_of(fn, text)


@pytest.mark.parametrize("fn,arg,message,text", [r for r in REFUSALS if r[0] not in (
    bad_transpose, bad_pad_mode)], ids=[r[0].__name__ for r in REFUSALS
                                        if r[0] not in (bad_transpose, bad_pad_mode)])
def test_numpy_rejects_them_too(fn, arg, message, text):
    with pytest.raises(ValueError):
        fn(arg)


def write_through_ravel(x):
    y = np.ravel(x)
    y[0] = 5.0
    return x.sum()


def write_through_flip(x):
    y = np.flip(x)
    y[0] = 5.0
    return x.sum()


def write_through_swapaxes(x):
    y = x.swapaxes(0, 1)
    y[0] = 5.0
    return x.sum()


def write_through_atleast(x):
    a, b = np.atleast_2d(x, x * 2.0)
    a[0, 0] = 5.0
    return x.sum() + b.sum()


@pytest.mark.parametrize("fn", [write_through_ravel, write_through_flip,
                                write_through_swapaxes, write_through_atleast])
def test_writes_through_numpys_views_are_refused(fn):
    """numpy's ravel/flip/swapaxes/atleast_nd return views of their argument: a write
    through one would change it, which compiled code does not follow, so it refuses."""
    with pytest.raises(AdliteSyntaxError) as info:
        jit(fn)(np.arange(4.0).reshape(2, 2))
    assert "a numpy view" in str(info.value)
    assert info.value.line == _line_of(fn, "] = 5.0")


def write_into_copies(x):
    y = x.flatten()
    y[0] = 5.0
    z = x.astype(np.float64)
    z[1] = 7.0
    p = np.pad(x, 1)
    p[1] = 9.0
    return x.sum() * 100.0 + y.sum() * 10.0 + z.sum() + p.sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_into_copies_leave_the_argument_alone(backend):
    x = np.arange(4.0)
    assert jit(write_into_copies, backend=backend)(x.copy()) == write_into_copies(x.copy())


def of_a_number(s):
    return np.flip(s) * 2.0 + np.ravel(s).sum() * np.atleast_2d(s) + np.broadcast_to(s, (2, 3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_number_is_flipped_raveled_and_broadcast_as_numpy_does(backend):
    np.testing.assert_array_equal(jit(of_a_number, backend=backend)(1.5), of_a_number(1.5))
    loss = _weighted(of_a_number)
    np.testing.assert_allclose(grad(loss, backend=backend)(1.5),
                               (loss(1.5 + 1e-6) - loss(1.5 - 1e-6)) / 2e-6, rtol=1e-6)
