"""One self-attention head with layer normalisation, written with np.einsum and a scalar-or-
array temperature checked with np.isscalar."""

import numpy as np


def layer_norm(x, gain, bias, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gain * (x - mu) / np.sqrt(var + eps) + bias


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(params, X, temperature=1.0):
    Q = np.einsum("td,de->te", X, params["Wq"])
    K = np.einsum("td,de->te", X, params["Wk"])
    V = np.einsum("td,de->te", X, params["Wv"])
    d = Q.shape[-1]
    if np.isscalar(temperature):
        scale = 1.0 / (temperature * np.sqrt(d))
    else:
        scale = 1.0 / (np.asarray(temperature)[:, None] * np.sqrt(d))
    weights = softmax(np.einsum("qe,ke->qk", Q, K) * scale)
    out = layer_norm(X + weights @ V, params["gain"], params["bias"])
    return np.sum(out ** 2) / X.shape[0]


def _case():
    from . import Case
    rng = np.random.default_rng(23)
    d = 4
    params = {"Wq": rng.standard_normal((d, d)) / 2, "Wk": rng.standard_normal((d, d)) / 2,
              "Wv": rng.standard_normal((d, d)) / 2, "gain": 1.0 + 0.1 * rng.standard_normal(d),
              "bias": 0.1 * rng.standard_normal(d)}
    return Case(attention, (params, rng.standard_normal((6, d))), {"temperature": 0.8}, wrt=0)


CASE = _case()
