"""Python's `operator` functions in compiled code (issue 26): `op.add(x, y)` is `x + y`, also
when the function is a value (a closure's variable, a global, a list looped over, an
argument), as autograd's tests use them. Values equal Python's/numpy's on both backends for
numbers, arrays and broadcasting; gradients equal central differences and the eager tape's;
forward mode equals directional differences; Python's TypeErrors for bad calls are refused
at the user's line."""

import operator as op

import numpy as np
import pytest

from adlite.compiler import jit

from ..support.library_checks import (
    BACKENDS,
    case_tests,
    check_refusal,
    tape_test,
)

RNG = np.random.default_rng(2026)
X = RNG.uniform(0.5, 2.0, (3, 4))
Y = RNG.uniform(0.5, 2.0, (3, 4))
ROW = RNG.uniform(0.5, 2.0, 4)
M = RNG.standard_normal((4, 2))
DIFFERENTIABLE = [op.add, op.sub, op.mul, op.truediv, op.pow, op.mod]
COMPARISONS = [op.eq, op.ne, op.lt, op.le, op.gt, op.ge]


def binary(op_fn):
    """autograd's pattern: a generic function calling the operator it closes over."""
    def f(x, y):
        return op_fn(x, y)

    f.__name__ = f"binary_{op_fn.__name__}"
    return f


def unary(op_fn):
    def f(x):
        return op_fn(x) * 1.5

    f.__name__ = f"unary_{op_fn.__name__}"
    return f


def every_operator(x, y):
    total = 0.0
    for fn in [op.add, op.sub, op.mul, op.truediv, op.pow]:
        total = total + fn(x, y)
    return total


def applied(fn, x, y):
    return fn(x, y) * 2.0


def passed_as_argument(x, y):
    return applied(op.mul, x, y) + applied(op.floordiv, x, y)


def products_and_items(x, m):
    return op.matmul(x, m) + op.getitem(x, 0)[:2] + op.getitem(op.neg(x), (1, 2))


def masked(x, y):
    return op.add(x * 0.0, op.mul(op.gt(x, y), y)) + op.abs(op.sub(x, y))


CURRENT = op.add


def of_a_global(x, y):
    return CURRENT(x, y) * 3.0


SHAPES = {"arrays": (X, Y), "broadcast": (X, ROW), "numbers": (1.25, 0.75),
          "number-array": (1.25, ROW)}
CASES = [(binary(fn), SHAPES[shape]) for fn in DIFFERENTIABLE for shape in SHAPES] + \
    [(unary(fn), (X - 1.25,)) for fn in (op.neg, op.pos, op.abs)] + \
    [(every_operator, (X, Y)), (passed_as_argument, (X, Y)), (products_and_items, (X, M)),
     (masked, (X, Y)), (of_a_global, (X, ROW))]
IDS = [f"{fn.__name__}-{name}" for fn in DIFFERENTIABLE for name in SHAPES] + \
    [f"unary_{fn.__name__}" for fn in (op.neg, op.pos, op.abs)] + \
    ["every_operator", "passed_as_argument", "products_and_items", "masked", "of_a_global"]



(test_values_equal_pythons, test_gradients_equal_central_differences,
 test_forward_mode_equals_directional_differences) = case_tests(CASES, IDS)
test_the_eager_tape_gives_the_same_values_and_gradients = tape_test(
    CASES, IDS, on_tape=lambda case: not isinstance(case[1][0], float))


INTS = (np.array([7, -7, 9, 0]), np.array([2, 3, -4, 5]))
BOOLS = (X > 1.0, Y > 1.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args", [
    *[(binary(fn), (X, Y)) for fn in COMPARISONS],
    *[(binary(fn), (0.5, 0.5)) for fn in COMPARISONS],
    *[(binary(fn), INTS) for fn in (op.floordiv, op.mod, op.add, op.mul, op.truediv)],
    *[(binary(fn), (7, -2)) for fn in (op.floordiv, op.mod, op.truediv, op.pow, op.sub)],
    *[(binary(fn), BOOLS) for fn in (op.and_, op.or_, op.xor)],
    (binary(op.and_), (True, False)), (unary(op.not_), (False,)),
    (unary(op.invert), (X > 1.0,)),
], ids=[f"{fn.__name__}-arrays" for fn in COMPARISONS] +
    [f"{fn.__name__}-numbers" for fn in COMPARISONS] +
    [f"{n}-ints" for n in ("floordiv", "mod", "add", "mul", "truediv")] +
    [f"{n}-python-ints" for n in ("floordiv", "mod", "truediv", "pow", "sub")] +
    [f"{n}-bools" for n in ("and_", "or_", "xor")] + ["and_-python-bools", "not_", "invert"])
def test_comparisons_ints_and_bools_equal_pythons(fn, args, backend):
    expected = fn(*args)
    got = jit(fn, backend=backend)(*args)
    assert np.asarray(got).dtype.kind == np.asarray(expected).dtype.kind
    np.testing.assert_array_equal(got, expected)


def write_through_an_item(x, y):
    z = x.copy()
    row = op.getitem(z, 1)
    row[2] = 5.0
    block = op.getitem(z, (slice(None), slice(0, 2)))
    block[0] += y[0, :2]
    return z


@pytest.mark.parametrize("backend", BACKENDS)
def test_getitem_gives_a_view_as_indexing_does(backend):
    np.testing.assert_array_equal(jit(write_through_an_item, backend=backend)(X, Y),
                                  write_through_an_item(X, Y))


def too_few(x, y):
    return op.add(x)


def with_keyword(x, y):
    return op.mul(x, b=y)


def three_operands(x, y):
    return op.lt(x, y, x)


@pytest.mark.parametrize("fn,message,text", [
    (too_few, "add expected 2 arguments, got 1", "op.add"),
    (with_keyword, "mul() takes no keyword arguments", "op.mul"),
    (three_operands, "lt expected 2 arguments, got 3", "op.lt"),
], ids=["too_few", "keyword", "three"])
def test_pythons_type_errors_are_refused_at_the_users_line(fn, message, text):
    check_refusal(fn, (X, Y), TypeError, message, text)
