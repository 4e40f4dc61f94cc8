"""Structured arguments and results (issue 10): tuples, lists and dicts (string keys) of
floats and arrays, nested. `grad` w.r.t. a structured argument returns a gradient of the
same structure; results keep their structure. Derivatives are checked against central
finite differences computed here with numpy."""

from collections import namedtuple

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit, jvp, value_and_grad, vjp

EPS = 1e-6


def leaves(tree):
    """The numbers and arrays of a structure, in order (dict values in insertion order)."""
    if isinstance(tree, dict):
        return [leaf for v in tree.values() for leaf in leaves(v)]
    if isinstance(tree, tuple | list):
        return [leaf for v in tree for leaf in leaves(v)]
    return [tree]


def replace(tree, values):
    """`tree` with its leaves taken from the iterator `values`."""
    if isinstance(tree, dict):
        return {k: replace(v, values) for k, v in tree.items()}
    if isinstance(tree, tuple | list):
        return type(tree)(replace(v, values) for v in tree)
    return next(values)


def fd_tree(fn, tree):
    """Central finite differences of a float-valued `fn` w.r.t. every leaf of `tree`, as a
    structure like `tree`."""
    flat = [np.asarray(leaf, dtype=float) for leaf in leaves(tree)]
    grads = []
    for k, leaf in enumerate(flat):
        g = np.zeros_like(leaf)
        for idx in np.ndindex(leaf.shape):
            values = []
            for sign in (1, -1):
                moved = [v.copy() for v in flat]
                moved[k][idx] += sign * EPS
                args = [m if m.ndim else float(m) for m in moved]
                values.append(fn(replace(tree, iter(args))))
            g[idx] = (values[0] - values[1]) / (2 * EPS)
        grads.append(g if leaf.ndim else float(g))
    return replace(tree, iter(grads))


def assert_tree_close(got, want, rel=1e-6, abs=1e-9):
    if isinstance(want, dict | tuple | list):
        assert type(got) is type(want)
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            assert_tree_close(got[k], want[k], rel, abs)
    elif isinstance(want, tuple | list):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_tree_close(g, w, rel, abs)
    else:
        np.testing.assert_allclose(got, want, rtol=rel, atol=abs)


def mlp_loss(params, x):
    h = np.tanh(params["W1"] @ x + params["b1"])
    out = params["w2"] @ h + params["b2"]
    return (out - 0.5) ** 2 + 0.01 * np.sum(params["W1"] * params["W1"])


def nested(pair, x):
    (a, b), scales = pair
    return np.sum(a * x) * scales[0] + b * b * scales[1]


def make_params():
    rng = np.random.default_rng(0)
    return {"W1": rng.normal(size=(3, 2)), "b1": rng.normal(size=3),
            "w2": rng.normal(size=3), "b2": 0.3}


def test_dict_argument_value_and_gradient_of_the_same_structure():
    params, x = make_params(), np.array([0.4, -0.7])
    assert jit(mlp_loss)(params, x) == pytest.approx(mlp_loss(params, x), rel=1e-12)
    g = grad(mlp_loss)(params, x)
    assert_tree_close(g, fd_tree(lambda p: mlp_loss(p, x), params))
    value, (gp, gx) = value_and_grad(mlp_loss, wrt=(0, 1))(params, x)
    assert value == pytest.approx(mlp_loss(params, x), rel=1e-12)
    assert_tree_close(gp, fd_tree(lambda p: mlp_loss(p, x), params))
    assert_tree_close(gx, fd_tree(lambda v: mlp_loss(params, v), x))


def test_nested_tuples_and_lists():
    pair = ((np.array([1.0, 2.0]), 0.5), [2.0, -1.0])
    x = np.array([0.3, 0.1])
    assert jit(nested)(pair, x) == pytest.approx(nested(pair, x), rel=1e-12)
    assert_tree_close(grad(nested)(pair, x), fd_tree(lambda p: nested(p, x), pair))
    assert_tree_close(grad(nested, wrt="x")(pair, x), fd_tree(lambda v: nested(pair, v), x))


def test_forward_reverse_and_second_order_with_a_dict_argument():
    params, x = make_params(), np.array([0.4, -0.7])
    flat = leaves(params)
    tangents = [np.ones_like(v) if np.ndim(v) else 1.0 for v in flat] + [np.zeros(2)]
    out, t = jvp(mlp_loss, (params, x), tangents)
    assert out == pytest.approx(mlp_loss(params, x), rel=1e-12)
    along = fd_tree(lambda s: mlp_loss(replace(params, iter(
        [v + s * d for v, d in zip(flat, tangents, strict=False)])), x), 0.0)
    assert t == pytest.approx(along, rel=1e-6)
    out, pullback = vjp(mlp_loss, params, x)
    bars = pullback(1.0)  # flat: the float leaves of the arguments, in order
    want = leaves(fd_tree(lambda p: mlp_loss(p, x), params))
    for got, w in zip(bars, want, strict=False):
        np.testing.assert_allclose(got, w, rtol=1e-6, atol=1e-9)
    h = hessian(mlp_loss, wrt=1)(params, x)
    step, eye = 1e-4, np.eye(2)
    want = np.array([[(mlp_loss(params, x + step * (eye[i] + eye[j]))
                       - mlp_loss(params, x + step * (eye[i] - eye[j]))
                       - mlp_loss(params, x - step * (eye[i] - eye[j]))
                       + mlp_loss(params, x - step * (eye[i] + eye[j]))) / (4 * step ** 2)
                      for j in range(2)] for i in range(2)])
    np.testing.assert_allclose(h, want, rtol=1e-5, atol=1e-6)


def structured_result(a, x):
    return a * x, [x, {"sum": np.sum(a), "scaled": a * 2.0}], (x,)


def test_structured_results_keep_their_structure():
    a, x = np.array([1.0, 2.0]), 3.0
    assert_tree_close(jit(structured_result)(a, x), structured_result(a, x), rel=1e-12)
    out, t = jvp(structured_result, (a, x), (np.zeros(2), 1.0))
    assert_tree_close(out, structured_result(a, x), rel=1e-12)
    ahead = leaves(structured_result(a, x + EPS))
    behind = leaves(structured_result(a, x - EPS))
    want = replace(structured_result(a, x), iter(
        [(np.asarray(p) - np.asarray(m)) / (2 * EPS) for p, m in zip(ahead, behind,
                                                                     strict=True)]))
    assert_tree_close(t, want, abs=1e-6)


def returns_dict(x):
    return {"value": x * x, "slope": 2.0 * x}


def test_dict_display_result():
    assert jit(returns_dict)(1.5) == returns_dict(1.5)


def test_structure_is_part_of_the_signature():
    f = jit(nested)
    x = np.array([0.3, 0.1])
    f(((np.array([1.0, 2.0]), 0.5), [2.0, -1.0]), x)
    f(((np.array([3.0, 2.0]), 1.5), [1.0, -1.0]), x)
    assert f.compile_count == 1
    f(((np.array([3.0, 2.0]), 1.5), (1.0, -1.0)), x)  # a tuple where a list was
    assert f.compile_count == 2
    f(((np.array([3.0, 2.0, 1.0]), 1.5), [1.0, -1.0]), np.array([0.3, 0.1, 0.2]))
    assert f.compile_count == 3


def write_into_pair(pair):
    a, b = pair
    a[0] = b[1] * 2.0
    return a[0]


def test_writes_into_arrays_inside_a_tuple_reach_the_callers_arrays():
    mine = (np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    theirs = (mine[0].copy(), mine[1].copy())
    assert jit(write_into_pair)(mine) == write_into_pair(theirs)
    np.testing.assert_array_equal(mine[0], theirs[0])


def write_into_dict(d):
    a = d["a"]
    a[0] = 5.0
    return a[1]


def test_writes_into_arrays_inside_a_dict_are_refused():
    from adlite.compiler import AdliteSyntaxError

    with pytest.raises(AdliteSyntaxError, match="write into 'a'"):
        jit(write_into_dict)({"a": np.array([1.0, 2.0])})


def test_dict_keys_must_be_strings():
    with pytest.raises(TypeError, match="string keys"):
        jit(mlp_loss)({1: 2.0}, np.ones(2))


State = namedtuple("State", ["position", "velocity"])


def kinetic(state, mass):
    position, velocity = state
    return 0.5 * mass * np.sum(velocity * velocity) + np.sum(position) * state[1][0]


def test_named_tuples_are_structures_and_gradients_keep_their_class():
    s = State(np.array([1.0, 2.0]), np.array([0.5, -1.5]))
    f = jit(kinetic)
    assert f(s, 2.0) == pytest.approx(kinetic(s, 2.0), rel=1e-12)
    f(State(np.zeros(2), np.ones(2)), 2.0)
    assert f.compile_count == 1  # by structure, not by identity
    g = grad(kinetic)(s, 2.0)
    assert isinstance(g, State)
    want = fd_tree(lambda t: kinetic(State(*t), 2.0), tuple(s))
    for got, w in zip(g, want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-6, atol=1e-9)
