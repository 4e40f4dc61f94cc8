"""`vmap`: batched functions against a Python loop over the examples (with the unbatched
compiled function, and with plain Python / numpy), per-example gradients (`vmap(grad(f))`)
against the eager tape and central differences, composition, bad input, and the table of
batching rules (with the per-example map for primitives without one)."""

import pickle

import numpy as np
import pytest

from adlite.compiler import custom_vjp, grad, jit, stop_gradient, value_and_grad, vmap
from adlite.compiler.ir.core import Type
from adlite.compiler.ir.primitive import PRIMITIVES
from adlite.compiler.ir.transform import all_graphs
from adlite.compiler.primitives.lists import LIST_PRIMITIVES
from adlite.runtime import Tensor

from ..support.gradients import central_difference_in

BACKENDS = ("llvm", "python")
RNG = np.random.default_rng(7)
SCALE = np.array([0.5, -1.0, 2.0])


def check(fn, args, in_axes, backend, rtol=1e-12):
    """vmap(fn) against a loop over the examples: of jit(fn) and of fn itself."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(a.shape[k] for a, k in zip(args, axes, strict=True) if k is not None)

    def example(i):
        return [a if k is None else np.take(a, i, axis=k) for a, k in zip(args, axes,
                                                                           strict=True)]

    def scalars(values):
        return [v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in values]

    got = vmap(fn, in_axes, backend=backend)(*args)
    compiled = jit(fn, backend=backend)
    loop = np.array([compiled(*scalars(example(i))) for i in range(size)])
    python = np.array([fn(*scalars(example(i))) for i in range(size)])
    np.testing.assert_allclose(got, python, rtol=rtol, atol=1e-12)
    np.testing.assert_allclose(got, loop, rtol=rtol, atol=1e-12)
    return got


# ---- functions of one example -------------------------------------------------------------

def elementwise(x, y):
    return np.sin(x) * y + np.exp(-x * x) / (1.0 + y * y)


def scalar_math(x, y):
    return x * x - 3.0 * y + np.tanh(x * y)


def reductions(x):
    return np.sum(x * x, axis=0) + np.max(x, axis=1).sum() * np.mean(x) + x.min()


def keepdims(x):
    return (x - np.mean(x, axis=1, keepdims=True)).sum(axis=0)


def matvec(a, v):
    return a @ v


def shapes(x):
    y = np.reshape(x, (6,))
    z = np.concatenate([y, y[:2]])
    return np.transpose(x).sum(axis=1) * z[1] + np.broadcast_to(y[:3], (2, 3)).sum()


def indexing(x, i):
    return x[i] * 2.0 + x[1:3].sum() + x[-1]


def writes(x):
    out = np.zeros(3)
    for k in range(3):
        out[k] = x[k] * x[k + 1]
    return out


def fancy(x, idx):
    return np.sum(x[idx] * SCALE)


def halvings(x):  # per-example trip count
    k = 0
    while x > 0.1:
        x = x * 0.5
        k += 1
    return x * k + 1.0


def bounded(x, n):  # trip count n differs per example
    s = 0.0
    for i in range(n):
        s = s + np.sin(x[i]) * x[i]
    return s


def branch(x):  # per-example predicate, arms that cannot fail: both run, then select
    if x > 0.3:
        y = x * x
    else:
        y = -x
    return y + 1.0


def branch_indexing(x, i):  # per-example predicate with indexing: runs per example
    if i < 2:
        return x[i] * 3.0
    return np.sum(x)


def closure_over(w):
    def f(x):
        return np.dot(w, x) + np.sum(SCALE * x)
    return f


def two_outputs(x, y):
    return x * y, np.sum(x) + y


# ---- values -------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_elementwise_with_an_unbatched_argument(backend):
    check(elementwise, [RNG.random((5, 3)), RNG.random(3)], (0, None), backend)
    check(elementwise, [RNG.random((5, 3)), RNG.random((5, 3))], 0, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalar_examples_broadcast_against_arrays(backend):
    check(scalar_math, [RNG.random(6), RNG.random(6)], 0, backend)
    check(scalar_math, [RNG.random(6), 0.25], (0, None), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions(backend):
    check(reductions, [RNG.random((4, 3, 2))], 0, backend)
    check(keepdims, [RNG.random((4, 3, 2))], 0, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_matmul_every_batched_operand(backend):
    a, v = RNG.random((4, 2, 3)), RNG.random((4, 3))
    check(matvec, [a, v], 0, backend)
    check(matvec, [a, v[0]], (0, None), backend)
    check(matvec, [a[0], v], (None, 0), backend)
    m = RNG.random((4, 3, 2))
    check(matvec, [a[0], m], (None, 0), backend)
    check(matvec, [a, m], 0, backend)
    check(matvec, [v, m], 0, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_shapes_and_indexing(backend):
    check(shapes, [RNG.random((5, 3, 2))], 0, backend)
    x = RNG.random((5, 4))
    check(indexing, [x, np.int64(2)], (0, None), backend)
    check(indexing, [x, np.array([0, 3, -1, 2, 1])], 0, backend)  # per-example index
    check(writes, [x], 0, backend)
    idx = np.array([[0, 2, 2], [3, 1, 0], [1, 1, 1], [0, 0, 3], [2, 3, 1]])
    check(fancy, [x, idx], 0, backend)
    check(fancy, [x[0], idx], (None, 0), backend)
    check(fancy, [x, idx[0]], (0, None), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_loops_with_per_example_trip_counts(backend):
    check(halvings, [RNG.random(7) * 20.0], 0, backend)
    check(bounded, [RNG.random((5, 4)), np.array([0, 1, 4, 2, 3])], 0, backend)
    check(bounded, [RNG.random((5, 4)), np.int64(3)], (0, None), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_data_dependent_branches(backend):
    check(branch, [np.array([-1.0, 0.2, 0.3, 0.31, 2.0])], 0, backend)
    check(branch_indexing, [RNG.random((5, 4)), np.array([0, 3, 1, 2, -2])], 0, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_closures(backend):
    w = RNG.random(3)
    check(closure_over(w), [RNG.random((4, 3))], 0, backend)


def test_in_axes_and_out_axes():
    x, y = RNG.random((3, 5)), RNG.random((5, 3))
    got = vmap(elementwise, in_axes=(1, 0))(x, y)
    np.testing.assert_allclose(got, elementwise(x.T, y))
    got = vmap(elementwise, in_axes=(-1, 0), out_axes=1)(x, y)
    np.testing.assert_allclose(got, elementwise(x.T, y).T)
    a, b = vmap(two_outputs, in_axes=(0, 0), out_axes=(1, 0))(x, y[:3, 0])
    np.testing.assert_allclose(a, (x * y[:3, 0][:, None]).T)
    np.testing.assert_allclose(b, x.sum(axis=1) + y[:3, 0])
    const = vmap(two_outputs, in_axes=(0, None), out_axes=(0, 0))(x, 2.0)
    np.testing.assert_allclose(const[1], x.sum(axis=1) + 2.0)


def unbatched_part(x, y):
    return x * 2.0, y * 3.0


def test_out_axes_none_for_an_unbatched_output():
    x = RNG.random(4)
    a, b = vmap(unbatched_part, in_axes=(0, None), out_axes=(0, None))(x, 1.5)
    np.testing.assert_allclose(a, x * 2.0)
    assert b == 4.5


def dict_argument(p, x):
    return p["a"] * x + np.sum(p["b"])


def test_structured_arguments_batch_every_leaf():
    p = {"a": RNG.random(3), "b": RNG.random((3, 2))}
    xs = RNG.random(3)
    got = vmap(dict_argument)(p, xs)
    expected = [dict_argument({"a": p["a"][i], "b": p["b"][i]}, xs[i]) for i in range(3)]
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def printing(x):
    print("example", x)
    return x * 2.0


def test_prints_run_per_example_and_vmap_pickles(capsys):
    np.testing.assert_allclose(vmap(printing)(np.array([1.0, 2.5])), [2.0, 5.0])
    assert capsys.readouterr().out == "example 1.0\nexample 2.5\n"
    again = pickle.loads(pickle.dumps(vmap(dict_argument, in_axes=(None, 0))))
    p = {"a": 2.0, "b": np.ones(2)}
    np.testing.assert_allclose(again(p, np.arange(3.0)), np.arange(3.0) * 2.0 + 2.0)


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, w, x):
        return np.sum((w * x) ** 2) * self.scale


def test_bound_methods():
    model, w, xs = Model(3.0), RNG.random(2), RNG.random((4, 2))
    np.testing.assert_allclose(vmap(model.loss, (None, 0))(w, xs),
                               [model.loss(w, x) for x in xs], rtol=1e-14)
    np.testing.assert_allclose(vmap(grad(model.loss), (None, 0))(w, xs),
                               [6.0 * w * x * x for x in xs], rtol=1e-14)


def squares(x):
    return np.sum(x * x)


def test_vmap_of_value_and_grad_and_of_vmap_of_grad():
    x = RNG.random((2, 3, 4))
    values, grads = vmap(value_and_grad(squares))(x[0])
    np.testing.assert_allclose(values, np.sum(x[0] ** 2, axis=1))
    np.testing.assert_allclose(grads, 2.0 * x[0])
    np.testing.assert_allclose(vmap(vmap(grad(squares)))(x), 2.0 * x)


# ---- composition --------------------------------------------------------------------------

BATCHED = vmap(elementwise, in_axes=(0, None))


def use_vmap(x, y):
    return np.sum(BATCHED(x, y))


def test_jit_of_vmap_vmap_of_vmap_and_calls_from_compiled_code():
    x, y = RNG.random((4, 5, 3)), RNG.random(3)
    expected = np.array([[elementwise(xi, y) for xi in row] for row in x])
    np.testing.assert_allclose(vmap(vmap(elementwise, (0, None)), (0, None))(x, y), expected)
    np.testing.assert_allclose(jit(vmap(elementwise, (0, None)))(x[0], y), expected[0])
    assert jit(use_vmap)(x[0], y) == pytest.approx(expected[0].sum(), rel=1e-12)
    dx = grad(use_vmap)(x[0], y)  # grad of code calling vmap
    fd = central_difference_in(lambda a, b: float(np.sum(elementwise(a, b))), [x[0], y], 0)
    np.testing.assert_allclose(dx, fd, rtol=1e-6, atol=1e-8)


# ---- per-example gradients: compiled vs tape vs finite differences ------------------------

def logistic(w, x, label):
    z = np.dot(w, x)
    return np.log(1.0 + np.exp(-label * z)) + 0.01 * np.sum(w * w)


def mlp(w1, w2, x, y):
    h = np.tanh(w1 @ x)
    return (np.dot(w2, h) - y) ** 2


def loop_loss(w, x):
    s = 0.0
    while x > 0.05:  # per-example trip count, differentiated through
        s = s + np.sin(w * x)
        x = x * 0.5
    return s * w


def tape_gradient(fn, args, wrt):
    inputs = [Tensor(np.array(a, dtype=float), requires_grad=True) if k == wrt else a
              for k, a in enumerate(args)]
    out = fn(*inputs)
    if not isinstance(out, Tensor):  # no operation on the argument ran (a zero-trip loop)
        return np.zeros(np.shape(args[wrt]))
    out.backward()
    return inputs[wrt].grad.numpy()


def per_example_three_ways(fn, args, in_axes, wrt, backend):
    got = vmap(grad(fn, wrt=wrt, backend=backend), in_axes, backend=backend)(*args)
    size = next(a.shape[0] for a, k in zip(args, in_axes, strict=True) if k == 0)
    for i in range(size):
        example = [a if k is None else a[i] for a, k in zip(args, in_axes, strict=True)]
        example = [float(v) if isinstance(v, np.ndarray) and v.ndim == 0 else v
                   for v in example]
        np.testing.assert_allclose(got[i], tape_gradient(fn, example, wrt), rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_allclose(got[i], central_difference_in(fn, example, wrt), rtol=1e-5,
                                   atol=1e-7)
        np.testing.assert_allclose(got[i], grad(fn, wrt=wrt, backend=backend)(*example),
                                   rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_per_example_gradients_of_a_logistic_loss(backend):
    w, x = RNG.normal(size=4), RNG.normal(size=(6, 4))
    labels = np.sign(RNG.normal(size=6))
    per_example_three_ways(logistic, [w, x, labels], (None, 0, 0), 0, backend)
    per_example_three_ways(logistic, [w, x, labels], (None, 0, 0), 1, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_per_example_gradients_of_an_mlp(backend):
    w1, w2 = RNG.normal(size=(5, 3)), RNG.normal(size=5)
    x, y = RNG.normal(size=(4, 3)), RNG.normal(size=4)
    per_example_three_ways(mlp, [w1, w2, x, y], (None, None, 0, 0), 0, backend)
    per_example_three_ways(mlp, [w1, w2, x, y], (None, None, 0, 0), 1, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_per_example_gradients_through_per_example_loops(backend):
    x = np.array([0.01, 0.3, 1.0, 7.5, 40.0])
    per_example_three_ways(loop_loss, [np.full(5, 0.7), x], (0, 0), 0, backend)
    per_example_three_ways(bounded, [RNG.random((5, 4)), np.array([0, 1, 4, 2, 3])], (0, 0),
                           0, backend)


def decay(x, w):  # per-example trip count, a body that cannot fail: the masked loop
    s = 0.0
    while x > 0.1:
        x = x * 0.5
        s = s + np.sin(w * x)
    return s


DECAY = vmap(decay, in_axes=(0, None))


def total_decay(w, xs):
    return np.sum(DECAY(xs, w))


def loop_strategies(fn, types):
    """The names of the loop bodies in the batched graph of `fn`."""
    graph, _ = vmap(fn).ir_for(types)
    return {g.name for g in all_graphs(graph)} & {"masked_body", "map_body"}


def test_per_example_loops_are_masked_or_mapped():
    assert loop_strategies(halvings, (Type("f64", (4,)),)) == {"masked_body"}
    assert loop_strategies(bounded, (Type("f64", (4, 3)), Type("i64", (4,)))) == {"map_body"}
    # no tape with the whole tape kept; automatic checkpointing (the default) adds segment
    # loops that read a tape, which run per example
    assert loop_strategies(grad(halvings, checkpoint=False), (Type("f64", (4,)),)) == \
        {"masked_body"}
    assert "map_body" in loop_strategies(grad(halvings), (Type("f64", (4,)),))
    assert loop_strategies(grad(loop_loss), (Type("f64", (4,)),) * 2) == {"map_body"}  # tapes


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_through_a_masked_loop(backend):
    xs = np.array([0.05, 0.3, 1.0, 7.5, 40.0])
    got = grad(total_decay, backend=backend)(0.7, xs)

    def reference(w, xs):
        return sum(decay(x, w) for x in xs)

    w = Tensor(np.array(0.7), requires_grad=True)
    out = reference(w, xs)
    out.backward()
    assert got == pytest.approx(float(w.grad.numpy()), rel=1e-12)
    assert got == pytest.approx(central_difference_in(reference, [0.7, xs], 0), rel=1e-6)


# ---- effects and rules --------------------------------------------------------------------

def checked(x):
    if x < 0.0:
        raise ValueError(f"negative example {x}")
    return np.sqrt(x)


def test_checks_run_per_example_in_order():
    with pytest.raises(ValueError, match="negative example -2.0"):
        vmap(checked)(np.array([1.0, -2.0, -3.0]))
    np.testing.assert_allclose(vmap(checked)(np.array([1.0, 4.0])), [1.0, 2.0])


def determinant(a):
    return np.linalg.det(a) + np.sum(np.sort(a[0]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_primitives_without_a_rule_run_per_example(backend):
    assert PRIMITIVES["det"].batch is None  # the per-example map runs it (and argsort)
    check(determinant, [RNG.random((4, 3, 3))], 0, backend)


def test_which_primitives_have_direct_rules():
    """Every primitive has a direct rule except these (they run per example): scalar-only
    int ops, linear algebra and decompositions, sorting, the run-time checks, and the calls
    holding user-defined derivatives (custom.py); the operations of lists of run-time length
    (a program holding them runs whole once per example, tests/frontend/test_run_time_lists)."""
    without = sorted(n for n, p in PRIMITIVES.items()
                     if p.batch is None and n not in LIST_PRIMITIVES)
    assert without == sorted([
        "argsort", "check", "check_finite", "cholesky", "complex_slogdet", "det", "det_sign",
        "eig", "eigh", "eigvals",
        "eigvalsh", "full_rank_residuals", "int_truediv", "inv", "lstsq", "print", "qr",
        "range_len", "scipy_cholesky", "slogdet", "solve", "solve_triangular", "svd",
        "svdvals", "triangle", "tril_halfdiag", "arange",
        "call", "custom_jvp", "custom_vjp", "stop_gradient"])


@custom_vjp
def softplus_rule(x):
    return np.log1p(np.exp(x))


def _softplus_fwd(x):
    return softplus_rule(x), (x,)


def _softplus_bwd(residuals, g):
    return (g / (1.0 + np.exp(-residuals[0])),)


softplus_rule.defvjp(_softplus_fwd, _softplus_bwd)


def custom_loss(w, x):
    return softplus_rule(w * x) + stop_gradient(w) * w


def test_custom_derivatives_run_per_example():
    xs = np.array([0.5, 1.0, 800.0])
    values = vmap(custom_loss, in_axes=(None, 0))(0.3, xs)
    gradients = vmap(grad(custom_loss), in_axes=(None, 0))(0.3, xs)
    for x, value, gradient in zip(xs, values, gradients, strict=True):
        assert value == pytest.approx(np.logaddexp(0.0, 0.3 * x) + 0.09, rel=1e-14)
        # the rule's derivative (x * sigmoid(w x)); stop_gradient's factor counts once
        assert gradient == pytest.approx(x / (1.0 + np.exp(-0.3 * x)) + 0.3, rel=1e-14)


# ---- bad input ----------------------------------------------------------------------------

def test_in_axes_that_do_not_match_the_arguments():
    with pytest.raises(ValueError, match=r"vmap\(elementwise\): in_axes has 3 entries but "
                                         r"elementwise takes 2 arguments \(x, y\)"):
        vmap(elementwise, in_axes=(0, None, 0))
    with pytest.raises(ValueError, match=r"in_axes 2 is out of range for argument 'y' of "
                                         r"shape \(3,\) \(1 dimension\)"):
        vmap(elementwise, in_axes=(0, 2))(RNG.random((4, 3)), RNG.random(3))
    with pytest.raises(ValueError, match="argument 'y' is a number, not an array"):
        vmap(scalar_math)(RNG.random(4), 1.0)
    with pytest.raises(ValueError, match="in_axes must be an int, None, or a tuple"):
        vmap(elementwise, in_axes="x")
    with pytest.raises(ValueError, match="no argument is batched"):
        vmap(elementwise, in_axes=None)(RNG.random(3), RNG.random(3))


def test_mismatched_batch_sizes_name_the_arguments():
    with pytest.raises(ValueError, match=r"vmap\(elementwise\): argument 'y' has batch size 3 "
                                         r"along axis 0, argument 'x' 5 along axis 0"):
        vmap(elementwise)(RNG.random((5, 2)), RNG.random((3, 2)))


def test_a_batched_output_at_out_axes_none():
    with pytest.raises(ValueError, match="out_axes is None for output 0, which depends on "
                                         "the batched arguments"):
        vmap(elementwise, out_axes=None)(RNG.random((5, 2)), RNG.random((5, 2)))


def safe_quotient(n, d):  # the untaken arm would divide by zero
    if d != 0:
        q = n // d
    else:
        q = -1
    return q


def countdown(x, d):  # per-example trip count; the inactive examples' next step would fail
    k = 0
    while d > 0:
        k = k + x // d
        d = d - 1
    return k


@pytest.mark.parametrize("backend", BACKENDS)
def test_arms_and_loop_bodies_that_can_fail_run_only_where_taken(backend):
    n, d = np.array([7, 8, 9, -9]), np.array([2, 0, 3, 0])
    check(safe_quotient, [n, d], 0, backend)
    check(countdown, [n, d], 0, backend)


def branchy_loop(x, n):
    s = x
    i = 0
    while i < n:
        if s > 0.5:
            s = np.sin(s * x) + 0.3
        i = i + 1
        if s < 0.9:
            s = s * np.exp(s)
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_second_derivatives_through_per_example_loops(backend):
    """grad(grad(f)) stores on three tapes in four loops, each run per example: each loop
    that loads a tape visits the examples in the reverse order of the loop that stored it."""
    xs, ns = np.array([0.1, 0.45, 0.6, 1.3, 2.0]), np.array([3, 0, 5, 2, 4])
    got = vmap(grad(grad(branchy_loop), backend=backend), backend=backend)(xs, ns)
    for x, n, g in zip(xs, ns, got, strict=True):
        def first(x, n=int(n)):
            return tape_gradient(branchy_loop, [x, n], 0)
        assert g == pytest.approx(grad(grad(branchy_loop))(x, int(n)), rel=1e-12)
        assert g == pytest.approx(float(central_difference_in(first, [x], 0)), rel=1e-5,
                                  abs=1e-7)
