"""The scratch buffer a function keeps between calls (pywrapper's `_call_with_scratch`):
repeated calls of array code with a large scratch reuse one buffer instead of faulting
fresh pages in on every call, and calls from several threads never share one."""

import resource
import threading

import numpy as np

from adlite.compiler import grad, jit


def temporaries(x):
    return np.sum(np.tanh(x) * np.exp(-x) + np.sin(x) * x)


def test_repeated_calls_reuse_the_scratch_buffer():
    """With the buffer malloc'ed per call, glibc maps its ~70 MB afresh each time (about
    15,000 page faults per call); kept, only the new result array (24 MB) faults in."""
    x = np.linspace(-1.0, 1.0, 3_000_000)
    g = grad(temporaries)
    want = g(x)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        np.testing.assert_array_equal(g(x), want)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5
    assert faults < x.nbytes // 4096 + 1_000  # at most the new result array's pages


def test_concurrent_calls_never_share_a_scratch_buffer():
    f = jit(temporaries)
    inputs = [np.linspace(-1.0, 1.0, 400_000) * (k + 1) for k in range(4)]
    wants = [temporaries(x) for x in inputs]
    got = [[] for _ in inputs]

    def run(k):
        for _ in range(10):
            got[k].append(f(inputs[k]))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for values, want in zip(got, wants, strict=True):
        assert all(abs(v - want) <= 1e-9 * abs(want) for v in values)
