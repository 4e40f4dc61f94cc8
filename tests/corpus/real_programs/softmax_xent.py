"""Softmax cross-entropy of a linear classifier, picking the true class by fancy indexing."""

import numpy as np


def softmax_cross_entropy(W, b, X, labels, reg=1e-3):
    n = X.shape[0]
    logits = X @ W + b
    logits -= logits.max(axis=1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    data_loss = -log_probs[np.arange(n), labels].mean()
    return data_loss + 0.5 * reg * np.sum(W * W)


def _case():
    from . import Case
    rng = np.random.default_rng(6)
    X = rng.standard_normal((12, 5))
    labels = rng.integers(0, 3, size=12)
    W = 0.1 * rng.standard_normal((5, 3))
    b = np.zeros(3)
    return Case(softmax_cross_entropy, (W, b, X, labels), wrt=(0, 1))


CASE = _case()
