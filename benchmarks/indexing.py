"""The indexing rows of `make bench`: gathers with repeated indices and their scatter-add
gradients, for numpy (value only), adlite and JAX (jit) when installed, measured in this run.

- embedding: `sum(tanh(W[idx]) * v)`, W 10,000 x 32, 50,000 rows gathered (repeats), d/dW
  (a scatter-add of 50,000 rows);
- cross-entropy: `-mean(log_softmax(logits)[arange(n), labels])`, 4,096 x 100, d/dlogits
  (a gather and a scatter of one element per row).
Nothing here asserts a timing.
"""

from __future__ import annotations

import numpy as np


def embedding_loss(w, idx, v):
    return np.sum(np.tanh(w[idx]) * v)


def cross_entropy(logits, labels):
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(logits.shape[0]), labels])


def _arguments() -> dict:
    rng = np.random.default_rng(0)
    return {"embedding": (rng.standard_normal((10_000, 32)),
                          rng.integers(0, 10_000, 50_000), rng.standard_normal((50_000, 32))),
            "cross-entropy": (rng.standard_normal((4096, 100)), rng.integers(0, 100, 4096))}


FUNCTIONS = {"embedding": embedding_loss, "cross-entropy": cross_entropy}


def _jax() -> dict | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def embedding(w, idx, v):
        return jnp.sum(jnp.tanh(w[idx]) * v)

    def xent(logits, labels):
        logp = jax.nn.log_softmax(logits, axis=1)
        return -jnp.mean(logp[jnp.arange(logits.shape[0]), labels])

    def block(f):
        return lambda *a: jax.block_until_ready(f(*a))

    return {name: (block(jax.jit(f)), block(jax.jit(jax.grad(f))))
            for name, f in (("embedding", embedding), ("cross-entropy", xent))}


def indexing_table(best_time, fmt) -> None:
    from adlite.compiler import grad, jit

    jax_fns = _jax()
    print("## Indexing: gathers with repeats and their scatter-add gradients\n")
    print("Times in us; embedding: sum(tanh(W[idx]) * v), W 10,000x32, 50,000 indices, d/dW; "
          "cross-entropy: logp[arange(n), labels], 4,096x100, d/dlogits.\n")
    print("| workload | numpy | adlite | JAX jit | adlite gradient | JAX jit gradient |")
    print("|---|---:|---:|---:|---:|---:|")
    arguments = _arguments()
    for name, fn in FUNCTIONS.items():
        args = arguments[name]
        cells = [best_time(fn, args), best_time(jit(fn), args), None,
                 best_time(grad(fn), args), None]
        if jax_fns is not None:
            cells[2], cells[4] = (best_time(f, args) for f in jax_fns[name])
        print(f"| {name} | " + " | ".join(
            fmt(t) if t is not None else "not installed" for t in cells) + " |")
    print()
