"""One set of derivative formulas (`adlite.derivatives`) serves the compiler and the eager tape.

Mostly structure, not values: the primitives of both tables that have a shared formula take their
rules from the very same `Formula` object, the tape saves exactly what the formula declares it
reads, and every formula reads nothing it does not declare. Then the issue's measure: `cbrt`,
added as one formula, is differentiated by both.
"""

import math

import numpy as np
import pytest

from adlite import compiler, derivatives
from adlite.compiler.ir.primitive import PRIMITIVES as COMPILER
from adlite.derivatives.decompositions import Decomposition
from adlite.runtime import autograd, tensor
from adlite.runtime.primitives import PRIMITIVES as TAPE

# the tape's names where they differ (its `where` keeps the condition as a parameter)
TAPE_NAME = {"select": "where", "convert": "astype", "index_update": "index_put"}
TAPE_BY_FORMULA = {TAPE_NAME.get(n, n): n for n in derivatives.FORMULAS}
SHARED = sorted(n for n in derivatives.FORMULAS if n in COMPILER and TAPE_NAME.get(n, n) in TAPE)


def test_the_arithmetic_and_math_primitives_are_shared():
    assert set(SHARED) >= {"neg", "exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh",
                           "cosh", "arcsin", "arccos", "arctan", "log1p", "expm1", "abs",
                           "add", "sub", "mul", "div", "pow", "maximum", "minimum", "clip",
                           "sum", "max", "min", "select", "reshape", "transpose",
                           "broadcast_to", "concatenate", "convert", "matmul", "index",
                           "index_update"}


@pytest.mark.parametrize("name", SHARED)
def test_both_tables_take_the_same_formula(name):
    formula = derivatives.FORMULAS[name]
    assert COMPILER[name].formula is formula
    assert TAPE[TAPE_NAME.get(name, name)].formula is formula


@pytest.mark.parametrize("name", sorted(derivatives.FORMULAS))
def test_every_formula_is_used_by_a_table(name):
    users = [table[n] for table, n in ((COMPILER, name), (TAPE, TAPE_NAME.get(name, name)))
             if n in table]
    assert users and all(p.formula is derivatives.FORMULAS[name] for p in users)


@pytest.mark.parametrize("name", sorted(set(TAPE_BY_FORMULA) & set(TAPE)))
def test_the_tape_saves_what_the_formula_reads(name):
    formula = derivatives.FORMULAS[TAPE_BY_FORMULA[name]]
    assert (TAPE[name].saves_inputs, TAPE[name].saves_output) == (
        formula.reads_inputs, formula.reads_output)


_UNREAD = object()  # stands for a value a formula declares it does not read


class _Trace:
    """An `Ops` whose values are opaque tokens; applying a word to `_UNREAD` fails, and so
    does a word outside the vocabulary."""

    def __getattr__(self, word):
        if word not in derivatives.Ops.__dict__:
            raise AttributeError(f"{word!r} is not in the derivative vocabulary")

        def apply(*args, **params):
            assert all(a is not _UNREAD for a in args), f"{word} applied to an unread value"
            return object()

        return apply


@pytest.mark.parametrize("name", sorted(derivatives.FORMULAS))
def test_a_formula_reads_only_what_it_declares(name):
    formula = derivatives.FORMULAS[name]
    value = object() if formula.reads_inputs else _UNREAD
    output = object() if formula.reads_output else _UNREAD
    if isinstance(formula, derivatives.Cast):  # sees only the value and the two dtypes
        formula.across(_Trace(), object(), object(), object())
        return
    if isinstance(formula, derivatives.Linear):  # sees only the cotangent, shapes and params
        params = {"transpose": {"axes": (1, 0)}, "concatenate": {"axis": 0},
                  "index": {"key": object()}, "index_update": {"key": object(), "mode": "set"},
                  "index_add": {"key": object(), "shape": (3, 2)},
                  "tril_halfdiag": {}, "triangle": {"lower": True, "diagonal": 0.0}
                  }.get(name, {"shape": (3, 2)})
        formula.adjoint(_Trace(), object(), [(2, 3), (1, 3)], **params)
        return
    if isinstance(formula, derivatives.Bilinear):  # sees the cotangent, operands and shapes
        for shapes in [((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 4)), ((3,), (3,)),
                       ((2, 2, 3), (3,)), ((3,), (2, 3, 4)), ((5, 1, 2, 3), (4, 3, 2))]:
            assert len(formula.adjoint(_Trace(), object(), value, value, *shapes)) == 2
        return
    if isinstance(formula, derivatives.Matrix):  # sees cotangents/tangents, operands, outputs
        arity = 2 if name in ("solve", "solve_triangular") else 1
        params = {"scipy_cholesky": {"lower": False},
                  "solve_triangular": {"trans": 1, "lower": True, "unit_diagonal": True}
                  }.get(name, {})
        for shapes in ([(3, 3), (3,)], [(3, 3), (3, 2)]):
            cts = formula.vjp(_Trace(), [object()], [value] * arity, [output], shapes[:arity],
                              **params)
            tangents = formula.jvp(_Trace(), [object()] * arity, [value] * arity, [output],
                                   shapes[:arity], **params)
            assert (len(cts), len(tangents)) == (arity, 1)
        return
    if isinstance(formula, Decomposition):  # also sees the parameters of the primitive
        arity = 2 if name == "lstsq" else 1
        for shapes in ([(3, 3), (3,)], [(4, 3), (4, 2)], [(3, 4), (3,)]):
            for params in ({}, {"full": True}, {"complete": True}, {"uplo": "U"}):
                operands = [value] * arity, [output], shapes[:arity], params
                assert len(formula.vjp(_Trace(), [object()], *operands)) == arity
                assert len(formula.jvp(_Trace(), [object()] * arity, *operands)) == 1
        return
    if isinstance(formula, derivatives.Reduction):
        for axis in (None, (1,)):
            formula.weights(_Trace(), value, output, (2, 3), axis)
        return
    arity = formula.partials.__code__.co_argcount - 2  # minus the ops and the output
    conditions = [object()] * formula.conditions
    partials = formula.partials(_Trace(), *conditions, *[value] * (arity - len(conditions)),
                                output)
    assert len(partials) == arity


def _cube_root_model(x):
    return np.cbrt(x) * x + math.cbrt(x + 2.0)


@pytest.mark.parametrize("backend", ["llvm", "python"])
@pytest.mark.parametrize("x", [-1.7, 0.4, 8.0])
def test_cbrt_compiled_and_taped_from_its_one_formula(backend, x):
    """The issue's measure: `np.cbrt` was added with one formula; the compiler's reverse and
    forward modes and the tape (first and second order) all run it."""
    expected = np.cbrt(x) + x / (3.0 * np.cbrt(x) ** 2) + 1.0 / (3.0 * np.cbrt(x + 2.0) ** 2)
    assert compiler.grad(_cube_root_model, backend=backend)(x) == pytest.approx(expected)
    _, tangent = compiler.jvp(_cube_root_model, (x,), (1.0,))
    assert tangent == pytest.approx(expected)
    t = tensor(x, requires_grad=True)
    (g,) = autograd.grad(np.cbrt(t) * t + np.cbrt(t + 2.0), [t], create_graph=True)
    assert float(g.data) == pytest.approx(expected)
    (h,) = autograd.grad(g, [t])
    # d/dx (cbrt(x) + x / (3 cbrt(x)^2) + 1 / (3 cbrt(x+2)^2))
    #   = 4 / (9 cbrt(x)^2) - 2 / (9 cbrt(x+2)^5)
    second = 4.0 / (9.0 * np.cbrt(x) ** 2) - 2.0 / (9.0 * np.cbrt(x + 2.0) ** 5)
    assert float(h.data) == pytest.approx(second)


def _squares(x):
    return np.sum(np.square(x))


def _hypots(x):
    return np.sum(np.hypot(x, 2.0 * x))


def _norm(x):
    return np.linalg.norm(x)


def _means(x):
    return np.sum(np.mean(x) * x.mean(axis=0))


def _variances(x):
    return np.var(x, ddof=1) + np.sum(np.var(x, axis=0, keepdims=True))


def _deviations(x):
    return np.std(x) * np.sum(np.std(x, axis=1, ddof=1))


COMPOSITE_CALLS = [("square", _squares), ("hypot", _hypots), ("norm", _norm),
                   ("mean", _means), ("var", _variances), ("std", _deviations)]


@pytest.mark.parametrize("name,fn", COMPOSITE_CALLS, ids=[c[0] for c in COMPOSITE_CALLS])
def test_composites_are_built_by_the_one_definition(monkeypatch, name, fn):
    """The compiler's frontend and the tape both build the composite with the function in
    `adlite.derivatives.composites` (a spy sees one call from each)."""
    calls = []
    original = getattr(derivatives.composites, name)

    def spy(o, *args, **options):
        calls.append(type(o).__name__)
        return original(o, *args, **options)

    monkeypatch.setattr(derivatives.composites, name, spy)
    x = np.array([[0.5, 1.5, 2.5], [-0.3, 0.8, 2.0]])
    compiled = compiler.grad(fn)(x)  # a new `grad` traces afresh
    t = tensor(x, requires_grad=True)
    fn(t).backward()
    assert {"BuilderOps", "TensorOps"} <= set(calls)
    np.testing.assert_allclose(compiled, t.grad.data)


def _through_int(x):
    return x * 3.0 + int(x) * 2.0


def test_a_conversion_to_int_carries_no_derivative_on_either_side():
    """The shared `convert` formula: the tape used to pass the cotangent through float -> int
    `astype` (gradient 5 here) while the compiler cut it (3, PyTorch's: an int tensor carries
    no gradient); both now run the one formula."""
    assert compiler.grad(_through_int)(1.5) == 3.0
    x = tensor(np.array([1.5, 2.5]), requires_grad=True)
    ((x * 3.0).sum() + (x.astype(np.int64) * 2.0).sum()).backward()
    np.testing.assert_array_equal(x.grad.data, [3.0, 3.0])


def test_mean_is_a_composite_on_both_sides():
    """`mean` is `composites.mean` (sum / count) on both sides: no primitive, no formula."""
    assert "mean" not in derivatives.FORMULAS
    assert "mean" not in TAPE and "mean" not in COMPILER


def _moments(x):
    return np.var(x, axis=1, ddof=1) @ np.std(x, axis=0)[:2] + np.std(x, ddof=2)


def _moments_analytic(x):
    """d/dx of `_moments` from the textbook derivatives: d var/dx_i = 2 (x_i - m) / (n - ddof),
    d std = d var / (2 std)."""
    v, s = np.var(x, axis=1, ddof=1), np.std(x, axis=0)
    dv = 2.0 * (x - x.mean(axis=1, keepdims=True)) / (x.shape[1] - 1)
    ds = (x - x.mean(axis=0)) / (x.shape[0] * s)
    g = dv * s[:2][:, None]
    g[:, :2] += v[None, :] * ds[:, :2]
    s_all = np.std(x, ddof=2)
    return g + (x - x.mean()) / ((x.size - 2) * s_all)


@pytest.mark.parametrize("backend", ["llvm", "python"])
def test_var_and_std_compiled_and_taped_agree_with_numpy(backend):
    x = np.array([[0.3, -1.2, 2.0], [1.1, 0.4, -0.5]])
    expected = _moments_analytic(x)
    assert compiler.jit(_moments, backend=backend)(x) == pytest.approx(_moments(x), rel=1e-12)
    np.testing.assert_allclose(compiler.grad(_moments, backend=backend)(x), expected,
                               rtol=1e-12)
    _, tangent = compiler.jvp(_moments, (x,), (np.ones_like(x),))
    assert tangent == pytest.approx(expected.sum(), rel=1e-12)
    t = tensor(x, requires_grad=True)
    out = _moments(t)
    out.backward()
    assert float(out.data) == pytest.approx(_moments(x), rel=1e-12)
    np.testing.assert_allclose(t.grad.data, expected, rtol=1e-12)


def _moment_methods(x):
    return x.var(axis=(0, 1)) + np.sum(x.std(axis=1, keepdims=True, ddof=1) * x)


def _moment_functions(x):
    return np.var(x, axis=(0, 1)) + np.sum(np.std(x, axis=1, keepdims=True, ddof=1) * x)


def test_compiled_var_and_std_methods_are_numpys():
    """ndarray.var / .std in compiled code (the tape's Tensor has PyTorch's methods instead)."""
    x = np.array([[0.3, -1.2, 2.0], [1.1, 0.4, -0.5]])
    assert compiler.jit(_moment_methods)(x) == pytest.approx(_moment_methods(x), rel=1e-12)
    t = tensor(x, requires_grad=True)
    _moment_functions(t).backward()
    np.testing.assert_allclose(compiler.grad(_moment_methods)(x), t.grad.data, rtol=1e-12)


@pytest.mark.parametrize("name", ["logsumexp", "softmax"])
def test_the_tapes_logsumexp_and_softmax_are_the_one_definition(monkeypatch, name):
    """The tape builds them with `composites` (the compiler has no entry point for them:
    scipy.special is not a dependency)."""
    from adlite import runtime

    calls = []
    original = getattr(derivatives.composites, name)
    monkeypatch.setattr(derivatives.composites, name,
                        lambda o, *args: calls.append(name) or original(o, *args))
    getattr(runtime, name)(tensor(np.array([0.5, 1.5])), axis=0)
    assert calls == [name]


def test_logsumexp_is_stable_and_its_gradient_is_softmax():
    """scipy's stable form: large, -inf and mixed inputs give numpy's exact values."""
    from adlite import runtime

    x = np.array([[1000.0, 1001.0, 999.0], [-np.inf, -np.inf, -np.inf]])
    t = tensor(x, requires_grad=True)
    out = runtime.logsumexp(t, axis=1)
    expected = np.array([1001.0 + np.log(1.0 + np.exp(-1.0) + np.exp(-2.0)), -np.inf])
    np.testing.assert_allclose(out.data, expected, rtol=1e-15)
    runtime.logsumexp(t[0]).backward()
    e = np.exp(x[0] - 1001.0)
    np.testing.assert_allclose(t.grad.data[0], e / e.sum(), rtol=1e-14)
    np.testing.assert_allclose(runtime.softmax(t[:1], axis=1).data, [e / e.sum()], rtol=1e-12)


def _matmul_model(x, y):
    return np.sum(np.sin(x @ y))


MATMUL_SHAPES = [((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 4)), ((3,), (3,))]


@pytest.mark.parametrize("backend", ["llvm", "python"])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_compiled_and_taped_from_its_one_formula(backend, shapes):
    """The shared `matmul` adjoint, for every 1-D / 2-D combination: compiled (vjp and jvp),
    taped, against the analytic derivative written with numpy (cos(x @ y) = c:
    d/dx = c @ y.T, d/dy = x.T @ c, 1-D operands as row / column vectors)."""
    rng = np.random.default_rng(7)
    x, y = (rng.standard_normal(s) for s in shapes)
    x2, y2 = np.atleast_2d(x), y.reshape(y.shape[0], -1)
    c = np.cos(x2 @ y2)
    expected = ((c @ y2.T).reshape(x.shape), (x2.T @ c).reshape(y.shape))
    gx, gy = compiler.grad(_matmul_model, wrt=(0, 1), backend=backend)(x, y)
    np.testing.assert_allclose(gx, expected[0], rtol=1e-12)
    np.testing.assert_allclose(gy, expected[1], rtol=1e-12)
    tx, ty = np.ones_like(x), np.full_like(y, 0.5)
    _, tangent = compiler.jvp(_matmul_model, (x, y), (tx, ty))
    assert tangent == pytest.approx(np.sum(expected[0] * tx) + np.sum(expected[1] * ty))
    tensors = [tensor(v, requires_grad=True) for v in (x, y)]
    _matmul_model(*tensors).backward()
    for t, e in zip(tensors, expected, strict=True):
        np.testing.assert_allclose(t.grad.data, e, rtol=1e-12)


BATCHED_SHAPES = [((2, 2, 3), (3, 4)), ((2, 2, 3), (3,)), ((3,), (2, 3, 4)),
                  ((4, 1, 2, 3), (5, 3, 2)), ((2, 3), (4, 3, 2))]


@pytest.mark.parametrize("shapes", BATCHED_SHAPES, ids=str)
def test_the_tapes_batched_matmul_runs_the_one_formula(monkeypatch, shapes):
    """> 2-D operands (the compiler refuses them) run the shared adjoint too: against the
    derivative written with numpy (1-D operands promoted, c = cos(x @ y) and each operand's
    part summed over the batch axes broadcasting added)."""
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal(s) for s in shapes)
    x2 = x.reshape(1, -1) if x.ndim == 1 else x
    y2 = y.reshape(-1, 1) if y.ndim == 1 else y
    c = np.cos(x2 @ y2)
    gx, gy = c @ np.swapaxes(y2, -1, -2), np.swapaxes(x2, -1, -2) @ c
    gx = _summed_to(gx, x2.shape).reshape(x.shape)
    gy = _summed_to(gy, y2.shape).reshape(y.shape)
    calls = []
    original = derivatives.products._batched_adjoint
    monkeypatch.setattr(derivatives.products, "_batched_adjoint",
                        lambda *args: calls.append(args[4:]) or original(*args))
    tensors = [tensor(v, requires_grad=True) for v in (x, y)]
    _matmul_model(*tensors).backward()
    assert calls == [shapes]
    np.testing.assert_allclose(tensors[0].grad.data, gx, rtol=1e-12)
    np.testing.assert_allclose(tensors[1].grad.data, gy, rtol=1e-12)


def _summed_to(a, shape):
    """Sum `a` over the leading axes and the size-1 axes of `shape` (numpy only)."""
    a = a.sum(axis=tuple(range(a.ndim - len(shape))))
    return a.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and a.shape[i] != 1),
                 keepdims=True)


def test_the_tapes_matmul_second_order_runs_the_formula():
    """With recording the shared adjoint is differentiated again (`create_graph`)."""
    b = tensor(np.ones((2, 2, 3)), requires_grad=True)
    (g,) = autograd.grad((b @ b.transpose(0, 2, 1)).sum(), [b], create_graph=True)
    np.testing.assert_allclose(g.data, np.full((2, 2, 3), 4.0))
    (h,) = autograd.grad(g[0, 0, 0], [b])
    expected = np.zeros((2, 2, 3))  # d/db of 2 * sum_j b[0, j, 0]
    expected[0, :, 0] = 2.0
    np.testing.assert_allclose(h.data, expected)
    a = np.array([[0.5, -1.0], [2.0, 0.3]])
    x = tensor(a, requires_grad=True)
    (g,) = autograd.grad((x @ x).sum(), [x], create_graph=True)
    ones = np.ones((2, 2))
    np.testing.assert_allclose(g.data, ones @ a.T + a.T @ ones, rtol=1e-12)
    (h,) = autograd.grad(g[0, 1], [x])  # d/dx of sum_k x_1k + sum_k x_k0 (row 1 + col 0)
    expected = np.zeros((2, 2))
    expected[1, :] += 1.0
    expected[:, 0] += 1.0
    np.testing.assert_allclose(h.data, expected)


def _indexing_model(x, v):
    y = x * 1.0
    y[1, 1:] = v * 2.0
    y[0, 1:] += v
    return np.sum(np.sin(y[:, 1:]) * y[2, 0])


def _indexing_analytic(x, v):
    """d/dx and d/dv of `_indexing_model`, written with numpy (y as built there)."""
    y = x.copy()
    y[1, 1:] = v * 2.0
    y[0, 1:] += v
    gy = np.zeros_like(y)
    gy[:, 1:] = np.cos(y[:, 1:]) * y[2, 0]
    gy[2, 0] += np.sum(np.sin(y[:, 1:]))
    gx = gy.copy()
    gx[1, 1:] = 0.0  # overwritten by the set
    return gx, gy[0, 1:] + 2.0 * gy[1, 1:]


X = np.array([[0.3, -1.2, 2.0], [1.1, 0.4, -0.5], [0.7, 0.2, 1.3]])
V = np.array([0.5, -0.25])


@pytest.mark.parametrize("backend", ["llvm", "python"])
def test_indexing_compiled_from_the_one_adjoint(backend):
    """`index` and `index_update` (set and add) through the shared adjoints, compiled (vjp and
    jvp), against the derivative written with numpy."""
    ex, ev = _indexing_analytic(X, V)
    gx, gv = compiler.grad(_indexing_model, wrt=(0, 1), backend=backend)(X, V)
    np.testing.assert_allclose(gx, ex, rtol=1e-12)
    np.testing.assert_allclose(gv, ev, rtol=1e-12)
    tx, tv = np.full_like(X, 0.5), np.ones_like(V)
    _, tangent = compiler.jvp(_indexing_model, (X, V), (tx, tv))
    assert tangent == pytest.approx(np.sum(ex * tx) + np.sum(ev * tv), rel=1e-12)


def test_indexing_taped_from_the_one_adjoint_to_second_order():
    """The tape runs the same adjoints (first order vs numpy; second order, through
    create_graph, vs central differences of the numpy derivative)."""
    x, v = tensor(X, requires_grad=True), tensor(V, requires_grad=True)
    gx, gv = autograd.grad(_indexing_model(x, v), [x, v], create_graph=True)
    ex, ev = _indexing_analytic(X, V)
    np.testing.assert_allclose(gx.data, ex, rtol=1e-12)
    np.testing.assert_allclose(gv.data, ev, rtol=1e-12)
    (h,) = autograd.grad(gv.sum(), [x])
    step, expected = 1e-6, np.zeros_like(X)
    for i in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[i] = step
        expected[i] = (_indexing_analytic(X + e, V)[1].sum()
                       - _indexing_analytic(X - e, V)[1].sum()) / (2 * step)
    np.testing.assert_allclose(h.data, expected, atol=1e-7)


def _others_products(x, axis):
    """The product of the other elements along `axis`, by explicit loops (the reference)."""
    moved = np.moveaxis(x, axis, -1)
    out = np.empty_like(moved)
    for i in np.ndindex(moved.shape):
        row = moved[i[:-1]]
        out[i] = np.prod(np.delete(row, i[-1]))
    return np.moveaxis(out, -1, axis)


def test_the_tapes_prod_takes_its_rule_from_the_formulas():
    assert TAPE["prod"].formula is derivatives.FORMULAS["prod"]
    assert isinstance(derivatives.FORMULAS["prod"], derivatives.Reduction)


def test_prod_gradient_is_the_product_of_the_others_with_any_number_of_zeros():
    x = np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 0.0, 4.0, 1.5], [1.5, -2.0, 3.0, 0.25]])
    t = tensor(x, requires_grad=True)
    t.prod(axis=1).sum().backward()
    np.testing.assert_allclose(t.grad.data, _others_products(x, 1), rtol=1e-15)
    t.grad = None
    t.prod().backward()
    np.testing.assert_array_equal(t.grad.data, np.zeros_like(x))


def test_prod_second_order_through_one_zero():
    """The weights are differentiable again where a product has one zero (this used to raise
    NotImplementedError): d2/dx_i dx_j prod(x) = the product of the elements but i and j."""
    x = np.array([2.0, 0.0, 3.0, -0.5])
    t = tensor(x, requires_grad=True)
    (g,) = autograd.grad(t.prod(), [t], create_graph=True)
    np.testing.assert_allclose(g.data, _others_products(x, 0), rtol=1e-15)
    expected = np.array([[0.0 if i == j else np.prod(np.delete(x, [i, j]))
                          for j in range(4)] for i in range(4)])
    for i in range(4):
        (h,) = autograd.grad(g[i], [t], retain_graph=True)
        np.testing.assert_allclose(h.data, expected[i], rtol=1e-15)


def test_prod_second_order_through_two_zeros_is_refused():
    t = tensor(np.array([[2.0, 0.0, 0.0], [1.0, 2.0, 3.0]]), requires_grad=True)
    with pytest.raises(NotImplementedError, match="two or more zeros"):
        autograd.grad(t.prod(axis=1).sum(), [t], create_graph=True)
