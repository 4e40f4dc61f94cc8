"""A graph carries its calling convention (`Graph.externals`, `ir/core.py`): the values a
function reads from outside its arguments stay declared, in first-read order, on every graph
a transformation derives from it (grad, checkpointed grad, value_and_grad, hessian, vmap), as
its last inputs; compiled code gets their current values. A transformation that dropped or
reordered them fails both checks here: the derived graph's convention and the values.
"""

import sys

import numpy as np
import pytest

from adlite.compiler import grad, hessian, value_and_grad, vmap
from adlite.compiler.ir.core import F64, I64, Externals, Graph, Type
from adlite.compiler.ir.parser import parse_graph
from adlite.compiler.ir.printer import print_graph
from adlite.compiler.ir.verify import IRVerificationError, verify

from ..support.gradients import fd_grad, fd_hessian

A = 1.5  # read first
B = np.array([0.5, -1.0, 2.0])  # read second, inside the loop too
X = np.array([0.1, 0.2, 0.3])
VEC = Type("f64", (3,))


def looped(x, n):
    y = x
    for _ in range(n):
        y = np.sin(A * y) + B
    return np.sum(y * y)


TRANSFORMATIONS = {
    "grad": (lambda: grad(looped), (VEC, I64)),
    "checkpointed grad": (lambda: grad(looped, checkpoint=1), (VEC, I64)),
    "value_and_grad": (lambda: value_and_grad(looped), (VEC, I64)),
    "hessian": (lambda: hessian(looped), (VEC, I64)),
    "vmap": (lambda: vmap(looped, in_axes=(0, None)), (Type("f64", (4, 3)), I64)),
    "vmap of grad": (lambda: vmap(grad(looped), in_axes=(0, None)), (Type("f64", (4, 3)), I64)),
}


@pytest.mark.parametrize("name", TRANSFORMATIONS)
def test_a_derived_graph_declares_the_externals_last_in_read_order(name):
    make, types = TRANSFORMATIONS[name]
    graph, _ = make().ir_for(types)
    verify(graph)
    hidden = graph.externals.inputs
    assert [e.place.title for e in graph.externals.reads] == ["A", "B"]
    assert [(v.hint, v.type) for v in hidden] == [("A", F64), ("B", VEC)]
    assert graph.inputs[-2:] == list(hidden)
    assert [v.type for v in graph.arguments] == list(types)
    assert "extern A:f64 extern B:f64[3] ." in print_graph(graph).splitlines()[0]


@pytest.fixture
def changed(monkeypatch):
    """A and B changed after compiling: compiled code must read the new values."""
    def change():
        module = sys.modules[__name__]
        monkeypatch.setattr(module, "A", 0.75)
        monkeypatch.setattr(module, "B", np.array([-0.25, 1.0, 0.5]))
    return change


@pytest.mark.parametrize("checkpoint", [None, 1, 2])
def test_gradients_read_the_externals_they_declare(changed, checkpoint):
    g = grad(looped, checkpoint=checkpoint)
    for _ in range(2):
        np.testing.assert_allclose(g(X, 3), fd_grad(lambda x: looped(x, 3), X), rtol=1e-6)
        changed()
    value, gradient = value_and_grad(looped, checkpoint=checkpoint)(X, 3)
    assert value == pytest.approx(looped(X, 3))
    np.testing.assert_allclose(gradient, fd_grad(lambda x: looped(x, 3), X), rtol=1e-6)


def test_hessian_reads_the_externals_it_declares(changed):
    h = hessian(looped)
    for _ in range(2):
        np.testing.assert_allclose(h(X, 2), fd_hessian(lambda x: looped(x, 2), X), rtol=1e-5,
                                   atol=1e-4)
        changed()


def test_vmap_reads_the_externals_it_declares(changed):
    xs = np.stack([X, 2 * X, -X, X + 1])
    batched, batched_grad = vmap(looped, in_axes=(0, None)), vmap(grad(looped), in_axes=(0, None))
    for _ in range(2):
        np.testing.assert_allclose(batched(xs, 3), [looped(x, 3) for x in xs], rtol=1e-12)
        np.testing.assert_allclose(batched_grad(xs, 3),
                                   [fd_grad(lambda x: looped(x, 3), x) for x in xs], rtol=1e-6)
        changed()


def _with(graph: Graph, externals: Externals) -> Graph:
    return Graph(graph.inputs, graph.eqns, graph.outputs, graph.name, externals)


def test_the_verifier_refuses_a_convention_that_does_not_hold():
    graph, _ = grad(looped).ir_for((VEC, I64))
    reads, (a, b) = graph.externals.reads, graph.externals.inputs
    with pytest.raises(IRVerificationError, match="do not match the types"):
        verify(_with(graph, Externals(reads, (b, a))))  # reordered
    with pytest.raises(IRVerificationError, match="do not match the types"):
        verify(_with(graph, Externals(reads, (a,))))  # dropped
    with pytest.raises(IRVerificationError, match="not among its inputs"):
        verify(_with(graph, Externals(reads, (a, a))))


def test_the_text_form_keeps_the_external_inputs():
    graph, _ = grad(looped).ir_for((VEC, I64))
    parsed = parse_graph(print_graph(graph))
    assert [(v.hint, v.type) for v in parsed.externals.inputs] == [("A", F64), ("B", VEC)]
    assert parsed.inputs[-2:] == list(parsed.externals.inputs)
    assert print_graph(parsed) == print_graph(graph)
    verify(parsed)
