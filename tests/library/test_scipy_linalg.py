"""scipy.linalg in compiled code (`solve_triangular`, `cholesky`, `cho_factor`, `cho_solve`):
values equal scipy's (to the bit for `solve_triangular`, within a few ulps for the Cholesky
factor, whose routine scipy runs in its own OpenBLAS; float64 and float32, both backends),
gradients against
central differences and the eager tape (`adlite.runtime.linalg`, the same formulas), forward
mode, Hessians, scipy's errors and compile-time refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

sl = pytest.importorskip("scipy.linalg")

from adlite import compiler  # noqa: E402
from adlite.compiler import AdliteSyntaxError  # noqa: E402
from adlite.runtime import linalg as tape_linalg  # noqa: E402
from adlite.runtime import tensor  # noqa: E402

from ..support.gradients import central_differences  # noqa: E402

BACKENDS = ["llvm", "python"]
FLAGS = list(itertools.product([0, 1, 2], [False, True], [False, True]))


def _matrices(n, dtype, seed=3):
    rng = np.random.default_rng(seed + n)
    a = rng.standard_normal((n, n)) + 2.0 * np.eye(n)
    m = rng.standard_normal((n, n))
    return [x.astype(dtype) for x in (a, rng.standard_normal((n, 3)), rng.standard_normal(n),
                                      m @ m.T + n * np.eye(n))]


def _triangular(trans, lower, unit):
    def f(a, b):
        return sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)

    return f


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("trans,lower,unit", FLAGS)
def test_solve_triangular_equals_scipys_to_the_bit(backend, dtype, trans, lower, unit):
    a, b, v, _ = _matrices(24, dtype)
    f = _triangular(trans, lower, unit)
    for rhs in (b, v):
        got = compiler.jit(f, backend=backend)(a, rhs)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, f(a, rhs))


def _factors(s):
    return (sl.cholesky(s), sl.cholesky(s, lower=True), sl.cho_factor(s)[0],
            sl.cho_factor(s, lower=True)[0])


def _cho_solves(s, b):
    return sl.cho_solve(sl.cho_factor(s), b), sl.cho_solve(sl.cho_factor(s, True), b)


def _assert_within_ulps(got, expected, ulps):
    """|got - expected| <= ulps spacings of the largest |expected| element."""
    assert got.dtype == expected.dtype
    scale = np.spacing(np.max(np.abs(expected)))
    assert np.max(np.abs(got.astype(np.float64) - expected)) <= ulps * scale


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cholesky_and_cho_solve_agree_with_scipy(backend, dtype):
    """Within 2 ulps (cholesky, cho_factor) and 8 ulps (cho_solve: scipy's potrs, two trtrs
    here) of the largest element: scipy ships another OpenBLAS than numpy's, whose potrf may
    round differently (observed: at most 1 and 5 ulps)."""
    _, b, v, s = _matrices(24, dtype)
    s = s + np.triu(np.ones_like(s), 1)  # only one triangle is read: scipy's choice
    for got, expected in zip(compiler.jit(_factors, backend=backend)(s), _factors(s),
                             strict=True):
        _assert_within_ulps(got, expected, 2)
        np.testing.assert_array_equal(got == 0, expected == 0)
    for rhs in (b, v):
        for got, expected in zip(compiler.jit(_cho_solves, backend=backend)(s, rhs),
                                 _cho_solves(s, rhs), strict=True):
            _assert_within_ulps(got, expected, 8)


def _cho_factor_pair(s):
    return sl.cho_factor(s, lower=True)


def test_cho_factor_gives_scipys_pair():
    s = _matrices(4, np.float64)[3]
    c, lower = compiler.jit(_cho_factor_pair)(s)
    expected = sl.cho_factor(s, lower=True)
    # scipy's LAPACK and the one compiled code calls (numpy's OpenBLAS) may round apart
    np.testing.assert_array_max_ulp(c, expected[0], maxulp=4)
    np.testing.assert_array_equal(c == 0, expected[0] == 0)  # the other triangle as scipy's
    assert lower is True


# ---- derivatives: the same formulas in compiled code and on the tape ----------------------

def _triangular_loss(la, trans, lower, unit):
    def f(a, b):
        x = la.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
        return np.sum(np.sin(x) * x)

    return f


def _logdet_loss(la, lower):
    def f(m, b):
        s = m @ m.T + 3.0 * np.eye(3)
        c = la.cholesky(s, lower=lower)
        return np.sum(np.log(np.diag(c))) + np.sum(la.cho_solve(la.cho_factor(s, lower), b))

    return f


def _losses():
    for trans, lower, unit in FLAGS:
        yield (f"triangular-{trans}-{lower}-{unit}", _triangular_loss(sl, trans, lower, unit),
               _triangular_loss(tape_linalg, trans, lower, unit))
    for lower in (False, True):
        yield (f"cholesky-{lower}", _logdet_loss(_ScipyNames, lower),
               _logdet_loss(_TapeNames, lower))


class _ScipyNames:
    solve_triangular, cholesky = sl.solve_triangular, sl.cholesky
    cho_factor, cho_solve = sl.cho_factor, sl.cho_solve


class _TapeNames:
    solve_triangular, cholesky = tape_linalg.solve_triangular, tape_linalg.scipy_cholesky
    cho_factor, cho_solve = tape_linalg.cho_factor, tape_linalg.cho_solve


LOSSES = list(_losses())
A = np.array([[1.5, 0.3, -0.4], [0.2, 2.0, 0.1], [-0.3, 0.5, 1.8]])
B = np.array([[0.5, -1.0], [1.0, 0.25], [-0.5, 2.0]])


def _taped(fn, args):
    tensors = [tensor(a, requires_grad=True) for a in args]
    fn(*tensors).backward()
    return [t.grad.data for t in tensors]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,fn,on_tape", LOSSES, ids=[c[0] for c in LOSSES])
def test_gradients_against_differences_and_the_tape(backend, name, fn, on_tape):
    args = [A, B]
    compiled = compiler.grad(fn, wrt=(0, 1), backend=backend)(*args)
    for c, d, t in zip(compiled, central_differences(fn, args), _taped(on_tape, args),
                       strict=True):
        np.testing.assert_allclose(c, d, atol=1e-7, rtol=1e-7)
        np.testing.assert_allclose(c, t, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name,fn,on_tape", LOSSES, ids=[c[0] for c in LOSSES])
def test_forward_mode_against_directional_differences(name, fn, on_tape):
    args = [A, B]
    rng = np.random.default_rng(11)
    directions = [rng.standard_normal(a.shape) for a in args]
    value, tangent = compiler.jvp(fn, args, directions)
    eps = 1e-6
    shifted = [fn(*[a + s * eps * d for a, d in zip(args, directions, strict=True)])
               for s in (1, -1)]
    assert value == pytest.approx(fn(*args), rel=1e-13)
    assert tangent == pytest.approx((shifted[0] - shifted[1]) / (2 * eps), rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("name,fn,on_tape", [LOSSES[3], LOSSES[9], LOSSES[-1]],
                         ids=[LOSSES[i][0] for i in (3, 9, -1)])
def test_hessian_against_differences_of_the_tapes_gradient(name, fn, on_tape):
    eps = 1e-6
    rows = []
    for i in np.ndindex(A.shape):
        step = np.zeros_like(A)
        step[i] = eps
        up, down = (_taped(lambda a: on_tape(a, tensor(B)), [A + s * step])[0] for s in (1, -1))
        rows.append(((up - down) / (2 * eps)).ravel())
    h = compiler.hessian(lambda a: fn(a, B))(A)
    np.testing.assert_allclose(np.reshape(h, (9, 9)), np.array(rows), rtol=1e-6, atol=1e-7)


# ---- errors -----------------------------------------------------------------------------

def _upper_solve(a, b):
    return sl.solve_triangular(a, b)


def _cholesky(a):
    return sl.cholesky(a)


def _lower_cholesky(a):
    return sl.cholesky(a, lower=True)


def _unchecked(a, b):
    return sl.solve_triangular(a, b, check_finite=False)


SINGULAR = np.array([[2.0, 1.0, 1.0], [0.0, 1.0, 3.0], [0.0, 0.0, 0.0]])
INDEFINITE = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
NAN = np.where(np.eye(3) > 0, 1.0, np.nan)


@pytest.mark.parametrize("openblas", [True, False], ids=["lapack", "loops"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn,args,error", [
    (_upper_solve, (SINGULAR, np.ones(3)), np.linalg.LinAlgError),
    (_upper_solve, (SINGULAR.T.copy(), np.ones(3)), np.linalg.LinAlgError),
    (_cholesky, (INDEFINITE,), np.linalg.LinAlgError),
    (_lower_cholesky, (INDEFINITE,), np.linalg.LinAlgError),
    (_cholesky, (np.triu(NAN),), ValueError),
    (_upper_solve, (np.eye(3), np.array([1.0, np.inf, 0.0])), ValueError)],
    ids=["singular", "singular-at-0", "indefinite", "indefinite-lower", "nan", "inf"])
def test_scipys_errors(monkeypatch, openblas, backend, fn, args, error):
    if not openblas:
        from adlite.compiler.backends.llvm import arrays

        monkeypatch.setattr(arrays, "blas", lambda: None)
    with pytest.raises(error) as expected:
        fn(*args)
    with pytest.raises(error) as compiled:
        compiler.jit(fn, backend=backend)(*args)
    assert type(compiled.value) is type(expected.value)
    assert str(compiled.value) == str(expected.value)


def test_check_finite_false_checks_nothing():
    a = np.eye(3)
    a[2, 0] = np.nan  # below the triangle solved with: never read
    np.testing.assert_array_equal(compiler.jit(_unchecked)(a, np.ones(3)),
                                  _unchecked(a, np.ones(3)))


def _not_square(a, b):
    return sl.solve_triangular(a[:2], b)


def _overwriting(a, b):
    return sl.solve_triangular(a, b, overwrite_b=True)


def _bad_trans(a, b):
    return sl.solve_triangular(a, b, trans=3)


@pytest.mark.parametrize("fn,message", [
    (_not_square, "expected square matrix"), (_overwriting, "overwrite_b=True is not"),
    (_bad_trans, "`trans` must be 0, 1, 2")], ids=["not-square", "overwrite", "trans"])
def test_refused_at_the_call(fn, message):
    if fn is _not_square:
        with pytest.raises(ValueError, match=message):
            fn(np.eye(3), np.ones(3))
    with pytest.raises(AdliteSyntaxError, match=message) as e:
        compiler.jit(fn)(np.eye(3), np.ones(3))
    assert "test_scipy_linalg.py" in str(e.value)
