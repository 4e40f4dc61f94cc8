"""Per-example gradients over a batch of 1024: `vmap(grad(loss))` against a Python loop calling
the compiled `grad(loss)` once per example, and against JAX's `jit(vmap(grad(loss)))` when
JAX is installed. Two losses: logistic regression (100 features) and a small MLP
(16-32(tanh)-1, squared error), each gradient w.r.t. the weights. `python -m
benchmarks.vmap` prints this table alone."""

from __future__ import annotations

import numpy as np

BATCH = 1024


def logistic(w, x, label):
    return np.log(1.0 + np.exp(-label * np.dot(w, x)))


def mlp(w1, w2, x, y):
    return (np.dot(w2, np.tanh(w1 @ x)) - y) ** 2


def _cases(rng) -> dict:
    """name: (loss, weights, batched data, loss for JAX over an array module)."""
    return {
        "logistic regression, 100 features": (
            logistic, (rng.normal(size=100),),
            (rng.normal(size=(BATCH, 100)), np.sign(rng.normal(size=BATCH))),
            lambda xp: lambda w, x, label: xp.log(1.0 + xp.exp(-label * xp.dot(w, x)))),
        "MLP 16-32(tanh)-1, squared error": (
            mlp, (rng.normal(size=(32, 16)) / 4.0, rng.normal(size=32) / 4.0),
            (rng.normal(size=(BATCH, 16)), rng.normal(size=BATCH)),
            lambda xp: lambda w1, w2, x, y: (xp.dot(w2, xp.tanh(w1 @ x)) - y) ** 2),
    }


def _jax(loss, in_axes: tuple):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    fn = jax.jit(jax.vmap(jax.grad(loss(jnp)), in_axes=in_axes))
    return lambda *a: jax.block_until_ready(fn(*a))


def _loop(one, n_weights, *args):
    """`one` (the gradient of one example) called for each example of the batched data."""
    weights, data = args[:n_weights], args[n_weights:]
    return [one(*weights, *(d[i] for d in data)) for i in range(BATCH)]


def vmap_table(best_time, fmt) -> None:
    """Print the table; `best_time(fn, args)` and `fmt(seconds)` as in `benchmarks`."""
    from adlite.compiler import grad, vmap

    print(f"## Per-example gradients, batch {BATCH}, d/d(first weight)\n")
    print("| loss | adlite vmap(grad) (us) | Python loop over grad (us) | loop / vmap | "
          "JAX jit(vmap(grad)) (us) | JAX / adlite |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (loss, weights, data, jax_loss) in _cases(np.random.default_rng(0)).items():
        in_axes = (None,) * len(weights) + (0,) * len(data)
        args = weights + data
        batched = vmap(grad(loss), in_axes=in_axes)
        one = grad(loss)
        expected = np.array([one(*weights, *(d[i] for d in data)) for i in range(BATCH)])
        np.testing.assert_allclose(batched(*args), expected, rtol=1e-9, atol=1e-12)

        ours = best_time(batched, args)
        looped = best_time(_loop, (one, len(weights)) + args)
        peer = _jax(jax_loss, in_axes)
        theirs = best_time(peer, args) if peer else None
        vs = f"{theirs / ours:.2f}" if theirs else "n/a"
        print(f"| {name} | {fmt(ours)} | {fmt(looped)} | {looped / ours:.1f} | "
              f"{fmt(theirs) if theirs else 'JAX not installed'} | {vs} |")
    print()


if __name__ == "__main__":
    from .__main__ import best_time, fmt

    vmap_table(best_time, fmt)
