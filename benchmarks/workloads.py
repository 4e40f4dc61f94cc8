"""Benchmark workloads written as plain Python (what a user would write).

W2: 1000-step explicit Euler integration of a damped oscillator, loss = final position
    (the function of examples/oscillator.py).
W4: a while loop whose trip count depends on the parameter p.
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


def noop(a, b):
    return a
