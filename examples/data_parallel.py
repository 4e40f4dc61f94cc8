"""A data-parallel gradient on Dask: one task per shard of the data, summed in shard order.

    pip install adlite[dask]
    python examples/data_parallel.py

Starts a LocalCluster of 2 worker processes (loopback only), scatters 4 shards of a
regression data set once, takes a few gradient steps with `data_parallel_grad` and checks the
first gradient against the same sum computed in this process (`serial_grad`: equal, bit for
bit). On a real cluster, connect `Client("tcp://scheduler:8786")` instead; the workers need
adlite installed (and the data, or the shards scattered to them as here).
"""

import numpy as np

from adlite.compiler.distributed import data_parallel_grad, scatter_shards, serial_grad


def loss(params, x, y):
    """Squared error of a one-hidden-layer network on one shard."""
    hidden = np.tanh(x @ params["w1"] + params["b1"])
    r = hidden @ params["w2"] - y
    return np.sum(r * r)


def make_data(n_shards=4, rows=2000, features=8, hidden=16, seed=0):
    rng = np.random.default_rng(seed)
    params = {"w1": rng.standard_normal((features, hidden)) / np.sqrt(features),
              "b1": np.zeros(hidden), "w2": rng.standard_normal(hidden) / np.sqrt(hidden)}
    shards = []
    for _ in range(n_shards):
        x = rng.standard_normal((rows, features))
        shards.append((x, np.sin(x[:, 0]) + 0.1 * rng.standard_normal(rows)))
    return params, shards


def main() -> None:
    from dask.distributed import Client, LocalCluster

    params, shards = make_data()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address="127.0.0.1:0", host="127.0.0.1") as cluster, \
            Client(cluster) as client:
        remote = scatter_shards(client, shards, loss)  # the data stays on the workers
        value, gradient = data_parallel_grad(client, loss, params, remote)
        same_value, same_gradient = serial_grad(loss, params, shards)
        equal = value == same_value and all(np.array_equal(gradient[k], same_gradient[k])
                                            for k in gradient)
        print(f"loss {value:.6f}; equal to the single-process sum: {equal}")
        for step in range(3):
            params = {k: params[k] - 1e-5 * gradient[k] for k in params}
            value, gradient = data_parallel_grad(client, loss, params, remote)
            print(f"step {step + 1}: loss {value:.6f}")


if __name__ == "__main__":
    main()
