"""Benchmark workloads written as plain Python (what a user would write).

W2: 1000-step explicit Euler integration of a damped oscillator, loss = final position.
W4: a while loop whose trip count depends on the parameter p.
"""

import numpy as np


def w2_oscillator(k, c):
    x = 1.0
    v = 0.0
    dt = 0.01
    for _ in range(1000):
        a = -k * x - c * v
        v = v + dt * a
        x = x + dt * v
    return x


def w4_while(p):
    x = 1.0
    total = 0.0
    while x < 1000.0:
        x = x * (1.0 + 0.01 * p) + 0.1
        total = total + np.sin(x) * p
    return total


def noop(a, b):
    return a
