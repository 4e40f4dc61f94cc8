"""Meta-learning a learning rate: plain gradient descent on a least-squares problem with a
hand-written gradient, unrolled, with a verbose flag printing progress."""

import numpy as np


def loss_and_grad(w, X, y):
    r = X @ w - y
    return 0.5 * np.mean(r ** 2), X.T @ r / len(y)


def train(log_lr, X, y, steps=30, momentum=0.5, verbose=False):
    lr = np.exp(log_lr)
    w = np.zeros(X.shape[1])
    velocity = np.zeros_like(w)
    losses = []
    for i in range(steps):
        loss, g = loss_and_grad(w, X, y)
        losses.append(loss)
        velocity = momentum * velocity - lr * g
        w = w + velocity
        if verbose and i % 10 == 0:
            print(i, loss, end=" ")
    if verbose:
        print()
    final_loss, _ = loss_and_grad(w, X, y)
    return final_loss + 0.1 * sum(losses) / len(losses)


def _case():
    from . import Case
    rng = np.random.default_rng(25)
    X = rng.standard_normal((20, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.standard_normal(20)
    return Case(train, (np.log(0.1), X, y), {"steps": 25}, wrt=0)


CASE = _case()
