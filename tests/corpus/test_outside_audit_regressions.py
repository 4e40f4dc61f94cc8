"""Wrong results that suites written by others found (issue 21), each a regression test.

Expected values are written out by hand (the mathematics of each case), by Python itself, or
by central finite differences of numpy's own function; never by the code under test.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

try:
    import scipy.linalg
except ImportError:  # the scipy extra is not installed: those cases are skipped
    scipy = None

from adlite.compiler import AdliteSyntaxError, grad, jit, jvp, vmap
from adlite.runtime import tensor

from ..support.gradients import central_differences

THIS_FILE = re.escape(os.path.basename(__file__))  # errors name the user's file

BACKENDS = ["llvm", "python"]


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


# ---- x ** 0: the constant 1, whose derivative is 0 also at x = 0 ----------------------------

def power_zero(x):
    return x ** 0.0


def np_power_zero(x):
    return np.sum(np.power(x, 0.0))


def power_one(x):
    return x ** 1.0


def power_two(x):
    return x ** 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_zeroth_power_has_derivative_zero_at_zero_to_every_order(backend):
    assert grad(power_zero, backend=backend)(0.0) == 0.0
    assert grad(grad(power_zero, backend=backend), backend=backend)(0.0) == 0.0
    assert grad(power_zero, backend=backend)(-3.0) == 0.0
    np.testing.assert_array_equal(grad(np_power_zero, backend=backend)(np.zeros(3)),
                                  np.zeros(3))
    assert jvp(power_zero, (0.0,), (1.0,))[1] == 0.0
    # the neighbours: x**1 is linear (second derivative 0 at 0), x**2 has 2x and 2
    assert grad(power_one, backend=backend)(0.0) == 1.0
    assert grad(grad(power_one, backend=backend), backend=backend)(0.0) == 0.0
    assert grad(power_two, backend=backend)(0.0) == 0.0
    assert grad(grad(power_two, backend=backend), backend=backend)(0.0) == 2.0
    assert grad(power_two, backend=backend)(1.5) == pytest.approx(_central(power_two, 1.5))


def test_the_tape_differentiates_a_zeroth_power_at_zero():
    t = tensor([0.0, 2.0], requires_grad=True)
    np.sum(t ** 0.0).backward()
    np.testing.assert_array_equal(t.grad.data, [0.0, 0.0])


# ---- std of one element: the constant 0 ------------------------------------------------------

def std_all(x):
    return np.std(x)


def std_rows(x):
    return np.sum(np.std(x, axis=1))


def std_kept(x):
    return np.sum(np.std(x, axis=1, keepdims=True) * 3.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_std_of_one_element_has_derivative_zero(backend):
    assert grad(std_all, backend=backend)(3.0) == 0.0
    np.testing.assert_array_equal(grad(std_all, backend=backend)(np.array([2.0])), [0.0])
    np.testing.assert_array_equal(grad(std_rows, backend=backend)(np.ones((2, 1))),
                                  np.zeros((2, 1)))
    np.testing.assert_array_equal(grad(std_kept, backend=backend)(np.ones((2, 1))),
                                  np.zeros((2, 1)))
    x = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 2.0]])  # the neighbour: more than one element
    expected = np.array([[_central(lambda h, i=i, j=j: np.sum(np.std(
        x + h * np.eye(1, 6, 3 * i + j).reshape(2, 3), axis=1)), 0.0)
        for j in range(3)] for i in range(2)])
    np.testing.assert_allclose(grad(std_rows, backend=backend)(x), expected, rtol=1e-6)


def test_the_tape_differentiates_the_std_of_one_element():
    t = tensor([2.0], requires_grad=True)
    np.std(t).backward()
    np.testing.assert_array_equal(t.grad.data, [0.0])


# ---- lists are lists to isinstance -------------------------------------------------------------

def is_list(xs):
    return isinstance(xs, list)


def is_tuple(xs):
    return isinstance(xs, tuple)


def built_list_is_list(x):
    ys = [x, 2.0 * x]
    return isinstance(ys, list) and not isinstance(ys, tuple)


def asserts_a_list(xs):
    assert isinstance(xs, list)
    return xs[0] * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_isinstance_tells_lists_from_tuples_as_python_does(backend):
    for fn, arg in ((is_list, [1.0]), (is_list, (1.0,)), (is_tuple, [1.0]),
                    (is_tuple, (1.0,)), (built_list_is_list, 1.0)):
        assert jit(fn, backend=backend)(arg) is fn(arg), (fn.__name__, arg)
    assert jit(asserts_a_list, backend=backend)([1.5, 2.0]) == 3.0
    assert grad(asserts_a_list, backend=backend)([1.5, 2.0])[0] == 2.0


# ---- range() takes ints only; ints beyond int64 are refused, never wrapped --------------------

N_FLOAT = 3.0
N_HUGE = 2**64 + 3


def range_of_global_float(x):
    s = 0.0
    for _ in range(N_FLOAT):
        s = s + x
    return s


def range_of_argument(x, n):
    s = 0.0
    for _ in range(n):
        s = s + x
    return s


def range_of_huge_global(x):
    s = 0.0
    for i in range(N_HUGE):
        s = s + x
        if i > 5:
            break
    return s


def huge_literal(x):
    return x + 18446744073709551619


def closed_over_huge():
    n = 2**64 + 3

    def f(x):
        return x * n
    return f


def test_range_of_a_float_is_refused_where_python_raises():
    with pytest.raises(TypeError):
        range_of_global_float(1.0)  # Python's own behaviour
    with pytest.raises(AdliteSyntaxError, match=THIS_FILE + r":\d+:.*range\(\) "
                                                r"arguments must be integers, got f64"):
        jit(range_of_global_float)(1.0)
    with pytest.raises(AdliteSyntaxError, match="range.. arguments must be integers"):
        jit(range_of_argument)(1.0, 3.0)
    assert jit(range_of_argument)(1.5, 3) == 4.5
    assert jit(range_of_argument)(1.5, True) == 1.5  # bools are ints to range()


@pytest.mark.parametrize("fn", [range_of_huge_global, huge_literal, closed_over_huge()],
                         ids=["loop_bound", "literal", "closed_over"])
def test_ints_beyond_int64_are_refused_naming_the_line(fn):
    fn(1.0)  # Python computes with them
    with pytest.raises(AdliteSyntaxError, match=THIS_FILE + r":\d+:\d+: the int "
                                                r"18446744073709551619 does not fit in 64 bits"):
        jit(fn)(1.0)


def test_an_int_argument_beyond_int64_raises_overflow_error():
    with pytest.raises(OverflowError):
        jit(range_of_argument)(1.0, 2**64 + 3)


# ---- np.where whose two branches are one value keeps the broadcast against the condition ------

def where_same_array(x, s):
    return np.sum(np.where(x[:, None] > 0, x * s, x * s))


def where_same_number(x, s):
    return np.sum(np.where(x > 0, s, s))


def where_equal_after_cse(x, s):
    return np.sum(np.where(x > 0, s * 1.0, s))


def where_same_call(x, s):
    return np.sum(np.where(x > 0, np.exp(s), np.exp(s)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, value, dx, ds", [
    # sum over a 3x3 grid of x_i s: 3 s sum(x); d/dx_i = 3 s; d/ds = 3 sum(x)
    (where_same_array, 3.0, [1.5, 1.5, 1.5], 6.0),
    (where_same_number, 1.5, [0.0, 0.0, 0.0], 3.0),  # 3 s
    (where_equal_after_cse, 1.5, [0.0, 0.0, 0.0], 3.0),
    (where_same_call, 3 * np.exp(0.5), [0.0, 0.0, 0.0], 3 * np.exp(0.5)),
], ids=["array", "number", "equal_after_cse", "same_call"])
def test_where_with_one_value_on_both_sides(backend, fn, value, dx, ds):
    x, s = np.array([1.0, -2.0, 3.0]), 0.5
    assert fn(x, s) == pytest.approx(value)  # numpy agrees with the hand value
    assert jit(fn, backend=backend)(x, s) == pytest.approx(value, rel=1e-15)
    gx, gs = grad(fn, wrt=(0, 1), backend=backend)(x, s)
    np.testing.assert_allclose(gx, dx, rtol=1e-15)
    assert gs == pytest.approx(ds, rel=1e-15)


# ---- a bool byte is true when nonzero, as numpy reads it ---------------------------------------

MASK_BYTES = np.array([0, 1, 2, 128, 254, 255, 4, 0], dtype=np.uint8)


def masked_sum(m, x):
    return np.sum(np.where(m, x, 0.0))


def mask_count(m):
    return np.sum(m)


def mask_tests(m):
    return np.any(m), np.all(m[1:7])


@pytest.mark.parametrize("backend", BACKENDS)
def test_bool_arrays_read_every_nonzero_byte_as_true(backend):
    mask, x = MASK_BYTES.view(np.bool_), np.arange(8.0)
    assert int(np.sum(mask)) == 6  # numpy's reading
    assert jit(mask_count, backend=backend)(mask) == 6
    assert jit(masked_sum, backend=backend)(mask, x) == 21.0  # 1 + 2 + ... + 6
    assert jit(mask_tests, backend=backend)(mask) == (True, True)
    np.testing.assert_array_equal(grad(masked_sum, wrt=1, backend=backend)(mask, x),
                                  [0, 1, 1, 1, 1, 1, 1, 0])


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_an_aot_kernel_reads_a_c_callers_mask_bytes_as_numpy(tmp_path):
    from adlite.compiler.aot import compile_aot
    from adlite.compiler.ir.core import Type

    build = tmp_path / "build"
    compile_aot(masked_sum, build, [Type("bool", (8,)), Type("f64", (8,))])
    program = tmp_path / "program"
    (tmp_path / "program.c").write_text(
        '#include <stdio.h>\n#include "masked_sum.h"\n'
        "int main(void) {\n"
        "    const uint8_t m[8] = {0, 1, 2, 128, 254, 255, 4, 0};\n"
        "    const double x[8] = {0, 1, 2, 3, 4, 5, 6, 7};\n"
        "    double out = -1;\n"
        "    int32_t status = adlite_masked_sum(m, 8, x, 8, &out);\n"
        '    printf("%d %.1f\\n", (int)status, out);\n'
        "    return 0;\n}\n")
    subprocess.run(["cc", f"-I{build}", str(tmp_path / "program.c"), f"-L{build}",
                    "-lmasked_sum", f"-Wl,-rpath,{build}", "-o", str(program)], check=True)
    assert subprocess.run([str(program)], capture_output=True, text=True,
                          check=True).stdout == "0 21.0\n"


# ---- decompositions that read one triangle: the derivative of the function numpy computes ----

def _not_symmetric():
    rng = np.random.default_rng(0)
    b = rng.standard_normal((3, 3))
    a = b @ b.T + 3 * np.eye(3)
    a[0, 2] += 0.7  # the triangle numpy does not read differs from the one it reads
    a[2, 1] -= 0.3
    return a, rng.standard_normal((3, 3)), rng.standard_normal(3)


A_NS, W_NS, B_NS = _not_symmetric()


def chol_numpy(a):
    return np.sum(np.linalg.cholesky(a) * W_NS)


def chol_scipy_lower(a):
    return np.sum(scipy.linalg.cholesky(a, lower=True) * W_NS)


def chol_scipy_upper(a):
    return np.sum(scipy.linalg.cholesky(a, lower=False) * W_NS)


def eigvalsh_lower(a):
    return np.sum(np.linalg.eigvalsh(a) * W_NS[0])


def eigvalsh_upper(a):
    return np.sum(np.linalg.eigvalsh(a, UPLO="U") * W_NS[0])


def eigh_values(a):
    return np.sum(np.linalg.eigh(a)[0] * W_NS[1])


def triangular_solve(a):
    return np.sum(scipy.linalg.solve_triangular(a, B_NS, lower=True) * W_NS[2])


def cho_solve_sum(a):
    return np.sum(scipy.linalg.cho_solve(scipy.linalg.cho_factor(a), B_NS) * W_NS[2])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [chol_numpy, chol_scipy_lower, chol_scipy_upper, eigvalsh_lower,
                                eigvalsh_upper, eigh_values, triangular_solve, cho_solve_sum],
                         ids=lambda f: f.__name__)
def test_one_triangle_decompositions_differentiate_what_numpy_computes(fn, backend):
    if scipy is None and fn.__name__ not in ("chol_numpy", "eigvalsh_lower", "eigvalsh_upper",
                                             "eigh_values"):
        pytest.skip("scipy is not installed")
    expected = central_differences(fn, [A_NS])[0]  # of numpy's / scipy's function
    gradient = grad(fn, backend=backend)(A_NS)
    np.testing.assert_allclose(gradient, expected, atol=1e-7)
    direction = np.arange(9.0).reshape(3, 3) - 4.0
    assert jvp(fn, (A_NS,), (direction,))[1] == pytest.approx(np.sum(expected * direction),
                                                              abs=1e-6)


def test_cholesky_reads_only_the_lower_triangle_on_the_tape_too():
    expected = central_differences(chol_numpy, [A_NS])[0]
    assert np.all(np.triu(expected, 1) == 0.0)  # numpy never reads those entries
    t = tensor(A_NS, requires_grad=True)
    chol_numpy(t).backward()
    np.testing.assert_allclose(t.grad.data, expected, atol=1e-7)


# ---- vmap of a checkpointed gradient of a loop with a run-time trip count ---------------------

def damped(p, n):
    x = 1.0
    for _ in range(n):
        x = x * np.cos(p) + 0.1 * np.sin(x)
    return x


def damped_while(p, n):
    x, k = 1.0, 0
    while k < n:
        x = x * np.cos(p) + 0.1 * np.sin(x)
        k = k + 1
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("checkpoint", [None, 5, 1, False], ids=["auto", "every5", "every1",
                                                                   "unbounded"])
@pytest.mark.parametrize("fn", [damped, damped_while], ids=["for", "while"])
def test_vmap_of_a_checkpointed_gradient_is_the_loop_over_examples(fn, checkpoint, backend):
    options = {} if checkpoint is None else {"checkpoint": checkpoint}
    g = grad(fn, **options)
    ps, ns = np.array([0.3, 0.5, 0.7, 1.1]), np.array([10, 0, 23, 4])
    # batched over the parameter, one trip count for all; then over both
    shared = vmap(g, in_axes=(0, None), backend=backend)(ps, 25)
    each = vmap(g, in_axes=(0, 0), backend=backend)(ps, ns)
    for got, trips in ((shared, [25] * 4), (each, ns)):
        pairs = list(zip(ps, trips, strict=True))
        expected = [_central(lambda q, n=int(n): fn(q, n), p) for p, n in pairs]
        np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-9)
        unbounded = [grad(fn, checkpoint=False, backend=backend)(p, int(n))
                     for p, n in pairs]
        np.testing.assert_array_equal(got, unbounded)  # bit for bit


# ---- batched linear algebra (refused with the truth once; now computed as numpy does) ---------

def batched_inv(a):
    return np.sum(np.linalg.inv(a))


def batched_solve(a, b):
    return np.sum(np.linalg.solve(a, b[..., None]))


def batched_cholesky(a):
    return np.sum(np.linalg.cholesky(a))


def inverses_in_a_loop(a):
    total = 0.0
    for k in range(a.shape[0]):
        total = total + np.sum(np.linalg.inv(a[k]))
    return total


def test_batched_linear_algebra_computes_numpys_values_and_the_loop_agrees():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 3, 3)) + 3 * np.eye(3)  # well conditioned
    spd = a @ np.swapaxes(a, -1, -2)  # positive definite
    b = rng.standard_normal((4, 3))
    for fn, args in ((batched_inv, (a,)), (batched_solve, (a, b)), (batched_cholesky, (spd,))):
        assert jit(fn)(*args) == pytest.approx(fn(*args), rel=1e-12)
    assert jit(inverses_in_a_loop)(a) == pytest.approx(batched_inv(a), rel=1e-12)


# ---- a lambda is an entry point on both backends ------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lambda_entry_point_compiles(backend):
    f = lambda x: x * x * 3.0  # noqa: E731
    assert grad(f, backend=backend)(2.0) == 12.0
    assert jit(f, backend=backend)(2.0) == 12.0


# ---- the tape takes numpy's keyword names and forms, or refuses naming the function -----------

def _weighted(fn, x):
    """sum(fn(v) * w), w = 1, 2, ... in the shape of fn(x): a number every output counts in."""
    shape = np.shape(fn(x))
    weights = np.arange(1.0, 1.0 + np.prod(shape, dtype=int)).reshape(shape)
    return lambda v: np.sum(fn(v) * weights)


OTHER = np.linspace(-1.0, 1.0, 6).reshape(2, 3)


@pytest.mark.parametrize("fn", [
    lambda a: np.swapaxes(a, axis1=0, axis2=1),
    lambda a: np.einsum(a, [0, 1], OTHER, [0, 1], [1]),
    lambda a: np.einsum(a, [0, 1], a, [2, 1], [0, 2]),
    lambda a: a.ravel() * a.ravel(),
    lambda a: np.vstack([a, 2.0 * a]),
], ids=["swapaxes_keywords", "einsum_sublists", "einsum_sublists_twice", "ravel_method",
        "vstack"])
def test_the_tape_takes_numpys_keywords_and_forms(fn):
    x = np.arange(6.0).reshape(2, 3) / 7.0
    loss = _weighted(fn, x)
    t = tensor(x, requires_grad=True)
    loss(t).backward()
    np.testing.assert_allclose(t.grad.data, central_differences(loss, [x])[0], rtol=1e-7,
                               atol=1e-9)


def test_the_tape_refuses_what_it_lacks_naming_the_function():
    a = tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    with pytest.raises(TypeError, match=r"numpy.cumsum\(axis=\.\.\., dtype=\.\.\.\) is not "
                                        r"supported on adlite Tensors"):
        np.cumsum(a, axis=1, dtype=np.float64)


# ---- int arrays divide as numpy's: a zero divisor gives 0; numbers raise as Python ------------

def int_divmod(a, b):
    return a // b, a % b


def int_number_divmod(a, b):
    return a // b + a % b


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_array_division_by_zero_gives_zero_as_numpy(backend):
    a, b = np.array([3, -4, 5, -2**63, 7]), np.array([1, 0, 2, -1, 0])
    with np.errstate(divide="ignore", over="ignore"):
        expected = (a // b, a % b)  # numpy: 0 where b == 0 (with a warning), wraps at -2**63
    for got, want in zip(jit(int_divmod, backend=backend)(a, b), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(expected[0], [3, 0, 2, -2**63, 0])
    with pytest.raises(ZeroDivisionError):
        jit(int_number_divmod, backend=backend)(3, 0)


# ---- a reduction of a number along the axes a number has is the number, as numpy's ------------

def sum_number_axis0(x):
    return np.sum(x, axis=0) + np.max(x, axis=-1)


def sum_number_axis1(x):
    return np.sum(x, axis=1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_of_a_number(backend):
    assert sum_number_axis0(2.5) == 5.0
    assert jit(sum_number_axis0, backend=backend)(2.5) == 5.0
    assert grad(sum_number_axis0, backend=backend)(2.5) == 2.0
    with pytest.raises(np.exceptions.AxisError):
        sum_number_axis1(2.5)
    with pytest.raises(AdliteSyntaxError, match="axis 1 is out of bounds for array of "
                                                "dimension 0"):
        jit(sum_number_axis1, backend=backend)(2.5)


# ---- a zero divisor raises where the division runs, not where it is compiled -------------------

def wraps_around(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i % x.shape[0]]
    return s


def divides_by_zero_in_a_branch(x, k):
    if k > 0:
        return x % 0
    return x


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_zero_divisor_raises_only_where_python_runs_it(backend):
    assert jit(wraps_around, backend=backend)(np.zeros(0), 0) == 0.0  # the loop never runs
    assert jit(wraps_around, backend=backend)(np.arange(3.0), 7) == 6.0  # 0+1+2+0+1+2+0
    assert jit(divides_by_zero_in_a_branch, backend=backend)(5, 0) == 5
    with pytest.raises(ZeroDivisionError):
        divides_by_zero_in_a_branch(5, 1)
    with pytest.raises(ZeroDivisionError):
        jit(divides_by_zero_in_a_branch, backend=backend)(5, 1)


# ---- a module-level list rebound shorter: Python's IndexError, at the user's line --------------

SIZES = [1.0, 2.0, 3.0]


def reads_the_third_size(x):
    return x * SIZES[2]


def test_an_outside_list_rebound_shorter_is_an_index_error_at_the_line():
    global SIZES
    try:
        assert jit(reads_the_third_size)(2.0) == 6.0
        SIZES = [1.0]
        with pytest.raises(IndexError):
            reads_the_third_size(2.0)
        with pytest.raises(AdliteSyntaxError, match=THIS_FILE + r":\d+:\d+: IndexError: "
                                                    r"list index 2 out of range"):
            jit(reads_the_third_size)(2.0)
    finally:
        SIZES = [1.0, 2.0, 3.0]


# ---- an AOT kernel checks its output pointers ---------------------------------------------------

def doubled(x):
    return x * 2.0


def total(x):
    return np.sum(x)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_an_aot_kernel_refuses_null_and_aliased_outputs(tmp_path):
    from adlite.compiler.aot import compile_aot
    from adlite.compiler.ir.core import Type
    from adlite.compiler.status import OUTPUT_ARGUMENT

    build = tmp_path / "build"
    for fn in (doubled, total):
        compile_aot(fn, build, [Type("f64", (4,))])
    assert f"{OUTPUT_ARGUMENT}: ValueError: an output pointer is NULL" in \
        (build / "doubled.h").read_text()
    (tmp_path / "program.c").write_text(
        '#include <stdio.h>\n#include "doubled.h"\n#include "total.h"\n'
        "int main(void) {\n"
        "    double x[5] = {1, 2, 3, 4, 5}, y[4], s = 0;\n"
        '    printf("%d ", (int)adlite_doubled(x, 4, y, 4));\n'      # separate: 0
        '    printf("%.1f ", y[3]);\n'
        '    printf("%d ", (int)adlite_doubled(x, 4, x, 4));\n'      # the same memory
        '    printf("%d ", (int)adlite_doubled(x, 4, x + 1, 4));\n'  # overlapping
        '    printf("%d ", (int)adlite_total(x, 4, NULL));\n'        # a NULL scalar output
        '    printf("%d ", (int)adlite_total(x, 4, &s));\n'
        '    printf("%.1f\\n", s);\n'
        "    return 0;\n}\n")
    program = tmp_path / "program"
    subprocess.run(["cc", f"-I{build}", str(tmp_path / "program.c"), f"-L{build}", "-ldoubled",
                    "-ltotal", f"-Wl,-rpath,{build}", "-o", str(program)], check=True)
    out = subprocess.run([str(program)], capture_output=True, text=True, check=True).stdout
    assert out == f"0 8.0 {OUTPUT_ARGUMENT} {OUTPUT_ARGUMENT} {OUTPUT_ARGUMENT} 0 10.0\n"


def picked_sum(x, idx):
    return np.sum(x[idx])


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_an_aot_kernel_reports_an_index_out_of_bounds_as_a_status(tmp_path):
    from adlite.compiler.aot import compile_aot
    from adlite.compiler.ir.core import Type
    from adlite.compiler.status import INDEX

    build = tmp_path / "build"
    compile_aot(picked_sum, build, [Type("f64", (5,)), Type("i64", (3,))])
    (tmp_path / "program.c").write_text(
        '#include <stdio.h>\n#include "picked_sum.h"\n'
        "int main(void) {\n"
        "    const double x[5] = {0, 1, 2, 3, 4};\n"
        "    const int64_t good[3] = {0, 4, -1}, bad[3] = {0, 5, 1};\n"
        "    double s = 0;\n"
        '    printf("%d ", (int)adlite_picked_sum(x, 5, good, 3, &s));\n'
        '    printf("%.1f ", s);\n'
        '    printf("%d\\n", (int)adlite_picked_sum(x, 5, bad, 3, &s));\n'
        "    return 0;\n}\n")
    program = tmp_path / "program"
    subprocess.run(["cc", f"-I{build}", str(tmp_path / "program.c"), f"-L{build}",
                    "-lpicked_sum", f"-Wl,-rpath,{build}", "-o", str(program)], check=True)
    out = subprocess.run([str(program)], capture_output=True, text=True, check=True).stdout
    assert out == f"0 8.0 {INDEX}\n"  # x[0] + x[4] + x[-1]; then index 5 of 5


# ---- beyond the peers: no NaN from the side np.where did not choose -----------------------------

def where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def where_both_sides(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0) * np.where(x < 9.0, 1.0 / (x - 9.0), 2.0))


def where_nested(x):
    return np.sum(np.where(x > 0, np.where(x < 9.0, np.log(9.0 - x) * np.sqrt(x), 0.0), x))


def _selected_branch_gradient(fn, x):
    """Hand derivatives of the branch each element chose (what an `if` per element gives)."""
    if fn is where_sqrt:
        return np.where(x > 0, 0.5 / np.sqrt(np.abs(x) + (x <= 0)), 0.0)
    if fn is where_both_sides:
        a = np.where(x > 0, np.sqrt(np.abs(x)), 0.0)
        da = np.where(x > 0, 0.5 / np.sqrt(np.abs(x) + (x <= 0)), 0.0)
        safe = np.where(x < 9.0, x - 9.0, 1.0)
        b, db = np.where(x < 9.0, 1.0 / safe, 2.0), np.where(x < 9.0, -1.0 / safe ** 2, 0.0)
        return da * b + a * db
    inside = (x > 0) & (x < 9.0)
    s, r = np.sqrt(np.where(inside, x, 1.0)), np.where(inside, 9.0 - x, 1.0)
    return np.where(inside, -s / r + np.log(r) * 0.5 / s, np.where(x > 0, 0.0, 1.0))


WHERE_POINTS = np.array([-3.0, -1.0, 0.0, 4.0, 9.0, 16.0])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy evaluates both sides
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [where_sqrt, where_both_sides, where_nested],
                         ids=lambda f: f.__name__)
def test_where_gives_the_derivative_of_the_chosen_branch_only(fn, backend):
    x = WHERE_POINTS
    expected = _selected_branch_gradient(fn, x)
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(grad(fn, backend=backend)(x), expected, rtol=1e-12, atol=1e-15)
    inside = (x != 0.0) & (x != 9.0)  # finite differences away from the switching points
    differences = np.array([_central(lambda h, i=i: fn(x + h * np.eye(6)[i]), 0.0)
                            for i in range(6)])
    np.testing.assert_allclose(expected[inside], differences[inside], rtol=1e-6, atol=1e-8)
    tangent = np.linspace(0.5, 1.5, 6)
    assert jvp(fn, (x,), (tangent,))[1] == pytest.approx(np.sum(expected * tangent))
    # second order: forward over reverse, against differences of the first derivatives
    hvp = jvp(grad(fn, backend=backend), (x,), (tangent,))[1]
    assert np.all(np.isfinite(hvp))
    gradient = grad(fn, backend=backend)
    away = _central(lambda h: gradient(x + h * tangent), 0.0)
    np.testing.assert_allclose(hvp[inside], away[inside], rtol=1e-5, atol=1e-7)
    if fn is where_sqrt:  # -x**-1.5 / 4 where chosen
        np.testing.assert_allclose(hvp, np.where(x > 0, -0.25 * np.abs(x + (x <= 0)) ** -1.5,
                                                 0.0) * tangent, rtol=1e-12)
    hessian_rows = grad(lambda v: np.sum(gradient(v) * tangent), backend=backend)(x)
    np.testing.assert_allclose(hessian_rows, hvp, rtol=1e-12)  # reverse over reverse


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy evaluates both sides
@pytest.mark.parametrize("fn", [where_sqrt, where_both_sides, where_nested],
                         ids=lambda f: f.__name__)
def test_the_tape_gives_the_derivative_of_the_chosen_branch_only(fn):
    t = tensor(WHERE_POINTS, requires_grad=True)
    fn(t).backward()
    np.testing.assert_allclose(t.grad.data, _selected_branch_gradient(fn, WHERE_POINTS),
                               rtol=1e-12, atol=1e-15)


# ---- deep nests of loops with run-time trip counts: automatic checkpointing stays linear ------

NEST_DEPTH = 7


def _nested_loops_source(depth: int) -> str:
    lines = ["def nested(x, n):", "    s = 0.0"]
    for k in range(depth):
        lines.append("    " * (k + 1) + f"for i{k} in range(n):")
    lines += ["    " * (depth + 1) + "s = s + np.sin(x * s + 0.1)", "    return s"]
    return "\n".join(lines) + "\n"


def test_automatic_checkpointing_of_deep_nests_keeps_the_code_linear(tmp_path):
    import importlib.util

    from adlite.compiler import show
    from adlite.compiler.ir.core import F64, I64

    path = tmp_path / "nest.py"
    path.write_text("import numpy as np\n\n\n" + _nested_loops_source(NEST_DEPTH))
    spec = importlib.util.spec_from_file_location("nest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sizes = {}
    for label, checkpoint in (("auto", None), ("off", False)):
        text = show(module.nested, "ad", [F64, I64], checkpoint=checkpoint)
        sizes[label] = text.count("\n")
    # two checkpointed levels hold their bodies three times each; every level did (3**7)
    assert sizes["auto"] <= 12 * sizes["off"], sizes
    assert grad(module.nested)(0.5, 2) == grad(module.nested, checkpoint=False)(0.5, 2)
