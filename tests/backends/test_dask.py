"""Data-parallel gradients on a Dask LocalCluster of 2 worker processes (loopback only)."""

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from ..support.paths import ROOT

pytest.importorskip("dask.distributed")

from dask.distributed import Client, LocalCluster  # noqa: E402

from adlite.compiler import grad, jit, value_and_grad  # noqa: E402
from adlite.compiler.distributed import (  # noqa: E402
    ShardLostError,
    TaskError,
    WorkerSetupError,
    compilations,
    data_parallel_grad,
    scatter_shards,
    serial_grad,
)


def squared_error(w, x, y):
    r = x @ w - y
    return np.sum(r * r)


def logistic(params, x, y):
    z = x @ params["w"] + params["b"]
    return np.sum(np.log1p(np.exp(-y * z)))


def _data(n_shards=6, rows=40, cols=5, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(cols)
    shards = [(rng.standard_normal((rows, cols)), rng.standard_normal(rows))
              for _ in range(n_shards)]
    return w, shards


def _cluster(n_workers):
    return LocalCluster(n_workers=n_workers, processes=True, threads_per_worker=1,
                        dashboard_address="127.0.0.1:0", host="127.0.0.1")


@pytest.fixture(scope="module")
def client():
    with _cluster(2) as cluster, Client(cluster) as c:
        yield c


def test_the_data_parallel_gradient_is_the_single_process_gradient(client):
    w, shards = _data()
    value, gradient = data_parallel_grad(client, squared_error, w, shards)
    # the single-process sum, in shard order (adlite in this process) ...
    vg = value_and_grad(squared_error)
    per_shard = [vg(w, x, y) for x, y in shards]
    expected_value, expected_grad = per_shard[0]
    for v, g in per_shard[1:]:
        expected_value, expected_grad = expected_value + v, expected_grad + g
    assert value == expected_value and np.array_equal(gradient, expected_grad)
    # ... and numpy's closed form
    x, y = np.concatenate([s[0] for s in shards]), np.concatenate([s[1] for s in shards])
    np.testing.assert_allclose(gradient, 2 * x.T @ (x @ w - y), rtol=1e-12)
    np.testing.assert_allclose(value, np.sum((x @ w - y) ** 2), rtol=1e-12)
    # both workers took tasks, and each compiled the gradient once for its 6 tasks' signature
    counts = compilations(client)
    assert len(counts) == 2
    assert all(c == {"value_and_grad(squared_error)": 1} for c in counts.values()), counts


def test_structured_parameters_and_a_closure_sent_by_value(client):
    rng = np.random.default_rng(1)
    params = {"w": rng.standard_normal(3), "b": 0.25}
    shards = [(rng.standard_normal((20, 3)), np.sign(rng.standard_normal(20))) for _ in range(3)]
    scale = 0.5

    def scaled(p, x, y):  # a closure: pickled by value (cloudpickle comes with dask)
        return scale * logistic(p, x, y)

    remote = scatter_shards(client, shards, scaled)
    x, y = np.concatenate([s[0] for s in shards]), np.concatenate([s[1] for s in shards])
    for _ in range(3):  # the parameters change at every step; the data stays on the workers
        value, gradient = data_parallel_grad(client, scaled, params, remote)
        z = x @ params["w"] + params["b"]
        s = -y / (1 + np.exp(y * z)) * scale
        np.testing.assert_allclose(value, scale * np.sum(np.log1p(np.exp(-y * z))), rtol=1e-12)
        np.testing.assert_allclose(gradient["w"], x.T @ s, rtol=1e-12)
        np.testing.assert_allclose(gradient["b"], np.sum(s), rtol=1e-12)
        params = {"w": params["w"] - 0.1 * gradient["w"], "b": params["b"] - 0.1 * gradient["b"]}


def test_compiled_functions_are_dask_tasks(client):
    g = grad(squared_error)
    w, shards = _data(n_shards=2)
    futures = client.map(g, [w, w], [s[0] for s in shards], [s[1] for s in shards])
    for (x, y), result in zip(shards, client.gather(futures), strict=True):
        np.testing.assert_allclose(result, 2 * x.T @ (x @ w - y), rtol=1e-12)
    cube = jit(lambda v: v * v * v)
    assert client.submit(cube, 3.0).result() == 27.0


def test_a_shard_of_the_wrong_shape_is_named_before_anything_runs(client):
    w, shards = _data(n_shards=3)
    shards[2] = (shards[2][0][:, :4], shards[2][1])
    with pytest.raises(ValueError, match=r"shard 2, argument x: expected float64\(None, 5\).*"
                                         r"got float64\(None, 4\)"):
        data_parallel_grad(client, squared_error, w, shards)


def test_an_unpicklable_argument_is_named(client):
    import threading

    w, shards = _data(n_shards=2)
    shards[1] = (shards[1][0], shards[1][1], threading.Lock())
    with pytest.raises(TypeError, match=r"shard 1\[2\] \(lock\) cannot be pickled"):
        data_parallel_grad(client, squared_error, w, shards)


def test_a_failed_task_is_named_and_nothing_is_added(client):
    w, shards = _data(n_shards=4)
    flagged = [(x, y, k == 1) for k, (x, y) in enumerate(shards)]  # shard 1 raises on its worker
    remote = scatter_shards(client, flagged, picky)
    with pytest.raises(TaskError, match=r"task adlite-picky-shard1-\w+ \(shard 1 of picky\) "
                                        r"failed: ValueError: shard refused") as e:
        data_parallel_grad(client, picky, w, remote)
    assert e.value.shard == 1 and isinstance(e.value.__cause__, ValueError)
    # the shards and the cluster are usable afterwards, and the next reduction is right
    value, _ = data_parallel_grad(client, picky, w, [s for k, s in enumerate(remote) if k != 1])
    assert value == serial_grad(picky, w, [s for k, s in enumerate(flagged) if k != 1])[0]
    value, _ = data_parallel_grad(client, picky, w, [(x, y, False) for x, y in shards])
    x, y = np.concatenate([s[0] for s in shards]), np.concatenate([s[1] for s in shards])
    np.testing.assert_allclose(value, np.sum((x @ w - y) ** 2), rtol=1e-12)


def picky(w, x, y, bad):
    if bad:
        raise ValueError("shard refused")
    return np.sum((x @ w - y) ** 2)


def _hide_adlite():
    for name in [n for n in sys.modules if n == "adlite" or n.startswith("adlite.")]:
        del sys.modules[name]
    sys.modules["adlite"] = None


def test_a_worker_without_adlite_is_named():
    with _cluster(1) as cluster, Client(cluster) as c:
        c.run(_hide_adlite)
        w, shards = _data(n_shards=2)
        with pytest.raises(WorkerSetupError, match=r"adlite cannot be imported on 1 of 1 "
                                                   r"workers \(tcp://127\.0\.0\.1:\d+: "
                                                   r"ModuleNotFoundError"):
            data_parallel_grad(c, squared_error, w, shards)


SCRIPT = '''
import os
import signal
import subprocess
import sys
import threading
import time
import numpy as np
from dask.distributed import Client
from adlite.compiler import jit


@jit
def cube_sum(x):
    return np.sum(x * x * x)


if __name__ == "__main__":
    with Client(sys.argv[1]) as client:
        print(client.submit(cube_sum, np.array([1.0, 2.0])).result())
'''


def test_a_script_sends_its_own_jit_functions_to_a_running_cluster(client, tmp_path):
    # the workers were not started by the script: their __main__ is not the script's
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(script), client.scheduler.address],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[0] == "9.0"


def test_scattered_shards_serve_many_calls(client):
    w, shards = _data(n_shards=3)
    remote = scatter_shards(client, shards, squared_error)
    for _ in range(2):
        value, gradient = data_parallel_grad(client, squared_error, w, remote)
        expected_value, expected_grad = serial_grad(squared_error, w, shards)
        assert value == expected_value and np.array_equal(gradient, expected_grad)
        w = w - 1e-3 * gradient


def test_dict_parameters_are_one_object_and_leave_the_users_data_alone(client):
    mine = client.scatter({"w": np.zeros(5)})  # the user's own data, under the key "w"
    w, shards = _data(n_shards=2)
    for k in range(3):
        value, gradient = data_parallel_grad(client, dict_loss, {"w": w + k}, shards)
        expected = serial_grad(dict_loss, {"w": w + k}, shards)
        assert value == expected[0] and np.array_equal(gradient["w"], expected[1]["w"])
    assert np.array_equal(mine["w"].result(), np.zeros(5))


def dict_loss(params, x, y):
    return squared_error(params["w"], x, y)


def slow_squared_error(w, x, y, n):
    s = 0.0
    i = 0
    while i < n:  # seconds of work: time to kill the worker running it
        s = s + 1e-12 * w[0]
        i = i + 1
    return squared_error(w, x, y) + s


def _kill_worker(client, address: str) -> None:
    os.kill(client.run(os.getpid)[address], signal.SIGKILL)  # its nanny starts a new one


def _holder(client, future) -> str:
    (address,) = client.who_has([future])[future.key]
    return address


def test_shards_lost_with_a_killed_worker_are_sent_again():
    w, shards = _data(n_shards=4)
    quick = [(x, y, 10) for x, y in shards]
    slow = [(x, y, 10**9 if k == 0 else 10) for k, (x, y) in enumerate(shards)]
    with _cluster(2) as cluster, Client(cluster) as c:
        data_parallel_grad(c, slow_squared_error, w, quick)  # compiled on both workers
        remote = scatter_shards(c, quick, slow_squared_error)
        _kill_worker(c, _holder(c, remote[0]))  # before the call: its shards are gone
        value, gradient = data_parallel_grad(c, slow_squared_error, w, remote)
        expected = serial_grad(slow_squared_error, w, quick)
        assert value == expected[0] and np.array_equal(gradient, expected[1])

        # during the call: once shard 0's task runs (for a second or more), its worker dies
        remote = scatter_shards(c, slow, slow_squared_error)
        victim = _holder(c, remote[0])

        def kill_when_running():
            deadline = time.monotonic() + 60
            while not any(str(k).startswith("adlite-slow_squared_error-shard0")
                          for k in c.processing().get(victim, ())):
                assert time.monotonic() < deadline
                time.sleep(0.01)
            time.sleep(0.2)
            _kill_worker(c, victim)

        killer = threading.Thread(target=kill_when_running)
        killer.start()
        value, gradient = data_parallel_grad(c, slow_squared_error, w, remote)
        killer.join()
        expected = serial_grad(slow_squared_error, w, slow)
        assert value == expected[0] and np.array_equal(gradient, expected[1])


def test_a_lost_shard_that_cannot_be_sent_again_is_named():
    w, shards = _data(n_shards=2)
    with _cluster(2) as cluster, Client(cluster) as c:
        remote = c.scatter([(x, y) for x, y in shards], hash=False)  # not through scatter_shards
        _kill_worker(c, _holder(c, remote[1]))
        with pytest.raises(ShardLostError, match=r"the data of shard 1 of squared_error was "
                                                 r"lost with its worker") as e:
            data_parallel_grad(c, squared_error, w, remote)
        assert e.value.shard == 1


def test_the_example_runs():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "data_parallel.py")],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0].endswith("equal to the single-process sum: True")
    losses = [float(lines[0].split()[1].rstrip(";"))] + [float(ln.split()[-1]) for ln in lines[1:]]
    assert losses == sorted(losses, reverse=True)  # gradient steps lower the loss
