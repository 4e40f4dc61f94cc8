"""A two-layer perceptron whose parameters live in a dict, mean squared error loss."""

import numpy as np


def init_params(n_in, n_hidden, n_out, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "W1": rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in),
        "b1": np.zeros(n_hidden),
        "W2": rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden),
        "b2": np.zeros(n_out),
    }


def forward(params, x):
    h = np.tanh(x @ params["W1"] + params["b1"])
    return h @ params["W2"] + params["b2"]


def mse_loss(params, x, y, weight_decay=1e-4):
    pred = forward(params, x)
    penalty = sum(np.sum(params[k] ** 2) for k in ("W1", "W2"))
    return np.mean((pred - y) ** 2) + weight_decay * penalty


def _case():
    from . import Case
    rng = np.random.default_rng(3)
    params = init_params(4, 8, 2)
    params["b1"] = 0.1 * rng.standard_normal(8)
    x = rng.standard_normal((16, 4))
    y = rng.standard_normal((16, 2))
    return Case(mse_loss, (params, x, y), wrt=0)


CASE = _case()
