"""Calling compiled functions (issue 10): default values, keywords, keyword-only parameters and
`*args` at the entry point, `wrt` by name, bound methods and compile-time arguments, int
arguments that size arrays (specialised per value), int and bool arrays as arguments.

Every derivative is checked against central finite differences computed here with numpy."""

import gc
import pickle
import weakref

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, hessian, jit, jvp, value_and_grad, vjp

EPS = 1e-6


def fd(fn, x):
    """Central finite differences of a float-valued `fn` at a float or float array `x`."""
    if np.ndim(x) == 0:
        return (fn(x + EPS) - fn(x - EPS)) / (2 * EPS)
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[idx] = EPS
        out[idx] = (fn(x + step) - fn(x - step)) / (2 * EPS)
    return out


def fd2(fn, x):
    """Second derivative of a scalar `fn` of a float `x` (central differences of them)."""
    h = 1e-4
    return (fn(x + h) - 2 * fn(x) + fn(x - h)) / h ** 2


# ---- defaults, keywords, keyword-only parameters, *args ---------------------------------------

def damped(x, scale=2.0, n=3):
    s = 0.0
    i = 0
    while i < n:
        s = s + scale * np.sin(x * (i + 1)) * x
        i += 1
    return s


def test_defaults_and_keywords_match_python():
    f = jit(damped)
    for args, kwargs in [((0.7,), {}), ((0.7, 1.5), {}), ((0.7,), {"scale": 3.0}),
                         ((0.7,), {"n": 5}), ((0.7,), {"n": 2, "scale": -1.0}),
                         ((), {"x": 0.3, "scale": 0.5})]:
        assert f(*args, **kwargs) == pytest.approx(damped(*args, **kwargs), rel=1e-12)


def test_gradients_with_defaults_and_keywords_by_position_and_by_name():
    x = 0.7
    assert grad(damped)(x) == pytest.approx(fd(damped, x), rel=1e-6)
    assert grad(damped)(x, n=5) == pytest.approx(fd(lambda v: damped(v, n=5), x), rel=1e-6)
    by_name = grad(damped, wrt="scale")(x, n=4)
    assert by_name == pytest.approx(fd(lambda s: damped(x, s, n=4), 2.0), rel=1e-6)
    both = grad(damped, wrt=("x", "scale"))(x, scale=1.5)
    assert both[0] == pytest.approx(fd(lambda v: damped(v, 1.5), x), rel=1e-6)
    assert both[1] == pytest.approx(fd(lambda s: damped(x, s), 1.5), rel=1e-6)
    value, g = value_and_grad(damped, wrt="scale")(x)
    assert value == pytest.approx(damped(x), rel=1e-12)
    assert g == pytest.approx(fd(lambda s: damped(x, s), 2.0), rel=1e-6)


def test_forward_and_second_order_with_defaults():
    x = 0.7
    out, tangent = jvp(damped, (x,), (1.0,))  # the default scale is a constant
    assert out == pytest.approx(damped(x), rel=1e-12)
    assert tangent == pytest.approx(fd(damped, x), rel=1e-6)
    out, pullback = vjp(damped, x)
    assert pullback(1.0)[0] == pytest.approx(fd(damped, x), rel=1e-6)
    assert hessian(damped)(x) == pytest.approx(fd2(damped, x), rel=1e-4)
    assert hessian(damped, wrt="x")(x, scale=0.5) == pytest.approx(
        fd2(lambda v: damped(v, 0.5), x), rel=1e-4)


def keyword_only(x, *, power=2.0, shift):
    return (x + shift) ** power


def varargs(x, *coefficients, power=2.0):
    return coefficients[0] * x ** power + coefficients[-1] * x + len(coefficients)


def test_keyword_only_parameters():
    f = jit(keyword_only)
    assert f(1.5, shift=0.5) == keyword_only(1.5, shift=0.5)
    assert f(1.5, shift=0.5, power=3.0) == keyword_only(1.5, shift=0.5, power=3.0)
    g = grad(keyword_only, wrt="shift")(1.5, shift=0.5)
    assert g == pytest.approx(fd(lambda s: keyword_only(1.5, shift=s), 0.5), rel=1e-6)


def test_varargs_arity_is_part_of_the_signature():
    f = jit(varargs)
    assert f(2.0, 3.0, 4.0) == varargs(2.0, 3.0, 4.0)
    assert f(2.0, 3.0, 4.0, 5.0, power=3.0) == varargs(2.0, 3.0, 4.0, 5.0, power=3.0)
    assert f(1.0, 1.0, 1.0) == varargs(1.0, 1.0, 1.0)
    assert f.compile_count == 2  # two arities
    g = grad(varargs, wrt=(0, 1))(2.0, 3.0, 4.0)  # positions count the call's arguments
    assert g[0] == pytest.approx(fd(lambda v: varargs(v, 3.0, 4.0), 2.0), rel=1e-6)
    assert g[1] == pytest.approx(fd(lambda c: varargs(2.0, c, 4.0), 3.0), rel=1e-6)


def python_error(fn, *args, **kwargs) -> str:
    with pytest.raises(TypeError) as e:
        fn(*args, **kwargs)
    return str(e.value)


@pytest.mark.parametrize("args, kwargs", [
    ((), {}), ((1.0, 2.0, 3, 4), {}), ((1.0,), {"bogus": 1.0}), ((1.0, 2.0), {"scale": 1.0})])
def test_wrong_calls_raise_pythons_own_type_error(args, kwargs):
    expected = python_error(damped, *args, **kwargs)
    assert python_error(jit(damped), *args, **kwargs) == expected
    assert python_error(grad(damped), *args, **kwargs) == expected


def test_wrong_calls_of_a_method_raise_pythons_own_type_error():
    m = Model()
    for args in [(1.0,), (1.0, 2.0, 3.0)]:
        assert python_error(jit(m.loss), *args) == python_error(m.loss, *args)
        assert python_error(grad(Model.loss), m, *args) == python_error(Model.loss, m, *args)


def test_wrt_names_a_parameter():
    with pytest.raises(TypeError, match="no parameter 'y'"):
        grad(damped, wrt="y")(1.0)
    with pytest.raises(TypeError, match="has type str; it cannot be differentiated"):
        grad(keyword_only, wrt="shift")(1.0, shift="a")


# ---- bound methods and compile-time arguments -----------------------------------------------

def square(v):
    return v * v


def cube(v):
    return v * v * v


class Model:
    def loss(self, x, y):
        return square(x) * y

    @staticmethod
    def static_loss(x):
        return cube(x)

    @classmethod
    def class_loss(cls, x):
        return 4.0 * x * x


def test_bound_method_entry_point_counts_the_users_arguments():
    m = Model()
    assert jit(m.loss)(3.0, 2.0) == m.loss(3.0, 2.0)
    assert grad(m.loss)(3.0, 2.0) == pytest.approx(fd(lambda v: m.loss(v, 2.0), 3.0), rel=1e-6)
    assert grad(m.loss, wrt=1)(3.0, 2.0) == pytest.approx(9.0, rel=1e-12)
    assert grad(m.loss, wrt="y")(3.0, 2.0) == pytest.approx(9.0, rel=1e-12)
    assert hessian(m.loss)(3.0, 2.0) == pytest.approx(fd2(lambda v: m.loss(v, 2.0), 3.0),
                                                      rel=1e-4)
    _, t = jvp(m.loss, (3.0, 2.0), (1.0, 0.0))
    assert t == pytest.approx(fd(lambda v: m.loss(v, 2.0), 3.0), rel=1e-6)
    assert grad(Model.static_loss)(2.0) == pytest.approx(fd(Model.static_loss, 2.0), rel=1e-6)
    assert grad(m.static_loss)(2.0) == pytest.approx(fd(Model.static_loss, 2.0), rel=1e-6)
    assert grad(Model.class_loss)(2.0) == pytest.approx(16.0, rel=1e-12)
    assert grad(m.class_loss)(2.0) == pytest.approx(16.0, rel=1e-12)


def test_unbound_method_takes_self_as_a_compile_time_value_by_identity():
    f = jit(Model.loss)
    a, b = Model(), Model()
    assert f(a, 3.0, 2.0) == a.loss(3.0, 2.0)
    assert f(a, 1.0, 2.0) == a.loss(1.0, 2.0)
    assert f.compile_count == 1
    assert f(b, 3.0, 2.0) == b.loss(3.0, 2.0)
    assert f.compile_count == 2


class Body:
    @jit
    def energy(self, x):
        return square(x) * 0.5

    @grad
    def force(self, x):
        return square(x) * 0.5

    @staticmethod
    @jit
    def tripled(x):
        return x * 3.0


def test_methods_defined_with_jit_bind_self_like_def():
    b = Body()
    assert b.energy(3.0) == Body().energy.fn(3.0) == 4.5
    assert b.energy(2.0) == 2.0 and b.energy.compile_count == 1  # reused per instance
    assert b.force(3.0) == pytest.approx(fd(lambda v: 0.5 * v * v, 3.0), rel=1e-6)
    assert Body.energy(b, 3.0) == 4.5
    assert Body.tripled(2.0) == b.tripled(2.0) == 6.0
    other = Body()
    assert other.energy(1.0) == 0.5
    gone = weakref.ref(other)
    del other
    gc.collect()
    assert gone() is None  # the instance's compilations do not keep it alive
    copy = pickle.loads(pickle.dumps(b))
    assert copy.energy(3.0) == 4.5
    assert pickle.loads(pickle.dumps(b.force))(2.0) == pytest.approx(2.0, rel=1e-12)


class Loss:
    def __call__(self, x, scale=2.0):
        return scale * cube(x)


def test_an_instance_with_a_call_method_is_an_entry_point():
    loss = Loss()
    assert jit(loss)(1.5) == loss(1.5)
    assert grad(loss)(1.5) == pytest.approx(fd(loss, 1.5), rel=1e-6)
    assert grad(loss, wrt="scale")(1.5) == pytest.approx(fd(lambda s: loss(1.5, s), 2.0),
                                                         rel=1e-6)
    assert python_error(jit(loss)) == python_error(loss)


def apply(fn, x, label="unused", option=None):
    return fn(x) + 1.0


def pick(params, key):
    return params[key] * 2.0


def test_functions_strings_and_none_are_compile_time_arguments():
    f = jit(apply)
    assert f(square, 3.0) == apply(square, 3.0)
    assert f(cube, 3.0, "label", None) == apply(cube, 3.0, "label", None)
    assert f(square, 2.0) == apply(square, 2.0)
    assert f.compile_count == 2  # one per function object
    assert grad(apply, wrt=1)(cube, 2.0) == pytest.approx(fd(lambda v: apply(cube, v), 2.0),
                                                          rel=1e-6)
    params = {"a": 1.5, "b": -2.0}
    p = jit(pick)
    assert p(params, "a") == pick(params, "a")
    assert p(params, "b") == pick(params, "b")
    assert p.compile_count == 2  # strings are compared by value
    assert p(params, "a") == pick(params, "a") and p.compile_count == 2


# ---- int arguments used as sizes ----------------------------------------------------------------

def padded(x, n):
    z = np.zeros(n)
    z[0] = x
    return np.sum(z * z) + n * x


def grid(x, n, m):
    a = np.ones((n, m)) * x
    return np.sum(a * a)


def shaped(x, shape):
    return np.sum(np.ones(shape) * x)


def repeated(x, n):
    s = 0.0
    for _ in range(n):
        s = s + np.sin(s + x)
    return s


def doubled(x, n):
    return np.sum(np.ones(n * 2) * x)


def zeros_of(k):
    return np.zeros(k)


def sized_in_loop_and_callee(x, n):
    s = 0.0
    for i in range(3):
        z = np.ones(n) * (x + i)
        s = s + np.sum(z * z)
    return s + np.sum(zeros_of(n) + x)


def test_int_arguments_that_size_arrays_are_specialised_per_value():
    f = jit(padded)
    for n in (3, 5, 3, 5, 2):
        assert f(1.5, n) == pytest.approx(padded(1.5, n), rel=1e-12)
    assert f.compile_count == 3
    g = jit(grid)
    assert g(2.0, 2, 3) == grid(2.0, 2, 3)
    assert g(2.0, 3, 3) == grid(2.0, 3, 3)
    assert jit(doubled)(1.5, 3) == doubled(1.5, 3)  # a size computed from n
    s = jit(shaped)  # a tuple or list of ints as a shape
    assert s(2.0, (2, 3)) == shaped(2.0, (2, 3)) and s(2.0, [3, 3]) == shaped(2.0, [3, 3])
    h = jit(sized_in_loop_and_callee)  # inside a loop body, and in an inlined callee
    assert h(0.5, 3) == pytest.approx(sized_in_loop_and_callee(0.5, 3), rel=1e-12)
    assert h(0.5, 4) == pytest.approx(sized_in_loop_and_callee(0.5, 4), rel=1e-12)
    assert grad(sized_in_loop_and_callee)(0.5, 4) == pytest.approx(
        fd(lambda v: sized_in_loop_and_callee(v, 4), 0.5), rel=1e-6)


def test_int_loop_counts_stay_runtime_values():
    f = jit(repeated)
    for n in (1, 4, 7):
        assert f(0.3, n) == pytest.approx(repeated(0.3, n), rel=1e-12)
    assert f.compile_count == 1


def test_derivatives_with_specialised_sizes():
    assert grad(padded)(1.5, 4) == pytest.approx(fd(lambda v: padded(v, 4), 1.5), rel=1e-6)
    _, t = jvp(padded, (1.5, 4), (1.0,))
    assert t == pytest.approx(fd(lambda v: padded(v, 4), 1.5), rel=1e-6)
    assert hessian(padded)(1.5, 4) == pytest.approx(fd2(lambda v: padded(v, 4), 1.5),
                                                    rel=1e-4)


def size_from_float(x):
    n = 1
    while n < x:
        n = n * 2
    return np.sum(np.zeros(n))


def test_a_size_that_is_not_known_when_compiling_is_refused_clearly():
    with pytest.raises(AdliteSyntaxError, match="must be known when compiling"):
        jit(size_from_float)(5.0)


# ---- int and bool arrays ----------------------------------------------------------------------

def masked_pick(scores, labels, mask):
    s = 0.0
    i = 0
    while i < labels.shape[0]:
        if mask[i]:
            s = s + scores[labels[i]] ** 2
        i += 1
    return s + np.sum(mask) + np.max(labels) * 0.5 + np.sum(np.where(mask[1:], scores, 0.0))


@pytest.mark.parametrize("backend", ["llvm", "python"])
def test_int_and_bool_arrays_are_data_arguments(backend):
    scores = np.array([0.5, -1.0, 2.0, 0.25])
    labels = np.array([2, 0, 3, 1, 2])
    mask = np.array([True, False, True, True, False])
    f = jit(masked_pick, backend=backend)
    assert f(scores, labels, mask) == pytest.approx(masked_pick(scores, labels, mask),
                                                    rel=1e-12)
    g = grad(masked_pick, backend=backend)(scores, labels, mask)
    assert g == pytest.approx(fd(lambda s: masked_pick(s, labels, mask), scores), rel=1e-6)
    with pytest.raises(TypeError, match="array of i64; grad differentiates float arguments"):
        grad(masked_pick, wrt=1, backend=backend)(scores, labels, mask)
    with pytest.raises(TypeError, match="array of bool; grad differentiates float arguments"):
        grad(masked_pick, wrt="mask", backend=backend)(scores, labels, mask)


def int_reductions(labels, mask):
    return np.sum(labels), np.min(labels), np.max(mask), np.sum(mask), labels[1] * 2, \
        np.sum(labels * 2, axis=0)


@pytest.mark.parametrize("backend", ["llvm", "python"])
def test_reductions_of_int_and_bool_arrays(backend):
    labels = np.array([4, -7, 3])
    mask = np.array([False, True, True])
    got = jit(int_reductions, backend=backend)(labels, mask)
    want = int_reductions(labels, mask)
    assert got == want
    assert [np.asarray(v).dtype for v in got] == [np.asarray(v).dtype for v in want]


def test_other_array_dtypes_are_refused():
    with pytest.raises(TypeError, match="float64, float32, int64 or bool"):
        jit(int_reductions)(np.array([1, 2], dtype=np.int32), np.array([True, False]))


# ---- pickling ------------------------------------------------------------------------------------

def test_transformations_with_names_and_defaults_pickle():
    g = grad(damped, wrt=("x", "scale"))
    g(0.5)
    h = pickle.loads(pickle.dumps(g))
    assert h(0.5) == pytest.approx(g(0.5), rel=1e-12)
    hs = pickle.loads(pickle.dumps(hessian(damped, wrt="scale")))
    assert hs(0.5) == pytest.approx(fd2(lambda s: damped(0.5, s), 2.0), abs=1e-4)
