"""The tape runs what the compiler runs (issue 26, item 3): functions written with numpy,
run unchanged on Tensors and compiled.

Each case is a plain function of arrays returning a number. On the tape (the differentiated
arguments as Tensors that require grad) its value equals numpy's; its gradient equals
central differences of the plain function and `adlite.compiler.grad` of the same function
(where it compiles: not `np.row_stack`, numpy's deprecated alias);
its second derivatives (recorded backward) pass `gradcheck` against differences of the
first. The tape's scipy equivalents (`adlite.runtime.logsumexp` with scipy's arguments,
`adlite.runtime.special.norm_*`: scipy's functions convert Tensors, see
test_tape_conversions.py) are checked against scipy's values and against the compiled
gradient of the function written with scipy's. The non-differentiable array functions
(`np.all` / `np.any` / `np.count_nonzero`, the `all` / `any` methods) give numpy's values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.special
import scipy.stats

from adlite import compiler
from adlite.runtime import Tensor, gradcheck, logsumexp, tensor
from adlite.runtime import special as tape_special

from ..support.gradients import central_differences

pytestmark = pytest.mark.filterwarnings("ignore:`row_stack` alias is deprecated")  # numpy 2

RNG = np.random.default_rng(26)
X23 = RNG.standard_normal((2, 3))
X234 = RNG.standard_normal((2, 3, 4))
V3 = RNG.standard_normal(3)
W23 = RNG.uniform(0.5, 2.0, (2, 3))
SIGNED3 = np.array([2.0, -0.5, 1.5])


# ---- functions written with numpy (the tape runs them unchanged) ---------------------------

def stack_mixed(a, b):
    return np.sum(np.stack([a, np.ones(3), [1.0, 2.0, 3.0], b]) ** 2 * np.arange(4.0)[:, None])


def concatenate_mixed(a, b):
    return np.sum(np.concatenate([np.ones(2), a, np.array([0.5]), b]) ** 3)


def hstack_numbers(a, b):
    return np.sum(np.hstack([b[0], 1.0, a, np.ones(2)]) * np.arange(7.0) * a[1])


def vstack_mixed(a, b):
    return np.sum(np.sin(np.vstack([a, np.ones(3), b]) * np.arange(9.0).reshape(3, 3)))


def row_stack_mixed(a, b):
    return np.sum(np.row_stack([a, np.ones(3), b]) ** 2 * np.arange(9.0).reshape(3, 3))


def swapaxes_keywords(x):
    return np.sum(np.swapaxes(x, axis1=0, axis2=2) ** 2 * np.arange(24.0).reshape(4, 3, 2))


def swapaxes_method(x):
    return np.sum(np.sin(x.swapaxes(0, 2)) * np.arange(24.0).reshape(4, 3, 2))


def ravel_function_and_method(x):
    return np.sum(np.ravel(x) ** 2 * np.arange(24.0)) + np.sum(np.exp(x.ravel()[3:7]))


def std_var_methods(x):
    return (x.std() + x.std(axis=0).sum() + x.std(ddof=1) + x.var(ddof=1)
            + np.sum(x.var(axis=1, keepdims=True)))


def max_then_in_place(x):
    logits = x * 2.0
    logits -= logits.max(axis=1, keepdims=True)
    return np.sum(np.exp(logits) * np.arange(6.0).reshape(2, 3))


def empty_like_written(x):
    out = np.empty_like(x)
    out[0] = x[1] * 2.0
    out[1:] = np.sin(x[:2])
    return np.sum(out ** 2)


def truth_tests_steer(x):
    y = np.sum(x ** 2)
    if np.all(x > -10.0) and not np.any(x > 10.0) and (x > -10.0).all() and not (x > 10).any():
        y = y * 3.0
    return y


@dataclass(frozen=True)
class Case:
    fn: Callable[..., object]
    args: tuple
    wrt: tuple[int, ...]
    compiles: bool = True  # False: the compiler lacks the function (the differences remain)


CASES = {
    "stack_mixed": Case(stack_mixed, (V3, V3[::-1].copy()), (0, 1)),
    "concatenate_mixed": Case(concatenate_mixed, (V3, SIGNED3), (0, 1)),
    "hstack_numbers": Case(hstack_numbers, (V3, SIGNED3), (0, 1)),
    "vstack_mixed": Case(vstack_mixed, (V3, SIGNED3), (0, 1)),
    "row_stack_mixed": Case(row_stack_mixed, (V3, SIGNED3), (0, 1), compiles=False),
    "swapaxes_keywords": Case(swapaxes_keywords, (X234,), (0,)),
    "swapaxes_method": Case(swapaxes_method, (X234,), (0,)),
    "ravel": Case(ravel_function_and_method, (X234,), (0,)),
    "std_var_methods": Case(std_var_methods, (X23,), (0,)),
    "max_then_in_place": Case(max_then_in_place, (X23,), (0,)),
    "empty_like_written": Case(empty_like_written, (X23.T.copy(),), (0,)),
    "truth_tests_steer": Case(truth_tests_steer, (X23,), (0,)),
}


def _on_tape(case: Case, args=None):
    args = case.args if args is None else args
    inputs = [tensor(a, requires_grad=True) if i in case.wrt else a
              for i, a in enumerate(args)]
    return inputs, case.fn(*inputs)


def _tape_gradient(case: Case) -> list[np.ndarray]:
    inputs, out = _on_tape(case)
    out.backward()
    return [inputs[i].grad.data for i in case.wrt]


def _compiled_gradient(fn, args, wrt) -> list[np.ndarray]:
    grads = compiler.grad(fn, wrt=wrt)(*args)
    return [np.asarray(g) for g in (grads if isinstance(grads, tuple) else (grads,))]


@pytest.mark.parametrize("name", CASES)
def test_value_is_numpys(name):
    case = CASES[name]
    _, out = _on_tape(case)
    assert isinstance(out, Tensor) and out.requires_grad
    np.testing.assert_allclose(out.data, case.fn(*case.args), rtol=1e-14)


@pytest.mark.parametrize("name", CASES)
def test_gradient_matches_differences_and_compiled(name):
    case = CASES[name]
    tape = _tape_gradient(case)
    differences = central_differences(lambda *a: case.fn(*a), case.args)
    compiled = _compiled_gradient(case.fn, case.args, case.wrt) if case.compiles else tape
    for k, i in enumerate(case.wrt):
        np.testing.assert_allclose(tape[k], differences[i], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(tape[k], compiled[k], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_second_order(name):
    case = CASES[name]

    def of_differentiated(*xs):
        args = list(case.args)
        for i, x in zip(case.wrt, xs, strict=True):
            args[i] = x
        return case.fn(*args)

    assert gradcheck(of_differentiated, [case.args[i] for i in case.wrt], order=2)


# ---- the tape's equivalents of scipy's functions ---------------------------------------------

def scipy_logsumexp_axis(x, w):
    return np.sum(scipy.special.logsumexp(x, axis=1) * w[:, 0])


def tape_logsumexp_axis(x, w):
    return np.sum(logsumexp(x, axis=1) * w[:, 0])


def scipy_logsumexp_keepdims(x, w):
    return np.sum(scipy.special.logsumexp(x * w, axis=0, keepdims=True) * x)


def tape_logsumexp_keepdims(x, w):
    return np.sum(logsumexp(x * w, axis=0, keepdims=True) * x)


def scipy_logsumexp_b(x, w):
    return np.sum(scipy.special.logsumexp(x, axis=1, b=w) ** 2)


def tape_logsumexp_b(x, w):
    return np.sum(logsumexp(x, axis=1, b=w) ** 2)


def scipy_logsumexp_b_all(x, w):
    return scipy.special.logsumexp(x, b=w)


def tape_logsumexp_b_all(x, w):
    return logsumexp(x, b=w)


def scipy_norm(x, w):
    return np.sum(scipy.stats.norm.pdf(x, 0.5, w) + scipy.stats.norm.logpdf(x, loc=w)
                  + scipy.stats.norm.cdf(x * w))


def tape_norm(x, w):
    return np.sum(tape_special.norm_pdf(x, 0.5, w) + tape_special.norm_logpdf(x, loc=w)
                  + tape_special.norm_cdf(x * w))


EQUIVALENTS = {
    "logsumexp_axis": (scipy_logsumexp_axis, tape_logsumexp_axis),
    "logsumexp_keepdims": (scipy_logsumexp_keepdims, tape_logsumexp_keepdims),
    "logsumexp_b": (scipy_logsumexp_b, tape_logsumexp_b),
    "logsumexp_b_all": (scipy_logsumexp_b_all, tape_logsumexp_b_all),
    "norm_pdf_logpdf_cdf": (scipy_norm, tape_norm),
}


@pytest.mark.parametrize("name", EQUIVALENTS)
def test_scipy_equivalent_on_the_tape(name):
    with_scipy, on_tape = EQUIVALENTS[name]
    case = Case(on_tape, (X23, W23), (0, 1))
    inputs, out = _on_tape(case)
    np.testing.assert_allclose(out.data, with_scipy(X23, W23), rtol=1e-13)
    out.backward()
    tape = [inputs[i].grad.data for i in case.wrt]
    differences = central_differences(with_scipy, (X23, W23))
    compiled = _compiled_gradient(with_scipy, (X23, W23), (0, 1))
    for k in range(2):
        np.testing.assert_allclose(tape[k], differences[k], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(tape[k], compiled[k], rtol=1e-11, atol=1e-12)
    assert gradcheck(on_tape, [X23, W23], order=2)


def test_logsumexp_return_sign_and_negative_sums_are_scipys():
    b = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 1.0]])
    magnitude, sign = logsumexp(tensor(X23), axis=1, b=tensor(b), return_sign=True)
    expected = scipy.special.logsumexp(X23, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(magnitude.data, expected[0], rtol=1e-14)
    np.testing.assert_array_equal(sign.data, expected[1])
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(logsumexp(tensor(X23), axis=1, b=b).data,
                                   scipy.special.logsumexp(X23, axis=1, b=b), rtol=1e-14)


# ---- truth tests and counts (not differentiable): numpy's values -----------------------------

TRUTH = {
    "np.all": lambda x: np.all(x > 0), "np.all_axis": lambda x: np.all(x > 0, axis=1),
    "np.any": lambda x: np.any(x > 0), "np.any_keepdims": lambda x: np.any(x > 0, 0, None, True),
    "count_nonzero": lambda x: np.count_nonzero(x > 0),
    "count_nonzero_axis": lambda x: np.count_nonzero(x > 0, axis=0),
    "method_all": lambda x: (x > -5).all(), "method_any_axis": lambda x: (x > 0).any(axis=1),
    "method_all_keepdims": lambda x: (x > 0).all(0, keepdims=True),
}


@pytest.mark.parametrize("name", TRUTH)
def test_truth_tests_and_counts_are_numpys(name):
    fn = TRUTH[name]
    out = fn(tensor(X23, requires_grad=True))
    assert isinstance(out, Tensor) and not out.requires_grad
    expected = fn(X23)
    assert out.dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(out.data, expected)
