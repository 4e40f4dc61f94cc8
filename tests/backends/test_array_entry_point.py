"""The generated entry point of array code (pywrapper): a call it takes runs the native code
directly; every other call (another dtype, shape or memory layout, a value that is not an
array, another argument count, keywords, a scalar of another type) behaves as Python and
numpy do, through the Python layers. Results are new arrays at every call, run-time errors
raise Python's exceptions, and calls from several threads are independent."""

import threading

import numpy as np
import pytest

from adlite.compiler import grad, jit, value_and_grad
from adlite.compiler.backends.llvm.lower import lower_module, symbol_name
from adlite.compiler.backends.llvm.pywrapper import add_python_wrapper
from adlite.compiler.ir.core import F64, I64, Type

X = np.linspace(0.1, 1.0, 10)
W = np.linspace(-1.0, 1.0, 10)


def sum_sq(x):
    return np.sum(x * x)


def twice(x):
    return x * 2.0


def fma(a, b, c):
    return a * b + c


def scaled(x, k):
    return k * 2, np.sum(x) * k


def weighted(x):
    return np.sum(W * x)


HEAD = 3


def head_weighted(x):
    return np.sum(W[:HEAD] * x[:HEAD]) + np.sum(x)


def increment(x):
    x += 1.0
    return np.sum(x)


def same(x):
    return x


def checked(x):
    if not np.all(x > 0.0):
        raise ValueError("x must be positive")
    return np.sum(np.log(x))


def pick(x, i):
    return x[i]


def long_sum(x, n):
    s = 0.0
    for _ in range(n):
        s = s + np.sum(np.sin(x))
    return s


def compiled(fn, *args):
    """`jit(fn)` after a first call with `args` (the signature its entry point takes)."""
    f = jit(fn)
    f(*args)
    return f


def test_the_entry_point_takes_the_compiled_signature():
    f = compiled(sum_sq, X)
    assert f(X) == sum_sq(X)
    assert f(X + 1.0) == sum_sq(X + 1.0)
    assert f.compile_count == 1


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_another_dtype_runs_its_own_specialisation(dtype):
    f = compiled(twice, X)
    x = (X * 10).astype(dtype)
    result = f(x)
    assert result.dtype == twice(x).dtype
    np.testing.assert_array_equal(result, twice(x))


def test_another_shape_runs_its_own_specialisation():
    for x in (np.linspace(0.0, 1.0, 20), X[:5].copy(), X.reshape(10, 1), X.reshape(2, 5)):
        result = compiled(twice, X)(x)
        assert result.shape == x.shape
        np.testing.assert_array_equal(result, twice(x))


@pytest.mark.parametrize("layout", ["strided", "reversed", "fortran", "unaligned"])
def test_arrays_that_are_not_contiguous_are_read_as_numpy_reads_them(layout):
    base = np.linspace(0.5, 2.0, 20)
    if layout == "strided":
        x, f = base[::2], compiled(twice, X)
    elif layout == "reversed":
        x, f = X[::-1], compiled(twice, X)
    elif layout == "fortran":
        x, f = np.asfortranarray(base.reshape(4, 5)), compiled(twice, base.reshape(4, 5))
    else:
        raw = np.zeros(10 * 8 + 1, dtype=np.uint8)[1:]
        x = raw.view(np.float64)
        x[:] = X
        assert not x.flags.aligned
        f = compiled(twice, X)
    np.testing.assert_array_equal(f(x), twice(x))


def test_a_non_native_byte_order_is_refused_as_before():
    f = compiled(twice, X)
    with pytest.raises(TypeError, match="array of >f8"):
        f(X.astype(">f8"))


def test_values_that_are_not_arrays_run_their_own_specialisation():
    f = compiled(sum_sq, X)
    assert f(3.0) == sum_sq(3.0)
    assert f(3) == sum_sq(3)
    assert f(X) == sum_sq(X)


def _python_error(fn, *args, **kwargs) -> str:
    with pytest.raises(TypeError) as error:
        fn(*args, **kwargs)
    return str(error.value)


@pytest.mark.parametrize("args", [(X, X), (), (X, X, X, X)])
def test_a_wrong_argument_count_raises_pythons_type_error(args):
    f = compiled(sum_sq, X)
    g = compiled(fma, X, X, X)
    assert _python_error(f, *args) == _python_error(sum_sq, *args)
    assert _python_error(g, *args) == _python_error(fma, *args)


def test_keyword_calls_bind_as_python_binds_them():
    g = compiled(fma, X, W, X)
    np.testing.assert_array_equal(g(X, c=X, b=W), fma(X, c=X, b=W))
    np.testing.assert_array_equal(g(c=W, a=X, b=X), fma(c=W, a=X, b=X))
    assert _python_error(g, X, W, a=X) == _python_error(fma, X, W, a=X)
    np.testing.assert_array_equal(g(X, W, X), fma(X, W, X))


def test_scalars_of_another_type_run_their_own_specialisation():
    f = compiled(scaled, X, 3.0)
    for k in (3.0, 3, True, np.float64(3.0), np.int64(3)):
        got, want = f(X, k), scaled(X, k)
        assert type(got[0]) is type(want[0]) or isinstance(k, np.generic)
        assert got == pytest.approx(want)
    assert type(f(X, 3)[0]) is int and type(f(X, True)[0]) is int


def test_results_are_new_arrays_at_every_call():
    f = compiled(twice, X)
    g = compiled(fma, X, X, X)
    first, second = f(X), f(X)
    assert first is not second and not np.shares_memory(first, second)
    assert not np.shares_memory(first, X)
    first[:] = -1.0
    np.testing.assert_array_equal(second, twice(X))
    np.testing.assert_array_equal(f(X), twice(X))
    a, b = g(X, W, X), g(X, W, X)
    assert not np.shares_memory(a, b)
    gradient = grad(sum_sq)
    d1, d2 = gradient(X), gradient(X)
    assert not np.shares_memory(d1, d2) and not np.shares_memory(d1, X)
    value, d3 = value_and_grad(sum_sq)(X)
    assert value == pytest.approx(sum_sq(X))
    np.testing.assert_allclose(d3, 2.0 * X)


def test_writes_into_arguments_and_returned_arguments_keep_numpys_semantics():
    f = compiled(increment, X.copy())
    x, y = X.copy(), X.copy()
    assert f(x) == pytest.approx(increment(y))
    np.testing.assert_allclose(x, y)
    g = compiled(same, X)
    assert g(X) is X


def test_arrays_read_from_outside_are_read_at_every_call():
    f = compiled(weighted, X)
    assert f(X) == pytest.approx(weighted(X))
    W[:] = W[::-1].copy()
    try:
        assert f(X) == pytest.approx(weighted(X))
    finally:
        W[:] = W[::-1].copy()


def test_rebound_and_guarded_outside_values_are_followed():
    global W, HEAD
    f = compiled(head_weighted, X)
    saved = W, HEAD
    try:
        for w, head in ((W + 1.0, HEAD), (W, 5), (np.linspace(0.0, 1.0, 12), 7)):
            W, HEAD = w, head
            assert f(X) == pytest.approx(head_weighted(X))
            x = np.linspace(1.0, 2.0, 20)
            assert f(x) == pytest.approx(head_weighted(x))
    finally:
        W, HEAD = saved
    assert f(X) == pytest.approx(head_weighted(X))


def test_run_time_checks_raise_pythons_exceptions():
    f = compiled(checked, X)
    bad = X - 0.5
    with pytest.raises(ValueError) as python:
        checked(bad)
    with pytest.raises(ValueError, match=f"^{python.value}$"):
        f(bad)
    assert f(X) == pytest.approx(checked(X))
    p = compiled(pick, X, 3)
    with pytest.raises(IndexError):
        pick(X, 10)
    with pytest.raises(IndexError):
        p(X, 10)
    assert p(X, -1) == pick(X, -1)


def test_calls_from_several_threads_are_independent():
    f = compiled(fma, X, X, X)
    inputs = [(X * i, W + i, X - i) for i in range(8)]
    expected = [fma(*args) for args in inputs]
    wrong = []

    def work(k: int) -> None:
        for _ in range(300):
            if not np.array_equal(f(*inputs[k]), expected[k]):
                wrong.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_array_code_releases_the_gil_in_both_entry_points():
    """Other threads run while array code runs (measured in test_native_threads)."""
    types = [Type("f64", (10,)), I64]
    graph, _ = jit(long_sum).ir_for(types)
    name = symbol_name("long_sum", "test")
    module = lower_module(graph, name)
    add_python_wrapper(module, name, types, [F64])
    body = str(module.globals[f"entry_{name}"])
    assert "PyEval_SaveThread" in body and "PyEval_RestoreThread" in body
    for prefix in ("py_", "pyx_"):
        assert f"@\"entry_{name}\"(" in str(module.globals[prefix + name])
