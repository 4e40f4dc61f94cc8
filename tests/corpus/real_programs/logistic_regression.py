"""Logistic regression with integer 0/1 labels, as in autograd's tutorial."""

import numpy as np


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1)


def logistic_predictions(weights, inputs):
    return sigmoid(np.dot(inputs, weights))


def training_loss(weights, inputs, targets, l2=0.0):
    preds = logistic_predictions(weights, inputs)
    label_probabilities = preds * targets + (1 - preds) * (1 - targets)
    return -np.sum(np.log(label_probabilities)) + l2 * np.dot(weights, weights)


def _case():
    from . import Case
    rng = np.random.default_rng(5)
    inputs = rng.standard_normal((30, 4))
    targets = (rng.random(30) > 0.5).astype(int)
    weights = 0.3 * rng.standard_normal(4)
    return Case(training_loss, (weights, inputs, targets), {"l2": 0.05}, wrt=0)


CASE = _case()
