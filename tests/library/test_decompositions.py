"""np.linalg decompositions in compiled code (`eigh`, `eigvalsh`, `svd`, `qr`) and
`np.linalg.norm` with `ord`: values equal to numpy's (both backends call the LAPACK routines
numpy calls), gradients against central differences and the eager tape, forward mode and
Hessians, the refusals where a derivative is not unique, and numpy's LinAlgError when LAPACK
does not converge. The differentiated functions are invariant under the sign of each
eigen- / singular vector (weighted sums of squares of their entries)."""

import zlib

import numpy as np
import pytest

from adlite import compiler
from adlite.compiler import AdliteSyntaxError
from adlite.compiler.backends.llvm import decompositions as llvm_decompositions
from adlite.runtime import tensor

BACKENDS = ["llvm", "python"]


def _weights(n):
    return np.arange(1.0, 1.0 + n)


def _eigh(a):
    w, v = np.linalg.eigh(a)
    return np.sum(np.sin(w)) + np.sum((v * v) @ _weights(v.shape[1]))


def _eigh_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(w * w) + np.sum((v * v) @ _weights(v.shape[1]))


def _eigvalsh(a):
    return np.sum(np.linalg.eigvalsh(a) ** 3)


def _svd(a):
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    return (np.sum(np.cos(s)) + np.sum((u * u) @ _weights(u.shape[1]))
            + np.sum((vt * vt).T @ _weights(vt.shape[0])))


def _svd_square_full(a):
    u, s, vt = np.linalg.svd(a)
    return np.sum(s * s * s) + np.sum((u * u) @ _weights(u.shape[1])) + np.sum(vt[0] * vt[0])


def _svdvals(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 1.5)


def _qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(np.sin(q)) + np.sum(r * r * 0.3) + np.sum(np.sin(r))


def _qr_r(a):
    return np.sum(np.linalg.qr(a, mode="r") ** 2 * _weights(a.shape[1]))


CASES = [("eigh", _eigh, (4, 4)), ("eigh_upper", _eigh_upper, (3, 3)),
         ("eigvalsh", _eigvalsh, (3, 3)), ("svd_tall", _svd, (5, 3)),
         ("svd_wide", _svd, (3, 5)), ("svd_square_full", _svd_square_full, (4, 4)),
         ("svdvals", _svdvals, (4, 3)), ("qr_tall", _qr, (5, 3)), ("qr_square", _qr, (3, 3)),
         ("qr_r", _qr_r, (4, 2))]


def _operand(name, shape):
    return np.random.default_rng(zlib.crc32(name.encode())).standard_normal(shape)


def _differences(fn, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        step = np.zeros_like(a)
        step[i] = eps
        g[i] = (fn(a + step) - fn(a - step)) / (2 * eps)
    return g


def _taped(fn, a):
    t = tensor(a, requires_grad=True)
    fn(t).backward()
    return t.grad.data


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,fn,shape", CASES, ids=[c[0] for c in CASES])
def test_gradients_against_differences_and_the_tape(backend, name, fn, shape):
    a = _operand(name, shape)
    assert compiler.jit(fn, backend=backend)(a) == pytest.approx(fn(a), rel=1e-14)
    g = compiler.grad(fn, backend=backend)(a)
    np.testing.assert_allclose(g, _differences(fn, a), atol=1e-7, rtol=1e-7)
    np.testing.assert_allclose(g, _taped(fn, a), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,fn,shape", CASES, ids=[c[0] for c in CASES])
def test_forward_mode_against_directional_differences(name, fn, shape):
    a = _operand(name, shape)
    direction = np.random.default_rng(5).standard_normal(shape)
    value, tangent = compiler.jvp(fn, (a,), (direction,))
    eps = 1e-6
    expected = (fn(a + eps * direction) - fn(a - eps * direction)) / (2 * eps)
    assert value == pytest.approx(fn(a), rel=1e-14)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("name,fn,shape", CASES, ids=[c[0] for c in CASES])
def test_hessians_against_differences_of_the_tapes_gradient(name, fn, shape):
    a = _operand(name, shape)
    h = compiler.hessian(fn)(a)
    size = a.size
    expected = np.array([_differences(lambda x, i=i: _taped(fn, x).ravel()[i], a).ravel()
                         for i in range(size)])
    np.testing.assert_allclose(np.reshape(h, (size, size)), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,fn,shape", CASES, ids=[c[0] for c in CASES])
def test_float32_gradients(name, fn, shape):
    a = _operand(name, shape)
    g = compiler.grad(fn)(a.astype(np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, _differences(fn, a), rtol=2e-4, atol=2e-4)


def _all(a, b, sym):
    w, v = np.linalg.eigh(sym)
    wu, vu = np.linalg.eigh(sym, UPLO="U")
    u, s, vt = np.linalg.svd(a)
    ur, sr, vtr = np.linalg.svd(b, full_matrices=False)
    q, r = np.linalg.qr(a)
    qc, rc = np.linalg.qr(a, mode="complete")
    qw, rw = np.linalg.qr(b)
    return (w, v, wu, vu, np.linalg.eigvalsh(sym), np.linalg.eigvalsh(sym, "U"), u, s, vt,
            ur, sr, vtr, np.linalg.svd(b, compute_uv=False), q, r, qc, rc, qw, rw,
            np.linalg.qr(b, mode="r"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_values_are_numpys_to_the_last_bit(backend, dtype):
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(s).astype(dtype) for s in ((5, 3), (3, 4), (4, 4))]
    for got, expected in zip(compiler.jit(_all, backend=backend)(*args), _all(*args),
                             strict=True):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def _eigh_tuple(a):
    return np.linalg.eigh(a)


def test_int_operands_are_float64():
    a = np.array([[2, 1], [1, 3]])
    w, v = compiler.jit(_eigh_tuple)(a)
    np.testing.assert_array_equal(w, np.linalg.eigh(a)[0])


def _full_u(a):
    u, s, vt = np.linalg.svd(a)
    return np.sum(u * u * 2.0)


def _full_vt(a):
    u, s, vt = np.linalg.svd(a)
    return np.sum(vt[:2] ** 2)


def _complete_q(a):
    q, r = np.linalg.qr(a, mode="complete")
    return np.sum(q[:, 0] ** 2)


def _wide_qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(r ** 2)


@pytest.mark.parametrize("fn,shape,hint", [
    (_full_u, (4, 3), "full_matrices=False"), (_full_vt, (2, 3), "full_matrices=False"),
    (_complete_q, (4, 2), "mode='reduced'"), (_wide_qr, (2, 3), "a.T")],
    ids=["svd_full_u", "svd_full_vt", "qr_complete_q", "qr_wide"])
def test_derivatives_that_are_not_unique_are_refused_at_the_users_line(fn, shape, hint):
    a = _operand("refused", shape)
    compiler.jit(fn)(a)  # the values compile
    for differentiate in (lambda: compiler.grad(fn)(a),
                          lambda: compiler.jvp(fn, (a,), (a,))):
        with pytest.raises(AdliteSyntaxError) as info:
            differentiate()
        assert info.value.filename == __file__
        assert "np.linalg" in info.value.source_line and hint in info.value.hint


def test_full_matrices_singular_values_still_differentiate():
    def singular_values(a):
        u, s, vt = np.linalg.svd(a)
        return np.sum(s ** 2)

    a = _operand("full", (4, 3))
    np.testing.assert_allclose(compiler.grad(singular_values)(a), 2 * a, rtol=1e-12)


def _eigenvalues(a):
    return np.linalg.eigh(a)[0]


def _eigenvalues_only(a):
    return np.linalg.eigvalsh(a)


def _singular_values(a):
    return np.linalg.svd(a)[1]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_eigenvalues, _eigenvalues_only, _singular_values],
                         ids=["eigh", "eigvalsh", "svd"])
def test_no_convergence_raises_numpys_linalg_error(backend, fn):
    a = np.full((3, 3), np.nan)
    with pytest.raises(np.linalg.LinAlgError) as expected:
        fn(a)
    with pytest.raises(np.linalg.LinAlgError, match=str(expected.value)):
        compiler.jit(fn, backend=backend)(a)


def test_native_code_without_numpys_openblas_is_refused(monkeypatch):
    monkeypatch.setattr(llvm_decompositions, "blas", lambda: None)

    def fn(a):
        return np.linalg.svd(a)[1] * 1.5

    with pytest.raises(NotImplementedError, match="backend='python'"):
        compiler.jit(fn, backend="llvm")(np.eye(2))


def test_bad_shapes_are_numpys_errors_at_the_users_line():
    def fn(a):
        return np.linalg.eigh(a)[0]

    with pytest.raises(AdliteSyntaxError, match="must be square") as info:
        compiler.jit(fn)(np.ones((2, 3)))
    assert info.value.filename == __file__


# ---- norm with ord --------------------------------------------------------------------------

VECTOR_ORDS = [np.inf, -np.inf, 0, 1, 2, 3, 0.5, -1.5]
MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


def _norms(x, v, m):
    out = [np.linalg.norm(v, o) for o in VECTOR_ORDS]
    out += [np.linalg.norm(x, o, axis=1) for o in VECTOR_ORDS]
    out += [np.linalg.norm(x, o, axis=0, keepdims=True) for o in VECTOR_ORDS]
    out += [np.linalg.norm(m, o) for o in MATRIX_ORDS]
    out += [np.linalg.norm(m, o, axis=(1, 0)) for o in MATRIX_ORDS]
    out += [np.linalg.norm(x, o, axis=(2, 0), keepdims=True) for o in ["fro", 1, -np.inf]]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_norm_with_ord_is_numpys(backend, dtype):
    rng = np.random.default_rng(11)
    x, v, m = (rng.standard_normal(s).astype(dtype) for s in ((3, 4, 2), (5,), (3, 4)))
    v[1] = 0.0
    with np.errstate(divide="ignore"):  # 0 ** -1.5
        expected_norms = _norms(x, v, m)
    for got, expected in zip(compiler.jit(_norms, backend=backend)(x, v, m), expected_norms,
                             strict=True):
        assert np.shape(got) == np.shape(expected)
        if np.ndim(expected):
            assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=4e-7 if dtype == np.float32 else 1e-15)


@pytest.mark.parametrize("order", [np.inf, -np.inf, 1, 3, 0.5, "fro", "nuc", 2, -2, 1, -1],
                         ids=str)
def test_norm_with_ord_gradients_against_differences(order):
    shape = (5,) if order == 0.5 or order == 3 else (3, 4)
    a = _operand(f"norm{order}", shape) + 2.0

    def fn(x):
        return np.linalg.norm(x, order) * 1.0

    np.testing.assert_allclose(compiler.grad(fn)(a), _differences(fn, a), atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("order,shape,message", [
    ("fro", (3,), "Invalid norm order 'fro' for vectors"),
    (3, (3, 3), "Invalid norm order for matrices."),
    (1, (2, 2, 2), "Improper number of dimensions to norm.")], ids=["fro", "3", "3d"])
def test_norm_with_a_bad_ord_is_numpys_error_at_the_users_line(order, shape, message):
    def fn(x):
        return np.linalg.norm(x, order)

    with pytest.raises(ValueError, match=message):
        fn(np.ones(shape))
    with pytest.raises(AdliteSyntaxError, match=message) as info:
        compiler.jit(fn)(np.ones(shape))
    assert info.value.filename == __file__


# ---- lstsq, pinv, cond, matrix_rank -------------------------------------------------------------

def _lstsq_all(a, b, c, d):
    return np.linalg.lstsq(a, b) + np.linalg.lstsq(a, c, rcond=1e-3) + np.linalg.lstsq(c.T, d)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lstsq_is_numpys_to_the_last_bit(backend, dtype):
    rng = np.random.default_rng(8)
    args = [rng.standard_normal(s).astype(dtype) for s in ((5, 3), (5,), (5, 2), (2,))]
    for got, expected in zip(compiler.jit(_lstsq_all, backend=backend)(*args),
                             _lstsq_all(*args), strict=True):
        assert np.shape(got) == np.shape(expected)
        if np.ndim(expected):  # numpy's rank is an np.int32, compiled ints are Python ints
            assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def _residuals(a, b):
    return np.linalg.lstsq(a, b)[1]


def _solution_and_rank(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b)
    return x, rank


@pytest.mark.parametrize("backend", BACKENDS)
def test_lstsq_residuals_of_a_rank_deficient_matrix_raise_where_numpy_returns_nothing(backend):
    a = _operand("deficient", (5, 3))
    a[:, 2] = a[:, 0]
    b = np.arange(5.0)
    assert np.linalg.lstsq(a, b)[1].shape == (0,)
    with pytest.raises(np.linalg.LinAlgError, match="rank < n"):
        compiler.jit(_residuals, backend=backend)(a, b)
    x, rank = compiler.jit(_solution_and_rank, backend=backend)(a, b)  # unread: no error
    np.testing.assert_array_equal(x, np.linalg.lstsq(a, b)[0])
    assert rank == 2


def _lstsq_loss(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b)
    return np.sum(np.sin(x)) + np.sum(residuals) * 0.7 + np.sum(s ** 2) * 0.3


def _lstsq_wide_loss(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b)
    return np.sum(np.sin(s)) + rank


LSTSQ = [("tall", _lstsq_loss, (5, 3), (5,)), ("tall_columns", _lstsq_loss, (5, 3), (5, 2)),
         ("square", _lstsq_loss, (3, 3), (3, 2)), ("wide_s", _lstsq_wide_loss, (3, 5), (3,))]


def _taped2(fn, a, b):
    ta, tb = tensor(a, requires_grad=True), tensor(b, requires_grad=True)
    fn(ta, tb).backward()
    return ta.grad.data, (np.zeros_like(b) if tb.grad is None else tb.grad.data)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,fn,a_shape,b_shape", LSTSQ, ids=[c[0] for c in LSTSQ])
def test_lstsq_derivatives(backend, name, fn, a_shape, b_shape):
    a, b = _operand(name, a_shape), _operand(name + "b", b_shape)
    ga, gb = compiler.grad(fn, wrt=(0, 1), backend=backend)(a, b)
    np.testing.assert_allclose(ga, _differences(lambda x: fn(x, b), a), atol=1e-7, rtol=1e-7)
    np.testing.assert_allclose(gb, _differences(lambda y: fn(a, y), b), atol=1e-7, rtol=1e-7)
    ta, tb = _taped2(fn, a, b)
    np.testing.assert_allclose(ga, ta, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gb, tb, rtol=1e-10, atol=1e-12)
    da, db = np.ones(a_shape), np.linspace(-1.0, 1.0, b.size).reshape(b_shape)
    _, tangent = compiler.jvp(fn, (a, b), (da, db))
    eps = 1e-6
    expected = (fn(a + eps * da, b + eps * db) - fn(a - eps * da, b - eps * db)) / (2 * eps)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-7)
    h = compiler.hessian(fn)(a, b)
    size = a.size
    rows = [_differences(lambda x, i=i: _taped2(fn, x, b)[0].ravel()[i], a).ravel()
            for i in range(size)]
    np.testing.assert_allclose(np.reshape(h, (size, size)), np.array(rows), rtol=1e-6,
                               atol=1e-6)


def _wide_solution(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0])


def test_lstsq_solution_of_a_wide_matrix_is_not_differentiated():
    with pytest.raises(AdliteSyntaxError, match="rows >= columns") as info:
        compiler.grad(_wide_solution)(_operand("wide", (2, 3)), np.ones(2))
    assert "pinv" in info.value.hint


def _spectral(a, b, c):
    return (np.linalg.pinv(a), np.linalg.pinv(b, rtol=None), np.linalg.pinv(c, 1e-3),
            np.linalg.cond(a), np.linalg.cond(b, -2), np.linalg.cond(np.zeros((2, 2))),
            np.linalg.matrix_rank(a), np.linalg.matrix_rank(c), np.linalg.matrix_rank(b[0]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pinv_cond_matrix_rank_are_numpys(backend, dtype):
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((4, 3)).astype(dtype), rng.standard_normal((2, 5)).astype(dtype)
    c = np.outer(rng.standard_normal(3), rng.standard_normal(3)).astype(dtype)
    with np.errstate(all="ignore"):
        expected = _spectral(a, b, c)
    for got, want in zip(compiler.jit(_spectral, backend=backend)(a, b, c), expected,
                         strict=True):
        assert got == pytest.approx(want, rel=0, abs=0)


def _pinv_cond(a):
    return np.sum(np.sin(np.linalg.pinv(a))) + np.linalg.cond(a) + np.linalg.norm(a, -2)


def test_pinv_cond_derivatives_against_differences_and_the_tape():
    a = _operand("pinv", (4, 3))
    g = compiler.grad(_pinv_cond)(a)
    np.testing.assert_allclose(g, _differences(_pinv_cond, a), atol=1e-7, rtol=1e-7)
    np.testing.assert_allclose(g, _taped(_pinv_cond, a), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("order", [np.inf, -np.inf, 0, 1, 3, -1.5, "fro", "nuc", 2, -2],
                         ids=str)
def test_norm_with_ord_on_the_tape_is_numpys(order):
    x = _operand(f"tape{order}", (3, 4))
    matrix = isinstance(order, str) or order in (2, -2)
    axis = (1, 0) if matrix else 1
    got = np.linalg.norm(tensor(x), order, axis=axis, keepdims=True)
    np.testing.assert_allclose(got.data, np.linalg.norm(x, order, axis=axis, keepdims=True),
                               rtol=1e-15)
