"""The data-parallel gradient of `examples/data_parallel.py`'s loss on Dask: 1 and 2 worker
processes (one thread each) against the same sum in one process, the shards scattered once
(the data stays on the workers; each step sends the parameters and gathers one gradient).
`python -m benchmarks.scaleout [workers ...]` prints this table alone; without dask installed
it prints a line saying so. Nothing here asserts a timing."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
from data_parallel import loss, make_data  # noqa: E402

from adlite.compiler import wait_optimised  # noqa: E402

SHARDS, ROWS, FEATURES, HIDDEN = 8, 5_000, 32, 64


def _best(step, repeat: int = 5) -> float:
    step()  # compiled (and the workers warm) before timing
    wait_optimised()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return min(times)


def scaleout_table(workers: tuple[int, ...] = (1, 2)) -> None:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("Data-parallel gradient on Dask: dask is not installed "
              "(`pip install adlite[dask]`).\n")
        return
    from adlite.compiler.distributed import data_parallel_grad, scatter_shards, serial_grad

    params, shards = make_data(SHARDS, ROWS, FEATURES, HIDDEN)
    print(f"## Data-parallel gradient: {SHARDS} shards x {ROWS:,} rows, MLP {FEATURES}-{HIDDEN}"
          f"(tanh)-1, squared error ({os.cpu_count()} cores)\n")
    print("| engine | gradient (ms) | speed-up vs one process |")
    print("|---|---:|---:|")
    alone = _best(lambda: serial_grad(loss, params, shards))
    print(f"| one process, no Dask (`serial_grad`) | {alone * 1e3:,.1f} | 1.00 |")
    for n in workers:
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                          dashboard_address="127.0.0.1:0", host="127.0.0.1") as cluster, \
                Client(cluster) as client:
            remote = scatter_shards(client, shards, loss)
            t = _best(lambda c=client, r=remote: data_parallel_grad(c, loss, params, r))
        print(f"| Dask, {n} worker process{'es' if n > 1 else ''} | {t * 1e3:,.1f} | "
              f"{alone / t:.2f} |")
    print()


if __name__ == "__main__":
    scaleout_table(tuple(int(a) for a in sys.argv[1:]) or (1, 2))
