"""Compiled gradients over shapes (), (3,), (2, 3), (1, 3), (3, 1) with broadcasting, against
the eager tape and finite differences, plus second order through `grad(grad)`: every swept row
of the op table (tests/support/op_table.py, through the scalar loss of op_table_harness.py)
and the array programs of tests/support/array_programs.py."""

import zlib

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.runtime import Tensor

from ..support.array_programs import AXIS_CASES, PROGRAMS
from ..support.op_table import SWEPT, sample, sweep, swept_arguments
from ..support.op_table_harness import loss_of

SHAPES = [(), (3,), (2, 3), (1, 3), (3, 1)]
PAIRS = [((), ()), ((3,), ()), ((), (2, 3)), ((3,), (2, 3)), ((1, 3), (3, 1)),
         ((2, 3), (1, 3)), ((3, 1), (3,))]
COMPILED = [r for r in SWEPT if r.compiled]
REDUCTIONS = {"max", "min"}  # of a number: compiled code needs an array


def eager(fn, args):
    ts = [Tensor(a, requires_grad=True) for a in args]
    out = fn(*ts)
    out.backward()
    return [t.grad.numpy() if np.ndim(a) else t.grad.item() for t, a in zip(ts, args,
                                                                          strict=True)]


def directional_fd(fn, args, directions, eps=1e-6):
    def at(step):
        return fn(*[np.float64(a + step * d) if np.ndim(a) == 0 else a + step * d
                    for a, d in zip(args, directions, strict=True)])
    return (at(eps) - at(-eps)) / (2 * eps)


def check(name, fn, args, tape_fn=None):
    wrt = tuple(range(len(args)))
    compiled = grad(fn, wrt=wrt)(*args)
    compiled = compiled if isinstance(compiled, tuple) else (compiled,)
    assert jit(fn)(*args) == pytest.approx(fn(*args), rel=1e-12, abs=1e-12)
    for c, e in zip(compiled, eager(tape_fn or fn, args), strict=True):
        np.testing.assert_allclose(c, e, rtol=1e-10, atol=1e-12, err_msg=name)
        assert np.shape(c) == np.shape(e)
    rng = np.random.default_rng(1)
    directions = [rng.standard_normal(np.shape(a)) for a in args]
    analytic = sum(float(np.sum(np.asarray(c) * d))
                   for c, d in zip(compiled, directions, strict=True))
    assert analytic == pytest.approx(directional_fd(fn, args, directions), rel=1e-5, abs=1e-6)


def losses(row, args):
    """The row's scalar loss for these operands, compiled and on the tape."""
    scalar = np.ndim(row.fn(*args)) == 0
    fn = loss_of(row.fn, scalar, len(args))
    return fn, loss_of(row.tape_fn, scalar, len(args)) if row.tape_fn else None


SWEEP = [(case, row, shapes) for row in COMPILED for case, shapes in sweep(row, SHAPES, PAIRS)
         if not (row.name in REDUCTIONS and shapes == ((),))]


@pytest.mark.parametrize("case,row,shapes", SWEEP, ids=[c[0] for c in SWEEP])
def test_op_table_rows_over_shapes(case, row, shapes):
    args = swept_arguments(row, shapes, np.random.default_rng(zlib.crc32(case.encode())))
    fn, tape_fn = losses(row, args)
    check(case, fn, args, tape_fn)


PROGRAM_CASES = [(f"{name}-{shapes}", fn, kinds, shapes) for name, fn, kinds in PROGRAMS
                 for shapes in ([(s,) * len(kinds) for s in SHAPES] +
                                (list(PAIRS) if len(kinds) == 2 else []))]


@pytest.mark.parametrize("case,fn,kinds,shapes", PROGRAM_CASES,
                         ids=[c[0] for c in PROGRAM_CASES])
def test_array_programs_over_shapes(case, fn, kinds, shapes):
    rng = np.random.default_rng(zlib.crc32(case.encode()))
    check(case, fn, [sample(k, s, rng) for k, s in zip(kinds, shapes, strict=True)])


def test_second_order_of_array_code():
    from ..support import array_second_order as so

    x = np.array([0.3, -0.7, 1.1])
    hvp = grad(so.directional_first_derivative)(x)
    # d/dx <grad f(x), v> = H v, with f = sum(sin(x) * x^2): H is diagonal
    h = -np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)
    np.testing.assert_allclose(hvp, h * so.V, rtol=1e-12)


@pytest.mark.parametrize("name,fn", AXIS_CASES, ids=[c[0] for c in AXIS_CASES])
def test_reductions_with_axes_and_shapes(name, fn):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x = rng.permutation(6).reshape(2, 3) * 0.4 - 1.0 + rng.uniform(-0.05, 0.05, (2, 3))
    check(name, fn, [x])


def test_float32_arrays_stay_float32():
    from ..support.array_programs import numbers_broadcast
    from ..support.op_table import tanh

    x32 = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
    for fn in (loss_of(tanh, False, 1), numbers_broadcast):
        value = jit(fn)(x32)
        g = grad(fn)(x32)
        assert g.dtype == np.float32 and g.shape == x32.shape
        g64 = grad(fn)(x32.astype(np.float64))
        np.testing.assert_allclose(g, g64, rtol=1e-5, atol=1e-6)
        assert value == pytest.approx(fn(x32.astype(np.float64)), rel=1e-5)


def test_array_errors_point_at_the_source():
    from adlite.compiler import AdliteSyntaxError

    from ..support import array_errors as ae

    with pytest.raises(AdliteSyntaxError, match="cannot be broadcast together"):
        jit(ae.bad_broadcast)(np.ones(3), np.ones(4))
    # an int argument sizing an array is specialised on its value (issue 10)
    assert jit(ae.runtime_shape)(np.ones(3), 4) == ae.runtime_shape(np.ones(3), 4)
    with pytest.raises(AdliteSyntaxError, match="changes shape"):
        jit(ae.shape_changes_in_loop)(np.ones(3))
    with pytest.raises(TypeError, match="float64, float32, int64 or bool"):
        jit(ae.bad_broadcast)(np.ones(3, dtype=np.int32), np.ones(3))
    with pytest.raises(IndexError):
        jit(ae.runtime_index)(np.ones(3), 5)


def make_second_order(fn):
    """x -> <grad fn(x), sin(x)>, whose gradient needs the derivative of the adjoint code."""
    first = grad(fn)

    def second(x):
        return np.sum(first(x) * np.sin(x))

    return second


SECOND_ORDER = ([(row.name, row.inputs[0][0], row) for row in COMPILED if len(row.inputs) == 1]
                + [(name, kinds[0], fn) for name, fn, kinds in PROGRAMS if len(kinds) == 1])


@pytest.mark.parametrize("shape", [(3,), (2, 3)], ids=str)
@pytest.mark.parametrize("name,kind,subject", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_unary_second_order(name, kind, subject, shape):
    rng = np.random.default_rng(zlib.crc32(f"second{name}{shape}".encode()))
    x = sample(kind, shape, rng)
    fn = subject if callable(subject) else losses(subject, [x])[0]
    second = make_second_order(fn)
    g2 = grad(second)(x)
    u = rng.standard_normal(shape)
    value = jit(second)
    eps = 1e-6
    numeric = (value(x + eps * u) - value(x - eps * u)) / (2 * eps)
    assert float(np.sum(g2 * u)) == pytest.approx(numeric, rel=1e-5, abs=1e-6), name
