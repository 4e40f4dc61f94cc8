"""Data-parallel gradients on Dask (`dask.distributed`): one task per shard, a fixed-order sum.

Contract: `data_parallel_grad(client, f, params, shards)` returns `(value, gradient)`: the sum
over the shards of `f(params, *shard)` (a float; `f` a Python function, or a `jit` of one)
and of its gradient with respect to `params` (an array, a float, or tuples, lists and dicts of
them, as `grad` gives it). A shard is a tuple of arguments (an array alone stands for a
one-element tuple); `scatter_shards(client, shards, f)` checks and scatters them once, for
many calls (the data stays on the workers), else each call scatters them. Each shard becomes
one task running `value_and_grad(f)` on a worker (the transformation pickles as the
function, never native code: see `pickling.py`; a worker compiles once per signature and
reuses that code for every task of the same function, or loads it from its disk cache); one
more task adds the results in shard order, value and gradient alike, so the result is the
very sum `serial_grad(f, params, shards)` computes in one process (bit for bit: same
additions, same order). Nothing is added unless every shard's task succeeded.
Errors, raised before anything runs where they can be seen on the client (shards: when they
are scattered):
- a worker without adlite (or where it fails to import): `WorkerSetupError` naming the
  workers and the import error;
- an argument that cannot be pickled (params, or a leaf of a shard): `TypeError` naming it;
- a shard whose structure, dtypes or shapes differ from the first shard's (shapes may differ
  along axis 0 only: rows): `ValueError` naming the shard and the argument;
- a task that fails on its worker: `TaskError` naming the task, the shard and the error
  (the worker's exception is its `__cause__`); the other results are dropped, the
  scattered shards are kept.
A worker that dies (killed, out of memory) takes the shards scattered to it along: Dask cancels
their tasks. Those shards are sent again from the client and their tasks submitted again, up
to RESUBMISSIONS rounds; the other shards' results are kept. For that the client keeps a
reference (not a copy) to each shard it scattered, as long as the shard's future lives. A
shard that cannot be sent again (its future came from elsewhere) or is lost in every round:
`ShardLostError` naming the shard. Dask itself reruns a task whose worker died while its
data survived elsewhere, and after `distributed.scheduler.allowed-failures` deaths in that
task marks it failed (a `TaskError` whose cause is `KilledWorker`).
`compilations(client)` tells per worker how often each transformation it received compiled.
dask is an optional dependency (`pip install adlite[dask]`); importing this module needs none.
"""

from __future__ import annotations

import asyncio
import builtins
import concurrent.futures
import inspect
import pickle
import time
import uuid
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import pickling
from .api import Transformed, value_and_grad


class WorkerSetupError(ImportError):
    """adlite cannot be imported on some workers.

    Raised by `data_parallel_grad` before any task runs, naming the workers and their
    import errors: install adlite (the client's version) in the workers' environment.

    Examples:
        >>> from adlite.compiler.distributed import WorkerSetupError
        >>> issubclass(WorkerSetupError, ImportError)
        True
    """


class TaskError(RuntimeError):
    """The task of one shard failed on its worker.

    The message names the task and the shard and repeats the worker's error, which is the
    `__cause__`; `key` is the Dask key of the task and `shard` the shard's index. Nothing
    is added when a task fails; the scattered shards are kept.

    Examples:
        >>> import numpy as np
        >>> from dask.distributed import Client
        >>> from adlite.compiler.distributed import TaskError, data_parallel_grad
        >>> def checked(w, x):
        ...     if x[0] < 0.0:
        ...         raise ValueError("negative data")
        ...     return np.sum(w * x)
        >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
        >>> try:
        ...     data_parallel_grad(client, checked, 1.0, [np.ones(2), -np.ones(2)])
        ... except TaskError as error:
        ...     print(error.shard, repr(error.__cause__))
        1 ValueError('negative data')
        >>> client.close()
    """

    def __init__(self, message: str, key: str, shard: int) -> None:
        super().__init__(message)
        self.key, self.shard = key, shard


class ShardLostError(TaskError):
    """The data of one shard was lost with its worker and could not be sent again.

    `data_parallel_grad` sends lost shards again from the client, up to `RESUBMISSIONS`
    rounds; it raises this for a shard lost in every round, or one whose future was
    scattered elsewhere (the client keeps no reference to send it again). A `TaskError`.

    Examples:
        >>> from adlite.compiler.distributed import ShardLostError, TaskError
        >>> issubclass(ShardLostError, TaskError)
        True
    """


RESUBMISSIONS = 3  # rounds of sending lost shards again
_SENT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # shard future -> the shard


def _as_arguments(shard: Any) -> tuple:
    return shard if isinstance(shard, tuple) else (shard,)


def _leaves(value: Any, where: str):
    """(where, leaf) for every leaf of a pytree of tuples, lists and dicts."""
    if isinstance(value, tuple | list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        for k, item in value.items():
            yield from _leaves(item, f"{where}[{k!r}]")
    else:
        yield where, value


def _check_picklable(value: Any, where: str) -> None:
    for place, leaf in _leaves(value, where):
        if isinstance(leaf, np.ndarray | float | int | bool | str | None):
            continue
        try:
            pickle.dumps(leaf)
        except Exception as e:  # noqa: BLE001 - any pickling failure is reported the same
            raise TypeError(f"data_parallel_grad: {place} ({type(leaf).__name__}) cannot be "
                            f"pickled to send it to the workers: {type(e).__name__}: {e}"
                            ) from e


def _layout(shard: tuple) -> list:
    """Per leaf: (where, kind, dtype, shape without axis 0) of a shard's arguments."""
    layout = []
    for where, leaf in _leaves(shard, "shard"):
        if isinstance(leaf, np.ndarray):
            layout.append((where, "array", leaf.dtype, leaf.shape[1:], leaf.ndim))
        else:
            layout.append((where, type(leaf).__name__, None, None, None))
    return layout


def _check_shards(shards: Sequence[tuple], names: Sequence[str]) -> None:
    first = _layout(shards[0])
    for k, shard in enumerate(shards):
        _check_picklable(shard, f"shard {k}")
        layout = _layout(shard)
        if [w for w, *_ in layout] != [w for w, *_ in first]:
            raise ValueError(f"data_parallel_grad: shard {k} has the leaves "
                             f"{[w for w, *_ in layout]}, shard 0 has {[w for w, *_ in first]}; "
                             "every shard has the structure of the first")
        for (where, kind, dtype, rest, ndim), (_, kind0, dtype0, rest0, ndim0) in zip(
                layout, first, strict=True):
            argument = _argument_name(where, names)
            if (kind, dtype, rest, ndim) != (kind0, dtype0, rest0, ndim0):
                got = f"{dtype}{(None,) + rest if ndim else ()}" if kind == "array" else kind
                want = f"{dtype0}{(None,) + rest0 if ndim0 else ()}" if kind0 == "array" \
                    else kind0
                raise ValueError(f"data_parallel_grad: shard {k}, argument {argument}: expected "
                                 f"{want} as in shard 0 (only the length along axis 0 may "
                                 f"differ), got {got}")


def _argument_name(where: str, names: Sequence[str]) -> str:
    """`shard[1][0]` -> `y[0]` (the parameter the shard's leaf is passed as)."""
    index, _, rest = where[len("shard["):].partition("]")
    k = int(index) + 1  # params is the first parameter
    return (names[k] if k < len(names) else f"#{k}") + rest


def _run_shard(task: Callable, params: Any, shard: tuple):
    """The task of one shard (on a worker): (value, gradient)."""
    return task(params, *shard)


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, dict):
        return {k: _add(a[k], b[k]) for k in a}
    if isinstance(a, tuple | list):
        return type(a)(_add(x, y) for x, y in zip(a, b, strict=True))
    return a + b


def _sum_in_order(results: Sequence[tuple]) -> tuple:
    """(sum of values, sum of gradients), added in the order of `results`."""
    value, gradient = results[0]
    for v, g in results[1:]:
        value, gradient = value + v, _add(gradient, g)
    return value, gradient


_TASKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _task(f: Callable) -> Transformed:
    """`value_and_grad(f)`, one per function (its compilations are reused call after call)."""
    task = _TASKS.get(f)
    if task is None:
        task = _TASKS[f] = value_and_grad(f)
    return task


def serial_grad(f: Callable, params: Any, shards: Sequence[Any]) -> tuple:
    """What `data_parallel_grad` computes, in this process: the same sums in the same order.

    `(value, gradient)`: the sums over `shards` of `f(params, *shard)` and of its gradient
    w.r.t. `params`, added in shard order, so the result is bit for bit that of
    [`data_parallel_grad`][adlite.compiler.distributed.data_parallel_grad]. Needs no Dask.

    Args:
        f: The function, `f(params, *shard) -> float`: a Python function or a `jit` of one.
        params: The parameters: an array, a float, or tuples, lists and dicts of them.
        shards: The shards: each a tuple of the remaining arguments (an array alone stands
            for a one-element tuple).

    Returns:
        `(value, gradient)`, the gradient with the structure of `params`.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler.distributed import serial_grad
        >>> def loss(w, x, y):
        ...     return np.sum((x @ w - y) ** 2)
        >>> x, y = np.arange(8.0).reshape(4, 2), np.ones(4)
        >>> serial_grad(loss, np.array([1.0, 2.0]), [(x[:2], y[:2]), (x[2:], y[2:])])
        (580.0, array([360., 440.]))
    """
    task = _task(f.fn if isinstance(f, Transformed) else f)
    return _sum_in_order([task(params, *_as_arguments(s)) for s in shards])


def _check_workers(client) -> None:
    failures = client.run(builtins.exec, "import adlite.compiler.distributed",
                          on_error="return")
    # a worker that cannot be reached (OSError: it died, its connection closed) is the
    # scheduler's to replace, not a setup error
    missing = {w: e for w, e in failures.items()
               if isinstance(e, BaseException) and not isinstance(e, OSError)}
    if missing:
        details = "; ".join(f"{w}: {type(e).__name__}: {e}" for w, e in sorted(missing.items()))
        raise WorkerSetupError(f"data_parallel_grad: adlite cannot be imported on "
                               f"{len(missing)} of {len(failures)} workers ({details}); "
                               "install adlite (the version of the client) in the workers' "
                               "environment")


def _parameter_names(f: Callable) -> list[str]:
    try:
        return list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return []


def scatter_shards(client, shards: Sequence[Any], f: Callable | None = None) -> list:
    """Check `shards` and scatter them to `client`'s workers once, for many gradients.

    Returns Dask futures to pass to
    [`data_parallel_grad`][adlite.compiler.distributed.data_parallel_grad] in place of the
    shards, call after call: the data stays on the workers. The client keeps a reference
    (not a copy) to each shard, to send it again if its worker dies.

    Args:
        client: A `dask.distributed.Client`.
        shards: The shards: each a tuple of arguments after `params` (an array alone stands
            for a one-element tuple).
        f: The function, used only to name the arguments in error messages.

    Returns:
        One future per shard, in order.

    Raises:
        ValueError: For no shards, or a shard whose structure, dtypes or shapes differ from
            the first shard's (shapes may differ along axis 0 only), naming the shard and
            the argument.
        TypeError: For a leaf of a shard that cannot be pickled, naming it.

    Examples:
        >>> import numpy as np
        >>> from dask.distributed import Client
        >>> from adlite.compiler.distributed import data_parallel_grad, scatter_shards
        >>> def loss(w, x, y):
        ...     return np.sum((x @ w - y) ** 2)
        >>> x, y = np.arange(8.0).reshape(4, 2), np.ones(4)
        >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
        >>> futures = scatter_shards(client, [(x[:2], y[:2]), (x[2:], y[2:])], loss)
        >>> for w in (np.array([1.0, 2.0]), np.array([0.0, 0.5])):
        ...     print(data_parallel_grad(client, loss, w, futures))
        (580.0, array([360., 440.]))
        (9.0, array([44., 52.]))
        >>> scatter_shards(client, [(x[:2], y[:2]), (x[2:], y[2:].astype(np.int64))], loss)
        Traceback (most recent call last):
        ...
        ValueError: data_parallel_grad: shard 1, argument y: expected float64(None,) as in ...
        >>> client.close()
    """
    shards = [_as_arguments(s) for s in shards]
    if not shards:
        raise ValueError("data_parallel_grad: no shards")
    _check_shards(shards, _parameter_names(f.fn if isinstance(f, Transformed) else f)
                  if f is not None else [])
    return _scatter(client, shards)


def _scatter(client, shards: Sequence[tuple]) -> list:
    # keys of their own: equal data scattered under its hash while an earlier call's futures of
    # it are being released is lost ("lost dependencies")
    futures = _send(client, list(shards))
    for future, shard in zip(futures, shards, strict=True):
        _SENT[future] = shard  # to send it again if its worker dies
    return futures


def _send(client, data: list, broadcast: bool = False) -> list:
    """`client.scatter(data)`, tried again while a worker that just died is still listed (its
    connection fails: OSError) until the scheduler has removed it."""
    for delay in (0.1, 0.3, 1.0, 3.0):
        try:
            return client.scatter(data, broadcast=broadcast, hash=False)
        except OSError:
            time.sleep(delay)
    return client.scatter(data, broadcast=broadcast, hash=False)  # its error, if any, stands


def _cancelled(futures: Sequence) -> list[int]:
    """Wait for `futures`; the indices of those Dask cancelled (their data was lost)."""
    from dask.distributed import wait

    try:
        wait(futures)
    except (concurrent.futures.CancelledError, asyncio.CancelledError):
        pass  # every future is done; the statuses below say which were cancelled
    return [k for k, future in enumerate(futures) if future.status == "cancelled"]


def data_parallel_grad(client, f: Callable, params: Any, shards: Sequence[Any]) -> tuple:
    """Value and gradient of a sum over data shards, one Dask task per shard.

    Returns `(value, gradient)`: the sum over the shards of `f(params, *shard)` (a float)
    and of its gradient w.r.t. `params`, as `grad` gives it. Each shard becomes one task
    running `value_and_grad(f)` on a worker (the transformation pickles as the function,
    never as native code: a worker compiles once per signature, or loads the code from its
    disk cache, and reuses it for every task of the function); one more task adds the
    results in shard order, so the result is bit for bit
    [`serial_grad`][adlite.compiler.distributed.serial_grad]'s. Nothing is added unless
    every shard's task succeeded. A shard whose worker dies is sent again from the client
    and its task submitted again (up to `RESUBMISSIONS` rounds), keeping the other shards'
    results. Dask is an optional dependency (`pip install adlite[dask]`).

    Args:
        client: A `dask.distributed.Client`; its workers need adlite installed.
        f: The function, `f(params, *shard) -> float`: a Python function or a `jit` of
            one. Lambdas, closures and functions of `__main__` are sent by value (with
            cloudpickle, which Dask brings).
        params: The parameters: an array, a float, or tuples, lists and dicts of them.
        shards: The shards (each a tuple of the remaining arguments; an array alone stands
            for a one-element tuple), scattered by this call; or the futures
            [`scatter_shards`][adlite.compiler.distributed.scatter_shards] returned, to
            keep the data on the workers across calls.

    Returns:
        `(value, gradient)`, the gradient with the structure of `params`.

    Raises:
        WorkerSetupError: When adlite cannot be imported on some workers.
        TypeError: For a function, `params` or a shard's leaf that cannot be pickled.
        ValueError: For shards that differ in structure, dtypes or shapes (see
            `scatter_shards`).
        TaskError: When a shard's task fails on its worker (the worker's error is the
            `__cause__`).
        ShardLostError: When a shard's data is lost and cannot be sent again.

    Examples:
        >>> import numpy as np
        >>> from dask.distributed import Client
        >>> from adlite.compiler.distributed import data_parallel_grad
        >>> def loss(w, x, y):
        ...     return np.sum((x @ w - y) ** 2)
        >>> x, y = np.arange(8.0).reshape(4, 2), np.ones(4)
        >>> shards = [(x[:2], y[:2]), (x[2:], y[2:])]
        >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
        >>> data_parallel_grad(client, loss, np.array([1.0, 2.0]), shards)
        (580.0, array([360., 440.]))
        >>> client.close()
    """
    from dask.distributed import Future

    if isinstance(f, Transformed):
        f = f.fn
    name = getattr(f, "__name__", type(f).__name__)
    names = _parameter_names(f)
    task = _task(f)
    try:
        pickle.dumps(task)
    except Exception as e:  # noqa: BLE001
        raise TypeError(f"data_parallel_grad: the function {name} cannot be pickled to send it "
                        f"to the workers: {type(e).__name__}: {e}") from e
    _check_picklable(params, f"params ({names[0] if names else 'argument 0'})")
    remote_shards = list(shards) if shards and all(isinstance(s, Future) for s in shards) \
        else scatter_shards(client, shards, f)
    _check_workers(client)
    token = uuid.uuid4().hex[:8]
    keys = [f"adlite-{name}-shard{k}-{token}" for k in range(len(remote_shards))]
    # one object (a dict would be scattered value by value, under its keys), a key of its own
    remote_params = _send(client, [params], broadcast=True)[0]

    def submit(k: int, key: str):
        return client.submit(_run_shard, task, remote_params, remote_shards[k], key=key,
                             pure=False)

    futures = [submit(k, key) for k, key in enumerate(keys)]
    for round_ in range(1, RESUBMISSIONS + 2):
        lost = _cancelled(futures)
        if not lost:
            break
        for k in lost:
            shard = _SENT.get(remote_shards[k])
            if shard is None or round_ > RESUBMISSIONS:
                why = ("it was scattered elsewhere: pass the shards, or the futures "
                       "scatter_shards returned" if shard is None
                       else f"it was lost again in each of {RESUBMISSIONS} resubmissions")
                raise ShardLostError(f"data_parallel_grad: the data of shard {k} of {name} was "
                                     f"lost with its worker and cannot be sent again: {why}",
                                     futures[k].key, k)
        if remote_params.status != "finished":
            remote_params = _send(client, [params], broadcast=True)[0]
        for k, future in zip(lost, _scatter(client, [_SENT[remote_shards[k]] for k in lost]),
                             strict=True):
            remote_shards[k] = future
            futures[k] = submit(k, f"{keys[k]}-resent{round_}")
    for k, future in enumerate(futures):
        if future.status == "error":
            error = future.exception()
            raise TaskError(f"data_parallel_grad: task {future.key} (shard {k} of {name}) "
                            f"failed: {type(error).__name__}: {error}", future.key, k
                            ) from error
    total = client.submit(_sum_in_order, futures, key=f"adlite-{name}-sum-{token}", pure=False)
    return total.result()


def compilations(client) -> dict[str, dict[str, int]]:
    """Per worker: how many signatures each transformation it received compiled.

    Returns:
        `{worker address: {transformation: number of compilations}}`.

    Examples:
        >>> import numpy as np
        >>> from dask.distributed import Client
        >>> from adlite.compiler.distributed import compilations, data_parallel_grad
        >>> def weighted_sum(w, x):
        ...     return np.sum(w * x)
        >>> client = Client(processes=False, n_workers=1, dashboard_address=":0")
        >>> for w in (1.0, 2.0):  # two shapes of shards: two signatures, compiled once each
        ...     _ = data_parallel_grad(client, weighted_sum, w, [np.ones(2), np.ones(3)])
        >>> [counts["value_and_grad(weighted_sum)"] for counts in compilations(client).values()]
        [2]
        >>> client.close()
    """
    return client.run(pickling.compilations)
