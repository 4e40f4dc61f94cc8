"""Derivatives of the op table's smooth rows (tests/support/op_table.py), through the scalar loss of
tests/support/op_table_harness.py: the reverse gradient equals central differences (within 1e-7) and
the eager tape's gradient; forward mode equals directional differences of numpy's function
and agrees with the reverse gradient; the Hessian (forward over reverse) equals second
differences of the loss computed with numpy alone."""

import numpy as np
import pytest

from adlite.compiler import hessian, jvp

from ..support.op_table import SMOOTH, arguments, by_check, float_positions
from ..support.op_table_harness import (
    central_differences,
    copies,
    gradient,
    loss,
    second_differences,
    tape_gradient,
    weights,
)


@pytest.mark.parametrize("row", by_check(SMOOTH, "gradient"))
def test_reverse_gradient_equals_central_differences(row):
    args = arguments(row)
    for got, want in zip(gradient(row, args), central_differences(row, args), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-7, err_msg=row.name)


@pytest.mark.parametrize("row", by_check([r for r in SMOOTH if r.tape], "tape"))
def test_reverse_gradient_equals_the_tapes(row):
    args = arguments(row)
    for got, want in zip(gradient(row, args), tape_gradient(row, args), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=row.name)


def _tangents(row, args):
    return [np.sin(np.arange(np.size(args[k])) + 0.5 * k + 1.0).reshape(np.shape(args[k]))
            if np.ndim(args[k]) else 0.7 for k in float_positions(row)]


def _along(args, row, tangents, step):
    moved = list(copies(args))
    for k, t in zip(float_positions(row), tangents, strict=True):
        moved[k] = moved[k] + step * t
    return moved


@pytest.mark.parametrize("row", by_check(SMOOTH, "jvp"))
def test_forward_mode_equals_differences_and_the_reverse_gradient(row):
    args = arguments(row)
    tangents = _tangents(row, args)
    value, got = jvp(row.fn, copies(args), tangents)
    h = 1e-6
    want = (np.asarray(row.fn(*_along(args, row, tangents, h))) -
            np.asarray(row.fn(*_along(args, row, tangents, -h)))) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-7, err_msg=row.name)
    y = np.asarray(row.fn(*copies(args)))
    dloss = weights(y.shape) + 0.5 * y if y.ndim else 1.0 + 0.5 * y
    reverse = sum(np.sum(g * t) for g, t in zip(gradient(row, args), tangents, strict=True))
    np.testing.assert_allclose(np.sum(dloss * got), reverse, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("row", by_check(SMOOTH, "hessian"))
def test_hessian_equals_second_differences(row):
    args = arguments(row)
    wrt = float_positions(row)[0]
    got = hessian(loss(row), wrt)(*copies(args))
    want = second_differences(loss(row), args, wrt)
    scale = max(1.0, float(np.max(np.abs(want))))  # differences lose digits of large Hessians
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * scale, err_msg=row.name)
