"""`jacrev`, `jacfwd`, `jacobian` and `hessian` on arrays, checked three ways.

Each case's Jacobian by reverse and by forward mode agree to rounding, and both equal the
eager tape's (one backward pass per output element, `adlite.runtime`) and central finite
differences; Hessians equal the tape's (double backward) and differences of the tape's
gradient. scipy's `least_squares(jac=jacobian(r))` and `minimize(jac=grad(f),
hess=hessian(f))` converge to the solutions found with scipy's own derivatives.
"""

import pickle

import numpy as np
import pytest
from scipy.optimize import least_squares, minimize, rosen, rosen_der, rosen_hess

from adlite.compiler import grad, hessian, jacfwd, jacobian, jacrev
from adlite.compiler.ir.core import F64, Type, walk_eqns
from adlite.runtime import Tensor, autograd

# ---- the functions ------------------------------------------------------------------------


def elementwise(x):
    return np.sin(x) * x[0] + np.exp(-x * x)


def affine(W, x):
    return np.tanh(W @ x + 0.5)


def column_norms(X):
    return np.sqrt(np.sum(X * X, axis=0))


def gram(X):
    return X @ X.T


def outer(x, y):
    return x[:, None] * np.cos(y)[None, :]


def curve(t):
    return np.stack([np.cos(t), np.sin(t), t * t])


def energy(x):
    return np.sum(x ** 4) - x[0] * x[1]


def polar(r, theta):
    return r * np.sin(theta)


def stepper(x, n):
    out = np.zeros(x.shape[0])
    y = x
    for _ in range(n):
        y = np.sin(y) * 1.1
        if y[0] > 0.2:
            out = out + y
        else:
            out = out - y * y
    return out


def clipped(x):
    if x[0] > 0.0:
        y = np.exp(x)
    else:
        y = x * x
    return y * np.sum(x)


def relax(x):
    total = 0.0
    while total < 3.0:
        total = total + np.sum(x * x)
    return total * x


def pair(x):
    return np.sum(x) * x, np.prod(x)


def _rng():
    return np.random.default_rng(7)


V3 = np.array([0.3, -0.5, 0.9])
M23 = _rng().uniform(-1.0, 1.0, (2, 3))
M34 = _rng().uniform(0.5, 1.5, (3, 4))

CASES = {  # name: (function, arguments, wrt)
    "elementwise 1-d -> 1-d": (elementwise, (V3,), (0,)),
    "matmul, two arguments": (affine, (M23, V3), (0, 1)),
    "reduction 2-d -> 1-d": (column_norms, (M34,), (0,)),
    "2-d -> 2-d": (gram, (M23,), (0,)),
    "broadcasting": (outer, (V3, np.array([0.1, 0.7])), (0, 1)),
    "scalar -> 1-d": (curve, (0.7,), (0,)),
    "1-d -> scalar": (energy, (V3,), (0,)),
    "scalars -> scalar": (polar, (1.5, 0.4), (0, 1)),
    "loop with a branch": (stepper, (V3, 4), (0,)),
    "branch": (clipped, (V3,), (0,)),
    "branch not taken": (clipped, (-V3,), (0,)),
    "while loop": (relax, (np.array([0.45, 0.2]),), (0,)),  # 13 trips
    "tuple of results": (pair, (V3,), (0,)),
}


# ---- references ---------------------------------------------------------------------------


def _results(value) -> list:
    return list(value) if isinstance(value, tuple) else [value]


def tape_jacobian(fn, args, wrt) -> list:
    """blocks[j][i] by the eager tape: one backward pass per element of result j."""
    results = _results(fn(*args))
    blocks = [[np.zeros(np.shape(r) + np.shape(args[i])) for i in wrt] for r in results]
    for j, r in enumerate(results):
        for k in np.ndindex(np.shape(r)):
            tensors = [Tensor(np.asarray(a, dtype=float), requires_grad=True) if i in wrt else a
                       for i, a in enumerate(args)]
            seed = np.zeros(np.shape(r))
            seed[k] = 1.0
            _results(fn(*tensors))[j].backward(seed)
            for m, i in enumerate(wrt):
                blocks[j][m][k] = tensors[i].grad.numpy()
    return blocks


def difference_jacobian(fn, args, wrt, eps=1e-6) -> list:
    """blocks[j][i] by central differences."""
    results = _results(fn(*args))
    blocks = [[np.zeros(np.shape(r) + np.shape(args[i])) for i in wrt] for r in results]
    for m, i in enumerate(wrt):
        x = np.asarray(args[i], dtype=float)
        for k in np.ndindex(x.shape):
            moved = []
            for sign in (1.0, -1.0):
                y = x.copy()
                y[k] += sign * eps
                moved.append(_results(fn(*(y if p == i and x.ndim else float(y) if p == i
                                            else a for p, a in enumerate(args)))))
            for j in range(len(results)):
                index = (Ellipsis,) + k if k else (Ellipsis,)
                blocks[j][m][index] = (np.asarray(moved[0][j]) - moved[1][j]) / (2 * eps)
    return blocks


def as_blocks(result, n_results: int, n_wrt: int) -> list:
    """A compiled Jacobian (JAX's layout) as blocks[j][i]."""
    per_result = list(result) if n_results > 1 else [result]
    return [list(r) if n_wrt > 1 else [r] for r in per_result]


def assert_blocks(got, want, rtol, atol, what):
    for j, (row_got, row_want) in enumerate(zip(got, want, strict=True)):
        for i, (g, w) in enumerate(zip(row_got, row_want, strict=True)):
            assert np.shape(g) == np.shape(w), f"{what}: block ({j}, {i}) shape"
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol,
                                       err_msg=f"{what}: block ({j}, {i})")


# ---- Jacobians three ways -----------------------------------------------------------------


@pytest.mark.parametrize("name", list(CASES))
def test_jacobian_three_ways(name):
    fn, args, wrt = CASES[name]
    n_results = len(_results(fn(*args)))
    key = wrt if len(wrt) > 1 else wrt[0]
    reverse = as_blocks(jacrev(fn, key)(*args), n_results, len(wrt))
    forward = as_blocks(jacfwd(fn, key)(*args), n_results, len(wrt))
    chosen = as_blocks(jacobian(fn, key)(*args), n_results, len(wrt))
    assert_blocks(reverse, forward, 1e-12, 1e-14, f"{name}: jacrev vs jacfwd")
    assert_blocks(chosen, forward, 1e-12, 1e-14, f"{name}: jacobian vs jacfwd")
    assert_blocks(reverse, tape_jacobian(fn, args, wrt), 1e-10, 1e-12, f"{name}: vs tape")
    assert_blocks(reverse, difference_jacobian(fn, args, wrt), 1e-6, 1e-7,
                  f"{name}: vs finite differences")


@pytest.mark.parametrize("name", ["matmul, two arguments", "loop with a branch", "while loop",
                                  "tuple of results", "scalar -> 1-d"])
def test_python_backend_agrees_with_the_tape(name):
    fn, args, wrt = CASES[name]
    n_results = len(_results(fn(*args)))
    key = wrt if len(wrt) > 1 else wrt[0]
    want = tape_jacobian(fn, args, wrt)
    for transform in (jacrev, jacfwd):
        got = as_blocks(transform(fn, key, backend="python")(*args), n_results, len(wrt))
        assert_blocks(got, want, 1e-10, 1e-12, f"{name}: {transform.__name__} python")


def test_float32_jacobians_are_float32_and_match_the_tape():
    x = V3.astype(np.float32)
    want = tape_jacobian(elementwise, (x.astype(float),), (0,))[0][0]
    for transform in (jacrev, jacfwd):
        got = transform(elementwise)(x)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


def test_mixed_precision_blocks_are_float64():
    got = jacrev(affine, (0, 1))(M23.astype(np.float32), V3)
    assert [b.dtype for b in got] == [np.float64, np.float64]


def test_scalar_blocks_are_python_floats():
    got = jacfwd(polar, (0, 1))(1.5, 0.4)
    assert all(type(b) is float for b in got)
    assert got == pytest.approx((np.sin(0.4), 1.5 * np.cos(0.4)), rel=1e-15)


def test_structured_argument_gives_blocks_of_its_structure():
    def weighted(p):
        return p["w"] * p["b"][0] + p["b"][1]

    params = {"w": V3, "b": (np.array([1.0, 2.0, 3.0]), 0.5)}
    got = jacobian(weighted)(params)
    np.testing.assert_allclose(got["w"], np.diag(params["b"][0]), rtol=1e-15)
    np.testing.assert_allclose(got["b"][0], np.diag(V3), rtol=1e-15)
    np.testing.assert_allclose(got["b"][1], np.ones(3), rtol=1e-15)


def test_wrt_by_name():
    np.testing.assert_allclose(jacrev(affine, wrt="x")(M23, V3),
                               tape_jacobian(affine, (M23, V3), (1,))[0][0], rtol=1e-12)


# ---- how the Jacobian is computed ---------------------------------------------------------


def _graph(transform, fn, types):
    return transform(fn).graphs(types)[1]


def test_jacobian_chooses_forward_mode_for_fewer_inputs_than_outputs():
    assert _graph(jacobian, curve, [F64]).name.endswith("_jacfwd")
    assert _graph(jacobian, energy, [Type("f64", (3,))]).name.endswith("_jacrev")
    assert _graph(jacobian, gram, [Type("f64", (2, 3))]).name.endswith("_jacrev")  # 4 < 6
    assert _graph(jacobian, gram, [Type("f64", (3, 2))]).name.endswith("_jacfwd")  # 6 < 9


def test_one_call_runs_the_whole_basis_loop_and_the_primal_once():
    graph = _graph(jacrev, elementwise, [Type("f64", (3,))])
    loops = [e for e in graph.eqns if e.prim == "while"]
    assert len(loops) == 1
    in_loop = {e.prim for e in walk_eqns(loops[0].params["body"])}
    assert {"sin", "exp"} <= {e.prim for e in graph.eqns}  # the primal, before the loop
    assert not {"sin", "exp"} & in_loop  # the loop runs the backward sweep only


# ---- Hessians -----------------------------------------------------------------------------


def tape_hessian(fn, args, wrt) -> list:
    """H[a][b] by double backward on the tape."""
    tensors = [Tensor(np.asarray(a, dtype=float), requires_grad=True) if i in wrt else a
               for i, a in enumerate(args)]
    grads = autograd.grad(fn(*tensors), [tensors[i] for i in wrt], create_graph=True)
    blocks = [[np.zeros(np.shape(args[i]) + np.shape(args[p])) for p in wrt] for i in wrt]
    for a, g in enumerate(grads):
        for k in np.ndindex(np.shape(args[wrt[a]])):
            seconds = autograd.grad(g[k] if k else g, [tensors[i] for i in wrt],
                                    retain_graph=True, allow_unused=True)
            for b, s in enumerate(seconds):
                blocks[a][b][k] = 0.0 if s is None else s.numpy()
    return blocks


def differences_of_the_tapes_gradient(fn, args, wrt, eps=1e-6) -> list:
    def gradient(*values):
        tensors = [Tensor(np.asarray(a, dtype=float), requires_grad=True) if i in wrt else a
                   for i, a in enumerate(values)]
        found = autograd.grad(fn(*tensors), [tensors[i] for i in wrt], allow_unused=True)
        return tuple(np.zeros(np.shape(values[i])) if g is None else g.numpy()
                     for g, i in zip(found, wrt, strict=True))

    return difference_jacobian(gradient, args, wrt, eps)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def coupled(a, b):
    return np.sum(a * a * np.sin(b)) + np.sum(a) ** 3


def looped_energy(x):
    e = 0.0
    for i in range(x.shape[0] - 1):
        if x[i] > x[i + 1]:
            e = e + (x[i] - x[i + 1]) ** 3
        else:
            e = e + np.cos(x[i] * x[i + 1])
    return e


def total_norm(X):
    return np.sum(column_norms(X))


HESSIANS = {
    "rosenbrock": (rosenbrock, (np.array([0.3, -0.8, 1.2, 0.5]),), (0,)),
    "two arguments": (coupled, (V3, np.array([0.2, 1.1, -0.4])), (0, 1)),
    "loop with a branch": (looped_energy, (np.array([0.9, 0.1, 0.4, -0.3]),), (0,)),
    "matrix argument": (total_norm, (M34,), (0,)),
}


@pytest.mark.parametrize("name", list(HESSIANS))
def test_hessian_vs_tape_and_differences_of_the_gradient(name):
    fn, args, wrt = HESSIANS[name]
    got = hessian(fn, wrt if len(wrt) > 1 else wrt[0])(*args)
    blocks = as_blocks(got, len(wrt), len(wrt))
    assert_blocks(blocks, tape_hessian(fn, args, wrt), 1e-10, 1e-12, f"{name}: vs tape")
    assert_blocks(blocks, differences_of_the_tapes_gradient(fn, args, wrt), 1e-6, 1e-6,
                  f"{name}: vs differences of the gradient")


def test_hessian_of_a_vector_is_a_matrix_like_scipys():
    x = np.array([0.3, -0.8, 1.2, 0.5])
    h = hessian(rosenbrock)(x)
    assert h.shape == (4, 4)
    np.testing.assert_allclose(h, rosen_hess(x), rtol=1e-12)


# ---- scipy ---------------------------------------------------------------------------------


TIMES = np.linspace(0.0, 3.0, 25)
OBSERVED = 2.5 * np.exp(-1.3 * TIMES) + 0.4 + 0.01 * np.sin(7.0 * TIMES)


def residuals(p):
    return p[0] * np.exp(-p[1] * TIMES) + p[2] - OBSERVED


def test_least_squares_with_the_compiled_jacobian():
    x0 = np.array([1.0, 0.5, 0.0])
    fitted = least_squares(residuals, x0, jac=jacobian(residuals), xtol=1e-12, ftol=1e-12)
    reference = least_squares(residuals, x0, xtol=1e-12, ftol=1e-12)  # scipy's differences
    assert fitted.success
    np.testing.assert_allclose(fitted.x, reference.x, rtol=1e-6)
    assert fitted.njev < reference.njev + 5
    np.testing.assert_allclose(jacobian(residuals)(x0),
                               difference_jacobian(residuals, (x0,), (0,))[0][0],
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("method", ["trust-exact", "Newton-CG"])
def test_minimize_with_the_compiled_gradient_and_hessian(method):
    x0 = np.array([1.3, 0.7, 0.8, 1.9])
    found = minimize(rosenbrock, x0, method=method, jac=grad(rosenbrock),
                     hess=hessian(rosenbrock), tol=1e-10)
    by_scipy = minimize(rosen, x0, method=method, jac=rosen_der, hess=rosen_hess, tol=1e-10)
    by_differences = minimize(rosen, x0, method="BFGS", options={"gtol": 1e-10})
    assert found.success
    assert found.nit == by_scipy.nit  # the same steps as with scipy's exact derivatives
    np.testing.assert_allclose(found.x, by_scipy.x, rtol=1e-9)
    np.testing.assert_allclose(found.x, by_differences.x, atol=5e-5)  # differences: ~1e-5
    np.testing.assert_allclose(found.x, np.ones(4), atol=1e-7)


def test_minimize_passes_extra_arguments_to_the_hessian():
    def quadratic(x, A):
        return 0.5 * x @ (A @ x) - np.sum(x) + np.sum(x ** 4)

    A = np.array([[3.0, 1.0], [1.0, 2.0]])
    found = minimize(quadratic, np.zeros(2), args=(A,), method="trust-exact",
                     jac=grad(quadratic), hess=hessian(quadratic))
    reference = minimize(quadratic, np.zeros(2), args=(A,), method="Nelder-Mead",
                         options={"xatol": 1e-10, "fatol": 1e-14})
    np.testing.assert_allclose(found.x, reference.x, atol=1e-6)


# ---- bad input and pickling ---------------------------------------------------------------


def counted(x):
    return x * 2.0, x.shape[0]


def positive(x):
    return x > 0.0


@pytest.mark.parametrize("transform", [jacrev, jacfwd, jacobian])
def test_results_that_are_not_floats_are_refused(transform):
    with pytest.raises(TypeError, match=r"jacobian of counted: .*output 1 is i64"):
        transform(counted)(V3)
    with pytest.raises(TypeError, match=r"jacobian of positive: .*output 0 is bool\[3\]"):
        transform(positive)(V3)


def test_integer_arrays_and_unknown_arguments_are_refused_by_name():
    with pytest.raises(TypeError, match="argument 1 is an array of i64"):
        jacobian(affine, wrt=1)(M23, np.arange(3))
    with pytest.raises(TypeError, match=r"wrt='y' but affine\(\) has no parameter 'y' "
                                        r"\(it has W, x\)"):
        jacrev(affine, wrt="y")(M23, V3)


def test_int_numbers_are_taken_as_floats():
    assert jacfwd(polar, 0)(2, 0.5) == pytest.approx(np.sin(0.5), rel=1e-15)


def test_jacobians_pickle():
    for transform in (jacrev, jacfwd, jacobian, hessian):
        again = pickle.loads(pickle.dumps(transform(energy)))
        assert type(again) is type(transform(energy)) and again.kind == transform(energy).kind
        np.testing.assert_allclose(again(V3), transform(energy)(V3), rtol=0)


# ---- effects: the function runs once per Jacobian ------------------------------------------


def noisy(x):
    print("evaluated at", x[0])
    return np.sum(np.sin(x)) * x


def checked(x):
    if x[0] < 0.0:
        raise ValueError("x[0] must be non-negative")
    return np.sqrt(x) * x[0]


@pytest.mark.parametrize("transform", [jacrev, jacfwd, hessian])
def test_a_print_runs_once_per_call(transform, capsys):
    fn = (lambda x: np.sum(noisy(x))) if transform is hessian else noisy
    transform(fn)(V3)
    assert capsys.readouterr().out == "evaluated at 0.3\n"


@pytest.mark.parametrize("transform", [jacrev, jacfwd, jacobian])
def test_exceptions_are_the_functions(transform):
    with pytest.raises(ValueError, match=r"x\[0\] must be non-negative"):
        transform(checked)(-V3)
    np.testing.assert_allclose(transform(checked)(V3 * V3),
                               tape_jacobian(checked, (V3 * V3,), (0,))[0][0], rtol=1e-12)


# ---- composition ----------------------------------------------------------------------------


def test_jacfwd_of_jacrev_is_the_tapes_hessian():
    fn, args, wrt = HESSIANS["rosenbrock"]
    np.testing.assert_allclose(jacfwd(jacrev(fn))(*args), tape_hessian(fn, args, wrt)[0][0],
                               rtol=1e-10, atol=1e-12)


JACOBIAN_OF_ELEMENTWISE = jacrev(elementwise)


def scaled_jacobian(x):
    return JACOBIAN_OF_ELEMENTWISE(x) * 2.0


def test_compiled_code_calls_a_jacobian():
    from adlite.compiler import jit

    np.testing.assert_allclose(jit(scaled_jacobian)(V3),
                               2.0 * tape_jacobian(elementwise, (V3,), (0,))[0][0], rtol=1e-12)
