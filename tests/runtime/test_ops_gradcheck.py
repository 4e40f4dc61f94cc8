"""Every tape operation: first and second derivatives vs central finite differences."""

import zlib

import numpy as np
import pytest

from adlite.runtime import gradcheck

from ..support.op_cases import all_cases

CASES = all_cases()


@pytest.mark.parametrize("name,fn,makers", CASES, ids=[c[0] for c in CASES])
def test_gradcheck_first_and_second_order(name, fn, makers):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for trial in range(2):
        inputs = [make(rng) for make in makers]
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
