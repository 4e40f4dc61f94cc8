"""Functions that another process cannot import travel by value with their source.

Each case is a script run as `python script.py` (its functions live in `__main__`), from a
directory that is not the script's: a closure, a lambda and a `__main__` function (calling a
`__main__` helper) go to multiprocessing workers (spawn and fork) and to Dask workers whose
directory lacks the script, whose file is gone or replaced by another program by then; a
`grad`/`jit` pickled after its first call is unpickled and called in the same process. Each
runs with the cloudpickle installed and with cloudpickle hidden (a clear error for what cannot
go by name, by name for `__main__` functions). Expected values are written out by hand.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

NO_CLOUDPICKLE = "raise ImportError('cloudpickle is hidden for this test')\n"

PRELUDE = '''
import multiprocessing
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from adlite.compiler import grad, jit


def helper(x):
    return x * x * x


def cube_sum(x):
    return np.sum(helper(x))


def make(k):
    def loss(x):
        return k * np.sum(x * x)
    return loss


def call(f, *args):
    return f(*args).tolist()
'''


def _run(tmp_path, body: str, cloudpickle: bool, timeout: int = 240):
    """Run PRELUDE + body as the main script, from a directory without it."""
    script_dir, cwd = tmp_path / "scripts", tmp_path / "elsewhere"
    script_dir.mkdir()
    cwd.mkdir()
    script = script_dir / "program.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    env = None
    if not cloudpickle:
        hidden = tmp_path / "hidden"
        hidden.mkdir()
        (hidden / "cloudpickle.py").write_text(NO_CLOUDPICKLE)
        env = {**os.environ, "PYTHONPATH": str(hidden)}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=timeout, cwd=cwd, env=env)
    return out, script


@pytest.mark.parametrize("method", ["spawn", "fork"])
@pytest.mark.parametrize("cloudpickle", [True, False], ids=["cloudpickle", "no_cloudpickle"])
def test_process_pools_receive_main_functions_closures_and_lambdas(tmp_path, method,
                                                                   cloudpickle):
    pytest.importorskip("cloudpickle")
    body = f'''
    if __name__ == "__main__":
        x = np.array([1.0, -2.0])
        context = multiprocessing.get_context("{method}")
        jobs = {{"main": grad(cube_sum), "closure": grad(make(3.0)),
                "lambda": grad(lambda x: np.sum(x * x * x * x))}}
        with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
            for name, g in jobs.items():
                try:
                    print(name, pool.submit(call, g, x).result(timeout=200))
                except pickle.PicklingError as e:
                    print(name, "PicklingError", e)
    '''
    out, _ = _run(tmp_path, body, cloudpickle)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert lines["main"] == "[3.0, 12.0]"  # d/dx sum(x^3) = 3x^2
    if cloudpickle:
        assert lines["closure"] == "[6.0, -12.0]"  # 2 k x
        assert lines["lambda"] == "[4.0, -32.0]"  # 4 x^3
    else:
        for name, what in (("closure", "make.<locals>.loss"), ("lambda", "<lambda>")):
            assert lines[name].startswith(f"PicklingError cannot pickle grad({what}): "), lines
            assert "install cloudpickle" in lines[name]


@pytest.mark.parametrize("cloudpickle", [True, False], ids=["cloudpickle", "no_cloudpickle"])
def test_a_transformation_pickled_after_its_first_call_runs_in_the_same_process(tmp_path,
                                                                                cloudpickle):
    body = '''
    if __name__ == "__main__":
        x = np.array([1.0, -2.0])
        for f in (grad(cube_sum), jit(cube_sum), grad(make(0.5))):
            before = f(x)
            try:
                copy = pickle.loads(pickle.dumps(f))
            except pickle.PicklingError as e:
                print("PicklingError", e)
                continue
            print(np.asarray(before).tolist(), np.asarray(copy(x)).tolist())
    '''
    out, _ = _run(tmp_path, body, cloudpickle)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[0] == "[3.0, 12.0] [3.0, 12.0]"
    assert lines[1] == "-7.0 -7.0"
    if cloudpickle:
        assert lines[2] == "[1.0, -2.0] [1.0, -2.0]"
    else:
        assert lines[2].startswith("PicklingError cannot pickle grad(make.<locals>.loss)")


DASK = '''
import os
from dask.distributed import Client, LocalCluster
from adlite.compiler.distributed import data_parallel_grad, serial_grad


def shard_loss(w, x, y):
    r = x @ w - y
    return np.sum(r * r) + np.sum(helper(w))


if __name__ == "__main__":
    w = np.array([0.5, -1.0])
    shards = [(np.eye(2) * (k + 1), np.ones(2) * k) for k in range(3)]
    scale = 2.0
    closure = lambda w, x, y: scale * shard_loss(w, x, y)  # noqa: E731
    expected = {"main": serial_grad(shard_loss, w, shards),
                "closure": serial_grad(closure, w, shards)}
    source = open(__file__).read()
    os.rename(__file__, __file__ + ".moved")  # the workers cannot read the script ...
    # ... and what they find at its path is another program
    open(__file__, "w").write(source.replace("np.sum(r * r)", "np.sum(r)"))
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address="127.0.0.1:0", host="127.0.0.1") as cluster, \\
            Client(cluster) as client:
        print("worker cwd", client.run(os.getcwd).popitem()[1] == os.getcwd())
        for name, f in (("main", shard_loss), ("closure", closure)):
            value, gradient = data_parallel_grad(client, f, w, shards)
            print(name, value, gradient.tolist(), value == expected[name][0] and
                  gradient.tolist() == expected[name][1].tolist())
'''


def test_dask_workers_compile_the_carried_source_not_the_file_at_its_path(tmp_path):
    pytest.importorskip("dask.distributed")
    out, _ = _run(tmp_path, DASK, cloudpickle=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[0] == "worker cwd True"
    # sum_k |(k+1) w - k|^2 + sum(w^3); gradient sum_k 2 (k+1) ((k+1) w - k) + 3 w^2
    assert lines[1] == "main 32.875 [0.25, -35.0] True", lines
    assert lines[2] == "closure 65.75 [0.5, -70.0] True", lines


def test_lambdas_on_continuation_lines_compile():
    from adlite.compiler import grad

    table = {"cube": grad(lambda x: x * x * x),
             "product": grad(lambda x, y: x * y + y)}
    both = [grad(lambda x: 2.0 * x), grad(lambda y: 3.0 * y * y)]
    assert table["cube"](2.0) == 12.0
    assert table["product"](3.0, 4.0) == 4.0
    assert [both[0](5.0), both[1](5.0)] == [2.0, 30.0]
