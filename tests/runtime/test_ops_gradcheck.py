"""Every tape operation: first and second derivatives vs central finite differences.

The op table's swept rows (tests/support/op_table.py) over shapes and broadcast pairs, then the
tape's programs of fixed shapes: reductions over axes, products, indexing, joins, in-place
updates and linear algebra."""

import zlib

import numpy as np
import pytest

from adlite import runtime as rt
from adlite.runtime import gradcheck

from ..support.op_table import SWEPT, sample, sweep, swept_arguments

SHAPES = [(), (3,), (2, 3)]
BROADCAST_PAIRS = [((2, 3), (3,)), ((1, 3), (2, 1)), ((2, 3), ()), ((3, 1), (1, 3))]


def _setitem(x, v):
    y = x * 1.0
    y[1] = v * v
    return y * x


def _iadd(x, y):
    z = x * 2.0
    z += y * x
    z *= y
    return z


def _transpose(x):
    return np.transpose(x) * sample("normal", (3, 2), np.random.default_rng(1))


def _axis_programs():
    programs = []
    for name, fn, kind in [("sum", np.sum, "normal"), ("mean", np.mean, "normal"),
                           ("max", np.max, "distinct"), ("min", np.min, "distinct"),
                           ("prod", np.prod, "away"), ("var", np.var, "normal"),
                           ("std", np.std, "normal")]:
        for axis in (0, 1, -1, (0, 1)):
            for keepdims in (False, True):
                programs.append((f"{name}-axis{axis}-keep{keepdims}",
                                 (lambda f, a, k: lambda x: f(x, axis=a, keepdims=k))(
                                     fn, axis, keepdims), [(kind, (2, 3))]))
    return programs


N23, N3, C33 = ("normal", (2, 3)), ("normal", (3,)), ("conditioned", (3, 3))
PROGRAMS = _axis_programs() + [
    ("matmul-2x2", lambda x, y: x @ y, [N23, ("normal", (3, 4))]),
    ("matmul-vec-vec", lambda x, y: x @ y, [N3, N3]),
    ("matmul-mat-vec", lambda x, y: x @ y, [N23, N3]),
    ("matmul-vec-mat", lambda x, y: x @ y, [N3, ("normal", (3, 2))]),
    ("matmul-batched", lambda x, y: x @ y, [("normal", (2, 2, 3)), ("normal", (3, 4))]),
    ("dot", np.dot, [N23, ("normal", (3, 2))]),
    ("transpose", _transpose, [N23]),
    ("T", lambda x: x.T @ x, [N23]),
    ("reshape", lambda x: np.reshape(x, (3, 2)) ** 2, [N23]),
    ("index-int", lambda x: x[1] ** 2, [N23]),
    ("index-slice", lambda x: x[:, 1:] ** 2, [N23]),
    ("index-repeated", lambda x: x[[0, 0, 2]] ** 2, [N3]),
    ("index-mask", lambda x: x[x.data > 0] ** 2, [("away", (2, 3))]),
    ("index-negative-step", lambda x: x[::-1] * x, [("normal", (4,))]),
    ("concatenate", lambda x, y: np.concatenate([x, y * y], axis=1), [N23, ("normal", (2, 2))]),
    ("stack", lambda x, y: np.stack([x, x * y], axis=0), [N3, N3]),
    ("softmax", lambda x: rt.softmax(x, axis=-1) * rt.tensor([1.0, 2.0, 3.0]), [N23]),
    ("softmax-axis0", lambda x: rt.softmax(x, axis=0) * rt.tensor([1.0, 2.0, 3.0]), [N23]),
    ("logsumexp-axis1-keep", lambda x: rt.logsumexp(x, axis=1, keepdims=True) * x, [N23]),
    ("var-ddof1", lambda x: np.var(x, axis=1, ddof=1), [N23]),
    ("std-ddof1-keep", lambda x: np.std(x, axis=0, keepdims=True, ddof=1), [N23]),
    ("broadcast_to", lambda x: np.broadcast_to(x, (2, 3)) ** 2, [N3]),
    ("setitem", _setitem, [N3, ("normal", ())]),
    ("linalg-solve-vector", lambda a, b: np.linalg.solve(a, b), [C33, N3]),
    ("linalg-solve-matrix", lambda a, b: np.linalg.solve(a, b), [C33, ("normal", (3, 2))]),
    ("linalg-inv", np.linalg.inv, [C33]),
    ("linalg-det", np.linalg.det, [C33]),
    ("linalg-slogdet", lambda a: np.linalg.slogdet(a)[1], [C33]),
    ("linalg-cholesky", lambda m, k: np.linalg.cholesky(m @ m.T + k @ k.T),
     [("normal", (3, 3)), C33]),
    ("iadd", _iadd, [N3, N3]),
]

SWEEP = [(case, row, shapes) for row in SWEPT if row.tape
         for case, shapes in sweep(row, SHAPES, BROADCAST_PAIRS)]


def _operands(draw, rng):
    return [np.asarray(a, dtype=float) for a in draw(rng)]


@pytest.mark.parametrize("case,row,shapes", SWEEP, ids=[c[0] for c in SWEEP])
def test_gradcheck_first_and_second_order(case, row, shapes):
    rng = np.random.default_rng(zlib.crc32(case.encode()))
    for trial in range(2):
        inputs = _operands(lambda g: swept_arguments(row, shapes, g), rng)
        assert gradcheck(row.tape_fn or row.fn, inputs, order=2, seed=trial)


@pytest.mark.parametrize("name,fn,specs", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_gradcheck_of_programs_first_and_second_order(name, fn, specs):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for trial in range(2):
        inputs = _operands(lambda g: [sample(kind, shape, g) for kind, shape in specs], rng)
        assert gradcheck(fn, inputs, order=2, seed=trial)


def test_gradcheck_catches_a_wrong_rule():
    from adlite.runtime import Function, GradcheckError

    class WrongSin(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return np.sin(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * np.cos(x) * 1.001

    with pytest.raises(GradcheckError, match="order-1"):
        gradcheck(WrongSin.apply, [np.array([0.3, 0.7])], order=1)


def test_gradcheck_catches_a_wrong_second_derivative():
    from adlite.runtime import Function, GradcheckError

    class FrozenCube(Function):
        """Right first derivative, but computed from a detached value: no second order."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3.0 * x.detach() ** 2

    with pytest.raises(GradcheckError):
        gradcheck(FrozenCube.apply, [np.array([0.3, 0.7])], order=2)
