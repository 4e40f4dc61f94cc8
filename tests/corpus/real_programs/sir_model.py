"""SIR epidemic model written for an odeint-style integrator `f(y, t, *args)`, integrated
with forward Euler; the result is the final epidemic size."""

import numpy as np


def sir(y, t, beta, gamma):
    S, I, R = y
    dS = -beta * S * I
    dI = beta * S * I - gamma * I
    dR = gamma * I
    return np.array([dS, dI, dR])


def euler(f, y0, t, args=()):
    ys = [y0]
    for i in range(1, len(t)):
        ys.append(ys[-1] + (t[i] - t[i - 1]) * f(ys[-1], t[i - 1], *args))
    return np.stack(ys)


def final_size(beta, gamma, I0=0.01, days=60, dt=0.25):
    t = np.arange(0, days + dt, dt)
    y0 = np.array([1 - I0, I0, 0.0])
    sol = euler(sir, y0, t, args=(beta, gamma))
    return sol[-1, 2]


def _case():
    from . import Case
    return Case(final_size, (0.4, 0.15), {"days": 40}, wrt=(0, 1))


CASE = _case()
