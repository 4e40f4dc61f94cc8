"""Calls with tuples, lists and dicts of arrays take a generated entry point after the first
(issue 22, item 7): the generated checks accept exactly the structure compiled (container
types and lengths, dict keys in order, exact array type, shape and dtype, number types) and
hand anything else to the general path, which compiles a new signature where Python's
semantics need one. Timings are not asserted; the proxy is which path a call takes."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.compiler.arguments import flatten, unflatten
from adlite.compiler.structured_calls import FIRST, builder, finishing, structured_entry

Pair = namedtuple("Pair", "w b")


def loss(p, x):
    return np.sum(p["w"] * x) + p["b"]


def test_repeated_dict_calls_skip_binding(monkeypatch):
    f = jit(loss)
    x, p = np.ones(4), {"w": np.arange(4.0), "b": 0.5}
    assert f(p, x) == 6.5
    bound = []
    monkeypatch.setattr(type(f), "bind", lambda self, *a: bound.append(a) or None)
    for k in range(3):
        assert f({"w": np.arange(4.0) * k, "b": 0.5}, x) == 6.0 * k + 0.5
    assert bound == []  # the generated entry point took every call


@pytest.mark.parametrize("other", [
    {"b": 0.5, "w": np.arange(4.0)},            # keys in another order
    {"w": np.arange(5.0), "b": 0.5},            # another shape
    {"w": np.arange(4), "b": 0.5},              # another dtype
    {"w": np.arange(4.0), "b": 1},              # an int instead of a float
    {"w": np.arange(4.0), "b": 0.5, "c": 1.0},  # one more key
], ids=["key-order", "shape", "dtype", "number-type", "extra-key"])
def test_another_structure_takes_the_general_path_and_is_right(other):
    f = jit(loss)
    x = np.ones(4) if other["w"].shape == (4,) else np.ones(5)
    f({"w": np.arange(4.0), "b": 0.5}, np.ones(4))
    before = f.compile_count
    assert f(other, x) == pytest.approx(np.sum(other["w"] * x) + other["b"])
    assert f.compile_count == before + 1


def test_gradients_of_structures_have_their_structure():
    g = grad(loss)
    x = np.array([1.0, 2.0, 3.0])
    for k in range(3):
        got = g({"w": np.full(3, float(k)), "b": 0.25}, x)
        assert set(got) == {"w", "b"}
        np.testing.assert_array_equal(got["w"], x)
        assert got["b"] == 1.0


def test_the_generated_check_matches_flatten():
    """Leaves in flatten's order; a structure flatten gives another tree is refused."""
    seen = []
    args = ({"a": [np.zeros(2), 1.0], "b": (np.float32(2.0), Pair(np.ones((2, 2)), True))},
            np.zeros(3, dtype=np.int64))
    fast = structured_entry(args, lambda *leaves: seen.append(leaves) or "entry",
                            lambda *a: "fallback")
    assert fast(*args) == "entry"
    expected = [leaf for a in args for leaf in flatten(a, "x")[1]]
    assert all(a is b for a, b in zip(seen[0], expected, strict=True))
    changed = ({"a": [np.zeros(2), 1.0], "b": (np.float32(2.0), (np.ones((2, 2)), True))},
               np.zeros(3, dtype=np.int64))  # a plain tuple where the named tuple was
    assert fast(*changed) == "fallback"
    assert structured_entry(("text",), print, print) is None  # a compile-time value


@pytest.mark.parametrize("value", [
    {"w": np.ones(2), "n": [1.0, (2.0, 3.0)]},
    Pair(np.zeros(1), [np.ones(3)]),
    (1.0,),
    [np.ones(2), {"x": 2.0}],
], ids=["dict", "namedtuple", "one-tuple", "list"])
def test_the_generated_builder_is_unflatten(value):
    tree, leaves = flatten(value, "v")
    built = builder(tree)(leaves)
    assert type(built) is type(value)
    assert repr(built) == repr(unflatten(tree, leaves))


def test_an_entry_that_finishes_its_run_is_called_as_its_parts():
    calls = []

    def run(*leaves):
        calls.append(leaves)
        return (sum(leaves), "second")

    args = ({"a": 1.0, "b": 2.0},)
    first = structured_entry(args, finishing(run, FIRST), lambda *a: "fallback")
    assert first(*args) == 3.0 and calls == [(1.0, 2.0)]
    built = structured_entry(args, finishing(run, lambda values: list(values)), print)
    assert built(*args) == [3.0, "second"]
