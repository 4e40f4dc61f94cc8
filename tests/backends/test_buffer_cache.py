"""The buffers of loop iterations a compiled function keeps between calls
(`backends/llvm/buffer_cache.py`): a time loop whose gradient stores each step's residuals
allocates a buffer per step; freed at the end of each call, glibc trimmed the heap they grew
and the next call faulted every page in again. Kept, repeated calls fault (almost) nothing,
calls from several threads never share a buffer, a call leaving through an error keeps the
cache consistent, and the values do not change (central differences of the numpy program;
the same bits for 1, 2 and 3 threads)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from adlite.compiler import grad
from tests.backends.test_threads_determinism import same_bits, thread_counts  # noqa: F401


def convection(u0, c):
    """Each step's `un[1:] - un[:-1]` is stored for d/dc: one buffer per step."""
    u = u0.copy()
    for _ in range(500):
        un = u.copy()
        u[1:] = un[1:] - c * (un[1:] - un[:-1])
    return np.sum(u ** 2)


def diffusion_2d(u0, nu):
    u = u0.copy()
    for _ in range(100):
        un = u.copy()
        u[1:-1, 1:-1] = un[1:-1, 1:-1] + nu * (un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:]
                                               + un[1:-1, :-2] - 4 * un[1:-1, 1:-1])
    return np.sum(u ** 2)


LINE = np.linspace(0.0, 1.0, 1000) ** 2 + 1.0
FIELD = 1.0 + np.outer(np.linspace(0.0, 1.0, 81), np.linspace(0.0, 1.0, 81))


ROOT = Path(__file__).resolve().parents[2]


def _raw(result) -> bytes:
    parts = result if isinstance(result, tuple) else (result,)
    return b"".join(np.asarray(p).tobytes() for p in parts)


_FAULTS = """
import resource
from adlite.compiler import grad, wait_optimised
from tests.backends.test_buffer_cache import {name} as fn, {field} as field
g = grad(fn, wrt={wrt})
g(field, {param})
wait_optimised()  # the optimised code's first call fills its cache
g(field, {param})
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    g(field, {param})
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10)
"""


@pytest.mark.parametrize("name,field,param,wrt", [("convection", "LINE", 0.3, (0, 1)),
                                                  ("diffusion_2d", "FIELD", 0.2, (0,))])
def test_repeated_calls_fault_no_pages_in(name, field, param, wrt):
    """In a fresh process (whose glibc trims its heap as a user's would: a test process's
    history of large frees raises glibc's thresholds), the convection's step buffers (4 MB)
    were faulted in again on every call, about 200 page faults per call; now a few at most.
    (Whether glibc trims depends on the heap's history: the diffusion's did in the benchmark
    process, not alone.)"""
    code = _FAULTS.format(name=name, field=field, param=param, wrt=wrt)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT, env={**os.environ, "ADLITE_CACHE_DIR": "off"})
    faults = float(out.stdout.split()[-1])
    assert faults < 40, faults


def test_the_gradient_is_the_central_difference_for_any_thread_count(thread_counts):  # noqa: F811
    g = grad(convection, wrt=(0, 1))
    results = thread_counts(lambda: g(LINE, 0.3))
    same_bits(results)
    du, dc = results[0]
    h = 1e-6
    want_dc = (convection(LINE, 0.3 + h) - convection(LINE, 0.3 - h)) / (2 * h)
    np.testing.assert_allclose(dc, want_dc, rtol=1e-6)
    d = np.random.default_rng(0).standard_normal(LINE.shape)
    want = (convection(LINE + h * d, 0.3) - convection(LINE - h * d, 0.3)) / (2 * h)
    np.testing.assert_allclose(du @ d, want, rtol=1e-6)


def test_concurrent_calls_never_share_a_buffer():
    g = grad(convection, wrt=(0, 1))
    inputs = [(LINE * (1 + 0.1 * k), 0.1 + 0.05 * k) for k in range(4)]
    wants = [g(*a) for a in inputs]
    got: list[list] = [[] for _ in inputs]

    def run(k):
        for _ in range(15):
            got[k].append(g(*inputs[k]))

    workers = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for want, results in zip(wants, got, strict=True):
        assert len(results) == 15
        assert all(_raw(r) == _raw(want) for r in results)


def indexed_steps(u0, idx):
    """An index checked inside the time loop: a bad one leaves mid-loop, buffers held."""
    u = u0.copy()
    for k in range(50):
        un = u.copy()
        u[1:] = un[1:] * 0.5 + un[:-1] * 0.5 + un[idx[k]] * 1e-3
    return np.sum(u ** 2)


def test_a_call_leaving_through_an_error_keeps_the_cache_consistent():
    g = grad(indexed_steps)
    good = np.arange(50) % 1000
    bad = good.copy()
    bad[30] = 5000
    want = g(LINE, good)
    for _ in range(3):
        with pytest.raises(IndexError):
            g(LINE, bad)
        assert g(LINE, good).tobytes() == want.tobytes()
