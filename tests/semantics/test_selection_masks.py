"""No NaN from the side a selection did not choose, beyond `np.where` (issue 21).

`np.clip`, `np.maximum` / `np.minimum`, `np.fmax` / `np.fmin`, builtin `max` / `min`,
`np.select`, `np.piecewise` and masked writes `y[mask] = v` give each element the derivative of
what it chose only: 0 where another side was chosen, never `0 * inf` from it. Checked in
reverse mode on both backends, forward mode (`jvp`, `jacfwd`), at second order (forward over
reverse, reverse over reverse) and on the eager tape, against derivatives written by hand at
the switching points (where the unchosen side's derivative is infinite) and central
differences of numpy's own function away from them. `np.select` / `np.piecewise` also compute
numpy's values and dtypes, and raise numpy's exception types (compiled: at the call's line).
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, hessian, jacfwd, jit, jvp
from adlite.compiler.primitives.special import SCIPY_FUNCTIONS
from adlite.derivatives import FORMULAS, Formula, Mask
from adlite.runtime import autograd, tensor
from adlite.runtime.vocabulary import TENSOR_OPS

from ..support.gradients import central_differences

BACKENDS = ["llvm", "python"]
KINKS = np.array([-1.0, 0.0, 4.0])  # sqrt(|x|) has an infinite derivative at 0
AWAY = np.array([-2.3, -0.6, 0.7, 1.6, 2.2])  # no switching point within 0.1
TANGENT = np.array([0.5, -1.5, 2.0])


def clip_root(x):
    return np.sum(np.clip(np.sqrt(np.abs(x)), 0.5, 3.0))


def maximum_root(x):
    return np.sum(np.maximum(np.sqrt(np.abs(x)), 0.5))


def minimum_root(x):
    return np.sum(np.minimum(-np.sqrt(np.abs(x)), -0.5))


def fmax_root(x):
    return np.sum(np.fmax(np.sqrt(np.abs(x)), 0.5))


def fmin_root(x):
    return np.sum(np.fmin(-np.sqrt(np.abs(x)), -0.5))


def builtin_max_root(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + max(np.sqrt(np.abs(x[i])), 0.5)
    return s


def builtin_min_root(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + min(-np.sqrt(np.abs(x[i])), -0.5)
    return s


def select_roots(x):
    return np.sum(np.select([x < 0, x < 1], [np.sqrt(-x), np.log1p(x)], default=np.sqrt(x)))


def piecewise_roots(x):
    return np.sum(np.piecewise(x, [x < 0, x > 0], [lambda v: np.sqrt(-v), np.sqrt, 0.0]))


def masked_write(x):
    y = np.sqrt(x) * 1.0
    y[x <= 0] = 0.0
    return np.sum(y)


def masked_write_of_expression(x):
    y = np.sqrt(x) * 1.0
    y[x <= 0] = 2.0 * np.sqrt(np.abs(x[0]))  # written twice at KINKS
    return np.sum(y)


# (function, gradient at KINKS, Hessian at KINKS: diagonal, as every case is a sum of terms in
# one element each, or written by hand), all by hand: sqrt(-x)' = -0.5 (-x)^-0.5,
# sqrt(-x)'' = -0.25 (-x)^-1.5, sqrt(x)'' = -0.25 x^-1.5, log1p'' = -1 / (1 + x)^2
ROOT = ([-0.5, 0.0, 0.25], [-0.25, 0.0, -0.03125])  # sqrt(|x|) where chosen, else 0
NEGATED = tuple([-v for v in values] for values in ROOT)
CASES = {
    "clip": (clip_root, *ROOT),
    "maximum": (maximum_root, *ROOT),
    "minimum": (minimum_root, *NEGATED),
    "fmax": (fmax_root, *ROOT),
    "fmin": (fmin_root, *NEGATED),
    "builtin_max": (builtin_max_root, *ROOT),
    "builtin_min": (builtin_min_root, *NEGATED),
    "select": (select_roots, [-0.5, 1.0, 0.25], [-0.25, -1.0, -0.03125]),
    "piecewise": (piecewise_roots, *ROOT),
    "masked_write": (masked_write, [0.0, 0.0, 0.25], [0.0, 0.0, -0.03125]),
    # 4 sqrt(-x0) + sqrt(x2)
    "masked_write_of_expression": (masked_write_of_expression, [-2.0, 0.0, 0.25],
                                   [-1.0, 0.0, -0.03125]),
}
IDS = list(CASES)


def _case(name):
    fn, gradient, curvature = CASES[name]
    return fn, np.array(gradient), np.diag(curvature)


def _same(actual, expected, what):
    np.testing.assert_allclose(np.asarray(actual, float), expected, rtol=1e-12, atol=1e-15,
                               err_msg=what)


def tape_gradient(fn, x):
    t = tensor(x, requires_grad=True)
    fn(t).backward()
    return t.grad.data


def tape_hessian_times(fn, x, v):
    t = tensor(x, requires_grad=True)
    (first,) = autograd.grad(fn(t), t, create_graph=True)
    (second,) = autograd.grad(np.sum(first * v), t)
    return second.data


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy evaluates the unchosen sides
@pytest.mark.parametrize("name", IDS)
def test_the_value_is_numpys(name):
    fn = CASES[name][0]
    for x in (KINKS, AWAY):
        assert jit(fn)(x.copy()) == pytest.approx(fn(x.copy()), rel=1e-15)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", IDS)
def test_reverse_mode_gives_the_chosen_derivative(name, backend):
    fn, expected, _ = _case(name)
    _same(grad(fn, backend=backend)(KINKS), expected, f"grad {name}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", IDS)
def test_forward_mode_gives_the_chosen_derivative(name, backend):
    fn, expected, _ = _case(name)
    _same(jacfwd(fn, backend=backend)(KINKS), expected, f"jacfwd {name}")
    _same(jvp(fn, (KINKS,), (TANGENT,))[1], expected @ TANGENT, f"jvp {name}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", IDS)
def test_second_order_gives_the_chosen_curvature(name, backend):
    fn, _, expected = _case(name)
    _same(hessian(fn, backend=backend)(KINKS), expected, f"hessian {name}")  # fwd over rev
    gradient = grad(fn, backend=backend)
    rows = grad(lambda v: np.sum(gradient(v) * TANGENT), backend=backend)(KINKS)
    _same(rows, expected @ TANGENT, f"reverse over reverse {name}")
    _same(jvp(gradient, (KINKS,), (TANGENT,))[1], expected @ TANGENT, f"jvp of grad {name}")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy evaluates the unchosen sides
@pytest.mark.parametrize("name", IDS)
def test_the_tape_gives_the_chosen_derivatives(name):
    fn, gradient, curvature = _case(name)
    _same(tape_gradient(fn, KINKS), gradient, f"tape {name}")
    _same(tape_hessian_times(fn, KINKS, TANGENT), curvature @ TANGENT, f"tape second {name}")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy evaluates the unchosen sides
@pytest.mark.parametrize("name", IDS)
def test_away_from_the_switches_all_agree_with_differences(name):
    fn = CASES[name][0]
    (expected,) = central_differences(lambda v: fn(v.copy()), [AWAY])
    for backend in BACKENDS:
        np.testing.assert_allclose(grad(fn, backend=backend)(AWAY), expected, rtol=1e-6,
                                   atol=1e-8, err_msg=f"grad {name} {backend}")
    np.testing.assert_allclose(tape_gradient(fn, AWAY), expected, rtol=1e-6, atol=1e-8)
    v, h = np.linspace(-1.0, 1.0, AWAY.size), 1e-3

    def differences(y):
        return central_differences(lambda u: fn(u.copy()), [y], eps=1e-5)[0]

    curvature = (differences(AWAY + h * v) - differences(AWAY - h * v)) / (2 * h)
    np.testing.assert_allclose(hessian(fn)(AWAY) @ v, curvature, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tape_hessian_times(fn, AWAY, v), curvature, rtol=1e-5,
                               atol=1e-6)


# ---- np.select and np.piecewise compute numpy's values --------------------------------------

def select_mixed(x, y, d):
    return np.select([x > 0.5, y < 0.2, x < y], [x * 2.0, y, 3], default=d)


def select_ints(x, y):
    return np.select([x > y], [x], default=-1)


def select_bools(m, n):
    return np.select([m, n], [n, m], False)


def select_rows(x, y):
    return np.select(np.stack([x > 0.3, x > 0.6]), np.stack([x, x * x]), y)


def piecewise_pieces(x):
    return np.piecewise(x, [x < 3, x > 6], [lambda v: v * 2 + 1, 7.5, np.sqrt])


def piecewise_one_condition(x):
    return np.piecewise(x, x > 4, [np.sqrt, lambda v: v - 1])


def piecewise_extra_arguments(x, s):
    return np.piecewise(x, [x > 4], [lambda v, a, b=0: v * a + b, lambda v, a, b=0: a - b],
                        s, b=2)


def piecewise_rows(x):
    return np.piecewise(x, [x[..., 0] > 4], [lambda v: v * 0.5])


def piecewise_scalar_conditions(x):
    return np.piecewise(x, [x[0] > 4, True, 0, x[-1] > 4, 1], [lambda v: v + 1.5])


def _numbers(shape, dtype, rng):
    return (rng.random(shape) * 9).astype(dtype)


SHAPES = [(5,), (3, 4), (2, 3, 2)]
DTYPES = [np.float64, np.float32, np.int64]


def _assert_numpys(got, expected):
    got = np.asarray(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_select_and_piecewise_values_are_numpys(shape, dtype):
    rng = np.random.default_rng(sum(shape))
    x, y = _numbers(shape, dtype, rng), _numbers(shape[-1:], dtype, rng)
    calls = [(select_mixed, (x / 9, y / 9, 1.5)), (select_mixed, (x / 9, y / 9, x[..., :1])),
             (select_ints, (x, y)), (select_bools, (x > 4, x < 2)),
             (piecewise_pieces, (x,)), (piecewise_extra_arguments, (x, 3))]
    if len(shape) > 1:
        calls.append((piecewise_rows, (x,)))
    else:  # numpy reads the one condition of more dimensions as several
        calls += [(select_rows, (x / 9, y / 9)), (piecewise_one_condition, (x,)),
                  (piecewise_scalar_conditions, (x,))]
    for fn, args in calls:
        expected = fn(*args)
        for backend in BACKENDS:
            _assert_numpys(jit(fn, backend=backend)(*args), expected)
        tensors = [tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        _assert_numpys(fn(*tensors).data, expected)


# ---- numpy's errors -------------------------------------------------------------------------

def select_of_floats(x):
    return np.select([x], [x])


def select_of_fewer_choices(x):
    return np.select([x > 0, x < 0], [x])


def select_of_nothing(x):
    return np.select([], [])


def select_of_mismatched_shapes(x):
    return np.select([x > 0], [x[:2]])


def piecewise_of_too_many_functions(x):
    return np.piecewise(x, [x > 0], [np.sin, np.cos, np.tan])


ERRORS = {
    "non_bool_condition": (select_of_floats, TypeError),
    "fewer_choices": (select_of_fewer_choices, ValueError),
    "empty_lists": (select_of_nothing, ValueError),
    "shapes": (select_of_mismatched_shapes, ValueError),
    "piecewise_functions": (piecewise_of_too_many_functions, ValueError),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_numpys_errors_at_the_users_line(name):
    fn, kind = ERRORS[name]
    x = np.array([1.0, -2.0, 3.0])
    with pytest.raises(kind) as raised:
        fn(x)
    message = re.escape(str(raised.value))
    with pytest.raises(kind, match=message):
        fn(tensor(x))
    with pytest.raises(kind, match=rf"test_selection_masks.py:\d+:\d+: {message}") as compiled:
        jit(fn)(x)
    assert isinstance(compiled.value, AdliteSyntaxError)


def piecewise_not_elementwise(x):
    return np.piecewise(x, [x > 0], [lambda v: v[:2]])


def test_piecewise_refuses_functions_that_are_not_elementwise_at_the_users_line():
    with pytest.raises(AdliteSyntaxError, match=r"test_selection_masks.py:\d+:\d+: a piece of "
                                                r"type f64\[2\] for x of type f64\[3\]: compiled "
                                                r"code applies each function to all of x"):
        jit(piecewise_not_elementwise)(np.array([1.0, -2.0, 3.0]))


def test_exactly_the_formulas_with_mask_partials_declare_that_they_select():
    """`selects` makes both drivers ask for the masks (`derivatives.supports`): a formula
    with a `Mask` partial that did not declare it would give the ordinary rule."""
    selecting = set()
    for name, formula in FORMULAS.items():
        if not isinstance(formula, Formula):
            continue
        if name in SCIPY_FUNCTIONS:  # partials of scipy's C functions: compiled code only
            assert not formula.selects, name
            continue
        arity = len(inspect.signature(formula.partials).parameters) - 2  # ops, output
        inputs = [np.array([True, False])] * formula.conditions + \
            [tensor(np.array([0.25, 0.75]))] * (arity - formula.conditions)
        partials = formula.partials(TENSOR_OPS, *inputs, tensor(np.array([0.5, 0.5])))
        if any(isinstance(p, Mask) for p in partials):
            selecting.add(name)
        assert formula.selects == (name in selecting), name
    assert selecting == {"select", "clip", "maximum", "minimum", "fmax", "fmin"}
