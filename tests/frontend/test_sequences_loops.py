"""Loops over arrays, lists, tuples, zip, enumerate, reversed and stored ranges; Python lists
(literals, append, indexing, len, comprehensions, np.array / np.stack of lists); no false
"may be undefined" after a loop that runs (issue 10, items 2, 3 and 12).

Values are compared with the Python functions run by numpy; gradients with central finite
differences of the Python functions (plain numpy), in reverse mode on both backends, forward
mode and second order.
"""

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, hessian, jit, jvp
from adlite.compiler.ir.core import Type, walk_eqns

BACKENDS = ["llvm", "python"]
RNG = np.random.default_rng(7)


def fd_grad(f, args, wrt, eps=1e-6):
    """Central finite differences of `f` in argument `wrt` (a float or an array)."""
    args = [np.array(a, dtype=float) if isinstance(a, np.ndarray) else a for a in args]
    x = np.asarray(args[wrt], dtype=float)
    out = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        fa = f(*[hi if i == wrt else a for i, a in enumerate(args)])
        fb = f(*[lo if i == wrt else a for i, a in enumerate(args)])
        out[idx] = (fa - fb) / (2 * eps)
    return out if x.shape else float(out)


def fd_hessian(f, args, wrt, eps=1e-4):
    def gradient(*a):
        return np.ravel(fd_grad(f, a, wrt, eps=1e-6))
    x = np.asarray(args[wrt], dtype=float)
    columns = []
    for idx in np.ndindex(*x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        ga = gradient(*[hi if i == wrt else a for i, a in enumerate(args)])
        gb = gradient(*[lo if i == wrt else a for i, a in enumerate(args)])
        columns.append((ga - gb) / (2 * eps))
    return np.array(columns).T.reshape(x.shape + x.shape)


def check_three_ways(f, args, wrt=0, hess=True):
    """Value, reverse (both backends), forward and second order against numpy / FD."""
    expected = f(*args)
    for backend in BACKENDS:
        assert np.allclose(jit(f, backend=backend)(*args), expected, rtol=1e-12, atol=1e-12)
        g = grad(f, wrt=wrt, backend=backend)(*args)
        assert np.allclose(g, fd_grad(f, args, wrt), rtol=1e-6, atol=1e-6)
    floats = [i for i, a in enumerate(args) if isinstance(a, float | np.ndarray)]
    tangents = [RNG.normal(size=np.shape(args[i])) if i == wrt else np.zeros(np.shape(args[i]))
                for i in floats]
    tangents = [t if np.shape(t) else float(t) for t in tangents]
    value, tangent = jvp(f, args, tangents)
    assert np.allclose(value, expected)
    assert np.allclose(tangent, np.sum(fd_grad(f, args, wrt) * tangents[floats.index(wrt)]),
                       rtol=1e-6, atol=1e-6)
    if hess:
        assert np.allclose(hessian(f, wrt=wrt)(*args), fd_hessian(f, args, wrt),
                           rtol=1e-4, atol=1e-4)


# ---- networks: a list of layers of different shapes ----------------------------------------

def mlp_loss(x, W1, b1, W2, b2, W3):
    params = [(W1, b1), (W2, b2)]
    h = x
    for W, b in params:
        h = np.tanh(W @ h + b)
    out = W3 @ h
    return np.sum(out ** 2)


def mlp_args():
    return [RNG.normal(size=3), RNG.normal(size=(5, 3)), RNG.normal(size=5),
            RNG.normal(size=(4, 5)), RNG.normal(size=4), RNG.normal(size=(2, 4))]


@pytest.mark.parametrize("wrt", [0, 1, 4])
def test_network_over_a_list_of_layers_of_different_shapes(wrt):
    check_three_ways(mlp_loss, mlp_args(), wrt=wrt, hess=wrt == 0)


def layers_with_append(x, W1, W2):
    layers = []
    layers.append(W1)
    layers.append(W2)
    activations = [x]
    for W in layers:
        activations.append(np.sin(W @ activations[-1]))
    return np.sum(activations[-1]) + len(activations) * np.sum(activations[1])


def test_activations_kept_in_a_list():
    args = [RNG.normal(size=3), RNG.normal(size=(4, 3)), RNG.normal(size=(2, 4))]
    check_three_ways(layers_with_append, args, wrt=0)
    check_three_ways(layers_with_append, args, wrt=2, hess=False)


# ---- zip, enumerate, reversed, tuples, stored ranges ---------------------------------------

def zip_enumerate(a, b, c):
    s = 0.0
    for i, (u, v) in enumerate(zip(a, b, strict=True), 1):
        s = s + i * u * np.sin(v)
    for u, w in zip(a, c, strict=False):  # stops at the shorter one, as Python
        s = s + u * w
    for u in reversed(b):
        s = 0.5 * s + u
    return s


def test_zip_enumerate_reversed():
    args = [RNG.normal(size=4), RNG.normal(size=4), RNG.normal(size=2)]
    for wrt in (0, 1, 2):
        check_three_ways(zip_enumerate, args, wrt=wrt, hess=wrt == 1)


def tuple_and_range(x, y):
    r = range(1, 7, 2)
    s = 0.0
    for k in r:
        s = s + k * x
    for v in (x, y, x * y):
        s = s * v
    for i in reversed(range(3)):
        s = s + i * y
    return s + len(r)


def test_tuple_stored_range_and_reversed_range():
    check_three_ways(tuple_and_range, [0.7, -1.3], wrt=0)
    check_three_ways(tuple_and_range, [0.7, -1.3], wrt=1)


# ---- rows of an array: one loop, not unrolled ----------------------------------------------

def sum_of_row_norms(X, w):
    total = 0.0
    for row in X:
        total = total + np.sqrt(np.sum((row * w) ** 2) + 1.0)
    return total


def test_rows_of_an_array():
    args = [RNG.normal(size=(6, 3)), RNG.normal(size=3)]
    check_three_ways(sum_of_row_norms, args, wrt=0, hess=False)
    check_three_ways(sum_of_row_norms, args, wrt=1)


def test_rows_of_a_large_array_stay_one_loop():
    graph = jit(sum_of_row_norms).ir_for((Type("f64", (10_000, 3)), Type("f64", (3,))))[0]
    loops = [e for e in walk_eqns(graph) if e.prim == "while"]
    assert len(loops) == 1
    assert sum(1 for _ in walk_eqns(graph)) < 60
    X, w = RNG.normal(size=(10_000, 3)), RNG.normal(size=3)
    assert np.isclose(jit(sum_of_row_norms)(X, w), sum_of_row_norms(X, w), rtol=1e-12)


def rows_through_layers(X, W1, b1, W2):
    layers = [(W1, b1), (W2, 0.5)]
    total = 0.0
    for row in X:  # one loop; the list of layers is read inside it
        h = row
        for W, b in layers:
            h = np.tanh(W @ h + b)
        total = total + np.sum(h ** 2)
    return total


def test_a_list_read_inside_a_loop_that_stays_a_loop():
    args = [RNG.normal(size=(5, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=4),
            RNG.normal(size=(2, 4))]
    check_three_ways(rows_through_layers, args, wrt=1, hess=False)
    check_three_ways(rows_through_layers, args, wrt=0, hess=False)
    types = (Type("f64", (10_000, 3)), Type("f64", (4, 3)), Type("f64", (4,)),
             Type("f64", (2, 4)))
    graph = jit(rows_through_layers).ir_for(types)[0]
    assert sum(e.prim == "while" for e in walk_eqns(graph)) == 1


def newton_with_coefficients(x, c0, c1, c2):
    coefficients = [c0, c1, c2]
    i = 0
    while abs(coefficients[0] + coefficients[1] * x + coefficients[2] * x * x) > 1e-12 \
            and i < 50:
        f = coefficients[0] + coefficients[1] * x + coefficients[2] * x * x
        if f > 0.0:
            df = coefficients[1] + 2.0 * coefficients[2] * x
        else:
            df = coefficients[1] + 2.0 * coefficients[2] * x + 0.0 * coefficients[0]
        x = x - f / df
        i += 1
    return x


def test_a_list_read_inside_a_while_and_an_if():
    args = [1.0, -2.0, 0.5, 1.0]
    for backend in BACKENDS:
        assert np.isclose(jit(newton_with_coefficients, backend=backend)(*args),
                          newton_with_coefficients(*args))
        assert np.isclose(grad(newton_with_coefficients, wrt=1, backend=backend)(*args),
                          fd_grad(newton_with_coefficients, args, 1), rtol=1e-5)


def row_writes(X):
    for row in X:
        row[0] = row[0] * 2.0  # a view: writes into X, as numpy
    return np.sum(X ** 2)


def test_row_views_write_into_the_array():
    X = RNG.normal(size=(3, 2))
    assert np.isclose(jit(row_writes)(X.copy()), row_writes(X.copy()))


# ---- appends, then np.array / np.stack -----------------------------------------------------

def trajectory(x0, v0):
    xs = []
    x, v = x0, v0
    for _ in range(5):
        v = v - 0.1 * np.sin(x)
        x = x + 0.1 * v
        xs.append(x)
    path = np.stack(xs)
    speeds = np.array([np.sum(p) for p in xs])
    return np.sum(path ** 2) + np.sum(speeds) + np.sum(np.vstack(xs)[-1])


def test_appends_then_stack():
    args = [RNG.normal(size=2), RNG.normal(size=2)]
    check_three_ways(trajectory, args, wrt=0)
    check_three_ways(trajectory, args, wrt=1, hess=False)


def scalars_to_array(x):
    values = []
    for i in range(4):
        values.append(x ** i)
    values.extend([x, 2.0])
    last = values.pop()
    first = values[0]
    values[1] = values[1] * 3.0
    both = values + [last]
    return np.sum(np.array(both) * np.arange(len(both))) + first + sum(values)


def test_list_methods_and_operators():
    check_three_ways(scalars_to_array, [0.8], wrt=0)


# ---- comprehensions ------------------------------------------------------------------------

def comprehensions(x, X):
    x2 = 3.0
    squares = [x ** k for k in range(4) if k != 2]
    rows = [np.sum(row * row) for row in X]
    pairs = sum(a * b for a, b in zip(squares, rows))  # noqa: B905 (as users write it)
    grid = [[x * i + j for j in range(2)] for i in range(3)]
    return pairs + np.sum(np.array(grid)) + sum(v for v in squares) + x2


def test_list_comprehensions_and_generator_sums():
    args = [0.6, RNG.normal(size=(3, 2))]
    check_three_ways(comprehensions, args, wrt=0)
    check_three_ways(comprehensions, args, wrt=1, hess=False)


def comprehension_scope(x):
    k = 10.0
    ys = [k * 2.0 for k in [x, x]]
    return ys[0] + k


def test_comprehension_variable_does_not_leak():
    assert jit(comprehension_scope)(1.5) == comprehension_scope(1.5) == 13.0


# ---- aliasing of lists and of the arrays they hold -----------------------------------------

def shared_lists(x):
    xs = [x]
    ys = xs
    ys.append(x * 2.0)
    a = np.zeros(2)
    zs = [a]
    a[0] = np.sum(x)  # the list holds the same array
    return xs[1] + len(xs) + np.sum(zs[0])


def test_lists_are_shared_objects():
    x = RNG.normal(size=2)
    assert np.allclose(jit(shared_lists)(x), shared_lists(x))


def pair(v):
    return [v, 2.0 * v]


def unpack_lists(x):
    a, b = pair(x)
    [c, d] = [a * b, a + b]
    i, j = range(2)
    return a + b * c + d + i + j


def test_unpacking_a_list():
    assert np.isclose(jit(unpack_lists)(0.3), unpack_lists(0.3))


def runtime_index(x, i):
    xs = [x, 2.0 * x, 3.0 * x]
    return np.sum(xs[i]) + np.sum(xs[-1])


def test_runtime_index_into_a_list():
    x = RNG.normal(size=2)
    for i in (0, 2, -2):
        assert np.allclose(jit(runtime_index)(x, i), runtime_index(x, i))
    assert np.allclose(grad(runtime_index)(x, 1), fd_grad(runtime_index, [x, 1], 0))


# ---- break / continue / return inside unrolled loops ---------------------------------------

def early_exit(x, limit):
    s = 0.0
    for v in [x, 2.0 * x, 3.0 * x, 4.0 * x]:
        if v < 0.0:
            continue
        if s > limit:
            break
        s = s + np.sin(v) + v
    for W in (x, x * x):
        if W > 100.0:
            return -s
    return s


@pytest.mark.parametrize("x, limit", [(0.9, 2.0), (0.5, 2.0), (-0.3, 1.0), (0.2, 50.0),
                                      (11.0, 1.0)])
def test_runtime_break_and_continue_in_unrolled_loops(x, limit):
    for backend in BACKENDS:
        assert np.isclose(jit(early_exit, backend=backend)(x, limit), early_exit(x, limit))
        assert np.isclose(grad(early_exit, backend=backend)(x, limit),
                          fd_grad(early_exit, [x, limit], 0), rtol=1e-6, atol=1e-6)


def loop_variables_after_break(x):
    s = 0.0
    for i, (v, w) in enumerate(zip([x, 2.0 * x, 3.0 * x], (x, x * x, -x), strict=True)):
        if v > 1.5:
            break
        s = s + i * w
    return i + v * w + s


@pytest.mark.parametrize("x", [0.8, 0.1, 1.7])
def test_loop_variables_keep_the_values_of_the_trip_that_broke(x):
    for backend in BACKENDS:
        assert np.isclose(jit(loop_variables_after_break, backend=backend)(x),
                          loop_variables_after_break(x))
        assert np.isclose(grad(loop_variables_after_break, backend=backend)(x),
                          fd_grad(loop_variables_after_break, [x], 0), rtol=1e-6, atol=1e-6)


# ---- item 12: no false "may be undefined" --------------------------------------------------

def defined_after_range(x):
    for i in range(3):
        y = x * i
    return y + i


def defined_after_rows(X):
    for row in X:
        last = row * 2.0
    return np.sum(last)


def defined_after_huge_range(x):
    for i in range(-9223372036854775807, 9223372036854775807):  # trip count > int64
        y = x * 2.0
        if i > -9223372036854775805:
            break
    return y + 1.0


def test_defined_after_a_loop_that_runs():
    assert jit(defined_after_huge_range)(1.5) == defined_after_huge_range(1.5)
    assert jit(defined_after_range)(2.0) == defined_after_range(2.0)
    X = RNG.normal(size=(3, 2))
    assert np.isclose(jit(defined_after_rows)(X), defined_after_rows(X))


def maybe_undefined_after_empty(x):
    for i in range(0):
        y = x * i
    return y


def maybe_undefined_after_break(x):
    for i in range(3):
        if x > i:
            break
        y = x
    return y


@pytest.mark.parametrize("fn", [maybe_undefined_after_empty, maybe_undefined_after_break])
def test_still_refused_when_the_body_may_not_assign(fn):
    with pytest.raises(AdliteSyntaxError, match="'y' may be undefined"):
        jit(fn)(1.0)


# ---- refusals ------------------------------------------------------------------------------

def append_in_while(x, tol):
    xs = []
    err = 1.0
    while err > tol:
        err = err * x
        xs.append(err)
    return len(xs)


def append_in_runtime_range(x, counts):
    xs = []
    for i in range(counts[0]):  # read from an array: known only at run time
        xs.append(x * i)
    return np.sum(np.array(xs))


def append_in_entry_range(x, n):
    xs = []
    for i in range(n):  # an int argument: compiled once per value
        xs.append(x * i)
    return np.sum(np.array(xs))


def test_append_in_a_loop_over_an_int_argument_compiles_per_value():
    f = jit(append_in_entry_range)
    assert [f(1.5, n) for n in (3, 4, 3)] == [append_in_entry_range(1.5, n) for n in (3, 4, 3)]
    assert f.compile_count == 2


def too_long_to_unroll(x):
    xs = []
    for i in range(1001):
        xs.append(x * i)
    return xs[-1]


def iterate_a_number(x):
    return sum([v for v in x])


def runtime_filter(x):
    return sum([v for v in [x, 2.0 * x] if v > 1.0])


def zip_of_different_lengths(x):
    s = 0.0
    for a, b in zip([x, x], [x], strict=True):
        s = s + a * b
    return s


def grows_while_iterated(x):
    xs = [x]
    for v in xs:
        xs.append(v)
    return len(xs)


@pytest.mark.parametrize("backend", ["llvm", "python"])
@pytest.mark.parametrize("fn, args", [
    (append_in_while, [(0.5, 0.1), (0.9, 0.01), (0.2, 0.5)]),
    (too_long_to_unroll, [(1.0,), (-2.5,)]),
    (runtime_filter, [(0.4,), (0.7,), (1.5,)]),
    (append_in_runtime_range, [(1.0, np.array([3])), (2.5, np.array([0])), (0.5, np.array([7]))]),
], ids=["append_in_while", "too_long_to_unroll", "runtime_filter", "append_in_runtime_range"])
def test_lists_of_numbers_changed_at_run_time_compile(fn, args, backend):
    """Refused before lists of run-time length (tests/frontend/test_run_time_lists.py)."""
    compiled = jit(fn, backend=backend)
    for a in args:
        assert compiled(*a) == fn(*a)


def _line(fn, fragment):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, ln in enumerate(lines) if fragment in ln)


@pytest.mark.parametrize("fn, args, fragment, words", [
    (iterate_a_number, (1.0,), "[v for v in x]", "list comprehension over a number"),
    (zip_of_different_lengths, (1.0,), "strict=True", "zip(strict=True) of sequences"),
    (grows_while_iterated, (1.0,), "for v in xs", "changes the length of the list"),
], ids=["iterate_a_number", "zip_of_different_lengths", "grows_while_iterated"])
def test_refusals_name_the_line_and_construct(fn, args, fragment, words):
    with pytest.raises(AdliteSyntaxError) as e:
        jit(fn)(*args)
    assert e.value.line == _line(fn, fragment), str(e.value)
    assert words in e.value.message and e.value.hint, str(e.value)
