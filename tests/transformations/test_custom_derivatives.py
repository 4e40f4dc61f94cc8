"""User-defined derivatives (`custom_vjp`, `custom_jvp`) and `stop_gradient`, checked three ways:
compiled code (both backends) against the eager tape and against finite differences where the
rule is the true derivative, against the rule's hand-computed value where it deliberately is
not (clipped gradients, straight-through estimators, stop_gradient); second order where JAX
allows it; the errors of wrong rules."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

from adlite.compiler import (
    AdliteSyntaxError,
    custom_jvp,
    custom_vjp,
    grad,
    hessian,
    jit,
    jvp,
    stop_gradient,
    value_and_grad,
    vjp,
)
from adlite.runtime import autograd, tensor

BACKENDS = ("llvm", "python")
HERE = __file__


def fd(fn, x, eps=1e-6):
    """Central differences of a float-valued `fn` at float or array `x`."""
    if np.ndim(x) == 0:
        return (fn(x + eps) - fn(x - eps)) / (2 * eps)
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        out.flat[k] = (fn(x + e) - fn(x - e)) / (2 * eps)
    return out


def tape_grad(fn, x, order=1):
    """The eager tape's derivative of `fn` at `x` (float or array), to `order` 1 or 2 (the
    second: of the scalar first derivative)."""
    t = tensor(x, requires_grad=True)
    (g,) = autograd.grad(fn(t), t, create_graph=order == 2)
    if order == 2:
        (g,) = autograd.grad(g, t)
    return np.asarray(g.data) if np.ndim(x) else float(g.data)


# ---- examples ----------------------------------------------------------------------------------

@custom_vjp
def log1pexp(x):
    return np.log1p(np.exp(x))


def log1pexp_fwd(x):
    return log1pexp(x), (x,)


def log1pexp_bwd(res, g):
    (x,) = res
    return (g * (1.0 - 1.0 / (1.0 + np.exp(x))),)  # sigmoid, stable for large x


log1pexp.defvjp(log1pexp_fwd, log1pexp_bwd)


def uses_log1pexp(x):
    return 2.0 * log1pexp(x) + x * x


@custom_jvp
def softplus(x):
    return np.log1p(np.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t / (1.0 + np.exp(-x))


def uses_softplus(x):
    return softplus(x) * x


@custom_jvp
def safe_norm(x):
    return np.sqrt(np.sum(x * x))


@safe_norm.defjvp
def safe_norm_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    n = safe_norm(x)
    denominator = n if n > 0.0 else 1.0
    return n, np.sum(x * t) / denominator


def norm_loss(x):
    return safe_norm(x) + np.sum(x)


@functools.partial(custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo, hi, x):
    return x


def clip_gradient_fwd(lo, hi, x):
    return x, ()


def clip_gradient_bwd(lo, hi, res, g):
    return (np.clip(g, lo, hi),)


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)


WEIGHTS = np.array([0.2, 3.0, -4.0])


def clipped(x):
    return np.sum(clip_gradient(-0.5, 0.5, x * x) * WEIGHTS)


@custom_vjp
def straight_round(x):
    return np.round(x)


def straight_round_fwd(x):
    return np.round(x), None


def straight_round_bwd(res, g):
    return (g,)


straight_round.defvjp(straight_round_fwd, straight_round_bwd)


def quantised(w):
    return np.sum(straight_round(w * 4.0) * w)


def contraction(a, x):
    return 0.5 * np.cos(x) + a


@functools.partial(custom_vjp, nondiff_argnums=(0,))
def fixed_point(step, a, x0):
    x, previous = step(a, x0), x0
    while abs(x - previous) > 1e-13:
        x, previous = step(a, x), x
    return x


def fixed_point_fwd(step, a, x0):
    x = fixed_point(step, a, x0)
    return x, (a, x)


def fixed_point_bwd(step, res, g):
    """Implicit function theorem: u = g + u * d step/dx (an adjoint fixed point), then
    a_bar = u * d step/da (= u)."""
    a, x = res
    dx = -0.5 * np.sin(x)
    u, previous = g, g + 1.0
    while abs(u - previous) > 1e-13:
        u, previous = g + u * dx, u
    return u, 0.0 * x


fixed_point.defvjp(fixed_point_fwd, fixed_point_bwd)


def solve_and_square(a):
    x = fixed_point(contraction, a, 0.0)
    return x * x


SCALE = 3.0


@custom_vjp
def scaled_pair(x, y):
    return SCALE * x * y, x - y


def scaled_pair_fwd(x, y):
    return scaled_pair(x, y), (x, y, SCALE)


def scaled_pair_bwd(res, cts):
    x, y, scale = res
    gp, gd = cts
    return scale * y * gp + gd, scale * x * gp - gd


scaled_pair.defvjp(scaled_pair_fwd, scaled_pair_bwd)


def pair_loss(v):
    p, d = scaled_pair(v[0], v[1])
    return p + d * d


def stopped(x):
    return np.sum(x * stop_gradient(x * x)) + np.sum(stop_gradient((x, x))[0])


def in_branch_and_loop(x):
    total = 0.0
    for k in range(3):
        if x > 0.0:
            total = total + log1pexp(x * k) + softplus(x - k)
        else:
            total = total + x
    return total


@custom_vjp
def root(y):
    return np.sqrt(y)


def root_fwd(y):
    r = np.sqrt(y)
    return r, r


def root_bwd(r, g):
    return (g * 0.5 / r,)  # nan for y < 0, even where g is 0


root.defvjp(root_fwd, root_bwd)


def root_if_above(x, y):
    z = root(y - 10.0)
    if y > 10.0:
        x = x * z
    return x


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def apply_doubled(f, x):
    return f(x)


@apply_doubled.defjvp
def apply_doubled_jvp(f, primals, tangents):
    (x,), (t,) = primals, tangents
    return f(x), 2.0 * t  # deliberately not f'(x) t


def uses_apply(x):
    return apply_doubled(np.sin, x) * 3.0


def clipped_at(x, bound):
    return clip_gradient(-bound, bound, x * x)  # bounds known at run time only


def make_scaled_sine(c):
    @custom_vjp
    def scaled_sine(x):
        return c * np.sin(x)

    def scaled_sine_fwd(x):
        return scaled_sine(x), np.cos(x)

    def scaled_sine_bwd(cos_x, g):
        return (c * cos_x * g,)

    scaled_sine.defvjp(scaled_sine_fwd, scaled_sine_bwd)
    return scaled_sine


SCALED_SINE = make_scaled_sine(2.5)


def uses_closure_and_keywords(x):
    return SCALED_SINE(x=x) * x + root(y=x + 1.0)


def in_while_loop(x):
    y = 0.1
    while x < 5.0:  # a data-dependent trip count: residuals stored on the AD tape
        y = y + log1pexp(x) * softplus(y)
        x = x + 1.0
    return y


def clipped_in_loop(w, n):
    total = 0.0
    for k in range(n):
        total = total + np.sum(clip_gradient(-0.1, 0.1, w * k) * w)
    return total


# ---- the checks --------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,x", [(uses_log1pexp, 0.7), (uses_log1pexp, -3.0),
                                  (uses_softplus, 0.4), (in_branch_and_loop, 0.3),
                                  (in_branch_and_loop, -0.3), (solve_and_square, 0.4),
                                  (in_while_loop, 0.3)])
def test_true_rules_match_the_tape_and_finite_differences(fn, x, backend):
    compiled = grad(fn, backend=backend)(x)
    assert compiled == pytest.approx(tape_grad(fn, x), rel=1e-10, abs=1e-12)
    assert compiled == pytest.approx(fd(fn, x), rel=1e-6, abs=1e-8)
    assert jit(fn, backend=backend)(x) == pytest.approx(fn(x), rel=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_tuples_and_module_constants(backend):
    global SCALE
    v = np.array([0.3, -1.2])
    compiled = grad(pair_loss, backend=backend)
    np.testing.assert_allclose(compiled(v), tape_grad(pair_loss, v), rtol=1e-12)
    np.testing.assert_allclose(compiled(v), fd(pair_loss, v), rtol=1e-6)
    x = np.array([0.5, -2.0, 1.5])
    np.testing.assert_allclose(grad(norm_loss, backend=backend)(x), fd(norm_loss, x),
                               rtol=1e-6)
    try:
        SCALE = -1.5  # read again at the next call
        np.testing.assert_allclose(compiled(v), fd(pair_loss, v), rtol=1e-6)
    finally:
        SCALE = 3.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_safe_norm_has_a_gradient_at_zero(backend):
    zero = np.zeros(3)
    np.testing.assert_array_equal(grad(norm_loss, backend=backend)(zero), np.ones(3))
    np.testing.assert_array_equal(tape_grad(norm_loss, zero), np.ones(3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_rules_that_differ_from_the_derivative(backend):
    x = np.array([0.1, -0.2, 0.4])
    expected = np.array([0.2, 0.5, -0.5]) * 2.0 * x  # the weights clipped, times d(x*x)/dx
    np.testing.assert_allclose(grad(clipped, backend=backend)(x), expected, rtol=1e-14)
    np.testing.assert_allclose(tape_grad(clipped, x), expected, rtol=1e-14)
    w = np.array([0.3, -0.61, 1.1])
    straight = np.round(4.0 * w) + 4.0 * w  # d/dw round(4w) taken as 4
    np.testing.assert_allclose(grad(quantised, backend=backend)(w), straight, rtol=1e-14)
    np.testing.assert_allclose(tape_grad(quantised, w), straight, rtol=1e-14)
    w = np.array([0.5, -0.3])
    in_loop = np.clip(w, -0.1, 0.1) * 6.0 + w * 6.0  # sum of k over 0..3 is 6
    np.testing.assert_allclose(grad(clipped_in_loop, backend=backend)(w, 4), in_loop,
                               rtol=1e-14)
    x = np.array([0.5, 2.0])
    stopped_grad = np.array([0.5, 2.0]) ** 2
    np.testing.assert_allclose(grad(stopped, backend=backend)(x), stopped_grad, rtol=1e-14)
    np.testing.assert_allclose(tape_grad(stopped, x), stopped_grad, rtol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_second_order(backend):
    for fn, x in [(uses_log1pexp, 0.7), (uses_softplus, 0.4), (solve_and_square, 0.4),
                  (in_while_loop, 0.3)]:
        second = grad(grad(fn, backend=backend), backend=backend)(x)
        assert second == pytest.approx(tape_grad(fn, x, order=2), rel=1e-8)
        assert second == pytest.approx(fd(grad(fn), x, eps=1e-5), rel=1e-6)
    for fn, x in [(uses_log1pexp, 0.7), (uses_softplus, 0.4)]:
        assert hessian(fn)(x) == pytest.approx(tape_grad(fn, x, order=2), rel=1e-10)
    (value, tangent) = jvp(uses_softplus, (0.4,), (1.0,))  # forward mode runs the rule
    assert tangent == pytest.approx(tape_grad(uses_softplus, 0.4), rel=1e-12)
    x = np.array([0.5, -2.0, 1.5])
    h = hessian(norm_loss)(x)
    n = np.linalg.norm(x)
    np.testing.assert_allclose(h, (np.eye(3) - np.outer(x, x) / n ** 2) / n, rtol=1e-10)
    assert np.all(grad(grad(stopped))(0.7) == 0.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_untaken_paths_contribute_nothing(backend):
    """`bwd` gives nan for y < 10 even for a zero cotangent: it must not run there."""
    g = grad(root_if_above, wrt=(0, 1), backend=backend)
    assert g(2.0, 5.0) == (1.0, 0.0)
    assert g(2.0, 14.0) == pytest.approx((2.0, 0.5))
    x, y = tensor(2.0, requires_grad=True), tensor(5.0, requires_grad=True)
    assert autograd.grad(root_if_above(x, y), [x, y], allow_unused=True)[1] is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_nondiff_arguments_closures_and_keywords(backend):
    assert grad(uses_apply, backend=backend)(0.3) == 6.0
    assert jvp(uses_apply, (0.3,), (1.0,)) == pytest.approx((3.0 * np.sin(0.3), 6.0))
    assert tape_grad(uses_apply, 0.3) == 6.0
    assert grad(clipped_at, backend=backend)(3.0, 0.5) == 0.5 * 6.0
    assert grad(clipped_at, wrt=1, backend=backend)(3.0, 0.5) == 0.0  # no derivative
    fn, x = uses_closure_and_keywords, 0.7
    compiled = grad(fn, backend=backend)(x)
    assert compiled == pytest.approx(tape_grad(fn, x), rel=1e-12)
    assert compiled == pytest.approx(fd(fn, x), rel=1e-7)


def test_custom_functions_transformed_directly():
    assert grad(log1pexp)(800.0) == 1.0  # the plain derivative is nan there
    assert grad(softplus)(-1.0) == pytest.approx(1.0 / (1.0 + np.exp(1.0)), rel=1e-14)
    assert jit(log1pexp)(0.2) == pytest.approx(np.log1p(np.exp(0.2)), rel=1e-15)
    value, gradient = value_and_grad(fixed_point, wrt=1)(contraction, 0.4, 0.0)
    assert value == pytest.approx(contraction(0.4, value), abs=1e-12)
    assert gradient == pytest.approx(1.0 / (1.0 + 0.5 * np.sin(value)), rel=1e-10)
    out, pullback = vjp(scaled_pair, 2.0, 3.0)
    assert out == pytest.approx((18.0, -1.0))
    assert pullback(1.0, 1.0) == pytest.approx((3.0 * 3.0 + 1.0, 3.0 * 2.0 - 1.0))


def test_plain_calls_run_the_function():
    assert log1pexp(0.3) == np.log1p(np.exp(0.3))
    assert clip_gradient(0.0, 1.0, 5.0) == 5.0
    x = np.array([1.0, 2.0])
    y = stop_gradient(x)
    assert y is not x and np.array_equal(y, x)
    assert stop_gradient((1.0, {"a": 2.0})) == (1.0, {"a": 2.0})


def test_pickling_and_ahead_of_time_kernels(tmp_path):
    import importlib.util
    import pickle
    import shutil

    from adlite.compiler.aot import compile_aot
    from adlite.compiler.ir.core import F64

    assert pickle.loads(pickle.dumps(log1pexp)) is log1pexp
    assert pickle.loads(pickle.dumps(grad(uses_log1pexp)))(0.7) == grad(uses_log1pexp)(0.7)
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    files = compile_aot(uses_log1pexp, tmp_path, [F64], grad_wrt=(0,))
    spec = importlib.util.spec_from_file_location("kernel", files["loader"])
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    assert kernel.uses_log1pexp_grad(800.0) == 2.0 + 1600.0  # the rule, not nan


# ---- errors -------------------------------------------------------------------------------------

def _line_of(fn) -> int:
    import inspect

    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, text in enumerate(lines) if text.lstrip().startswith("def "))


def test_forward_mode_of_a_custom_vjp_is_refused_naming_it():
    with pytest.raises(AdliteSyntaxError, match="forward-mode .* custom_vjp function "
                                                "'log1pexp'") as info:
        jvp(uses_log1pexp, (0.5,), (1.0,))
    assert info.value.filename == HERE and info.value.line == _line_of(log1pexp.fun)


@custom_vjp
def undefined_rule(x):
    return x * 2.0


def calls_undefined(x):
    return undefined_rule(x) + 1.0


def test_missing_defvjp():
    with pytest.raises(AdliteSyntaxError, match="has no derivative rule") as info:
        grad(calls_undefined)(1.0)
    assert "undefined_rule(x) + 1.0" in str(info.value)
    with pytest.raises(AttributeError, match="No VJP defined"):
        calls_undefined(tensor(1.0, requires_grad=True))


def _two(x, y):
    return x * y


def _two_fwd(x, y):
    return x * y, (x, y)


def _bwd_one_cotangent(res, g):
    return (g * res[1],)


def _bwd_wrong_shape(res, g):
    return g * res[1], np.zeros(3)


def _fwd_not_a_pair(x, y):
    return x * y


def _errors(fwd, bwd):
    f = custom_vjp(_two)
    f.defvjp(fwd, bwd)
    return f


@pytest.mark.parametrize("fwd,bwd,culprit,message", [
    (_two_fwd, _bwd_one_cotangent, _bwd_one_cotangent, "must return a tuple of 2 cotangent"),
    (_two_fwd, _bwd_wrong_shape, _bwd_wrong_shape,
     "the cotangent of argument 1 is a f64[3] but must be a float of the shape of f64"),
    (_fwd_not_a_pair, _bwd_one_cotangent, _fwd_not_a_pair, "must return a pair"),
], ids=["bwd_one_cotangent", "bwd_wrong_shape", "fwd_not_a_pair"])
def test_wrong_rules_name_the_rule(fwd, bwd, culprit, message):
    f = _errors(fwd, bwd)
    with pytest.raises(AdliteSyntaxError, match=re.escape(message)) as info:
        grad(f)(1.0, 2.0)
    assert info.value.filename == HERE and info.value.line == _line_of(culprit)


@pytest.mark.parametrize("fwd,bwd,culprit,message", [
    (_two_fwd, _bwd_one_cotangent, _bwd_one_cotangent, "must return a tuple of 2 cotangent(s)"),
    (_two_fwd, _bwd_wrong_shape, _bwd_wrong_shape, "the cotangent of argument 1 has shape [3]"),
], ids=["bwd_one_cotangent", "bwd_wrong_shape"])
def test_wrong_rules_on_the_tape(fwd, bwd, culprit, message):
    f = _errors(fwd, bwd)
    x = tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        f(x, tensor(2.0)).backward()


@custom_jvp
def vector_valued(x):
    return np.sin(x) * np.ones(3)


@vector_valued.defjvp
def vector_valued_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return vector_valued(x), t  # a number where the output is an array


def uses_vector_valued(x):
    return np.sum(vector_valued(x))


@custom_vjp
def recursive(x):
    return recursive(x - 1.0) if x > 0.0 else x


def calls_recursive(x):
    return recursive(x)


@custom_vjp
def writes_into_argument(x):
    x[0] = 1.0  # Python changes the caller's array: refused, as compiled code does not
    return np.sum(x)


writes_into_argument.defvjp(lambda x: (writes_into_argument(x), None), lambda res, g: (g,))


def uses_writer(x):
    return writes_into_argument(x) * 2.0


def test_more_refusals():
    with pytest.raises(AdliteSyntaxError, match=re.escape(
            "the output tangent is a number (f64) but must be a float of the shape of "
            "f64[3]")) as info:
        grad(uses_vector_valued)(0.3)
    assert info.value.line == _line_of(vector_valued_jvp)  # the def, after the decorator
    with pytest.raises(AdliteSyntaxError, match=re.escape(
            "writes_into_argument() writes into its argument 0")) as info:
        jit(uses_writer)(np.array([3.0, 4.0]))
    assert info.value.line == _line_of(writes_into_argument.fun)
    with pytest.raises(AdliteSyntaxError, match="recursive call to 'recursive'"):
        grad(calls_recursive)(1.0)
    wrong = functools.partial(custom_vjp, nondiff_argnums=(2,))(_two)
    wrong.defvjp(_two_fwd, _bwd_one_cotangent)
    with pytest.raises(AdliteSyntaxError, match=re.escape("nondiff_argnums [2]")):
        grad(lambda_free_call)(1.0, wrong)


def lambda_free_call(x, f):
    return f(x, x)
