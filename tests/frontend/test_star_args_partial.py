"""`f(*xs)` with a list, tuple or range of length known when compiling, and `functools.partial`
objects made inside or outside compiled code: values against plain Python on both backends,
gradients (reverse and forward) against central differences, a Hessian against second
differences, and the refusals."""

import functools
from functools import partial

import numpy as np
import pytest
from scipy import stats

from adlite.compiler import AdliteSyntaxError, hessian, jit

from ..support.gradients import fd_hessian
from ..support.library_checks import case_ids, case_tests

RNG = np.random.default_rng(5)


def affine(a, b, c=1.0):
    return a * b + c


def star_list(x, y):
    args = [x, y]
    args.append(np.sin(x))
    return affine(*args) + np.add(*args[:2]) + sum(range(*[1, 4]))


def star_mixed(x, y):
    head = (x,)
    return affine(*head, *[y], c=2.0) + np.sum(np.stack((x, y)))


def star_in_a_wrapper(x, mean, cov):
    def symmetrized(fun, *args):
        args = list(args)
        args[2] = 0.5 * (args[2] + args[2].T)
        return fun(*args)

    return symmetrized(stats.multivariate_normal.logpdf, x, mean, cov)


SQUARE = partial(affine, c=0.5)
SCALED = functools.partial(affine, 3.0)


def partial_outside(x, y):
    return SQUARE(x, y) + SCALED(x) + SCALED(b=y, c=x)


def partial_inside(x, y):
    shifted = partial(affine, c=y)
    twice = partial(shifted, 2.0)
    return twice(x) + shifted(x, b=x) + partial(np.multiply, x)(y)


def apply(fn, v):
    return fn(v)


def partial_passed(x, w):
    held = partial(np.dot, w)
    w[0] = 5.0  # the partial holds the array itself: the write is seen, as in Python
    return apply(held, x) + apply(partial(np.sum, axis=0), x)


def partial_of_scipy(x, mean, cov):
    logpdf = partial(stats.multivariate_normal.logpdf, allow_singular=False)
    return logpdf(x, mean, cov)


COV = RNG.standard_normal((3, 3))
COV = COV @ COV.T + np.eye(3)
CASES = [(star_list, (0.7, -1.3)),
         (star_list, (RNG.standard_normal(3), RNG.standard_normal(3))),
         (star_mixed, (RNG.standard_normal(2), RNG.standard_normal(2))),
         (star_in_a_wrapper, (RNG.standard_normal(3), RNG.standard_normal(3), COV)),
         (partial_outside, (0.4, 1.9)),
         (partial_inside, (RNG.standard_normal(3), RNG.standard_normal(3))),
         (partial_passed, (RNG.standard_normal(2), RNG.standard_normal(2))),
         (partial_of_scipy, (RNG.standard_normal((4, 3)), RNG.standard_normal(3), COV))]
test_values, test_gradients, test_forward = case_tests(CASES, case_ids(CASES), rtol=1e-13,
                                                       atol=1e-13)


def _loss(v):
    return partial_inside(v[:2], v[2:]).sum() + star_list(v[0], v[3])


def test_hessian_against_second_differences():
    v = RNG.standard_normal(4)
    np.testing.assert_allclose(hessian(_loss)(v), fd_hessian(_loss, v), rtol=1e-5, atol=1e-5)


def star_number(x):
    return affine(*x)


def star_run_time_list(x, n):
    xs = []
    i = 0
    while i < n:
        xs.append(x)
        i += 1
    return affine(*xs)


def empty_partial(x):
    return partial()(x)


@pytest.mark.parametrize("fn,args,message", [
    (star_number, (1.0,), "*a number in a call"),
    (star_run_time_list, (1.0, 2), "run-time"),
    (empty_partial, (1.0,), "partial() takes a function"),
], ids=["number", "run-time list", "empty partial"])
def test_refusals_name_the_line(fn, args, message):
    with pytest.raises(AdliteSyntaxError, match=None) as info:
        jit(fn)(*args)
    assert message in str(info.value)
