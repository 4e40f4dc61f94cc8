"""Lists of numbers whose length is known only at run time (issue 25, item 3).

Each program is as a user writes it: a list grown in a `while` loop or in a `for` loop of a
run-time trip count, appended to under a run-time `if`, read by run-time indices, iterated,
summed, popped and returned. Compiled values (both backends) are compared with Python's on
many inputs (hypothesis too), gradients with central differences of the Python function and
with the eager tape, forward mode with directional differences, one Hessian with differences
of the gradient. What needs the length when compiling is refused at the user's line.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adlite.compiler import AdliteSyntaxError, grad, hessian, jacfwd, jacrev, jit, jvp, vmap
from adlite.runtime import tensor

BACKENDS = ["llvm", "python"]


def grow(x):  # the program
    out, t = [], 0.0
    while t < x:
        out.append(t * x)
        t = t + 0.3
    return sum(out)


def kept_positives(x):
    out = []
    i = 0
    while i < x.shape[0]:
        if x[i] > 0:
            out.append(x[i] * 2.0)
        i += 1
    s = 0.0
    for v in out:
        s = s + v * v
    return s + len(out) + out[0] - out[-1]


def recurrence(x, stop):
    history = [x]
    while abs(history[-1]) < stop and len(history) < 500:
        history.append(np.sin(history[-1]) * 1.5 + history[-1] * x)
    k = len(history) // 2
    return history[k] * history[len(history) - 1] + sum(history)


def indexed_while_growing(x):
    vals = [1.0]
    t = 0.0
    while t < x:
        vals.append(vals[len(vals) // 2] * 0.5 + t * x)
        t = t + 0.25
    return vals[-1] + vals[1 if len(vals) > 1 else 0]


def filtered_in_for(x):
    acc = []
    for i in range(x.shape[0]):
        if x[i] * x[i] > 0.2:
            acc.append(np.exp(x[i]))
    total = 0.0
    for j in range(len(acc)):
        total = total + acc[j] * (j + 1)
    return total


SCALAR = [grow, recurrence, indexed_while_growing]
VECTOR = [kept_positives, filtered_in_for]


def _scalar_args(fn, rng):
    if fn is recurrence:
        return (float(rng.uniform(0.3, 0.9)), float(rng.uniform(2.0, 40.0)))
    return (float(rng.uniform(0.1, 4.0)),)


def _vector_args(rng, n):
    x = rng.normal(size=n)
    x[0] = abs(x[0]) + 0.5  # kept_positives reads out[0]
    return (x,)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", SCALAR, ids=[f.__name__ for f in SCALAR])
def test_scalar_programs_match_python(fn, backend):
    rng = np.random.default_rng(1)
    compiled = jit(fn, backend=backend)
    for _ in range(12):
        args = _scalar_args(fn, rng)
        assert compiled(*args) == pytest.approx(fn(*args), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", VECTOR, ids=[f.__name__ for f in VECTOR])
def test_vector_programs_match_python_on_many_sizes(fn, backend):
    rng = np.random.default_rng(2)
    compiled = jit(fn, backend=backend)
    for n in (1, 2, 5, 17, 64):
        for _ in range(3):
            args = _vector_args(rng, n)
            assert compiled(*args) == pytest.approx(fn(*args), rel=1e-12, abs=1e-12)


def _central(fn, args, h=1e-6):
    x = np.atleast_1d(np.asarray(args[0], dtype=float))
    out = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        pick = (lambda v: v[0]) if np.ndim(args[0]) == 0 else (lambda v: v)
        out[i] = (fn(pick(up), *args[1:]) - fn(pick(down), *args[1:])) / (2 * h)
    return out if np.ndim(args[0]) else out[0]


def _tape_gradient(fn, args):
    t = tensor(np.asarray(args[0], dtype=float), requires_grad=True)
    fn(t, *args[1:]).backward()
    return t.grad.data


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", SCALAR + VECTOR, ids=[f.__name__ for f in SCALAR + VECTOR])
def test_gradients_match_central_differences_and_the_tape(fn, backend):
    rng = np.random.default_rng(3)
    gradient = grad(fn, backend=backend)
    for _ in range(4):
        args = _scalar_args(fn, rng) if fn in SCALAR else _vector_args(rng, 9)
        if fn is grow and min(abs(args[0] / 0.3 - k) for k in range(20)) < 1e-3:
            continue  # the trip count changes within the differences' step
        got = gradient(*args)
        np.testing.assert_allclose(got, _central(fn, args), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got, _tape_gradient(fn, args), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("fn", SCALAR + VECTOR, ids=[f.__name__ for f in SCALAR + VECTOR])
def test_forward_mode_matches_directional_differences(fn):
    rng = np.random.default_rng(4)
    args = _scalar_args(fn, rng) if fn in SCALAR else _vector_args(rng, 11)
    direction = 1.0 if fn in SCALAR else rng.normal(size=args[0].shape)
    h = 1e-6
    want = (fn(args[0] + h * direction, *args[1:]) -
            fn(args[0] - h * direction, *args[1:])) / (2 * h)
    value, derivative = jvp(lambda x: fn(x, *args[1:]), (args[0],), (direction,))
    assert value == pytest.approx(fn(*args), rel=1e-12)
    assert derivative == pytest.approx(want, rel=1e-5, abs=1e-7)


def test_second_order_matches_differences_of_the_gradient():
    x = np.array([0.7, -1.2, 0.9, 0.1, 1.5, -0.3])
    h = 1e-4
    want = np.stack([(_central(filtered_in_for, (x + h * e,)) -
                      _central(filtered_in_for, (x - h * e,))) / (2 * h) for e in np.eye(6)])
    np.testing.assert_allclose(hessian(filtered_in_for)(x), want, rtol=1e-4, atol=1e-4)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=40), st.floats(-1, 1))
def test_hypothesis_filtered_sums_match_python(values, threshold):
    def above(x, c):
        kept = []
        for i in range(x.shape[0]):
            if x[i] > c:
                kept.append(x[i])
        return sum(kept) * 2.0 + len(kept)

    x = np.array(values)
    assert jit(above)(x, threshold) == pytest.approx(above(x, threshold), rel=1e-12, abs=1e-12)


# ---- returned lists, pops and writes ---------------------------------------------------------

def newton_history(a):
    x, steps = a, [a]
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
        steps.append(x)
    return steps


def stack_machine(x, n):
    xs = [x]
    for i in range(n):
        xs.append(xs[-1] + 1.0)
        if i % 3 == 0:
            xs.pop(0)
        if i % 4 == 1:
            xs[len(xs) // 2] = xs[0] * x
    return xs


def counts(n):
    seen = []
    k = n
    while k != 1:
        seen.append(k)
        k = k // 2 if k % 2 == 0 else 3 * k + 1
    return seen


@pytest.mark.parametrize("backend", BACKENDS)
def test_returned_lists_are_python_lists_of_python_numbers(backend):
    for a in (2.0, 10.0, 0.5):
        got = jit(newton_history, backend=backend)(a)
        assert got == newton_history(a) and all(type(v) is float for v in got)
    for n in (0, 1, 5, 12, 2000):  # 2000 trips: over the unrolling limit
        assert jit(stack_machine, backend=backend)(1.5, n) == stack_machine(1.5, n)
    for n in (1, 7, 27):
        got = jit(counts, backend=backend)(n)
        assert got == counts(n) and all(type(v) is int for v in got)


def test_forward_mode_through_pops_and_writes():
    def total(x):
        return sum(stack_machine(x, 2000))

    h = 1e-6
    value, derivative = jvp(total, (1.3,), (1.0,))
    want = (total(1.3 + h) - total(1.3 - h)) / (2 * h)
    assert value == pytest.approx(total(1.3), rel=1e-12)
    assert derivative == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_index_errors_are_pythons(backend):
    def read(n, i):
        xs = []
        for k in range(n):
            xs.append(k * 1.0)
        return xs[i]

    def pop_all(n):
        xs = [1.0]
        k = 0
        while k < n:
            xs.pop()
            k += 1
        return len(xs)

    f = jit(read, backend=backend)
    assert f(2000, -1) == 1999.0 and f(2000, -2000) == 0.0
    with pytest.raises(IndexError, match="list index out of range"):
        f(2000, 2000)
    with pytest.raises(IndexError, match="list index out of range"):
        f(2000, -2001)
    assert jit(pop_all, backend=backend)(1) == 0
    with pytest.raises(IndexError, match="pop from empty list"):
        jit(pop_all, backend=backend)(2)


# ---- refusals --------------------------------------------------------------------------------

def as_array(x):
    out = []
    while x > 0.1:
        out.append(x)
        x = x * 0.5
    return np.sum(np.array(out) * np.arange(3.0)[:1])


def pairs_in_a_list(x):
    out = [[x, x]]
    while x > 0.1:
        x = x * 0.5
        out.append([x, 2.0 * x])
    return out[-1][1]


def mixed_types(x):
    out = [0]
    while x > 0.1:
        out.append(x)
        x = x * 0.5
    return sum(out)


def popped_under_grad(x):
    out = [x, x * 2.0]
    while x > 0.1:
        out.append(x)
        out.pop(0)
        x = x * 0.5
    return sum(out)


@pytest.mark.parametrize("fn, fragment, line", [
    (as_array, "of an array made of a list whose length is known only at run time (",
     "np.array(out) * np.arange(3.0)[:1]"),
    (pairs_in_a_list, "cannot change inside an `if` with a run-time condition",
     "out.append([x, 2.0 * x])"),
    (mixed_types, "a f64 added to a list of i64", "out.append(x)"),
], ids=["as_array", "pairs_in_a_list", "mixed_types"])
def test_uses_needing_the_length_are_refused_at_the_users_line(fn, fragment, line):
    x = 3.0
    with pytest.raises(AdliteSyntaxError) as e:
        jit(fn)(x)
    assert fragment in str(e.value) and line in str(e.value)
    assert "[run-time-list]" in str(e.value) or "[list-change]" in str(e.value)


def test_reverse_mode_through_pop_is_refused_at_its_line():
    assert jit(popped_under_grad)(3.0) == popped_under_grad(3.0)
    with pytest.raises(AdliteSyntaxError) as e:
        grad(popped_under_grad)(3.0)
    assert "`xs.pop()` on a list whose length is known only at run time" in str(e.value)
    assert "out.pop(0)" in str(e.value)


# ---- lists changed by the functions a loop calls ----------------------------------------------

def _record(xs, v):
    xs.append(v * 2.0)


def through_a_helper(x):
    out = []
    while x > 0.01:
        _record(out, x)
        x = x * 0.5
    return sum(out) + len(out)


def through_a_closure(x):
    log = [0.0]

    def record(v):
        log.append(v)

    while x > 0.01:
        if x > 0.5:
            record(x * x)
        x = x * 0.5
    return sum(log) * len(log)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [through_a_helper, through_a_closure],
                         ids=["through_a_helper", "through_a_closure"])
def test_lists_changed_by_called_functions(fn, backend):
    for x in (0.3, 3.0, 40.0):
        assert jit(fn, backend=backend)(x) == pytest.approx(fn(x), rel=1e-12)
        assert grad(fn, backend=backend)(x) == pytest.approx(_central(fn, (x,)), rel=1e-6)


# ---- lists of arrays ---------------------------------------------------------------------------

def trajectory(x0, h):
    x = x0.copy()
    t = 0.0
    states = [x]
    while t < 1.0:
        x = x + h * np.sin(x)
        states.append(x)
        t = t + h
    total = 0.0
    for s in states:
        total = total + np.sum(s * s)
    return total + np.sum(states[len(states) // 2] * x0) + np.sum(sum(states) ** 2)


def kept_rows(X):
    rows = []
    for i in range(X.shape[0]):
        if X[i, 0] > 0:
            rows.append(np.tanh(X[i]))
    if len(rows) == 0:
        return 0.0
    return np.sum(rows[-1] * rows[0]) + np.sum(sum(rows))


def states_while(x0, h):
    x, t, out = x0, 0.0, []
    while t < 0.35:
        x = x * 2.0 - 0.5
        out.append(x)
        t += h
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_lists_of_arrays_values_and_gradients(backend):
    rng = np.random.default_rng(8)
    for n in (1, 3, 8):
        x0 = rng.normal(size=n)
        h = float(rng.uniform(0.07, 0.3))
        if min(abs(k * h - 1.0) for k in range(30)) < 1e-3:
            continue
        assert jit(trajectory, backend=backend)(x0, h) == pytest.approx(
            trajectory(x0, h), rel=1e-12)
        got = grad(trajectory, backend=backend)(x0, h)
        np.testing.assert_allclose(got, _central(trajectory, (x0, h)), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got, _tape_gradient(trajectory, (x0, h)), rtol=1e-10)
        X = rng.normal(size=(6, n))
        X[0, 0] = abs(X[0, 0]) + 0.1
        assert jit(kept_rows, backend=backend)(X) == pytest.approx(kept_rows(X), rel=1e-12)
        np.testing.assert_allclose(grad(kept_rows, backend=backend)(X),
                                   _tape_gradient(kept_rows, (X,)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_returned_lists_of_arrays_are_numpy_arrays(backend):
    x0 = np.array([0.25, -1.0, 3.0])
    got = jit(states_while, backend=backend)(x0, 0.1)
    want = states_while(x0, 0.1)
    assert len(got) == len(want) == 4
    for g, w in zip(got, want, strict=True):
        assert isinstance(g, np.ndarray) and g.dtype == np.float64
        np.testing.assert_array_equal(g, w)


def test_forward_mode_through_a_list_of_arrays():
    x0 = np.array([0.4, -0.7])
    d = np.array([1.0, 0.5])
    h = 1e-6
    value, derivative = jvp(lambda x: trajectory(x, 0.15), (x0,), (d,))
    want = (trajectory(x0 + h * d, 0.15) - trajectory(x0 - h * d, 0.15)) / (2 * h)
    assert value == pytest.approx(trajectory(x0, 0.15), rel=1e-12)
    assert derivative == pytest.approx(want, rel=1e-6)


def test_items_of_another_shape_are_refused():
    def grows(x):
        out = [x]
        while np.sum(x) > 0.5:
            x = x[:1] * 0.5
            out.append(x)
        return len(out)

    with pytest.raises(AdliteSyntaxError) as e:
        jit(grows)(np.ones(3))
    assert "a f64[1] added to a list of f64[3]" in str(e.value)
    assert "out.append(x)" in str(e.value) and "[run-time-list]" in str(e.value)


# ---- early returns and rebinding -------------------------------------------------------------

def first_crossing(x):
    hist = []
    t = 0.0
    while t < 10.0:
        hist.append(t * x)
        if t * x > 3.0:
            return t, hist
        t = t + 1.0
    return -1.0, hist


def _appended(xs, v):
    xs.append(v * 2.0)
    return xs


def rebound_to_itself(x):
    out = []
    while x > 0.01:
        out = _appended(out, x)
        x = x * 0.5
    return sum(out) * x


@pytest.mark.parametrize("backend", BACKENDS)
def test_early_return_of_a_tuple_holding_the_list(backend):
    for x in (0.01, 0.7, 5.0):
        assert jit(first_crossing, backend=backend)(x) == first_crossing(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_rebound_to_what_a_function_returns(backend):
    for x in (0.005, 0.3, 3.0):
        assert jit(rebound_to_itself, backend=backend)(x) == pytest.approx(
            rebound_to_itself(x), rel=1e-12)
        assert grad(rebound_to_itself, backend=backend)(x) == pytest.approx(
            _central(rebound_to_itself, (x,)), rel=1e-6)


def test_a_list_rebound_to_a_new_list_in_a_loop_is_refused():
    def fresh(x):
        out = [1.0]
        while x > 0.01:
            out = []
            out.append(x)
            x = x * 0.5
        return sum(out)

    with pytest.raises(AdliteSyntaxError, match="a list object before the loop, a list object "
                                                "in it"):
        jit(fresh)(3.0)


# ---- the other transformations ------------------------------------------------------------------

def test_vmap_runs_each_example_with_its_own_list():
    """Every example grows its own list (a shared buffer would mix them)."""
    xs = np.array([0.5, 1.0, 2.0, 3.5, 0.05])
    np.testing.assert_allclose(vmap(grow)(xs), [grow(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(vmap(grad(grow))(xs), [_central(grow, (x,)) for x in xs],
                               rtol=1e-6)
    X = np.array([[1.0, -2.0, 3.0], [-1.0, 0.5, 2.0]])
    X[:, 0] = np.abs(X[:, 0]) + 0.1
    np.testing.assert_allclose(vmap(kept_positives)(X), [kept_positives(x) for x in X])


def test_jacobians_and_checkpointed_gradients():
    def pieces(x):
        out = []
        i = 0
        while i < x.shape[0]:
            if x[i] > 0:
                out.append(x[i] ** 2)
            i += 1
        return np.array([sum(out), out[0] * x[1], out[-1]])

    x = np.array([1.0, -2.0, 3.0])
    h = 1e-6
    want = np.stack([(pieces(x + h * d) - pieces(x - h * d)) / (2 * h) for d in np.eye(3)], 1)
    np.testing.assert_allclose(jacfwd(pieces)(x), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(jacrev(pieces)(x), want, rtol=1e-6, atol=1e-8)
    assert grad(grow, checkpoint=True)(2.0) == pytest.approx(grad(grow)(2.0), rel=1e-12)


def test_ahead_of_time_kernels_use_lists_inside_and_refuse_returning_them(tmp_path):
    from adlite.compiler.aot import AotError, compile_aot
    from adlite.compiler.ir.core import Type

    paths = compile_aot(grow, tmp_path, [Type("f64")], (0,))
    spec = importlib.util.spec_from_file_location("grow_grad_loader", paths["loader"])
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    assert loader.grow_grad(2.0) == pytest.approx(grad(grow)(2.0), rel=1e-12)

    def returned(x):
        out = []
        while x > 0.1:
            out.append(x)
            x = x * 0.5
        return out

    with pytest.raises(AotError, match="or a list, whose length is known only at run time"):
        compile_aot(returned, tmp_path, [Type("f64")])


# ---- lists of tuples ---------------------------------------------------------------------------

def events(x):
    found = []
    t, v = 0.0, x
    while t < 3.0:
        v = v * 0.9 + np.sin(t)
        if v > 0.5:
            found.append((t, v, int(t * 10)))
        t = t + 0.25
    total = 0.0
    for when, value, tick in found:
        total = total + when * value + tick
    last = 0.0
    if len(found) > 0:
        when, last, tick = found[-1]
    return total + last * 2.0


def snapshots(x):
    taken = [(0.0, np.zeros(2))]
    t = 0.0
    while t < x:
        taken.append((t, np.array([t, x * t])))
        t += 0.5
    return taken


@pytest.mark.parametrize("backend", BACKENDS)
def test_lists_of_tuples(backend):
    for x in (-3.0, 0.2, 1.0, 4.0):
        assert jit(events, backend=backend)(x) == pytest.approx(events(x), rel=1e-12)
        assert grad(events, backend=backend)(x) == pytest.approx(_central(events, (x,)),
                                                                 rel=1e-6, abs=1e-9)
    got, want = jit(snapshots, backend=backend)(1.7), snapshots(1.7)
    assert len(got) == len(want) == 5
    for (t, a), (u, b) in zip(got, want, strict=True):
        assert type(t) is float and t == u
        np.testing.assert_array_equal(a, b)


# ---- reductions of run-time lists --------------------------------------------------------------

def reduced(x):
    out = []
    t = 0.0
    while t < 2.0:
        out.append(np.sin(t * x))
        t += 0.25
    return (max(out) + 2.0 * min(out) + 3.0 * np.max(out) + np.min(out) + np.mean(out)
            + np.sum(out) + np.prod(out) + np.amax(out) - np.amin(out))


def counted(n):
    seen = []
    k = n
    while k != 1:
        seen.append(k)
        k = k // 2 if k % 2 == 0 else 3 * k + 1
    return max(seen) + np.sum(seen) + np.prod(seen) % 7 + min(seen)


def tied(x, y):
    out = [x, y, x]
    while len(out) < 4:
        out.append(y)
    return np.max(out) + max(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_of_run_time_lists(backend):
    for x in (-1.7, 0.4, 1.3, 3.0):
        assert jit(reduced, backend=backend)(x) == pytest.approx(reduced(x), rel=1e-12)
        assert grad(reduced, backend=backend)(x) == pytest.approx(_central(reduced, (x,)),
                                                                  rel=1e-5, abs=1e-8)
    for n in (6, 7, 27):  # 27: the product wraps around in int64, as numpy's does
        assert jit(counted, backend=backend)(n) == counted(n)
    with pytest.raises(ValueError, match="max\\(\\) arg is an empty sequence"):
        jit(counted, backend=backend)(1)
    # np.max shares the derivative evenly among ties; builtin max gives it to the first
    dx, dy = grad(tied, argnums=(0, 1), backend=backend)(2.0, 2.0)
    assert (dx, dy) == (pytest.approx(0.5 + 1.0), pytest.approx(0.5))


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_of_empty_run_time_lists_raise_as_python(backend):
    def extremum(x):
        out = []
        while x > 10.0:
            out.append(x)
            x -= 1.0
        return max(out)

    def numpy_extremum(x):
        out = []
        while x > 10.0:
            out.append(x)
            x -= 1.0
        return np.min(out)

    for fn in (extremum, numpy_extremum):
        with pytest.raises(ValueError) as want:
            fn(1.0)
        with pytest.raises(ValueError) as got:
            jit(fn, backend=backend)(1.0)
        assert str(got.value) == str(want.value)


# ---- arrays made of run-time lists ------------------------------------------------------------

def integrate(x0, h):
    x, t = x0, 0.0
    ts, ys = [], []
    while t < 1.0:
        x = x + h * np.cos(x)
        t += h
        ts.append(t)
        ys.append(x)
    return np.array(ts), np.asarray(ys)


def reduced_array(x):
    out, t = [], 0.0
    while t < 2.0:
        out.append(np.sin(t * x))
        t += 0.2
    a = np.array(out)
    return np.mean(a) + np.max(a) + a[0] * len(a) + np.sum(a) + a.min() * a.mean() + a.sum()


def stacked(x):
    out = []
    while x > 0.1:
        out.append(np.array([x, -x]))
        x = x * 0.5
    return np.stack(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_made_of_run_time_lists(backend):
    for args in ((0.3, 0.25), (np.array([0.5, -1.0]), 0.3), (0.1, 5.0)):
        got, want = jit(integrate, backend=backend)(*args), integrate(*args)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(jit(stacked, backend=backend)(3.0), stacked(3.0))
    with pytest.raises(ValueError, match="need at least one array to stack"):
        stacked(0.05)
    with pytest.raises(ValueError, match="need at least one array to stack"):
        jit(stacked, backend=backend)(0.05)
    for x in (0.4, 1.1, -2.0):
        assert jit(reduced_array, backend=backend)(x) == pytest.approx(reduced_array(x),
                                                                       rel=1e-12)
        assert grad(reduced_array, backend=backend)(x) == pytest.approx(
            _central(reduced_array, (x,)), rel=1e-5, abs=1e-8)


def test_an_array_made_of_a_run_time_list_keeps_its_items():
    def changed_after(x):
        out = []
        while x > 0.1:
            out.append(x)
            x = x * 0.5
        a = np.array(out)
        out[0] = 5.0
        return a

    with pytest.raises(AdliteSyntaxError, match=r"out\[0\] = 5.0"):
        jit(changed_after)(3.0)

    def shaped(x):
        out = []
        while x > 0.1:
            out.append(x)
            x = x * 0.5
        return np.array(out) * 2.0

    with pytest.raises(AdliteSyntaxError, match=r"\[run-time-list\]"):
        jit(shaped)(3.0)


# ---- lists made anew in every iteration of a loop ------------------------------------------

def rows_of_a_loop(x):
    total = 0.0
    k = 0
    while k < 4:
        row = []
        t = 0.0
        while t < 1.0 + k:
            row.append(np.sin(t * x + k))
            t += 0.5
        if row[0] > 0.0:  # the reverse sweep replays this arm, reading this iteration's row
            total = total + row[0] * row[-1] * x
        else:
            total = total - row[1] * x
        k += 1
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_made_in_each_iteration_keeps_its_items_for_the_reverse_sweep(backend):
    """Each iteration's list starts after the items of the earlier ones (a list made where
    another was made before wrote over it, and the gradient read the last iteration's)."""
    for x in (0.7, -1.3, 2.2):
        assert jit(rows_of_a_loop, backend=backend)(x) == pytest.approx(rows_of_a_loop(x),
                                                                        rel=1e-12)
        want = _central(rows_of_a_loop, (x,))
        assert grad(rows_of_a_loop, backend=backend)(x) == pytest.approx(want, rel=1e-6)
        assert grad(rows_of_a_loop, backend=backend, checkpoint=2)(x) == pytest.approx(
            want, rel=1e-6)
