"""Tuples and lists of run-time values read inside ifs and loops, and the arrays they hold.

A tuple or list is read inside a block through its run-time leaves (no unrolling: a loop of
5,000 trips stays one loop), and after the block it holds the new value of every array the
block wrote, as Python's containers hold the very objects. Expected values come from running
the plain Python function; gradients from central finite differences.
"""

import numpy as np
import pytest

from adlite.compiler import grad, jit, show

BACKENDS = ["llvm", "python"]


def tuple_sees_loop_write(a, n):
    t = (a, 1.0)
    i = 0
    while i < n:
        a[0] += 1.0
        i += 1
    return t[0][0] + t[1]


def tuple_sees_branch_write(a, c):
    t = (a, 1.0)
    if c > 0:
        a[0] += 1.0
    return t[0][0]


def list_sees_loop_write(a, n):
    t = [a, 1.0]
    i = 0
    while i < n:
        a[0] += 1.0
        i += 1
    return t[0][0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, extra", [(tuple_sees_loop_write, 2), (tuple_sees_branch_write, 1.0),
                                       (tuple_sees_branch_write, -1.0),
                                       (list_sees_loop_write, 3)])
def test_containers_hold_the_arrays_a_block_wrote(backend, fn, extra):
    expected = fn(np.zeros(2), extra)
    assert jit(fn, backend=backend)(np.zeros(2), extra) == expected


def integrate(f, y0, args=(), n=10, h=0.1):
    y = y0
    for _ in range(n):
        y = y + h * f(y, *args)
    return y


def decay(y, k, c):
    return -k * y + c


def long_integration(y0, k):
    return integrate(decay, y0, args=(k, 0.5), n=5000, h=1e-4)


def _central(fn, args, i, eps=1e-6):
    up, down = list(args), list(args)
    up[i] += eps
    down[i] -= eps
    return (fn(*up) - fn(*down)) / (2 * eps)


@pytest.mark.parametrize("backend", BACKENDS)
def test_args_tuple_read_in_a_long_loop(backend):
    args = (1.0, 2.0)
    assert jit(long_integration, backend=backend)(*args) == pytest.approx(
        long_integration(*args), rel=1e-12)
    g = grad(long_integration, wrt=(0, 1), backend=backend)(*args)
    for i in range(2):
        assert g[i] == pytest.approx(_central(long_integration, args, i), rel=1e-6)


def test_a_loop_reading_a_tuple_stays_one_loop():
    assert show(long_integration, "optimize").count("while") == 1


def tuple_in_counted_loops(x, n):
    p = (x, 2.0 * x)
    s = 0.0
    for i in range(3):
        s += p[i % 2] * i  # a run-time index: the loop is unrolled
    state = (x, x)
    for _ in range(4):
        state = (state[1], state[0] + state[1])  # rebound per trip: unrolled
    return s + state[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_tuples_indexed_or_rebound_in_counted_loops(backend):
    assert jit(tuple_in_counted_loops, backend=backend)(1.5, 3) == tuple_in_counted_loops(1.5, 3)
    assert grad(tuple_in_counted_loops, backend=backend)(1.5, 3) == pytest.approx(
        _central(tuple_in_counted_loops, [1.5, 3], 0), rel=1e-7)


def dict_params_loss(params, x, n_steps=3):
    h = x
    for _ in range(n_steps):
        h = np.tanh(params["W"] @ h + params["b"])
    if params["scale"] > 0:
        h = h * params["scale"]
    return np.sum(h ** 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dict_of_parameters_read_in_a_loop_and_an_if(backend):
    rng = np.random.default_rng(0)
    params = {"W": rng.normal(size=(3, 3)), "b": rng.normal(size=3), "scale": 1.5}
    x = rng.normal(size=3)
    assert jit(dict_params_loss, backend=backend)(params, x) == pytest.approx(
        dict_params_loss(params, x), rel=1e-13)
    g = grad(dict_params_loss, backend=backend)(params, x)
    eps = 1e-6
    for key in ("W", "b"):
        for k in range(params[key].size):
            up = {**params, key: params[key].copy()}
            down = {**params, key: params[key].copy()}
            up[key].flat[k] += eps
            down[key].flat[k] -= eps
            fd = (dict_params_loss(up, x) - dict_params_loss(down, x)) / (2 * eps)
            assert g[key].flat[k] == pytest.approx(fd, rel=1e-6, abs=1e-8)
    fd = (dict_params_loss({**params, "scale": 1.5 + eps}, x)
          - dict_params_loss({**params, "scale": 1.5 - eps}, x)) / (2 * eps)
    assert g["scale"] == pytest.approx(fd, rel=1e-6)
