"""numpy functions composed from primitives (eye, diag, trace, diff, roll, linspace, arange,
asarray, radians, cross, cumsum, tile, repeat, einsum, ...), chained assignment, unpacking
an array and buffers swapped by name in a loop (`u, u_new = u_new, u`): compiled values equal
numpy's running the same code (both backends), gradients equal central finite differences
computed here with plain numpy, forward mode and Hessians too, refusals name the user's line;
the eager tape runs the same functions."""

import inspect

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit, jvp
from adlite.compiler.errors import AdliteSyntaxError
from adlite.runtime import Tensor

from ..support import numpy_functions_examples as ex
from ..support.gradients import central_difference_in

BACKENDS = ("llvm", "python")
RNG = np.random.default_rng(7)
V = RNG.standard_normal(4)
A = RNG.standard_normal((3, 4))
S = RNG.standard_normal((4, 4))
B = RNG.standard_normal((4, 2))
POSITIVE = RNG.uniform(0.5, 1.5, 6)
Q = RNG.standard_normal((2, 2, 3, 4))
K = RNG.standard_normal((2, 2, 5, 4))
P3 = RNG.standard_normal((5, 3))

CASES = [
    (ex.eye_times, (A,)), (ex.eye_offset, (A,)), (ex.diag_of_vector, (V,)),
    (ex.diag_offsets, (V[:3],)), (ex.diag_of_matrix, (A,)), (ex.diag_of_matrix, (A.T,)),
    (ex.traces, (S,)), (ex.traces, (A,)), (ex.diffs, (V,)), (ex.diffs_2d, (A,)),
    (ex.rolls, (V,)), (ex.rolls_2d, (A,)), (ex.spaced, (0.3, 2.5)), (ex.spaced, (1.0, 1.0)),
    (ex.spaced_open, (-1.5, 0.7)), (ex.spaced_flat, (0.25,)), (ex.ranges, (V[:3],)),
    (ex.angles, (V * 90.0,)), (ex.crosses, (V[:3], V[1:])), (ex.crosses, (P3, V[:3])),
    (ex.crosses, (P3, P3[::-1])), (ex.cumulative, (POSITIVE,)), (ex.cumulative_2d, (A,)),
    (ex.long_scan, (RNG.standard_normal(300),)), (ex.tiles, (V,)), (ex.tiles_2d, (A,)),
    (ex.einsum_pair, (A, B)), (ex.einsum_reductions, (A,)), (ex.einsum_vectors, (V, V[::-1])),
    (ex.einsum_batched, (Q, K)), (ex.einsum_transpose, (A,)), (ex.chained, (V,)),
    (ex.unpacked, (V[:3],)), (ex.unpacked_rows, (A[:2],)), (ex.jacobi_swaps, (POSITIVE, 5)),
    (ex.jacobi_swaps, (POSITIVE, 4)), (ex.rotations, (V,)),
]
IDS = [f"{fn.__name__}-{'x'.join(str(np.shape(a)) for a in args)}" for fn, args in CASES]


def _copies(args):
    return tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_values_equal_numpy(fn, args, backend):
    expected = fn(*_copies(args))
    got = jit(fn, backend=backend)(*_copies(args))
    assert np.shape(got) == np.shape(expected)
    scan = fn is ex.long_scan  # a log-depth scan: the same sums, associated differently
    np.testing.assert_allclose(got, expected, rtol=1e-13 if scan else 1e-15,
                               atol=1e-13 if scan else 1e-15)


def _weighted(fn, arity):
    """A scalar loss of `fn`'s result: its elements weighted by fixed, distinct numbers."""
    if arity == 1:
        def loss(x):
            y = fn(x)
            return np.sum(np.cos(np.arange(y.size) * 0.7 + 0.3).reshape(y.shape) * y)
        return loss

    def loss2(x, y):
        z = fn(x, y)
        return np.sum(np.cos(np.arange(z.size) * 0.7 + 0.3).reshape(z.shape) * z)
    return loss2


GRADIENT = [(case, name) for case, name in zip(CASES, IDS, strict=True)
            if case[0] not in (ex.chained, ex.unpacked_rows, ex.long_scan)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", [c for c, _ in GRADIENT], ids=[n for _, n in GRADIENT])
def test_gradients_equal_finite_differences(fn, args, backend):
    scalar = np.ndim(fn(*_copies(args))) == 0
    loss = fn if scalar else _weighted(fn, len(args))
    for wrt in range(len(args)):
        if not isinstance(args[wrt], np.ndarray | float):
            continue
        got = grad(loss, wrt=wrt, backend=backend)(*_copies(args))
        expected = central_difference_in(loss, args, wrt)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn,args", [(ex.einsum_batched, (Q, K)), (ex.diag_of_vector, (V,)),
                                     (ex.spaced, (0.3, 2.5)), (ex.crosses, (P3, V[:3])),
                                     (ex.cumulative_2d, (A,))])
def test_forward_mode_equals_finite_differences(fn, args):
    tangents = [np.cos(np.arange(np.size(a)) + 1.0).reshape(np.shape(a)) if np.ndim(a)
                else 0.5 for a in args]
    _, got = jvp(fn, args, tangents)
    h = 1e-6
    plus = fn(*(a + h * t for a, t in zip(args, tangents, strict=True)))
    minus = fn(*(a - h * t for a, t in zip(args, tangents, strict=True)))
    np.testing.assert_allclose(got, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn,args", [(ex.einsum_reductions, (A,)), (ex.traces, (S,)),
                                     (ex.einsum_vectors, (V, V[::-1]))])
def test_hessian_equals_finite_differences(fn, args):
    loss = fn if np.ndim(fn(*args)) == 0 else _weighted(fn, len(args))
    got = hessian(loss, 0)(*args)
    rows = []
    x = np.array(args[0])
    for k in np.ndindex(*x.shape):
        def partial(z, k=k):
            return central_difference_in(loss, (z, *args[1:]), 0, eps=1e-5)[k]
        rows.append(central_difference_in(partial, (x,), 0, eps=1e-4))
    expected = np.stack(rows).reshape(x.shape + x.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_asarray_is_the_same_object_and_array_a_copy():
    x = V.copy()
    expected = ex.same_object(x.copy())
    for backend in BACKENDS:
        np.testing.assert_array_equal(jit(ex.same_object, backend=backend)(x.copy()), expected)
    assert expected[0] == 15.0 and expected[1] == 2.0 * V[1] - 7.0


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


@pytest.mark.parametrize("fn,arg,message,text", [
    (ex.unpack_wrong, V[:3], "ValueError: too many values to unpack (expected 2)", "a, b = x"),
    (ex.unpack_wrong, V[:1], "ValueError: not enough values to unpack (expected 2, got 1)",
     "a, b = x"),
    (ex.unsupported_library, S, "np.linalg.matrix_power() is not supported",
     "np.linalg.matrix_power"),
    (ex.einsum_no_subscripts, A, "np.einsum needs its subscripts string first", "np.einsum"),
    (ex.swap_seen_by_another_name_while, V, "bound to different arrays depending on the path",
     "u_new[1:-1] = "),
], ids=["unpack_wrong-too_many", "unpack_wrong-too_few", "unsupported_library",
        "einsum_no_subscripts", "swap_seen_by_another_name_while"])
def test_refusals_name_the_users_line(fn, arg, message, text):
    with pytest.raises(AdliteSyntaxError) as info:
        jit(fn)(arg)
    error = info.value
    assert message in str(error)
    assert error.filename == inspect.getsourcefile(fn)
    assert error.line == _line_of(fn, text)


def test_python_gives_the_same_unpacking_errors():
    for arg, message in ((V[:3], "too many values to unpack (expected 2)"),
                         (V[:1], "not enough values to unpack (expected 2, got 1)")):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            ex.unpack_wrong(arg)


@pytest.mark.parametrize("fn,args", [c for c in CASES if any(c[0] is f for f in (
    ex.diag_of_vector, ex.diag_of_matrix, ex.traces, ex.diffs_2d, ex.rolls_2d, ex.angles,
    ex.crosses, ex.cumulative_2d, ex.tiles_2d, ex.einsum_pair, ex.einsum_reductions,
    ex.einsum_batched, ex.einsum_transpose))])
def test_eager_tape_runs_them_with_the_same_gradients(fn, args):
    tensors = [Tensor(np.array(a), requires_grad=True) for a in args]
    out = fn(*tensors)
    np.testing.assert_allclose(out.data, fn(*args), rtol=1e-15, atol=1e-15)
    loss = fn if np.ndim(fn(*args)) == 0 else _weighted(fn, len(args))
    loss(*tensors).backward()
    for k, t in enumerate(tensors):
        np.testing.assert_allclose(t.grad, grad(loss, wrt=k)(*args), rtol=1e-12, atol=1e-12)


def test_names_left_on_traded_objects_are_ambiguous_after_the_loop():
    """A view made by the loop's body of a buffer the names trade may be a view of any of
    them after the loop: writes through it are refused, writes to them poison it."""
    from adlite.compiler.frontend.aliasing import Ref, blur, private_objects
    head = {"u": Ref(1), "u_new": Ref(2), "f": Ref(3)}
    end = {"u": Ref(2), "u_new": Ref(1), "f": Ref(3), "center": Ref(2, view=(1,))}
    traded = private_objects({"u", "u_new"}, head, end, {"u", "u_new", "f"}, {1, 2, 3})
    assert traded == {1, 2}
    after = blur({"center": end["center"], "g": Ref(4)}, traded)
    assert after["center"].maybe == {1, 2} and after["center"].frozen
    assert after["g"] == Ref(4)
    kept = {**head, "kept": Ref(1)}  # another name sees u's object: not private
    assert private_objects({"u", "u_new"}, kept, end, {"u", "u_new", "f", "kept"},
                           {1, 2, 3}) is None


def test_a_swap_seen_by_another_name_in_a_counted_loop_is_unrolled():
    np.testing.assert_array_equal(jit(ex.swap_seen_by_another_name)(V.copy()),
                                  ex.swap_seen_by_another_name(V.copy()))


RANDOM_STATE = np.random.RandomState(0)


def draws_inside(x):
    return x + RANDOM_STATE.randn()


def draws_with_numpy_random(x):
    return x + np.random.normal()


@pytest.mark.parametrize("fn, text", [(draws_inside, "RANDOM_STATE.randn()"),
                                      (draws_with_numpy_random, "np.random.normal()")])
def test_random_draws_are_refused_with_a_hint_to_pass_them_in(fn, text):
    with pytest.raises(AdliteSyntaxError) as info:
        jit(fn)(1.0)
    assert "is not supported" in info.value.message
    assert "pass them in as an argument" in info.value.hint
    assert info.value.line == _line_of(fn, text)
