"""Every transformation returns the structure the function gives it (issue 22, item 2): `vmap`
of `grad` of a dict of parameters returns a dict, as `jit` and `grad` do; `vmap` keeps dicts,
lists and tuples of results; a transformation called from compiled code hands its structure
to the caller; Jacobians and Hessians of dicts are dicts of blocks (JAX's layout). Expected
values come from closed forms computed with numpy, example by example."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

from adlite.compiler import grad, jit, vmap
from adlite.compiler.jacobian import hessian, jacfwd, jacrev


def loss(p, x):
    r = x @ p["w"] + p["b"]
    return np.sum(r * r)


loss_gradient = grad(loss)


def _expected_grad(p, x):
    r = x @ p["w"] + p["b"]
    return {"w": 2 * x.T @ r, "b": 2 * np.sum(r)}


def _params_and_batch():
    rng = np.random.default_rng(3)
    return {"w": rng.standard_normal(3), "b": 0.5}, rng.standard_normal((4, 2, 3))


def test_vmap_of_grad_of_a_dict_is_a_dict_of_batched_gradients():
    p, xs = _params_and_batch()
    g = vmap(grad(loss), in_axes=(None, 0))(p, xs)
    assert isinstance(g, dict) and list(g) == ["w", "b"]
    for k, x in enumerate(xs):
        expected = _expected_grad(p, x)
        np.testing.assert_allclose(g["w"][k], expected["w"], rtol=1e-12)
        np.testing.assert_allclose(g["b"][k], expected["b"], rtol=1e-12)


def test_vmap_keeps_dicts_lists_and_tuples_of_results():
    def parts(x):
        return {"double": x * 2.0, "sums": [np.sum(x), (np.max(x), x[0])]}

    xs = np.arange(6.0).reshape(2, 3)
    out = vmap(parts)(xs)
    assert isinstance(out, dict) and isinstance(out["sums"], list)
    assert isinstance(out["sums"][1], tuple)
    np.testing.assert_array_equal(out["double"], xs * 2.0)
    np.testing.assert_array_equal(out["sums"][0], [3.0, 12.0])
    np.testing.assert_array_equal(out["sums"][1][0], [2.0, 5.0])
    np.testing.assert_array_equal(out["sums"][1][1], [0.0, 3.0])
    again = vmap(parts)
    for _ in range(3):  # the first call and the cached ones alike
        assert isinstance(again(xs), dict)


Params = namedtuple("Params", "w b")


def named_loss(p, x):
    r = x @ p.w + p.b
    return np.sum(r * r)


def test_named_tuples_are_read_by_field_and_keep_their_class():
    p, xs = _params_and_batch()
    named = Params(p["w"], p["b"])
    g = grad(named_loss)
    per_example = vmap(g, in_axes=(None, 0))
    for _ in range(2):
        got = g(named, xs[0])
        assert type(got) is Params
        expected = _expected_grad(p, xs[0])
        np.testing.assert_allclose(got.w, expected["w"], rtol=1e-12)
        assert got.b == pytest.approx(expected["b"], rel=1e-12)
        batched = per_example(named, xs)
        assert type(batched) is Params
        np.testing.assert_allclose(batched.w[1], _expected_grad(p, xs[1])["w"], rtol=1e-12)
    assert type(jit(lambda q: q)(named)) is Params


def test_a_missing_field_names_the_fields():
    def wrong(p):
        return p.v

    with pytest.raises(Exception, match=r"'Params' has no field 'v' \(its fields: w, b\)"):
        jit(wrong)(Params(1.0, 2.0))


def test_a_transformation_called_from_compiled_code_returns_its_structure():
    p, xs = _params_and_batch()

    @jit
    def step(p, x):
        g = loss_gradient(p, x)
        return {"w": p["w"] - 0.1 * g["w"], "b": p["b"] - 0.1 * g["b"]}

    new = step(p, xs[0])
    expected = _expected_grad(p, xs[0])
    np.testing.assert_allclose(new["w"], p["w"] - 0.1 * expected["w"], rtol=1e-12)
    assert new["b"] == pytest.approx(p["b"] - 0.1 * expected["b"], rel=1e-12)


@pytest.mark.parametrize("make", [jacrev, jacfwd], ids=["jacrev", "jacfwd"])
def test_jacobians_of_dicts_are_dicts_of_blocks(make):
    def scaled(p):
        return {"a": p["w"] * p["b"], "s": np.sum(p["w"])}

    p = {"w": np.array([1.0, 2.0, 3.0]), "b": 0.5}
    jac = make(scaled)(p)
    np.testing.assert_allclose(jac["a"]["w"], np.eye(3) * 0.5)
    np.testing.assert_allclose(jac["a"]["b"], p["w"])
    np.testing.assert_allclose(jac["s"]["w"], np.ones(3))
    assert jac["s"]["b"] == 0.0


def test_hessian_of_a_dict_is_a_dict_of_dicts():
    p, xs = _params_and_batch()
    x = xs[0]
    h = hessian(loss)(p, x)
    a = np.hstack([x, np.ones((x.shape[0], 1))])  # r = a @ [w, b]
    full = 2 * a.T @ a
    np.testing.assert_allclose(h["w"]["w"], full[:3, :3], rtol=1e-12)
    np.testing.assert_allclose(h["w"]["b"], full[:3, 3], rtol=1e-12)
    np.testing.assert_allclose(h["b"]["w"], full[3, :3], rtol=1e-12)
    assert h["b"]["b"] == pytest.approx(full[3, 3], rel=1e-12)
