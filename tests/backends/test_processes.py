"""Compiled functions in process pools (spawn and fork) and thread pools (the GIL released)."""

import multiprocessing
import pickle
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from adlite.compiler import grad, jit

from ..support import scaleout_helpers as helpers

METHODS = [m for m in ("spawn", "fork") if m in multiprocessing.get_all_start_methods()]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(4), rng.standard_normal((10, 4)), rng.standard_normal(10)


def _expected(k, w, x, y):
    return k * 2 * x.T @ (x @ w - y)


@pytest.mark.parametrize("method", METHODS)
def test_process_pools_run_module_level_functions_and_closures(method):
    pytest.importorskip("cloudpickle")  # closures go by value
    context = multiprocessing.get_context(method)
    w, x, y = _data()
    jobs = [(grad(helpers.squared_error), 1.0), (helpers.scaled_gradient(3.0), 3.0)]
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        futures = [pool.submit(helpers.call, g, w, x, y) for g, _ in jobs]
        for future, (_, k) in zip(futures, jobs, strict=True):
            np.testing.assert_allclose(future.result(timeout=240), _expected(k, w, x, y),
                                       rtol=1e-12)
    g = grad(helpers.squared_error)
    with context.Pool(2) as pool:
        results = pool.starmap(g, [(w, x, y), (2 * w, x, y), (w, 2 * x, y)])
    for result, (a, b) in zip(results, [(w, x), (2 * w, x), (w, 2 * x)], strict=True):
        np.testing.assert_allclose(result, _expected(1.0, a, b, y), rtol=1e-12)
    with context.Pool(2) as pool:  # Pool.map of a compiled function
        values = pool.map(jit(helpers.spin), [10, 20, 30])
    np.testing.assert_allclose(values, [sum(np.sin(i * 1e-3) * 1e-3 for i in range(n))
                                        for n in (10, 20, 30)], rtol=1e-12)


def test_a_process_compiles_a_function_it_receives_many_times_once():
    pytest.importorskip("cloudpickle")  # a closure goes by value
    g = helpers.scaled_gradient(2.0)
    w, x, y = _data()
    copies = [pickle.loads(pickle.dumps(g)) for _ in range(3)]
    assert copies[0] is copies[1] is copies[2]
    for c in copies:
        np.testing.assert_allclose(c(w, x, y), _expected(2.0, w, x, y), rtol=1e-12)
    assert copies[0].compile_count == 1


def test_a_closure_runs_where_its_file_is_missing(tmp_path):
    pytest.importorskip("cloudpickle")
    module = tmp_path / "gone_module.py"
    module.write_text("import numpy as np\nfrom adlite.compiler import grad\n\n\n"
                      "def make(k):\n    def loss(x):\n        return k * np.sum(x * x * x)\n"
                      "    return grad(loss)\n")
    payload = tmp_path / "payload.pkl"
    build = (f"import pickle, sys; sys.path.insert(0, {str(tmp_path)!r})\n"
             "import gone_module\n"
             f"open({str(payload)!r}, 'wb').write(pickle.dumps(gone_module.make(2.0)))\n")
    subprocess.run([sys.executable, "-c", build], check=True, timeout=120)
    module.unlink()  # the receiving process has neither the module nor its file
    use = (f"import pickle, numpy as np\n"
           f"g = pickle.loads(open({str(payload)!r}, 'rb').read())\n"
           "print(g(np.array([1.0, -2.0])).tolist())\n")
    out = subprocess.run([sys.executable, "-c", use], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == str([6.0, 24.0])


def test_an_unimportable_function_without_cloudpickle_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "cloudpickle", None)
    g = grad(lambda x: x * x)
    with pytest.raises(pickle.PicklingError, match=r"cannot pickle grad\(.*<lambda>\): .*"
                                                   "define it at module level"):
        pickle.dumps(g)


def test_thread_pools_run_compiled_functions_without_the_gil():
    spin = jit(helpers.spin)
    n = 3_000_000
    spin(10)  # compiled before timing
    start = time.perf_counter()
    spin(n)
    alone = time.perf_counter() - start
    # while one thread runs native code for `alone` seconds, this thread keeps running Python
    ticks, inside = [], threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(lambda: (inside.set(), time.perf_counter(), spin(n),
                                      time.perf_counter()))
        inside.wait()
        while not future.done():
            ticks.append(time.perf_counter())
            time.sleep(0)
        _, entered, value, left = future.result()
    middle = [t for t in ticks if entered + (left - entered) / 3 < t < left - (left - entered) / 3]
    assert middle, f"no Python ran during {left - entered:.3f} s of native code (alone {alone:.3f})"
    assert value == spin(n)
    with ThreadPoolExecutor(max_workers=2) as pool:  # results per thread are each call's own
        results = list(pool.map(spin, [1000, 2000, 1000, 2000]))
    assert results[0] == results[2] == spin(1000) and results[1] == results[3] == spin(2000)
