"""W1 (Rosenbrock) and W3 (MLP) for the peers: JAX and autograd share one definition over an
array module `xp`; PyTorch has its own (its reductions take `dim`, not `axis`)."""

from __future__ import annotations


def rosenbrock(xp, x):
    return xp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def mlp(xp, w1, b1, w2, b2, x, y_onehot):
    h = xp.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    m = xp.max(logits, axis=1, keepdims=True)
    z = logits - m
    logp = z - xp.log(xp.sum(xp.exp(z), axis=1, keepdims=True))
    return -xp.sum(logp * y_onehot) / x.shape[0]


def make_jax():
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def block(f):
        return lambda *a: jax.block_until_ready(f(*a))

    w1 = jax.jit(lambda x: rosenbrock(jnp, x))
    w3 = jax.jit(lambda *a: mlp(jnp, *a))
    return {"W1": (block(w1), block(jax.jit(jax.grad(lambda x: rosenbrock(jnp, x))))),
            "W3": (block(w3), block(jax.jit(jax.grad(lambda *a: mlp(jnp, *a),
                                                     argnums=(0, 1, 2, 3)))))}


def make_autograd():
    import autograd
    import autograd.numpy as anp

    return {"W1": (lambda x: rosenbrock(anp, x), autograd.grad(lambda x: rosenbrock(anp, x))),
            "W3": (lambda *a: mlp(anp, *a),
                   autograd.grad(lambda w1, b1, w2, b2, x, y: mlp(anp, w1, b1, w2, b2, x, y),
                                 argnum=(0, 1, 2, 3)))}


def make_torch():
    import torch

    def t_rosenbrock(x):
        return torch.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    def t_mlp(w1, b1, w2, b2, x, y):
        logits = torch.tanh(x @ w1 + b1) @ w2 + b2
        return -torch.sum(torch.log_softmax(logits, dim=1) * y) / x.shape[0]

    def primal(fn):
        def run(*args):
            with torch.no_grad():
                return fn(*(torch.from_numpy(a) for a in args)).item()
        return run

    def gradient(fn, n_wrt):
        def run(*args):
            ts = [torch.tensor(a, requires_grad=i < n_wrt) for i, a in enumerate(args)]
            fn(*ts).backward()
            return tuple(t.grad for t in ts[:n_wrt])
        return run

    return {"W1": (primal(t_rosenbrock), gradient(t_rosenbrock, 1)),
            "W3": (primal(t_mlp), gradient(t_mlp, 4))}


ARRAY_PEERS = {"JAX": make_jax, "PyTorch (eager)": make_torch, "autograd": make_autograd}
