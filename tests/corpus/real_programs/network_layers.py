# ruff: noqa: B007, B008, B905  (written as people write it: unused loop indices, zip)
"""autograd-style neural network: parameters are a list of (W, b) layers built with zip,
the loss loops over them with a default activation and L2 penalty."""

import numpy as np
import numpy.random as npr


def init_random_params(scale, layer_sizes, rs=npr.RandomState(0)):
    return [(scale * rs.randn(m, n), scale * rs.randn(n))
            for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


def neural_net_predict(params, inputs, activation=np.tanh):
    for W, b in params[:-1]:
        inputs = activation(inputs @ W + b)
    W, b = params[-1]
    outputs = inputs @ W + b
    return outputs - np.log(np.sum(np.exp(outputs), axis=1, keepdims=True))


def l2_norm(params):
    return sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in params)


def log_posterior(params, inputs, targets, L2_reg=0.01):
    log_prior = -L2_reg * l2_norm(params)
    log_lik = np.sum(neural_net_predict(params, inputs) * targets)
    return log_prior + log_lik


def objective(params, inputs, targets):
    return -log_posterior(params, inputs, targets, L2_reg=0.1)


def _case():
    from . import Case
    rs = npr.RandomState(4)
    params = init_random_params(0.5, [3, 6, 5, 4])
    inputs = rs.randn(10, 3)
    targets = np.eye(4)[rs.randint(0, 4, size=10)]
    return Case(objective, (params, inputs, targets), wrt=0)


CASE = _case()
