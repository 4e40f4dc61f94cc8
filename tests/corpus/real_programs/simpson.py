"""Composite Simpson quadrature of a lambda: the second moment of a Gaussian density as a
function of its mean and width; an odd `n` raises ValueError."""

import numpy as np


def simpson(f, a, b, n=100):
    if n % 2:
        raise ValueError("n must be even")
    x = np.linspace(a, b, n + 1)
    fx = f(x)
    h = (b - a) / n
    return h / 3 * (fx[0] + 4 * np.sum(fx[1:-1:2]) + 2 * np.sum(fx[2:-1:2]) + fx[-1])


def second_moment(mu, sigma, lo=-10.0, hi=10.0):
    density = lambda x: np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * np.sqrt(2 * np.pi))  # noqa: E731
    return simpson(lambda x: x ** 2 * density(x), lo, hi, n=200)


def _case():
    from . import Case
    return Case(second_moment, (0.5, 1.3), wrt=(0, 1))


CASE = _case()
