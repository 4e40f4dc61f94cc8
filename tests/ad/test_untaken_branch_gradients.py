"""Paths that did not run contribute no gradient (issue 8, item 13).

The eager tape, like PyTorch, only propagates through operations on the executed path: a value
computed before an `if` and used only in the arm that did not run (or in a loop body that ran
zero times, or after a `break` / early `return`) gets no cotangent at all, so its derivative
is never multiplied by the zero cotangent (`0 * inf` or `0 * nan` would be nan). Compiled
reverse mode must agree, on both backends, at first and second order; but a value the executed
path really uses with a zero cotangent (`0.0 * np.sqrt(y)` at y = 0) still gives nan.
"""

import numpy as np
import pytest

from adlite.compiler import grad, hessian
from adlite.compiler.api import Transformed
from adlite.compiler.ir.core import F64, I64, walk_eqns
from adlite.runtime import Tensor, autograd

BACKENDS = ["llvm", "python"]


def issue(x, y):
    z = np.sqrt(y - 10.0)
    if y > 10.0:
        x = x * z
    return x


def nested(x, y):
    z = np.log(y)
    if x > 0.0:
        if y > 0.0:
            x = x * z
        else:
            x = x + 1.0
    return x


def elif_chain(x, y):
    a = np.sqrt(y)
    b = np.log(-y)
    if y > 1.0:
        r = x * a
    elif y < -1.0:
        r = x * b
    else:
        r = x * x
    return r


def both_arms(x, y):
    z = np.sqrt(y)
    if x > 0.0:
        r = x * z
    else:
        r = z - x
    return r


def conditional_expression(x, y):
    return x * np.log(y) if y > 0.0 else x + np.sqrt(-y)


def for_zero_trips(x, y, n):
    z = np.sqrt(y - 10.0)
    for _ in range(n):
        x = x * z
    return x


def while_zero_trips(x, y):
    z = np.log(y)
    while x < 0.0:
        x = x + z * z + 1.0
    return x


def branch_in_loop(x, y):
    z = np.sqrt(y - 10.0)
    for _ in range(3):
        if y > 10.0:
            x = x * z
        else:
            x = x + 1.0
    return x


def value_in_loop_body(x, y):
    for i in range(3):
        z = np.sqrt(y - i)
        if y > i:
            x = x * z
        else:
            x = x + 1.0
    return x


def loop_in_arm(x, y):
    z = np.sqrt(y - 10.0)
    if y > 10.0:
        for _ in range(3):
            x = x * z
    return x


def nested_loops(x, y, n):
    z = np.sqrt(y - 10.0)
    for _ in range(n):
        for _ in range(2):
            if y > 10.0:
                x = x * z
            else:
                x = x + 1.0
    return x


def carry_used_after_untaken_branch(x, y):
    s = y
    for _ in range(3):
        s = np.sqrt(s - 1.0)
    if y > 100.0:
        x = x * s
    return x


def break_flag_in_while(x, y):
    z = np.sqrt(y)
    k = 0
    while k < 5:
        if k == 2 and y < 0.0:
            break
        if k > 3:
            x = x * z
        k += 1
    return x


def with_break(x, y):
    z = np.sqrt(y - 10.0)
    for _ in range(3):
        if y < 10.0:
            break
        x = x * z
    return x


def early_return(x, y):
    z = np.log(y)
    if y <= 0.0:
        return x
    return x * z


def overwritten_in_loop(x, y):
    t = 0.0
    for i in range(2):
        t = np.sqrt(y - 1.0 + i)  # the first iteration's value is never used
    return x * t


def array_sqrt(x, y):
    z = np.sqrt(y - 1.0)
    if np.min(y) > 1.0:
        return np.sum(x * z)
    return np.sum(x)


def array_elements_in_loop(x, y):
    z = np.sqrt(y - 1.0)
    s = 0.0
    for i in range(3):
        if y[i] > 1.0:
            s = s + x[i] * z[i]
        else:
            s = s + x[i]
    return s


def array_log(x, y):
    z = np.log(y)
    s = np.sum(x)
    if np.sum(y) > 100.0:
        s = s + np.sum(z * x)
    return s


def array_loop(x, y, n):
    z = np.log(y)
    s = np.sum(x * x)
    for i in range(n):
        if i > 5:
            s = s + np.sum(z * x)
    return s


def zero_times_sqrt(x, y):
    return x + 0.0 * np.sqrt(y)


def zero_times_sqrt_taken(x, y):
    if y >= 0.0:
        x = x + 0.0 * np.sqrt(y)
    return x


V = np.array([0.5, 2.0, 3.0])
W = np.array([1.0, -2.0, 0.5])
NAN = float("nan")

# (function, arguments, expected gradient with respect to the first two arguments)
CASES = [
    (issue, (2.0, 3.0), (1.0, 0.0)),
    (issue, (2.0, 14.0), (2.0, 0.5)),
    (nested, (1.0, 0.0), (1.0, 0.0)),
    (nested, (-1.0, 0.0), (1.0, 0.0)),
    (nested, (3.0, 2.0), (np.log(2.0), 1.5)),
    (elif_chain, (3.0, 0.5), (6.0, 0.0)),
    (elif_chain, (3.0, -2.0), (np.log(2.0), -1.5)),
    (elif_chain, (3.0, 4.0), (2.0, 0.75)),
    (both_arms, (3.0, 4.0), (2.0, 0.75)),
    (both_arms, (-3.0, 4.0), (-1.0, 0.25)),
    (both_arms, (3.0, 0.0), (0.0, float("inf"))),
    (conditional_expression, (3.0, -4.0), (1.0, -0.25)),
    (conditional_expression, (3.0, 2.0), (np.log(2.0), 1.5)),
    (for_zero_trips, (2.0, 3.0, 0), (1.0, 0.0)),
    (for_zero_trips, (2.0, 14.0, 2), (4.0, 2.0)),
    (while_zero_trips, (1.0, 0.0), (1.0, 0.0)),
    (branch_in_loop, (2.0, 3.0), (1.0, 0.0)),
    (branch_in_loop, (2.0, 14.0), (8.0, 6.0)),
    (value_in_loop_body, (2.0, 1.0), (1.0, 1.0)),
    (loop_in_arm, (2.0, 3.0), (1.0, 0.0)),
    (loop_in_arm, (2.0, 14.0), (8.0, 6.0)),
    (nested_loops, (2.0, 3.0, 2), (1.0, 0.0)),
    (nested_loops, (2.0, 3.0, 0), (1.0, 0.0)),
    (nested_loops, (2.0, 14.0, 2), (16.0, 16.0)),
    (carry_used_after_untaken_branch, (2.0, 1.5), (1.0, 0.0)),
    (break_flag_in_while, (2.0, -1.0), (1.0, 0.0)),
    (break_flag_in_while, (2.0, 4.0), (2.0, 0.5)),
    (with_break, (2.0, 3.0), (1.0, 0.0)),
    (with_break, (2.0, 14.0), (8.0, 6.0)),
    (early_return, (2.0, 0.0), (1.0, 0.0)),
    (early_return, (2.0, 4.0), (np.log(4.0), 0.5)),
    (overwritten_in_loop, (2.0, 1.0), (1.0, 1.0)),
    (array_sqrt, (W, V), (np.ones(3), np.zeros(3))),
    (array_sqrt, (W, V + 1.0), (np.sqrt(V), W * 0.5 / np.sqrt(V))),
    (array_sqrt, (W.astype(np.float32), V.astype(np.float32)),
     (np.ones(3), np.zeros(3))),
    # the executed path reads z = sqrt(y - 1) (an array) at elements 1 and 2: element 0 of
    # its cotangent is a real zero, times the nan derivative at y[0] = 0.5, as on the tape
    (array_elements_in_loop, (W, V), (np.array([1.0, np.sqrt(1.0), np.sqrt(2.0)]),
                                      np.array([NAN, -1.0, 0.25 / np.sqrt(2.0)]))),
    (array_log, (W, V - 0.5), (np.ones(3), np.zeros(3))),
    (array_log, (W, 50 * V), (1.0 + np.log(50 * V), W / (50 * V))),
    (array_loop, (W, V - 0.5, 0), (2 * W, np.zeros(3))),
    (array_loop, (W, V - 0.5, 6), (2 * W, np.zeros(3))),
    (array_loop, (W, V, 7), (2 * W + np.log(V), W / V)),
    (zero_times_sqrt, (2.0, 0.0), (1.0, NAN)),
    (zero_times_sqrt_taken, (2.0, 0.0), (1.0, NAN)),
]
IDS = [f"{fn.__name__}{i}" for i, (fn, _, _) in enumerate(CASES)]


def _tensors(args, wrt):
    return [Tensor(np.asarray(a, float), requires_grad=True) if i in wrt else a
            for i, a in enumerate(args)]


def tape_gradient(fn, args, wrt=(0, 1)):
    """The eager tape's gradient; an input the executed path never reached gets zeros."""
    inputs = _tensors(args, wrt)
    found = autograd.grad(fn(*inputs), [inputs[i] for i in wrt], allow_unused=True)
    return [np.zeros(np.shape(args[i])) if g is None else g.numpy()
            for i, g in zip(wrt, found, strict=True)]


def tape_second_derivative(fn, args, i, j):
    """d/d(arg j) of d fn/d(arg i) by the tape's double backward (create_graph)."""
    inputs = _tensors(args, (0, 1))
    (first,) = autograd.grad(fn(*inputs), inputs[i], create_graph=True, allow_unused=True)
    if first is None or not first.requires_grad:
        return 0.0
    (second,) = autograd.grad(first, inputs[j], allow_unused=True)
    return 0.0 if second is None else float(second.numpy())


def _assert_same(actual, expected, what):
    for a, e in zip(actual, expected, strict=True):
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(e, float), rtol=1e-12,
                                   atol=1e-12, err_msg=what)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args,expected", CASES, ids=IDS)
def test_gradient_matches_tape_and_expected(fn, args, expected, backend):
    with np.errstate(all="ignore"):
        tape = tape_gradient(fn, args)
        got = grad(fn, wrt=(0, 1), backend=backend)(*args)
    _assert_same(tape, expected, f"tape {fn.__name__}{args}")
    _assert_same(got, expected, f"compiled {fn.__name__}{args}")


SECOND_ORDER = [
    (issue, (2.0, 3.0)),
    (issue, (2.0, 14.0)),
    (nested, (1.0, 0.0)),
    (nested, (3.0, 2.0)),
    (elif_chain, (3.0, 0.5)),
    (elif_chain, (3.0, -2.0)),
    (branch_in_loop, (2.0, 3.0)),
    (branch_in_loop, (2.0, 14.0)),
    (value_in_loop_body, (2.0, 1.0)),
    (loop_in_arm, (2.0, 3.0)),
    (nested_loops, (2.0, 3.0, 2)),
    (carry_used_after_untaken_branch, (2.0, 1.5)),
    (break_flag_in_while, (2.0, -1.0)),
    (with_break, (2.0, 3.0)),
    (early_return, (2.0, 0.0)),
    (overwritten_in_loop, (2.0, 1.0)),
]
SECOND_IDS = [f"{fn.__name__}{i}" for i, (fn, _) in enumerate(SECOND_ORDER)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", SECOND_ORDER, ids=SECOND_IDS)
def test_grad_of_grad_matches_tape(fn, args, backend):
    for i in (0, 1):
        for j in (0, 1):
            with np.errstate(all="ignore"):
                expected = tape_second_derivative(fn, args, i, j)
                got = grad(grad(fn, wrt=i, backend=backend), wrt=j, backend=backend)(*args)
            _assert_same([got], [expected], f"d/d{j} d/d{i} {fn.__name__}{args}")


@pytest.mark.parametrize("fn,args", SECOND_ORDER, ids=SECOND_IDS)
def test_hessian_matches_tape(fn, args):
    for i in (0, 1):
        with np.errstate(all="ignore"):
            expected = tape_second_derivative(fn, args, i, i)
            got = hessian(fn, wrt=i)(*args)
        _assert_same([got], [expected], f"hessian d2/d{i}2 {fn.__name__}{args}")


def loop_without_branch(x):
    y = 0.0
    while x < 10.0:
        x = x * 1.5
        y = y + np.sin(x)
    return y


def returns_in_branches(x):
    if x > 1.0:
        return x * np.sqrt(x)
    return -x


def gates(fn, *types) -> int:
    """The gates (`cond`s zeroing contributions of paths that may not have run) in the
    gradient of `fn` with respect to all its float arguments."""
    wrt = tuple(i for i, t in enumerate(types) if t.is_float)
    _, graph, _ = Transformed(fn, "grad", wrt).graphs(types)
    return sum(e.prim == "cond" and e.params["branches"][1].name == "gate"
               for e in walk_eqns(graph))


def test_gates_only_where_a_path_may_not_have_run():
    assert gates(issue, F64, F64) == 1             # sqrt's contribution, under `y > 10`
    assert gates(both_arms, F64, F64) == 0         # z is used whichever arm runs
    assert gates(loop_without_branch, F64) == 0    # every iteration ran
    assert gates(early_return, F64, F64) == 1      # log's contribution, after no return
    assert gates(returns_in_branches, F64) == 0    # the return flag is constant in each arm
    assert gates(for_zero_trips, F64, F64, I64) == 1  # under `trips > 0`


def scaled_root(x, y):
    return x * x * np.sqrt(y)


def scaled_root_in_loop(x, y, n):
    s = 0.0
    for _ in range(n):
        s = s + x * x * np.sqrt(y)
    return s


def scaled_root_in_branch(x, y):
    s = x
    if x > 0.0:
        s = x * x * np.log(y)
    return s


@pytest.mark.parametrize("fn,args,expected", [
    (scaled_root, (2.0, 0.0), 0.0), (scaled_root, (2.0, 4.0), 4.0),
    (scaled_root_in_loop, (2.0, 0.0, 3), 0.0), (scaled_root_in_loop, (2.0, 4.0, 3), 12.0),
    (scaled_root_in_branch, (2.0, 0.0), -np.inf), (scaled_root_in_branch, (-2.0, 0.0), 0.0)])
def test_hessian_holds_the_other_arguments_constant(fn, args, expected):
    """d2f/dx2 where df/dy is infinite: y is a constant of the Hessian w.r.t. x, not a zero
    tangent (0 * inf would be nan), as on the tape."""
    with np.errstate(all="ignore"):
        tape = tape_second_derivative(fn, args, 0, 0)
        got = hessian(fn, wrt=0)(*args)
    _assert_same([tape], [expected], f"tape {fn.__name__}{args}")
    _assert_same([got], [expected], f"hessian {fn.__name__}{args}")
