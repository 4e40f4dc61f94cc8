"""Constructs of programs written by others (autograd's test suite): dict comprehensions,
`map`, `sorted` of dict keys and items with `operator.itemgetter` or a lambda as the key,
`slice(...)` objects in subscripts (reads and writes), and lambdas that share a line. Values
against Python's on both backends, gradients against central differences and the eager tape,
forward mode against directional differences."""

import operator as op

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, jit
from tests.support.gradients import central_differences, check_modes

BACKENDS = ["llvm", "python"]
RNG = np.random.default_rng(5)
BY_NAME = op.itemgetter(0)  # a getter made outside, called in compiled code


def sorted_dict(d):
    total = 0.0
    for i, k in enumerate(sorted(d)):
        total = total + np.sum(np.sin(d[k])) * (i + 1.0)
    for i, (_, v) in enumerate(sorted(d.items(), key=op.itemgetter(0), reverse=True)):
        total = total + np.sum(np.cos(v)) * (i + 2.0)
    for k in sorted(d.keys(), key=lambda s: s.upper()):
        total = total * 1.5 + np.sum(d[k] ** 2)
    first = BY_NAME(sorted(d.items(), key=BY_NAME)[0])
    return total + np.sum(d[first])


def sorted_numbers(x):
    return sum(x[i] * j for j, i in enumerate(sorted((2, 0, 1), reverse=True)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_sorted_keys_and_items(backend):
    keys = ["b", "a", "c"]
    for shapes in [((2,), (3,), (2, 2)), ((1,), (4, 1), (3,))]:
        d = {k: RNG.standard_normal(s) for k, s in zip(keys, shapes, strict=True)}
        assert jit(sorted_dict, backend=backend)(d) == pytest.approx(sorted_dict(d), rel=1e-12)
        g = grad(sorted_dict, backend=backend)(d)
        expected = central_differences(lambda *vs: sorted_dict(dict(zip(keys, vs, strict=True))),
                                       list(d.values()))
        for k, e in zip(keys, expected, strict=True):
            np.testing.assert_allclose(g[k], e, rtol=1e-6, atol=1e-7)
    check_modes(sorted_numbers, (RNG.standard_normal(3),), backend)


def sliced(x):
    s = slice(None, -1, None)
    y = x[s]
    z = x[slice(1, None)]
    return y[0] * 2.0 + z[0] + np.sum(np.sin(np.asarray(x)[s]))


def written_through_a_slice(x):
    y = x * 1.0
    middle = slice(1, 3)
    y[middle] = 0.5 * x[middle] ** 2
    return np.sum(y * x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_slice_objects_index_as_slice_syntax(backend):
    for n in (3, 5):
        x = RNG.standard_normal(n)
        check_modes(sliced, (x,), backend, tape=False)  # np.asarray of a Tensor: no tape
        check_modes(written_through_a_slice, (x,), backend, tape=False)
    values = [1.0, 2.0, 3.0]  # a list argument
    assert jit(sliced, backend=backend)(values) == pytest.approx(sliced(values), rel=1e-12)
    assert grad(sliced, backend=backend)(values) == pytest.approx(
        list(central_differences(lambda a: sliced(list(a)), [np.array(values)])[0]))


def slice_of_run_time_bounds(x, n):
    return np.sum(x[slice(0, n)])


def test_slice_of_an_int_argument_specialises_and_of_a_float_is_refused():
    x = RNG.standard_normal(4)
    for n in (1, 3):
        assert jit(slice_of_run_time_bounds)(x, n) == slice_of_run_time_bounds(x, n)
    with pytest.raises(AdliteSyntaxError, match="slice bounds must be integers"):
        grad(slice_of_run_time_bounds)(x, 2.0)


TWICE, SHIFTED = (lambda x: 2.0 * np.sin(x)), (lambda x: np.cos(x) + x)


def two_lambdas_inside(x):
    f, g = (lambda y: y * x), (lambda y: y + x * x)
    return f(2.0) + g(3.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_lambdas_sharing_a_line(backend):
    x = float(RNG.standard_normal())
    for fn in (TWICE, SHIFTED, two_lambdas_inside):
        check_modes(fn, (x,), backend)


def comprehended(d, e):
    both = (d, e)
    scaled = {k: v * sum([x[k] for x in both]) for k, v in d.items() if k != "skip"}
    products = list(map(lambda a, b: a * b, [1.0, 2.0, 3.0], (d["a"], np.sum(d["b"]))))
    sines = tuple(map(np.sin, [d["a"], 2.0]))
    return scaled["a"] + np.sum(scaled["b"]) + sum(products) + sines[0] + \
        sum(map(lambda v: np.sum(v) * 2.0, d.values()))


@pytest.mark.parametrize("backend", BACKENDS)
def test_dict_comprehensions_and_map(backend):
    for shape in [(2,), (3, 1)]:
        d = {"a": float(RNG.standard_normal()), "b": RNG.standard_normal(shape), "skip": 1.0}
        e = {"a": float(RNG.standard_normal()), "b": RNG.standard_normal(shape), "skip": 0.0}
        assert jit(comprehended, backend=backend)(d, e) == pytest.approx(comprehended(d, e),
                                                                        rel=1e-12)
        g = grad(comprehended, backend=backend)(d, e)
        expected = central_differences(
            lambda a, b, s, e=e: comprehended({"a": float(a), "b": b, "skip": float(s)}, e),
            [d["a"], d["b"], d["skip"]])
        for k, x in zip("a b skip".split(), expected, strict=True):
            np.testing.assert_allclose(g[k], x, rtol=1e-6, atol=1e-7)


def run_time_keys(x, n):
    return {i: x * i for i in range(n)}


def test_dict_comprehension_with_run_time_keys_is_refused():
    with pytest.raises(AdliteSyntaxError, match="keys are strings known when compiling"):
        jit(run_time_keys)(1.0, 3)
