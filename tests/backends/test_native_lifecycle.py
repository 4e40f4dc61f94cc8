"""Native code over its life: private symbol names, native memory returned after compilations,
pickling compiled objects into other processes, and one compilation per signature under
threads."""

import ctypes
import gc
import importlib.util
import math
import multiprocessing
import os
import pickle
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from adlite.compiler import api, grad, hessian, jit, pipeline, value_and_grad
from adlite.compiler.cli import main

from ..support import lifecycle_array_helpers as arrays
from ..support import lifecycle_helpers as helpers
from ..support.paths import ROOT

C_NAMES = ["exp", "pow", "tanh", "sin", "free", "malloc", "memcpy", "realloc"]


def _numeric_gradient(f, args, wrt, h=1e-6):
    """Central differences of a scalar function w.r.t. argument `wrt` (float or array)."""
    x = np.asarray(args[wrt], dtype=float)
    flat = []
    for k in range(x.size):
        step = np.zeros(x.size)
        step[k] = h
        plus, minus = list(args), list(args)
        plus[wrt] = (x + step.reshape(x.shape)) if x.ndim else float(x) + h
        minus[wrt] = (x - step.reshape(x.shape)) if x.ndim else float(x) - h
        flat.append((f(*plus) - f(*minus)) / (2 * h))
    return np.array(flat).reshape(x.shape) if x.ndim else flat[0]


# ---- item 4: symbols private to adlite -------------------------------------------------------

@pytest.mark.parametrize("name", C_NAMES)
def test_scalar_functions_named_like_c_library_symbols(name):
    f = getattr(helpers, name)
    args = (0.7, 1.3)[:f.__code__.co_argcount]
    assert jit(f)(*args) == f(*args)
    assert grad(f)(*args) == pytest.approx(_numeric_gradient(f, args, 0), rel=1e-6)


@pytest.mark.parametrize("name", C_NAMES)
def test_array_functions_named_like_c_library_symbols(name):
    f = getattr(arrays, name)
    args = (np.array([0.5, 1.5, 2.0]), 1.25)[:f.__code__.co_argcount]
    assert jit(f)(*args) == pytest.approx(f(*args), rel=1e-14)
    np.testing.assert_allclose(grad(f)(*args), _numeric_gradient(f, args, 0), rtol=1e-6)


def test_symbols_of_same_named_functions_are_distinct():
    from adlite.compiler.backends.llvm import _key_and_symbol

    graph_a = jit(helpers.exp).graphs((api.F64,))[1]
    graph_b = jit(arrays.exp).graphs((api.Type("f64", (3,)),))[1]
    symbols = {_key_and_symbol(graph_a, "exp")[1], _key_and_symbol(graph_b, "exp")[1]}
    assert len(symbols) == 2 and all(s.startswith("__adlite_") for s in symbols)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_aot_kernel_named_like_libm_function(tmp_path):
    assert main(["compile", f"{ROOT}/tests/support/lifecycle_helpers.py:exp", "-o",
                 str(tmp_path)]) == 0
    assert "int32_t adlite_exp(double a, double *out0);" in (tmp_path / "exp.h").read_text()
    check = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
             "import exp_loader\n"
             "print(repr(exp_loader.exp(0.7)))\n")
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) == math.exp(0.7) * 2.0


# ---- item 18: native memory of dropped compilations -----------------------------------------

LEAK_SCRIPT = r"""
import ctypes, gc, importlib.util, sys
from adlite.compiler import jit, wait_optimised

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks",
                "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2

def in_use():
    gc.collect()
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd

N, WARM = 500, 20
spec = importlib.util.spec_from_file_location("generated", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
for i in range(WARM):
    jit(getattr(module, f"f{N + i}"))(1.0, 2.0)
wait_optimised()
before = in_use()
for i in range(N):
    f = jit(getattr(module, f"f{i}"))
    assert f(1.0, 2.0) == 2.0 + i
    del f
wait_optimised()  # the tiered mode's swaps done, their jobs dropped
after = in_use()
print(before, after, (after - before) / N)
"""


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "mallinfo2"), reason="needs glibc's mallinfo2")
@pytest.mark.parametrize("opt", ["full", "tiered"])
def test_dropped_compilations_return_their_native_memory(tmp_path, opt):
    source = tmp_path / "generated.py"
    source.write_text("".join(f"def f{i}(x, y):\n    return x * y + {i}.0 * x\n\n"
                              for i in range(520)))
    env = {**os.environ, "ADLITE_CACHE_DIR": "off", "ADLITE_OPT": opt}
    out = subprocess.run([sys.executable, "-c", LEAK_SCRIPT, str(source)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    before, after, per_compilation = out.stdout.split()
    print(f"in use before {before} B, after {after} B: {per_compilation} B per compilation")
    assert float(per_compilation) < 5000


# ---- item 19: pickling ----------------------------------------------------------------------

def _objects():
    x = np.array([0.5, -1.0, 2.0])
    return [
        (jit(helpers.energy), (1.5, 2.0)),
        (grad(helpers.energy), (1.5, 2.0)),
        (grad(helpers.energy, wrt=(0, 1)), (1.5, 2.0)),
        (value_and_grad(helpers.energy, wrt=1), (1.5, 2.0)),
        (grad(grad(helpers.energy)), (1.5, 2.0)),
        (grad(helpers.array_energy), (x, 0.5)),
        (helpers.decorated, (1.5, 7)),
        (grad(helpers.decorated), (1.5, 7)),
        (hessian(helpers.energy), (1.5, 2.0)),
        (hessian(helpers.array_energy), (x, 0.5)),
    ]


def _call(pickled: bytes):
    f, args = pickle.loads(pickled)
    return f(*args)


def _same(a, b) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    return np.array_equal(np.asarray(a), np.asarray(b)) and type(a) is type(b)


def test_compiled_objects_pickle_before_and_after_their_first_call():
    for f, args in _objects():
        again = pickle.loads(pickle.dumps(f))     # before the first call
        expected = f(*args)
        assert _same(pickle.loads(pickle.dumps(f))(*args), expected)  # after it
        assert _same(again(*args), expected)
    assert pickle.loads(pickle.dumps(helpers.decorated)) is helpers.decorated


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_compiled_objects_run_in_worker_processes_after_the_parent_used_them(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method")
    objects = _objects()
    expected = [f(*args) for f, args in objects]  # the parent uses them first
    jobs = [pickle.dumps((f, args)) for f, args in objects]
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        results = list(pool.map(_call, jobs, timeout=240))
    assert all(map(_same, results, expected))
    g = grad(helpers.energy)
    with context.Pool(2) as pool:
        values = pool.starmap(g, [(1.5, 2.0), (0.25, -1.0)])
    assert values == [g(1.5, 2.0), g(0.25, -1.0)]


# ---- item 20: one compilation per signature --------------------------------------------------

def test_threads_asking_for_one_new_signature_compile_it_once(monkeypatch):
    compilations = []
    original = pipeline.backend_compile
    slow = threading.Event()

    def counting(*args):
        compilations.append(args[1].name)
        slow.wait(0.3)  # keep the compilation open while the other threads arrive
        return original(*args)

    monkeypatch.setattr(pipeline, "backend_compile", counting)
    g = grad(helpers.slow_square)
    barrier = threading.Barrier(8)
    results = [None] * 8

    def worker(k):
        barrier.wait()
        results[k] = g(3.0)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results == [6.0] * 8
    assert len(compilations) == 1 and g.compile_count == 1


def test_nested_compilations_from_threads_do_not_deadlock():
    # grad of grad and compiled calls inside compiled code build other objects' graphs
    inner = jit(helpers.energy)
    objects = [grad(grad(inner)), grad(inner, wrt=1), jit(inner), value_and_grad(inner)]
    barrier = threading.Barrier(len(objects))
    results = {}

    def worker(k):
        barrier.wait()
        results[k] = objects[k](1.5, 2.0)

    threads = [threading.Thread(target=worker, args=(k,), daemon=True)
               for k in range(len(objects))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(results) == len(objects)
    assert results[1] == pytest.approx(1.5 ** 2 + math.cos(2.0), rel=1e-12)
    assert results[0] == pytest.approx(2 * 2.0, rel=1e-12)


def test_threads_compiling_different_functions_at_once(tmp_path):
    # concurrent frontends used to fail with "SystemError: AST constructor recursion depth
    # mismatch": CPython's ast conversions are not thread-safe, and a collection during a
    # parse can run finalisers (llvmlite objects) that let another thread parse
    source = tmp_path / "many.py"
    source.write_text("".join(f"def f{i}(x, y):\n    return x * y + {i}.0 * x\n\n"
                              for i in range(48)))
    spec = importlib.util.spec_from_file_location("many", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    barrier = threading.Barrier(8)
    errors, results = [], {}

    def worker(k):
        barrier.wait()
        try:
            for i in range(k, 48, 8):
                f = getattr(module, f"f{i}")
                results[i] = jit(f)(1.0, 2.0), grad(f)(1.0, 2.0)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(repr(error))

    threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(8)]
    threshold = gc.get_threshold()
    gc.set_threshold(10)  # frequent collections: finalisers that release the GIL mid-parse
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        gc.set_threshold(*threshold)
    assert errors == []
    assert results == {i: (2.0 + i, 2.0 + i) for i in range(48)}
