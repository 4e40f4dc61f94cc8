"""Compiled code called from several threads: results bit-identical to a serial run (every
call owns its outputs and scratch), and native code runs without the GIL (other threads make
progress during a long call; two threads run two long calls in parallel)."""

import hashlib
import os
import sys
import threading
import time

import numpy as np
import pytest

from adlite.compiler import grad, jit, value_and_grad

THREADS = 8
CALLS = 1500  # per thread


def poly(x, n):
    s = 0.0
    i = 0
    while i < n:
        s = s * x + 1.0
        i = i + 1
    return s


def affine(x):
    return 2.0 * x + np.sin(x)


def sum_of_squares(x):
    return np.sum(x * x)


def looped(x):
    s = 0.0
    for i in range(6):
        s = s + np.sin(x * i) * x
    return s


def scaled_norm(x, a):
    return np.sum(x * x) * a + a * a


def work_array(x):
    a = np.zeros(4) + x
    a[1] = 2.0 * x * x
    return np.sum(a * a) + a[0]


def big_work_array(x):
    a = np.zeros(5000) + x
    a[1] = 2.0 * x * x
    return np.sum(a * a) + a[0]


def spin(x, n):
    i = 0
    while i < n:
        x = x * 0.9999999 + 1e-7
        i = i + 1
    return x


def spin_array(v, n):
    return spin(v[0], n)


def _vector(k: int) -> np.ndarray:
    return np.linspace(-1.0, 1.0, 7) + k * 1e-3


CASES = {
    "scalar": (jit(poly), lambda k: (1.0 + k * 1e-6, 3 + k % 5)),
    "array": (jit(affine), lambda k: (_vector(k),)),
    "scalar-of-array": (jit(sum_of_squares), lambda k: (_vector(k),)),
    "tape": (grad(looped), lambda k: (0.1 + k * 1e-4,)),
    "value-and-grad": (value_and_grad(sum_of_squares), lambda k: (_vector(k),)),
    "grad-array-and-float": (grad(scaled_norm, wrt=(0, 1)), lambda k: (_vector(k), 0.5 + k)),
    "scratch-on-stack": (jit(work_array), lambda k: (0.5 + k * 1e-3,)),
    "scratch-on-heap": (jit(big_work_array), lambda k: (0.5 + k * 1e-3,)),
}


def _bits(value):
    """A value reduced to what bit-identical results share."""
    if isinstance(value, tuple | list):
        return tuple(_bits(v) for v in value)
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, value.tobytes()
    return type(value), float(value).hex()


@pytest.fixture
def frequent_switches():
    """Switch threads as often as CPython allows: races show up in few calls."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


@pytest.mark.parametrize("case", CASES)
def test_threads_get_the_serial_results(case, frequent_switches):
    f, make_args = CASES[case]
    inputs = [make_args(k) for k in range(THREADS * CALLS)]
    serial = [_bits(f(*args)) for args in inputs]
    results = [None] * len(inputs)
    start = threading.Barrier(THREADS)

    def worker(first: int) -> None:
        start.wait()
        for k in range(first, len(inputs), THREADS):
            results[k] = _bits(f(*inputs[k]))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wrong = sum(r != s for r, s in zip(results, serial, strict=True))
    assert wrong == 0, f"{wrong} of {len(inputs)} threaded results differ from the serial run"


def _long_call(f, make_args, seconds: float):
    """Arguments for which `f` runs at least `seconds` (doubling the trip count)."""
    n = 1 << 20
    while True:
        t0 = time.perf_counter()
        f(*make_args(n))
        if time.perf_counter() - t0 >= seconds:
            return make_args(n)
        n *= 2


SPINS = {"generated entry point": (jit(spin), lambda n: (0.5, n)),
         "ctypes": (jit(spin_array), lambda n: (np.full(3, 0.5), n))}


def _ticks_during(f, args) -> tuple[list[float], float, float]:
    """Run `f(*args)` while another thread records the time every millisecond: (the times
    recorded, start and end of the call)."""
    ticks, done = [], threading.Event()

    def ticker() -> None:
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        t0 = time.perf_counter()
        f(*args)
        t1 = time.perf_counter()
    finally:
        done.set()
        thread.join()
    return ticks, t0, t1


@pytest.mark.parametrize("path", SPINS)
def test_other_threads_run_during_a_long_native_call(path):
    f, make_args = SPINS[path]
    args = _long_call(f, make_args, 0.4)
    for _ in range(4):  # a busy machine may have made the calibration too short
        ticks, t0, t1 = _ticks_during(f, args)
        if t1 - t0 >= 0.3:
            break
        args = _long_call(f, make_args, 0.8)
    # the GIL is handed over within a switch interval (5 ms) of entering or leaving the
    # call: ticks well inside the call ran while native code held no GIL
    margin = 0.05
    inside = [t for t in ticks if t0 + margin < t < t1 - margin]
    assert len(inside) >= 5, f"{len(inside)} ticks during a {t1 - t0:.2f} s native call"


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _wall_time(f, args, count: int) -> float:
    """Wall-clock time for `count` threads each calling `f(*args)` once."""
    threads = [threading.Thread(target=f, args=args) for _ in range(count)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def _slowdown(f, args) -> float:
    """How much longer two parallel calls take than one (1: fully parallel, 2: serial)."""
    return _wall_time(f, args, 2) / _wall_time(f, args, 1)


def _hash(chunk: bytes, count: int) -> None:
    for _ in range(count):
        hashlib.sha256(chunk).digest()  # releases the GIL: the control experiment


@pytest.mark.skipif(_cores() < 2, reason="needs two cores")
@pytest.mark.parametrize("path", SPINS)
def test_two_threads_run_native_code_in_parallel(path):
    """Two long calls in two threads take about the time of one (generous bound, best of a
    few attempts). A shared machine may have no second free core: a control that releases
    the GIL (hashing) is measured just before and just after each attempt, and only attempts
    in which both controls ran in parallel count; with none, the test is skipped."""
    f, make_args = SPINS[path]
    args = _long_call(f, make_args, 0.15)
    control = _long_call(_hash, lambda n: (bytes(1 << 20), n >> 20), 0.15)
    attempts = []
    for _ in range(5):
        before = _slowdown(_hash, control)
        native = _slowdown(f, args)
        after = _slowdown(_hash, control)
        if native < 1.6:
            return
        attempts.append((native, before, after))
    summary = ", ".join(f"{native:.2f}x (controls {b:.2f}x, {a:.2f}x)"
                        for native, b, a in attempts)
    if not any(b < 1.3 and a < 1.3 for _, b, a in attempts):
        pytest.skip(f"no second free core: two threads vs one: {summary}")
    pytest.fail(f"two threads are not faster than two calls in a row: {summary}")
