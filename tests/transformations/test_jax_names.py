"""JAX's argument names beside ours (issue 22, item 1): `argnums` (an alias of `wrt`), `has_aux`
on grad / value_and_grad / vjp / jvp / the Jacobians, `static_argnums` / `static_argnames` on jit
and the gradients. Expected values are written out by hand (closed forms); where JAX is
installed (the `bench` extra) the same calls are compared with JAX's."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from adlite.compiler import grad, jacfwd, jacobian, jacrev, jit, jvp, value_and_grad, vjp
from adlite.compiler.jacobian import hessian


def squared_loss(w, x, y):
    pred = x @ w
    r = pred - y
    return np.sum(r * r), {"pred": pred, "rows": x.shape[0] * 1.0}


def _data():
    rng = np.random.default_rng(7)
    return rng.standard_normal(3), rng.standard_normal((5, 3)), rng.standard_normal(5)


def test_grad_has_aux_returns_the_gradient_and_the_auxiliary_data():
    w, x, y = _data()
    g, aux = grad(squared_loss, has_aux=True)(w, x, y)
    np.testing.assert_allclose(g, 2 * x.T @ (x @ w - y), rtol=1e-12)
    np.testing.assert_allclose(aux["pred"], x @ w, rtol=1e-14)
    assert aux["rows"] == 5.0 and set(aux) == {"pred", "rows"}


def test_value_and_grad_has_aux_nests_the_value_as_jax_does():
    w, x, y = _data()
    (value, aux), g = value_and_grad(squared_loss, argnums=0, has_aux=True)(w, x, y)
    assert value == pytest.approx(np.sum((x @ w - y) ** 2), rel=1e-12)
    np.testing.assert_allclose(g, 2 * x.T @ (x @ w - y), rtol=1e-12)
    np.testing.assert_allclose(aux["pred"], x @ w, rtol=1e-14)


def test_argnums_is_wrt():
    w, x, y = _data()
    (gw, gy), aux = grad(squared_loss, argnums=(0, 2), has_aux=True)(w, x, y)
    np.testing.assert_allclose(gy, -2 * (x @ w - y), rtol=1e-12)
    np.testing.assert_allclose(gw, grad(squared_loss, wrt=0, has_aux=True)(w, x, y)[0])
    with pytest.raises(TypeError, match="not both"):
        grad(squared_loss, wrt=1, argnums=0)


def test_auxiliary_data_never_reaches_the_gradient():
    """aux = log(x) is -inf at 0: no cotangent flows into it (a zero cotangent would make a
    NaN of 0 * inf), in reverse and forward mode."""
    def f(x):
        return np.sum(np.sin(x)), np.log(x)

    x = np.array([0.5, 0.0, 2.0])
    with np.errstate(divide="ignore"):
        g, aux = grad(f, has_aux=True)(x)
        np.testing.assert_allclose(g, np.cos(x), rtol=1e-14)
        assert aux[1] == -np.inf
        out, pullback, aux = vjp(f, x, has_aux=True)
        np.testing.assert_allclose(pullback(1.0)[0], np.cos(x), rtol=1e-14)
        out, tangent, aux = jvp(f, (x,), (np.ones(3),), has_aux=True)
        assert tangent == pytest.approx(np.sum(np.cos(x)), rel=1e-14)
        assert aux[1] == -np.inf


def test_a_loop_shared_by_the_output_and_aux_runs_once_in_reverse_mode():
    """The auxiliary data shares the forward sweep: the gradient has as many loops with aux
    as without it."""
    from adlite.compiler import pipeline
    from adlite.compiler.ir.core import F64, I64
    from adlite.compiler.ir.printer import print_graph
    from adlite.compiler.pipeline import DIFFERENTIATE, Compilation, Derivative

    def with_aux(x, n):
        s = x
        i = 0
        while i < n:
            s = s * 0.9 + x
            i = i + 1
        return s * s, s

    def without(x, n):
        s = x
        i = 0
        while i < n:
            s = s * 0.9 + x
            i = i + 1
        return s * s

    def loops(fn, aux):
        c = pipeline.run(Compilation(fn, (F64, I64), Derivative("grad", (0,), None, aux)),
                         DIFFERENTIATE[:-1])
        return print_graph(c.graph).count("while")

    assert loops(with_aux, True) == loops(without, False)
    g, s = grad(with_aux, has_aux=True)(1.0, 5)
    expected_s = sum(0.9 ** k for k in range(6))  # s = x * (1 + 0.9 + ... + 0.9**5)
    assert s == pytest.approx(expected_s, rel=1e-14)
    assert g == pytest.approx(2 * expected_s * expected_s, rel=1e-14)  # d(s*s)/dx = 2 s ds/dx


@pytest.mark.parametrize("make", [jacrev, jacfwd, jacobian], ids=["jacrev", "jacfwd",
                                                                  "jacobian"])
def test_jacobians_take_argnums_and_has_aux(make):
    def f(x, y):
        return np.sin(x) * y, np.sum(x)

    x, y = np.array([0.5, 1.0]), 2.0
    (jx, jy), aux = make(f, argnums=(0, 1), has_aux=True)(x, y)
    np.testing.assert_allclose(jx, np.diag(np.cos(x) * y), rtol=1e-14)
    np.testing.assert_allclose(jy, np.sin(x), rtol=1e-14)
    assert aux == 1.5


def test_hessian_takes_argnums():
    def f(x, y):
        return np.sum(x ** 3) * y

    x = np.array([0.5, 1.0])
    np.testing.assert_allclose(hessian(f, argnums=0)(x, 2.0), np.diag(6 * x * 2.0),
                               rtol=1e-14)


def test_has_aux_needs_a_pair():
    def square(x):
        return x * x

    with pytest.raises(TypeError, match=r"has_aux=True: square must return a pair"):
        grad(square, has_aux=True)(1.0)


def power_sum(x, n, mode):
    s = 0.0
    for i in range(n):
        s = s + x ** i
    return s * 2.0 if mode == "double" else s


def test_static_argnums_and_argnames_compile_once_per_value():
    f = jit(power_sum, static_argnums=1, static_argnames=("mode",))
    assert f(2.0, 3, "double") == 14.0
    assert f(2.0, 4, mode="single") == 15.0
    assert f(3.0, 4, mode="single") == 40.0
    assert f.compile_count == 2
    g = grad(power_sum, static_argnums=(1, 2))
    assert g(2.0, 3, "single") == 1.0 + 2 * 2.0


def test_static_arguments_must_be_hashable_and_not_differentiated():
    with pytest.raises(TypeError, match=r"static argument 'n' must be hashable"):
        jit(power_sum, static_argnums=1)(2.0, [3], "single")
    with pytest.raises(TypeError, match=r"argument 'x' is static .* cannot be differentiated"):
        grad(power_sum, static_argnames="x")(2.0, 3, "single")
    with pytest.raises(ValueError, match=r"static_argnums=5: power_sum\(\) takes 3"):
        jit(power_sum, static_argnums=5)
    with pytest.raises(ValueError, match=r"static argument 'm': power_sum\(\) has no "
                                         r"parameter 'm'"):
        jit(power_sum, static_argnames="m")


def test_options_survive_pickling_and_methods():
    w, x, y = _data()
    copy = pickle.loads(pickle.dumps(grad(squared_loss, has_aux=True)))
    g, aux = copy(w, x, y)
    np.testing.assert_allclose(g, 2 * x.T @ (x @ w - y), rtol=1e-12)
    static = pickle.loads(pickle.dumps(jit(power_sum, static_argnames="mode")))
    assert static(2.0, 3, "double") == 14.0

    class Model:
        @grad(has_aux=True)
        def loss(self, w):
            return np.sum(w * w), w * 3.0

    g, aux = Model().loss(np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [2.0, 4.0])
    np.testing.assert_allclose(aux, [3.0, 6.0])


def test_the_same_calls_in_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    w, x, y = _data()

    def jax_loss(w, x, y):
        pred = x @ w
        return jnp.sum((pred - y) ** 2), {"pred": pred, "rows": x.shape[0] * 1.0}

    (value, aux), (gw, gy) = jax.value_and_grad(jax_loss, argnums=(0, 2), has_aux=True)(
        w, x, y)
    (value2, aux2), (gw2, gy2) = value_and_grad(squared_loss, argnums=(0, 2), has_aux=True)(
        w, x, y)
    assert value2 == pytest.approx(float(value), rel=1e-12)
    np.testing.assert_allclose(gw2, gw, rtol=1e-12)
    np.testing.assert_allclose(gy2, gy, rtol=1e-12)
    np.testing.assert_allclose(aux2["pred"], aux["pred"], rtol=1e-12)
