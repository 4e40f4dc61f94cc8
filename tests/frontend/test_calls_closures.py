"""Calls inside compiled code as Python makes them: default values, keywords and *args of
called functions, nested `def`, closures (late binding) and `lambda`, functions passed as
arguments and called in loops, and compile-time values (strings, None, flags, isinstance).

Every value is compared with the plain Python function, every derivative with central finite
differences of the plain Python function (numpy only): reverse (grad, both backends),
forward (jvp) and second order (hessian).
"""

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, hessian, jit, jvp

# ---- helpers (numpy finite differences of the plain Python function) -------------------------


def _moved(args, i, k, h):
    out = list(args)
    if isinstance(args[i], np.ndarray):
        a = args[i].astype(float).copy()
        a.flat[k] += h
        out[i] = a
    else:
        out[i] = float(args[i]) + h
    return out


def _size(a) -> int:
    return a.size if isinstance(a, np.ndarray) else 1


def fd_gradient(fn, args, i, h=1e-6):
    g = np.array([(fn(*_moved(args, i, k, h)) - fn(*_moved(args, i, k, -h))) / (2 * h)
                  for k in range(_size(args[i]))])
    return g.reshape(args[i].shape) if isinstance(args[i], np.ndarray) else float(g[0])


def fd_hessian(fn, args, i, h=1e-4):
    n = _size(args[i])
    hess = np.empty((n, n))
    def at(a, b, sa, sb):
        return fn(*_moved(_moved(args, i, a, sa * h), i, b, sb * h))

    for a in range(n):
        for b in range(n):
            hess[a, b] = (at(a, b, 1, 1) - at(a, b, 1, -1) - at(a, b, -1, 1)
                          + at(a, b, -1, -1)) / (4 * h * h)
    if isinstance(args[i], np.ndarray):
        return hess.reshape(args[i].shape + args[i].shape)
    return float(hess[0, 0])


def check(fn, *args, second_order=True):
    """Compiled value, grad (llvm and python backends), jvp and hessian vs plain Python."""
    expected = fn(*args)
    floats = tuple(i for i, a in enumerate(args) if not isinstance(a, int | bool))
    for backend in ("llvm", "python"):
        np.testing.assert_allclose(jit(fn, backend=backend)(*args), expected, rtol=1e-12)
        got = grad(fn, wrt=floats, backend=backend)(*args)
        for i, g in zip(floats, got, strict=True):
            np.testing.assert_allclose(g, fd_gradient(fn, args, i), rtol=1e-5, atol=1e-7)
    rng = np.random.default_rng(0)
    tangents = [rng.standard_normal(np.shape(args[i])) if isinstance(args[i], np.ndarray)
                else float(rng.standard_normal()) for i in floats]
    _, tangent_out = jvp(fn, args, tangents)
    h = 1e-6
    plus, minus = list(args), list(args)
    for i, t in zip(floats, tangents, strict=True):
        plus[i], minus[i] = args[i] + h * t, args[i] - h * t
    np.testing.assert_allclose(tangent_out, (fn(*plus) - fn(*minus)) / (2 * h), rtol=1e-5,
                               atol=1e-7)
    if second_order:
        np.testing.assert_allclose(hessian(fn, wrt=floats[0])(*args),
                                   fd_hessian(fn, args, floats[0]), rtol=1e-4, atol=1e-5)


# ---- 1. defaults, keywords, *args of called functions ----------------------------------------


def step(x, h=0.1, *, damping=0.0):
    return x + h * (-x * x) - damping * x


def uses_defaults(x, d):
    return step(x) * step(x, h=0.2) + step(x, 0.3, damping=d) + step(h=0.05, x=d)


def total(*terms, scale=1.0):
    return scale * (terms[0] * terms[1] + terms[-1])


def uses_star_args(x, y):
    args = (x, y, np.sin(x))
    return total(*args) + total(x, y, 2.0, scale=0.5) + total(*(y, x), 1.0)


def affine(v, w=2.0, shift=(0.5, -0.5)):
    return w * v + shift[0] - shift[1]


def array_defaults(v):
    return np.sum(affine(v) ** 2) + np.sum(affine(v, w=-1.0, shift=(1.0, 1.0)) * v)


def test_defaults_and_keywords():
    check(uses_defaults, 0.7, 0.3)


def test_star_args_and_keyword_only():
    check(uses_star_args, 0.4, -1.3)


def test_defaults_with_arrays():
    check(array_defaults, np.array([0.3, -1.2, 2.0]))


# ---- 2. nested def, closures, lambda --------------------------------------------------------


def late_binding(x):
    k = 2.0
    def rhs(y):
        return -k * y
    first = rhs(x)
    k = 3.0 * x  # Python reads k when rhs is called, not when it is defined
    return first + rhs(x)


def lambdas(x):
    sq = lambda v: v ** 2  # noqa: E731 - the idiom under test
    return sq(x) + (lambda t, s=x: t * s)(3.0) + sq(np.sin(x))


def closure_in_loop(x):
    c = 1.0
    def g(v):
        return c * v + x
    s = 0.0
    for _ in range(3):
        s = s + g(x)
        c = c + x
    return s


def closure_of_closure(x):
    a = x * 2.0
    def inner(v):
        return a * v
    def outer(v, scale=x):
        return inner(v) * scale
    return outer(x) + outer(1.0, scale=0.5)


def closure_on_array(v):
    w = v * 2.0
    def energy(u):
        return np.sum(w * u * u)
    return energy(v) + energy(np.cos(v))


def test_closure_reads_variables_when_called():
    assert late_binding(1.5) == 1.5 * -2.0 + -4.5 * 1.5  # the plain Python meaning
    check(late_binding, 1.5)


def test_lambdas():
    check(lambdas, 0.8)


def test_closure_called_in_a_loop_reads_the_carried_value():
    check(closure_in_loop, 0.6)


def test_closure_calling_a_closure():
    check(closure_of_closure, -0.7)


def test_closure_over_an_array():
    check(closure_on_array, np.array([0.2, -0.5, 1.1]))


# ---- 3. functions passed as arguments, called in loops ---------------------------------------


def euler(f, y0, t1, n=8):
    h = t1 / n
    y, t = y0, 0.0
    for _ in range(n):
        y = y + h * f(t, y)
        t = t + h
    return y


def decay(k, y0):
    def rhs(t, y):
        return -k * y + np.sin(t)
    return euler(rhs, y0, 1.0)


def decay_array(k, y0):
    return np.sum(euler(lambda t, y: -k * y * y + t, y0, 0.5, n=5) ** 2)


def fixed_point(g, x, tol=1e-12):
    previous = x + 1.0
    while abs(x - previous) > tol:
        previous = x
        x = g(x)
    return x


def half_cos(v):
    return 0.5 * np.cos(v)


def fixed_points(a):
    return fixed_point(half_cos, a) + fixed_point(lambda v: 0.3 * np.sin(v) + 0.2 * a, a)


def builtin_passed(x):
    return euler(lambda t, y: np.cos(y), x, 1.0) + fixed_point(np.tanh, x, 1e-3)


def twice(f, x):
    return f(f(x))


@jit
def jitted_square(v):
    return v * v


def jitted_passed(x):
    return twice(jitted_square, x) + twice(lambda v: v + x, 1.0)


def test_nested_def_passed_to_an_ode_integrator():
    check(decay, 0.7, 1.2)


def test_lambda_passed_with_arrays():
    check(decay_array, 0.4, np.array([0.5, -0.3]))


def test_functions_passed_to_a_while_loop():
    check(fixed_points, 0.4)


def test_builtins_and_jitted_functions_passed():
    check(builtin_passed, 0.3, second_order=False)
    check(jitted_passed, 0.9)


# ---- 4. compile-time values: strings, None, flags, isinstance --------------------------------


def payoff(s, k, option="call"):
    if option == "call":
        return max(s - k, 0.0)
    if option in ("put", "p"):
        return max(k - s, 0.0)
    return 0.0


def price(s, k):
    return payoff(s, k) + 2.0 * payoff(k, s, option="put") + payoff(s, k, "other")


def solve(x, tol=None, squared=True):
    if tol is None:
        tol = 1e-3
    y = x * x if squared else x
    return y + tol * x


def weighted(v, weights=None):
    if weights is not None:
        v = v * weights
    if isinstance(v, np.ndarray) and not np.isscalar(v):
        return np.sum(v * v)
    return v * v


def weigh_all(v, x):
    return weighted(v) + weighted(v, np.cos(v)) + weighted(x) + solve(x) + \
        solve(x, 0.5, squared=False) + (1.0 if isinstance(x, float) and callable(solve) else 0.0)


def flags_across_control_flow(x, n):
    mode = "double"
    f = np.sin
    s = 0.0
    i = 0
    while i < n:
        if x > 0.5:
            s = s + f(x)
        else:
            s = s - f(x) * 0.5
        if mode == "double":
            s = s * 2.0
        x = x * 0.9
        i += 1
    return s


def test_string_flags():
    check(price, 1.3, 1.0)


def test_none_flags_isinstance():
    check(weigh_all, np.array([0.3, -0.8]), 0.6)


def test_compile_time_values_cross_ifs_and_loops():
    check(flags_across_control_flow, 0.8, 4)


# ---- refusals name the user's line -----------------------------------------------------------


def two_functions(x):
    if x > 0.0:
        f = np.sin
    else:
        f = np.cos
    return f(x)


def function_rebound_in_loop(x):
    g = np.sin
    while x < 3.0:
        x = g(x) + 1.0
        g = np.cos
    return x


def recursive_nested(x):
    def fact(n):
        return 1.0 if n <= 1 else n * fact(n - 1)
    return fact(3) * x


def string_arithmetic(x, option="put"):
    return x + option


def uses_string_arithmetic(x):
    return string_arithmetic(x)


def missing_argument(x):
    return step()


def unknown_keyword(x):
    return step(x, speed=1.0)


def takes_kwargs(x, scale=1.0, **options):
    y = scale * x
    if "shift" in options:
        y = y + options["shift"]
    return y * options.get("factor", 1.0) if "factor" in options else y


def calls_kwargs(x):
    return takes_kwargs(x, shift=x * x) + takes_kwargs(x, 2.0) + takes_kwargs(x, factor=3.0)


@pytest.mark.parametrize("backend", ["llvm", "python"])
def test_var_keyword_parameters_of_called_functions(backend):
    assert jit(calls_kwargs, backend=backend)(0.5) == calls_kwargs(0.5)
    assert grad(calls_kwargs, backend=backend)(0.5) == pytest.approx(2 * 0.5 + 1 + 2 + 3)


@pytest.mark.parametrize("fn,line,fragment", [
    (two_functions, "f = np.cos", "'f' is a compile-time value bound differently on the two "
                                  "paths (a function (sin) and a function (cos))"),
    (function_rebound_in_loop, "while x < 3.0", "'g' is a compile-time value that the loop "
                                                "body binds differently"),
    (recursive_nested, "n * fact(n - 1)", "recursive call to 'fact'"),
    (uses_string_arithmetic, "return x + option", "got a string ('put')"),
    (missing_argument, "return step()", "step(): missing a required argument: 'x'"),
    (unknown_keyword, "step(x, speed=1.0)", "got an unexpected keyword argument 'speed'"),
], ids=["two_functions", "function_rebound_in_loop", "recursive_nested",
        "uses_string_arithmetic", "missing_argument", "unknown_keyword"])
def test_refusals_name_the_line(fn, line, fragment):
    with pytest.raises(AdliteSyntaxError) as info:
        grad(fn)(0.5)
    assert fragment in str(info.value)
    assert line in str(info.value).splitlines()[1]


# ---- more closures: free arrays in another function's loop, writes, returned closures --------


def free_array_in_callee_loop(v):
    w = np.cos(v)
    return np.sum(euler(lambda t, y: -w * y, v, 1.0, n=3))


def apply_signed(f, x):
    if x > 0.0:
        y = f(x)
    else:
        y = -f(x)
    return y


def closure_in_callee_if(x, k):
    return apply_signed(lambda v: k * v * v, x) + apply_signed(np.exp, -x)


def closure_writes_free_array(v):
    out = np.zeros(3)
    def put(i, value):
        out[i] = value * v[i]
    for i in range(3):
        put(i, np.sin(v[i]))
    return np.sum(out * out)


def make_scaler(k):
    return lambda x: k * x


def returned_closure(x):
    triple = make_scaler(3.0 * x)
    s = 0.0
    for _ in range(2):
        s = s + triple(x)
    return s


def test_another_functions_closure_over_an_array_in_a_loop():
    check(free_array_in_callee_loop, np.array([0.4, -0.2, 0.9]))


def test_closure_called_in_an_if_of_another_function():
    check(closure_in_callee_if, 0.7, 1.3)
    check(closure_in_callee_if, -0.4, 1.3)


def test_closure_writes_into_the_enclosing_functions_array():
    check(closure_writes_free_array, np.array([0.4, -0.2, 0.9]))


def test_closure_returned_by_a_call():
    check(returned_closure, 0.8)


h = 0.25  # a module-level name the closure below must not confuse with euler's local h


def shadowed_names(x):
    h = x * 0.5
    def rhs(t, y):
        return -h * y  # the h of shadowed_names, not euler's step
    return euler(rhs, 1.0, 1.0, n=4)


def def_in_loop_body(x):
    s = 0.0
    for i in range(3):
        c = x * i
        def term(v):
            return c * v + i  # noqa: B023 - late binding is the point
        s = s + term(x)
    return s


HALF_SIN = lambda v: 0.5 * np.sin(v)  # noqa: E731 - a module-level lambda passed as a function


def module_lambda_passed(x):
    return fixed_point(HALF_SIN, x) + twice(HALF_SIN, x)


def test_free_names_are_read_in_the_defining_function():
    check(shadowed_names, 0.6)


def test_def_inside_a_loop_body():
    check(def_in_loop_body, 0.9)


def test_module_level_lambda_passed():
    check(module_lambda_passed, 0.7)


def test_lambda_as_the_entry_point():
    square_sin = lambda x: np.sin(x) * x  # noqa: E731
    assert grad(square_sin)(0.5) == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5))


def call_each(f, n):
    for i in range(n):
        f(i)
    return 0.0


def closure_writes_from_another_function(v):
    out = np.zeros(3)
    def put(i):
        out[i] = v[i] * 2.0
    call_each(put, 3)
    return np.sum(out)


def test_closure_writing_its_array_from_another_function_is_refused():
    with pytest.raises(AdliteSyntaxError) as info:
        grad(closure_writes_from_another_function)(np.ones(3))
    assert "write into 'out', an array of the function that defined this closure" in \
        str(info.value)
    assert "out[i] = v[i] * 2.0" in str(info.value).splitlines()[1]


def nested_twice(x):
    k = x * 3.0
    def middle(v):
        def inner(k):  # its own k: middle reads the enclosing k below
            return k * v
        return inner(2.0) + k
    return middle(x)


def test_a_nested_functions_parameter_does_not_hide_the_enclosing_variable():
    check(nested_twice, 0.6)


def ambiguous_scalar_class(x):
    return 1.0 if isinstance(np.sin(x), np.floating) else 0.0


def test_isinstance_that_depends_on_python_or_numpy_scalars_is_refused():
    with pytest.raises(AdliteSyntaxError) as info:
        jit(ambiguous_scalar_class)(0.5)
    assert "isinstance(): the answer depends on whether the number is a Python or a numpy " \
        "scalar" in str(info.value)
    assert "isinstance(np.sin(x), np.floating)" in str(info.value).splitlines()[1]


def none_keyword(x):
    return np.sum(x * x, axis=None) + np.sum(x, axis=None, keepdims=False)


def test_none_as_a_keyword_value_of_numpy_functions():
    check(none_keyword, np.array([0.5, -1.5, 2.0]))
