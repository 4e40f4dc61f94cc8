"""Classic fourth-order Runge-Kutta taking the right-hand side as a function (a damped
driven oscillator given as a lambda over its parameters)."""

import numpy as np


def rk4(f, y0, t0, t1, n=100):
    h = (t1 - t0) / n
    t, y = t0, y0
    for _ in range(n):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = t + h
    return y


def oscillator(t, y, omega, zeta, force):
    x, v = y[0], y[1]
    return np.array([v, -2 * zeta * omega * v - omega ** 2 * x + force * np.cos(t)])


def final_amplitude(params, y0, t_end=5.0):
    omega, zeta, force = params
    rhs = lambda t, y: oscillator(t, y, omega, zeta, force)  # noqa: E731
    y = rk4(rhs, y0, 0.0, t_end, n=200)
    return np.sqrt(y[0] ** 2 + y[1] ** 2)


def _case():
    from . import Case
    return Case(final_amplitude, (np.array([2.0, 0.1, 0.5]), np.array([1.0, 0.0])), wrt=(0, 1))


CASE = _case()
