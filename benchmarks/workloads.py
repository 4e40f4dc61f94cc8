"""Benchmark workloads written as plain Python (what a user would write).

W2: 1000-step explicit Euler integration of a damped oscillator, loss = final position
    (the function of examples/oscillator.py).
W4: a while loop whose trip count depends on the parameter p.
W1: the Rosenbrock function of a vector (n = 1e6 in the benchmark).
W3: a 784-128(tanh)-10 MLP with softmax cross-entropy on a batch of 256.
"""

import numpy as np

from examples.oscillator import oscillator as w2_oscillator  # noqa: E402, F401


def w4_while(p):
    x = 1.0
    total = 0.0
    while x < 1000.0:
        x = x * (1.0 + 0.01 * p) + 0.1
        total = total + np.sin(x) * p
    return total


def w1_rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def w3_mlp(w1, b1, w2, b2, x, y_onehot):
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    m = np.max(logits, axis=1, keepdims=True)
    z = logits - m
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(logp * y_onehot) / x.shape[0]


def w1_args():
    return (np.random.default_rng(0).uniform(-1.0, 1.0, 1_000_000),)


def w3_args():
    rng = np.random.default_rng(0)
    y = np.zeros((256, 10))
    y[np.arange(256), rng.integers(0, 10, 256)] = 1.0
    return (rng.standard_normal((784, 128)) * 0.05, np.zeros(128),
            rng.standard_normal((128, 10)) * 0.1, np.zeros(10),
            rng.standard_normal((256, 784)), y)


def w2_args():
    return (1.3, 0.2)


def w4_args():
    return (0.7,)


def matmul(a, b):
    return a @ b


def matmul_args():
    rng = np.random.default_rng(0)
    return rng.standard_normal((256, 784)), rng.standard_normal((784, 128))
