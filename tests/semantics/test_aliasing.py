"""Aliasing of numpy arrays in compiled code (issue 8, item 12): writes through one name are
seen through every name bound to the same array and through basic-slice views, `jit` writes
into the caller's argument arrays as Python does, `grad` differentiates the values at entry
and never modifies the caller's arrays, and forms compiled code cannot follow are refused at
compile time naming the line. Expected values come from running the Python functions."""

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.compiler.errors import AdliteSyntaxError

BACKENDS = ("llvm", "python")


def write_through_alias(x):
    y = x
    y[0] = 5.0 * x[1]
    return np.sum(x * x)


def convection(u, c, nt):
    n = len(u)
    for _ in range(nt):
        un = u
        for i in range(1, n):
            u[i] = un[i] - c * (un[i] - un[i - 1])
    return np.sum(u)


def kernel(out, x):
    for i in range(len(x)):
        out[i] = 2.0 * x[i] + 1.0
    return 0.0


def write_view(x):
    v = x[1:4]
    v[0] = 2.0
    x[2] = 7.0
    return np.sum(x * x) + v[1] * 10.0


def in_place_add(x, v):
    y = x
    x += v
    return np.sum(y)


def rebinding_add(x, v):
    y = x
    x = x + v
    return np.sum(y) + np.sum(x)


def scale_first(a, s):
    a[0] = a[0] * s
    return 0.0


def callee_writes(x):
    scale_first(x, 3.0)
    return np.sum(x)


def returns_argument(x):
    x[1] = -1.0
    return x


def branch_alias(x, c):
    y = x
    if c > 0.0:
        y[0] = 10.0
    else:
        x[1] = 20.0
    return np.sum(y) + np.sum(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_write_through_an_alias_is_seen_through_the_argument(backend):
    x = np.array([1.0, 2.0, 3.0])
    expected_x = x.copy()
    expected = write_through_alias(expected_x)
    assert expected == 113.0
    assert jit(write_through_alias, backend=backend)(x) == expected
    np.testing.assert_array_equal(x, expected_x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_convection_stencil(backend):
    u = np.array([1.0, 2.0, 3.0, 4.0, 0.5, 0.25])
    expected_u = u.copy()
    expected = convection(expected_u, 0.5, 3)
    assert jit(convection, backend=backend)(u, 0.5, 3) == expected
    np.testing.assert_array_equal(u, expected_u)


@pytest.mark.parametrize("backend", BACKENDS)
def test_numba_style_kernel_writes_out(backend):
    x = np.arange(8.0)[::2]  # non-contiguous caller arrays
    out = np.zeros(8)[1::2]
    jit(kernel, backend=backend)(out, x)
    np.testing.assert_array_equal(out, 2.0 * x + 1.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_write_through_a_view(backend):
    x = np.arange(6.0)
    expected_x = x.copy()
    expected = write_view(expected_x)
    assert jit(write_view, backend=backend)(x) == expected
    np.testing.assert_array_equal(x, expected_x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_augmented_assignment_is_in_place(backend):
    for fn in (in_place_add, rebinding_add):
        x = np.arange(3.0)
        expected_x = x.copy()
        expected = fn(expected_x, 1.0)
        assert jit(fn, backend=backend)(x, 1.0) == expected
        np.testing.assert_array_equal(x, expected_x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_callee_writes_its_parameter(backend):
    x = np.array([1.0, 2.0])
    expected_x = x.copy()
    assert jit(callee_writes, backend=backend)(x) == callee_writes(expected_x) == 5.0
    np.testing.assert_array_equal(x, expected_x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_returned_argument_is_the_callers_array(backend):
    x = np.zeros(3)
    result = jit(returns_argument, backend=backend)(x)
    assert result is x
    np.testing.assert_array_equal(x, [0.0, -1.0, 0.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_in_branches_reach_every_alias(backend):
    for c in (1.0, -1.0):
        x = np.array([1.0, 2.0])
        expected_x = x.copy()
        assert jit(branch_alias, backend=backend)(x, c) == branch_alias(expected_x, c)
        np.testing.assert_array_equal(x, expected_x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_swapped_arrays_in_a_counted_loop_are_followed(backend):
    """A loop of known trip count whose names swap arrays is unrolled: each trip writes the
    array its name holds then (refused with a run-time trip count, see below)."""
    a, b = np.array([1.0, 2.0]), np.array([5.0, 7.0])
    expected_a, expected_b = a.copy(), b.copy()
    expected = swap_in_loop(expected_a, expected_b)
    assert jit(swap_in_loop, backend=backend)(a, b) == expected == 63.0
    np.testing.assert_array_equal(a, expected_a)
    np.testing.assert_array_equal(b, expected_b)


def test_arguments_sharing_memory_with_a_written_one_are_refused():
    x = np.arange(4.0)
    with pytest.raises(ValueError, match="share memory"):
        jit(kernel)(x, x)


def convection_twice(u):
    return convection(u, 0.5, 2)


def _finite_difference(fn, x, eps=1e-6):
    g = np.zeros_like(x)
    for k in range(x.size):
        up, down = x.copy(), x.copy()
        up[k] += eps
        down[k] -= eps
        g[k] = (fn(up) - fn(down)) / (2 * eps)
    return g


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [write_through_alias, write_view, callee_writes,
                                convection_twice])
def test_grad_of_writes_is_wrt_values_at_entry(backend, fn):
    x = np.array([1.0, 2.0, 3.0, 4.0, 0.5, 0.25])
    before = x.copy()
    g = grad(fn, backend=backend)(x)
    np.testing.assert_array_equal(x, before)  # grad never modifies the caller's arrays
    np.testing.assert_allclose(g, _finite_difference(fn, x), rtol=1e-6, atol=1e-6)


def ambiguous_branch(x, c):
    if c > 0.0:
        y = x
    else:
        y = x.copy()
    y[0] = 1.0
    return np.sum(x)


def swap_in_loop(a, b):
    for _ in range(3):
        a[0] = a[0] + 1.0
        a, b = b, a
    return np.sum(a) + 10.0 * np.sum(b)


def swap_in_loop_of_runtime_length(a, b, n):
    k = 0
    while k < n:  # not a counted loop: never unrolled
        a[0] = a[0] + 1.0
        a, b = b, a
        k += 1
    return np.sum(a)


def write_through_reshape(x):
    y = x.reshape(2, 2)
    y[0, 0] = 1.0
    return np.sum(x)


def read_stale_transpose(x):
    t = x.T
    x[0, 0] = 5.0
    return np.sum(t)


def views_made_in_branches(x, c):
    if c > 0.0:
        z = x * 2.0
        t = z.T
    else:
        z = x * 3.0
        t = z.T
    z[0] = 100.0
    return np.sum(t)


@pytest.mark.parametrize("fn, line, words", [
    (ambiguous_branch, "y[0] = 1.0", "different arrays"),
    (swap_in_loop_of_runtime_length, "a[0] = a[0] + 1.0", "different arrays"),
    (write_through_reshape, "y[0, 0] = 1.0", "numpy view"),
    (read_stale_transpose, "return np.sum(t)", "written at line"),
    (views_made_in_branches, "return np.sum(t)", "written at line"),
], ids=["ambiguous_branch", "swap_in_loop_of_runtime_length", "write_through_reshape",
        "read_stale_transpose", "views_made_in_branches"])
def test_unfollowable_aliasing_is_refused_naming_the_line(fn, line, words):
    with pytest.raises(AdliteSyntaxError) as e:
        jit(fn)(*([np.ones((2, 2))] if fn in (write_through_reshape, read_stale_transpose)
                  else [np.ones(3), 1.0] if fn in (ambiguous_branch, views_made_in_branches) else
                  [np.ones(3), np.ones(3), 3] if fn is swap_in_loop_of_runtime_length else
                  [np.ones(3), np.ones(3)]))
    message = str(e.value)
    assert words in message and line in message and ".copy()" in message


def returns_arguments_and_a_view(x, y):
    a, b = x, y
    a[0] = 7.0
    b += a
    return x, b[1:3], np.sum(a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_returned_arguments_and_views_share_the_callers_memory(backend):
    x, y = np.arange(3.0), np.ones(3)
    expected_x, expected_y = x.copy(), y.copy()
    expected = returns_arguments_and_a_view(expected_x, expected_y)
    first, view, total = jit(returns_arguments_and_a_view, backend=backend)(x, y)
    assert first is x and total == expected[2]
    np.testing.assert_array_equal(view, expected[1])
    np.testing.assert_array_equal(y, expected_y)
    y[1] = 100.0  # the result is a view of the caller's array, as in numpy
    assert view[0] == 100.0


def unpack_and_write(t):
    a, b = t
    a[0] = 5.0
    return b[0]


def passes_a_tuple(x, y):
    return unpack_and_write((x, y)) + np.sum(x) + unpack_and_write((y, y))


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_passed_inside_tuples_are_the_callers_arrays(backend):
    x, y = np.ones(2), np.ones(2)
    expected_x, expected_y = x.copy(), y.copy()
    expected = passes_a_tuple(expected_x, expected_y)
    assert jit(passes_a_tuple, backend=backend)(x, y) == expected
    np.testing.assert_array_equal(x, expected_x)
    np.testing.assert_array_equal(y, expected_y)


def view_outlives_its_name_in_a_loop(a):
    x = a * 1.0
    v = x[0:2]
    for _ in range(2):
        x = x * 2.0
    return np.sum(v) + np.sum(x)


def view_outlives_its_name_in_a_branch(a, c):
    x = a * 1.0
    v = x[0:2]
    if c > 0.0:
        x = x * 2.0
    v[1] = 7.0 if c < 0.0 else v[1]
    return np.sum(v) + np.sum(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_views_keep_their_base_when_its_name_is_rebound(backend):
    a = np.arange(1.0, 4.0)
    assert jit(view_outlives_its_name_in_a_loop, backend=backend)(a) == \
        view_outlives_its_name_in_a_loop(a.copy())
    with pytest.raises(AdliteSyntaxError, match="different arrays"):
        for c in (1.0, -1.0):  # v is a view of the first x in one arm only: refused
            jit(view_outlives_its_name_in_a_branch, backend=backend)(a, c)
