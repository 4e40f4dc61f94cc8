"""What reverse-mode loops store on the AD tape per iteration (`compiler/ad/storage.py`): loop
invariants are computed once outside the reverse loop, values cheap to recompute from stored
ones (negations, scalings, index arithmetic, counters, slices) are recomputed, a carry's new
value is the next iteration's stored old value, an array carry is stored instead of the
arrays made from it, and each value is stored once. The gradients stay
those of the eager tape and of central differences, first and second order."""

import sys

import numpy as np
import pytest

from adlite.compiler import grad, hessian, jit
from adlite.compiler.ad.storage import tape_bytes_per_iteration
from adlite.compiler.ir.core import F64, I64, Type
from adlite.runtime import Tensor
from benchmarks.workloads import w4_while
from examples.oscillator import oscillator

from ..support.gradients import central_difference_in

VEC = Type("f64", (6,))


def invariant_scalar(x, k):
    for _ in range(7):
        x = x * np.exp(-k) + np.sin(x)  # exp(-k) is loop invariant
    return x


def invariant_array(x, k):
    for _ in range(5):
        x = x * np.exp(-k) + np.sin(x)
    return np.sum(x)


def scaled_operand(x, c):
    for _ in range(6):
        t = 2.0 * x  # recomputable from x, which is stored anyway
        x = np.sin(t) * x * c
    return x


def scaled_operand_array(x, c):
    for _ in range(4):
        t = -x
        x = np.cos(t) * x * c
    return np.sum(x)


def indexed_sum(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i] * w  # x[i] and i are recomputed from the counter
    return s


def new_value_stored(x, k):
    for _ in range(5):
        x = np.exp(x * k)  # exp's derivative reads its result: the next x
    return x


def nested(k, c):
    x = 1.0
    for _ in range(3):
        for _ in range(4):
            x = x * (-k) + c * x * x * 0.1
    return x


def loop_in_branch(k, c):
    x = c
    if c > 0.0:
        for _ in range(5):
            x = x * np.sin(-k) + x * x * 0.2
    return x


def branch_in_loop(x, k):
    for i in range(6):
        if i % 2 == 0:
            x = x * np.cos(k) + np.sin(x)
        else:
            x = x - np.tanh(x) * k * k
    return x


def reflections(u, c):
    for _ in range(4):  # the residuals of c: two arrays made from slices of the carry u
        u = u - c * (u - u[::-1]) - c * (u - u[:, ::-1])
    return np.sum(u * u)


# (function, argument types, arguments, bytes stored per iteration by each loop: now, and
# before compiler/ad/storage.py, for the record)
CASES = {
    "oscillator": (oscillator, [F64, F64], (1.3, 0.2), [16], [24]),
    "invariant_scalar": (invariant_scalar, [F64, F64], (0.4, 0.3), [8], [16]),
    "invariant_array": (invariant_array, [VEC, F64], (np.linspace(-1, 1, 6), 0.3),
                        [56], [64]),
    "scaled_operand": (scaled_operand, [F64, F64], (0.7, 1.1), [16], [32]),
    "scaled_operand_array": (scaled_operand_array, [VEC, F64], (np.linspace(-1, 1, 6), 0.9),
                             [112], [224]),
    "indexed_sum": (indexed_sum, [VEC, F64], (np.linspace(-1, 1, 6), 0.5), [], [24]),
    "new_value_stored": (new_value_stored, [F64, F64], (0.3, 0.4), [8], [16]),
    "nested": (nested, [F64, F64], (0.9, 0.3), [8, 8], [8, 24]),
    "loop_in_branch": (loop_in_branch, [F64, F64], (0.8, 0.6), [8], [24]),
    "data_dependent_while": (w4_while, [F64], (0.7,), [16], [32]),
    "branch_in_loop": (branch_in_loop, [F64, F64], (0.5, 0.8), [8], [16]),
    # u itself (8 + 288 B) instead of the two differences (2 x 296 B)
    "carry_for_views": (reflections, [Type("f64", (6, 6)), F64],
                        (np.outer(np.linspace(0.1, 0.6, 6), np.linspace(1.0, 2.0, 6)), 0.3),
                        [296], [592]),
}


def _stored(name):
    fn, types, _, _, _ = CASES[name]
    wrt = tuple(range(len(types)))
    graph, _ = grad(fn, wrt=wrt).ir_for(types)
    return tape_bytes_per_iteration(graph)


@pytest.mark.parametrize("name", CASES)
def test_bytes_stored_per_iteration(name):
    assert _stored(name) == CASES[name][3]


def test_oscillator_stores_its_two_carries_only():
    """W2: x and v (16 B per step); `-k` was stored every iteration (24 B)."""
    assert _stored("oscillator") == [16]


def _eager(fn, args):
    tensors = [Tensor(np.array(a, dtype=float), requires_grad=True) for a in args]
    fn(*tensors).backward()
    return [t.grad.numpy() if hasattr(t.grad, "numpy") else np.asarray(t.grad) for t in tensors]


@pytest.mark.parametrize("name", CASES)
def test_gradients_match_eager_tape_and_differences(name):
    fn, _, args, _, _ = CASES[name]
    wrt = tuple(range(len(args)))
    compiled = grad(fn, wrt=wrt)(*args)
    eager = _eager(fn, args)
    for i in wrt:
        numeric = central_difference_in(fn, args, i)
        np.testing.assert_allclose(compiled[i], eager[i], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(compiled[i], numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", CASES)
def test_hessians_match_differences_of_the_eager_gradient(name):
    fn, _, args, _, _ = CASES[name]
    for i in range(len(args)):
        h = np.asarray(hessian(fn, wrt=i)(*args))

        def gradient(*a, i=i):
            return np.asarray(_eager(fn, a)[i])

        numeric = central_difference_in(gradient, args, i) if np.ndim(args[i]) == 0 else \
            np.stack([central_difference_in(lambda *a, j=j: gradient(*a)[j], args, i)
                      for j in np.ndindex(np.shape(args[i]))]).reshape(h.shape)
        np.testing.assert_allclose(h, numeric, rtol=1e-5, atol=1e-6)


def test_primal_unchanged():
    for fn, _, args, _, _ in CASES.values():
        np.testing.assert_allclose(jit(fn)(*args), fn(*args), rtol=1e-13)


def test_zero_trip_loop_hoists_nothing_it_did_not_run():
    """Invariants are computed only when the forward loop ran: none here, and the invariant
    `1 // n` would raise ZeroDivisionError."""
    def f(x, n):
        for _ in range(n):
            x = x * (1 // n) + np.sin(x)
        return x

    assert grad(f)(0.5, 0) == 1.0
    assert grad(f)(0.5, 1) == pytest.approx(1.0 + np.cos(0.5))


def test_runtime_trip_counts():
    def f(k, c, n):
        x, v = 1.0, 0.0
        for _ in range(n):
            a = -k * x - c * v
            v = v + 0.01 * a
            x = x + 0.01 * v
        return x

    assert grad(f, wrt=(0, 1))(1.3, 0.2, 0) == (0.0, 0.0)
    for n in (1, 17, 1000):
        g = grad(f, wrt=(0, 1))(1.3, 0.2, n)
        eager = _eager(lambda k, c, n=n: f(k, c, n), (1.3, 0.2))
        np.testing.assert_allclose(g, [float(e) for e in eager], rtol=1e-12, atol=1e-14)


def _oscillator_gradient_by_hand(k, c, n):
    """Reverse mode of `w2_steps` written out: states stored forward, adjoints backward."""
    dt, x, v, xs, vs = 0.01, 1.0, 0.0, [], []
    for _ in range(n):
        xs.append(x)
        vs.append(v)
        v = v + dt * (-k * x - c * v)
        x = x + dt * v
    dx, dv, dk, dc = 1.0, 0.0, 0.0, 0.0
    for x, v in zip(reversed(xs), reversed(vs), strict=True):
        dv = dv + dt * dx  # x_new = x + dt * v_new
        da = dt * dv  # v_new = v + dt * a
        dk, dc = dk - da * x, dc - da * v
        dx, dv = dx - da * k, dv - da * c
    return dk, dc


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="huge pages: Linux only")
def test_large_tapes_ask_for_huge_pages_and_stay_correct():
    """A tape of 4 MiB or more is advised onto transparent huge pages (a fault per 4 KiB
    page costs more than the stores); values are unchanged (here a 9.6 MB tape)."""
    from adlite.compiler import show
    from benchmarks.tape import w2_steps

    assert "madvise" in show(w2_steps, stage="lower", grad=True, types=[F64, F64, I64])
    n = 600_000
    np.testing.assert_allclose(grad(w2_steps, wrt=(0, 1))(1.3, 0.2, n),
                               _oscillator_gradient_by_hand(1.3, 0.2, n), rtol=1e-10)
