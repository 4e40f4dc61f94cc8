"""max / min / clip / fmax / fmin: Python's and numpy's values (NaN, ints, empty arrays) and
PyTorch's gradient conventions at ties, in compiled code (both backends, reverse and forward
mode) and on the eager tape.

Expected gradients are written from the conventions documented in `adlite.compiler.primitives`
("Conventions at ties"); when torch is installed they are checked against torch as well.
"""

import math

import numpy as np
import pytest

from adlite import runtime as rt
from adlite.compiler import AdliteSyntaxError, grad, hessian, jit, jvp
from adlite.compiler.ad import jvp_graph
from adlite.compiler.api import arg_type
from adlite.compiler.backends.python import compile_graph
from adlite.compiler.frontend.to_ir import build_graph
from adlite.compiler.passes import optimize

NAN = math.nan
BACKENDS = ["llvm", "python"]


def builtin_max(x, y):
    return max(x, y)


def builtin_min(x, y):
    return min(x, y)


def builtin_max3(x, y, z):
    return max(x, y, z)


def builtin_min_tuple(x, y, z):
    return min((x, y, z))


def np_maximum(x, y):
    return np.maximum(x, y)


def np_minimum(x, y):
    return np.minimum(x, y)


def np_fmax(x, y):
    return np.fmax(x, y)


def np_fmin(x, y):
    return np.fmin(x, y)


def np_clip(x, lo, hi):
    return np.clip(x, lo, hi)


def max_reduction(x):
    return np.max(x)


def max_method(x):
    return x.max()


def amin_columns(x):
    return np.sum(np.amin(x, axis=0) * np.array([1.0, 2.0, 3.0]))


def maximum_weighted(x, y):
    return np.sum(np.maximum(x, y) * np.array([1.0, 2.0, 3.0]))


def fmax_weighted(x, y):
    return np.sum(np.fmax(x, y) * np.array([1.0, 2.0, 3.0]))


def clip_weighted(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) * np.array([1.0, 2.0, 3.0, 4.0, 5.0]))


def torch_clamp(t, x, lo, hi):
    return t.clamp(x, lo, hi)


def torch_weighted(t, value):
    return (value * t.arange(1.0, value.numel() + 1.0, dtype=t.float64)).sum()


# (id, function, torch equivalent `(torch, *args) -> output`, arguments, expected gradients)
GRADIENT_CASES = [
    ("max-tie", builtin_max, lambda t, *a: max(*a), (1.0, 1.0), (1.0, 0.0)),
    ("max-first", builtin_max, lambda t, *a: max(*a), (3.0, 2.0), (1.0, 0.0)),
    ("max-second", builtin_max, lambda t, *a: max(*a), (1.0, 2.0), (0.0, 1.0)),
    ("max3-later-tie", builtin_max3, lambda t, *a: max(*a), (0.0, 2.0, 2.0), (0.0, 1.0, 0.0)),
    ("min-tie", builtin_min, lambda t, *a: min(*a), (1.0, 1.0), (1.0, 0.0)),
    ("min-second", builtin_min, lambda t, *a: min(*a), (2.0, 1.0), (0.0, 1.0)),
    ("min-tuple-tie", builtin_min_tuple, lambda t, *a: min(a), (2.0, 1.0, 1.0),
     (0.0, 1.0, 0.0)),
    ("maximum-tie", np_maximum, lambda t, x, y: t.maximum(x, y), (1.0, 1.0), (0.5, 0.5)),
    ("maximum-away", np_maximum, lambda t, x, y: t.maximum(x, y), (1.0, 2.0), (0.0, 1.0)),
    ("minimum-tie", np_minimum, lambda t, x, y: t.minimum(x, y), (1.0, 1.0), (0.5, 0.5)),
    ("minimum-away", np_minimum, lambda t, x, y: t.minimum(x, y), (1.0, 2.0), (1.0, 0.0)),
    ("fmax-tie", np_fmax, lambda t, x, y: t.fmax(x, y), (1.0, 1.0), (1.0, 0.0)),
    ("fmax-away", np_fmax, lambda t, x, y: t.fmax(x, y), (1.0, 2.0), (0.0, 1.0)),
    ("fmax-nan-first", np_fmax, lambda t, x, y: t.fmax(x, y), (NAN, 2.0), (0.0, 1.0)),
    ("fmax-nan-second", np_fmax, lambda t, x, y: t.fmax(x, y), (2.0, NAN), (1.0, 0.0)),
    ("fmin-tie", np_fmin, lambda t, x, y: t.fmin(x, y), (1.0, 1.0), (1.0, 0.0)),
    ("fmin-away", np_fmin, lambda t, x, y: t.fmin(x, y), (2.0, 1.0), (0.0, 1.0)),
    ("fmin-nan-first", np_fmin, lambda t, x, y: t.fmin(x, y), (NAN, 2.0), (0.0, 1.0)),
    ("fmin-nan-second", np_fmin, lambda t, x, y: t.fmin(x, y), (2.0, NAN), (1.0, 0.0)),
    ("clip-inside", np_clip, torch_clamp, (0.5, 0.0, 1.0), (1.0, 0.0, 0.0)),
    ("clip-at-lo", np_clip, torch_clamp, (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)),
    ("clip-at-hi", np_clip, torch_clamp, (1.0, 0.0, 1.0), (1.0, 0.0, 0.0)),
    ("clip-below", np_clip, torch_clamp, (-1.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
    ("clip-above", np_clip, torch_clamp, (2.0, 0.0, 1.0), (0.0, 0.0, 1.0)),
    ("clip-lo-above-hi", np_clip, torch_clamp, (0.5, 1.0, 0.0), (0.0, 0.0, 1.0)),
    ("clip-below-lo-equal-hi", np_clip, torch_clamp, (0.0, 1.0, 1.0), (0.0, 0.0, 0.0)),
    ("amax-ties", max_reduction, lambda t, x: t.amax(x), (np.array([1.0, 3.0, 3.0, 2.0]),),
     (np.array([0.0, 0.5, 0.5, 0.0]),)),
    ("max-method-ties", max_method, lambda t, x: t.amax(x), (np.array([[3.0, 1.0], [3.0, 3.0]]),),
     (np.array([[1.0, 0.0], [1.0, 1.0]]) / 3.0,)),
    ("amin-axis-ties", amin_columns, lambda t, x: torch_weighted(t, t.amin(x, dim=0)),
     (np.array([[1.0, 2.0, 0.5], [1.0, 0.5, 0.5]]),),
     (np.array([[0.5, 0.0, 1.5], [0.5, 2.0, 1.5]]),)),
    ("maximum-broadcast-ties", maximum_weighted, lambda t, x, y: torch_weighted(t, t.maximum(x, y)),
     (np.array([1.0, 2.0, 3.0]), 2.0), (np.array([0.0, 1.0, 3.0]), 2.0)),
    ("fmax-arrays-nan", fmax_weighted, lambda t, x, y: torch_weighted(t, t.fmax(x, y)),
     (np.array([NAN, 1.0, 2.0]), np.array([1.0, NAN, 2.0])),
     (np.array([0.0, 2.0, 3.0]), np.array([1.0, 0.0, 0.0]))),
    ("clip-array-bounds", clip_weighted, lambda t, x, lo, hi: torch_weighted(t, t.clamp(x, lo, hi)),
     (np.array([-1.0, 0.0, 0.5, 1.0, 2.0]), 0.0, np.ones(5)),
     (np.array([0.0, 2.0, 3.0, 4.0, 0.0]), 1.0, np.array([0.0, 0.0, 0.0, 0.0, 5.0]))),
]
GRADIENT_IDS = [c[0] for c in GRADIENT_CASES]


def _assert_gradients(got, expected, label):
    assert len(got) == len(expected), label
    for g, e in zip(got, expected, strict=True):
        assert np.shape(g) == np.shape(e), label
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12, err_msg=label)


def _tangent(value):
    """A direction with distinct components, so that how ties split is visible."""
    return np.arange(1.0, np.size(value) + 1.0).reshape(np.shape(value)) if np.ndim(value) \
        else 1.0


def _python_jvp(fn, primals, tangents):
    primal, _, _ = build_graph(fn, [arg_type(a, i) for i, a in enumerate(primals)])
    run = compile_graph(optimize(jvp_graph(primal)), fn.__name__)
    return run(*primals, *tangents)[1]


def _jvp(backend, fn, primals, tangents):
    if backend == "llvm":
        return jvp(fn, primals, tangents)[1]
    return _python_jvp(fn, primals, tangents)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", GRADIENT_CASES, ids=GRADIENT_IDS)
def test_compiled_reverse_mode_follows_torch_conventions(case, backend):
    name, fn, _, args, expected = case
    got = grad(fn, wrt=tuple(range(len(args))), backend=backend)(*args)
    _assert_gradients(got, expected, f"{name} {backend}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", GRADIENT_CASES, ids=GRADIENT_IDS)
def test_compiled_forward_mode_follows_torch_conventions(case, backend):
    name, fn, _, args, expected = case
    for i, (arg, gradient) in enumerate(zip(args, expected, strict=True)):
        tangents = [_tangent(a) if j == i else np.zeros_like(a) if np.ndim(a) else 0.0
                    for j, a in enumerate(args)]
        want = float(np.sum(np.asarray(gradient) * _tangent(arg)))
        got = _jvp(backend, fn, args, tangents)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), f"{name} {backend} arg {i}"


def _leaf_gradients(tensors, args):
    """Gradients of leaves as numbers/arrays; a leaf the output never used (grad None, as in
    torch) has gradient zero."""
    return [np.zeros(np.shape(a)) if t.grad is None else t.grad.numpy() if np.ndim(a)
            else t.grad.item() for t, a in zip(tensors, args, strict=True)]


def _tape_gradients(fn, args):
    tensors = [rt.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in args]
    fn(*tensors).backward()
    return _leaf_gradients(tensors, args)


@pytest.mark.parametrize("case", GRADIENT_CASES, ids=GRADIENT_IDS)
def test_tape_follows_torch_conventions(case):
    name, fn, _, args, expected = case
    _assert_gradients(_tape_gradients(fn, args), expected, f"{name} tape")


@pytest.mark.parametrize("case", GRADIENT_CASES, ids=GRADIENT_IDS)
def test_conventions_are_torchs(case):
    torch = pytest.importorskip("torch")
    name, _, torch_fn, args, expected = case
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in args]
    torch_fn(torch, *tensors).backward()
    _assert_gradients(_leaf_gradients(tensors, args), expected, f"{name} torch")


# ---- values: NaN order, ints, mixed types (item: builtins and fmax/fmin follow Python/numpy) --

VALUE_CASES = [
    (builtin_max, (1.0, NAN)), (builtin_max, (NAN, 1.0)), (builtin_min, (1.0, NAN)),
    (builtin_min, (NAN, 1.0)), (builtin_max3, (1.0, NAN, 2.0)), (builtin_max3, (NAN, 1.0, 2.0)),
    (builtin_max3, (2.0, 1.0, NAN)), (builtin_min_tuple, (NAN, 1.0, 0.5)),
    (builtin_min_tuple, (1.0, NAN, 0.5)), (builtin_max, (2, 7)), (builtin_min, (2, 7)),
    (builtin_max3, (4, -1, 9)), (builtin_max, (3, 2.5)), (builtin_max, (1, 2.5)),
    (builtin_max, (2, NAN)), (builtin_min, (NAN, 2)), (builtin_max, (-0.0, 0.0)),
    (builtin_max, (0.0, -0.0)), (np_fmax, (NAN, 1.0)), (np_fmax, (1.0, NAN)),
    (np_fmax, (NAN, NAN)), (np_fmax, (-1.0, 2.0)), (np_fmax, (3, 2)), (np_fmin, (NAN, 1.0)),
    (np_fmin, (1.0, NAN)), (np_fmin, (NAN, NAN)), (np_fmin, (-1.0, 2.0)),
    (np_maximum, (NAN, 1.0)), (np_maximum, (1.0, NAN)), (np_minimum, (1.0, NAN)),
    (np_maximum, (-0.0, 0.0)), (np_maximum, (0.0, -0.0)), (np_minimum, (-0.0, 0.0)),
    (np_minimum, (0.0, -0.0)), (np_maximum, (np.array([-0.0, 0.0]), np.array([0.0, -0.0]))),
    (np_minimum, (np.array([-0.0, 0.0]), np.array([0.0, -0.0]))),
    (np_clip, (NAN, 0.0, 1.0)), (np_clip, (0.5, NAN, 1.0)), (np_clip, (0.5, 0.0, NAN)),
    (np_clip, (0.5, 1.0, 0.0)), (np_clip, (-3, 0, 1)), (np_clip, (7, 0, 5)),
    (np_fmax, (np.array([NAN, 1.0, NAN, -2.0]), np.array([1.0, NAN, NAN, 3.0]))),
    (np_fmin, (np.array([NAN, 1.0, NAN, -2.0]), np.array([1.0, NAN, NAN, 3.0]))),
    (np_fmax, (np.array([NAN, 1.0, 5.0]), 2.0)),
    (np_clip, (np.array([NAN, -1.0, 0.5, 3.0]), np.array([0.0, 0.0, NAN, 0.0]), 1.0)),
]


def _value_case_id(v):
    """`fn.__name__`, and the arguments as Python prints them with each array shown as its
    dtype and shape (float64[4]) rather than numpy's repr."""
    if callable(v):
        return v.__name__
    labels = [f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else repr(a) for a in v]
    return "(" + ", ".join(labels) + ")"


def _same(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    np.testing.assert_array_equal(got, want)  # NaN equals NaN here
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", VALUE_CASES, ids=_value_case_id)
def test_compiled_values_match_python_and_numpy(fn, args, backend):
    want = fn(*args)
    got = jit(fn, backend=backend)(*args)
    _same(got, want)
    if all(isinstance(a, int) for a in args) and fn in (builtin_max, builtin_min, builtin_max3):
        assert type(got) is int


@pytest.mark.parametrize("fn,args", VALUE_CASES, ids=_value_case_id)
def test_tape_values_match_python_and_numpy(fn, args):
    want = fn(*args)
    got = fn(*(rt.tensor(np.asarray(a, dtype=np.float64)) for a in args))
    _same(got.numpy(), np.asarray(want, dtype=np.float64))


def test_builtin_max_of_arrays_is_refused_at_compile_time():
    def elementwise(x, y):
        return max(x, y)

    with pytest.raises(AdliteSyntaxError, match="builtin max\\(\\) of arrays") as info:
        jit(elementwise)(np.ones(3), np.zeros(3))
    assert "np.maximum" in str(info.value)


# ---- empty max / min: numpy's ValueError when (and only when) executed ------------------------

def empty_max(x):
    return np.max(x)


def empty_min_axis0(x):
    return np.min(x, axis=0)


def empty_method_max(x):
    return x.max()


def empty_amin_keepdims(x):
    return np.amin(x, axis=1, keepdims=True)


def empty_amax_all_axes(x):
    return np.amax(x, axis=(0, 1))


def nonempty_axis_of_empty_array(x):
    return np.max(x, axis=1)


def unused_empty_max(x, e):
    m = np.max(e)  # noqa: F841 - numpy raises even though the value is unused
    return x


def empty_max_in_branch(x, e):
    if x > 0.0:
        return x + np.max(e)
    return x


def empty_min_in_loop(x, e, n):
    s = x
    for _ in range(n):
        s = s + np.min(e)
    return s


EMPTY_CASES = [(empty_max, np.zeros(0)), (empty_min_axis0, np.zeros((0, 3))),
               (empty_method_max, np.zeros((0, 3))), (empty_amin_keepdims, np.zeros((3, 0))),
               (empty_amax_all_axes, np.zeros((2, 0)))]


def _numpy_error(fn, *args) -> str:
    with pytest.raises(ValueError) as info:
        fn(*args)
    return str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,x", EMPTY_CASES, ids=[c[0].__name__ for c in EMPTY_CASES])
def test_empty_max_min_raise_numpys_error(fn, x, backend):
    message = _numpy_error(fn, x)
    with pytest.raises(ValueError) as info:
        jit(fn, backend=backend)(x)
    assert str(info.value) == message


@pytest.mark.parametrize("backend", BACKENDS)
def test_reducing_a_nonempty_axis_of_an_empty_array_gives_an_empty_array(backend):
    x = np.zeros((0, 3))
    got = jit(nonempty_axis_of_empty_array, backend=backend)(x)
    assert got.shape == nonempty_axis_of_empty_array(x).shape == (0,)


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_max_raises_only_where_executed(backend):
    e = np.zeros(0)
    for fn, args in [(unused_empty_max, (1.0, e)), (empty_max_in_branch, (1.0, e)),
                     (empty_min_in_loop, (1.0, e, 2))]:
        message = _numpy_error(fn, *args)
        with pytest.raises(ValueError) as info:
            jit(fn, backend=backend)(*args)
        assert str(info.value) == message
    assert jit(empty_max_in_branch, backend=backend)(-1.0, e) == -1.0
    assert jit(empty_min_in_loop, backend=backend)(1.5, e, 0) == 1.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_derivatives_of_an_empty_max_raise_too(backend):
    e = np.zeros(0)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        grad(empty_max_in_branch, backend=backend)(2.0, e)
    assert grad(empty_max_in_branch, backend=backend)(-2.0, e) == 1.0
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        _jvp(backend, empty_min_in_loop, (1.0, e, 3), (1.0, np.zeros(0)))


def test_tape_empty_max_raises_numpys_error():
    t = rt.tensor(np.zeros((0, 2)), requires_grad=True)
    for call in (lambda: t.max(), lambda: np.max(t), lambda: np.amin(t, axis=0)):
        with pytest.raises(ValueError, match="zero-size array to reduction operation"):
            call()


# ---- second order through the conventions ------------------------------------------------------

def clipped_cube(x):
    return np.clip(x, 0.0, 1.0) ** 3


def builtin_max_of_powers(x):
    return max(x * x * x, 2.0 * x)


def fmax_of_powers(x):
    return np.fmax(x * x, x)


@pytest.mark.parametrize("fn,x,want", [(clipped_cube, 0.5, 3.0), (clipped_cube, 1.5, 0.0),
                                       (builtin_max_of_powers, 2.0, 12.0),
                                       (builtin_max_of_powers, 0.5, 0.0),
                                       (fmax_of_powers, 3.0, 2.0), (fmax_of_powers, 0.5, 0.0)])
def test_second_derivatives_compiled_and_tape(fn, x, want):
    assert hessian(fn)(x) == pytest.approx(want, abs=1e-12)
    t = rt.tensor(x, requires_grad=True)
    (g,) = rt.autograd.grad(fn(t), (t,), create_graph=True)
    (h,) = rt.autograd.grad(g, (t,), allow_unused=True) if g.requires_grad else (None,)
    assert (0.0 if h is None else h.item()) == pytest.approx(want, abs=1e-12)
