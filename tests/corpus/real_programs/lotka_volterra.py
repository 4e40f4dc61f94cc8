# ruff: noqa: B007, B008, B905  (written as people write it: unused loop indices, zip)
"""Fitting Lotka-Volterra parameters to observations stored at module level (explicit
midpoint steps, the trajectory collected with append)."""

import numpy as np

T_OBS = np.linspace(0.0, 4.0, 9)
OBSERVED = np.array([[10.0, 5.0], [8.1, 7.9], [5.3, 9.8], [3.4, 9.6], [2.5, 8.1],
                     [2.2, 6.4], [2.4, 5.0], [3.0, 3.9], [4.0, 3.2]])


def lotka_volterra(state, alpha, beta, gamma, delta):
    prey, pred = state
    return np.array([alpha * prey - beta * prey * pred,
                     delta * prey * pred - gamma * pred])


def simulate(theta, y0, t_obs, substeps=20):
    alpha, beta, gamma, delta = theta
    y = y0
    trajectory = [y0]
    for t_prev, t_next in zip(t_obs[:-1], t_obs[1:]):
        h = (t_next - t_prev) / substeps
        for _ in range(substeps):
            mid = y + 0.5 * h * lotka_volterra(y, alpha, beta, gamma, delta)
            y = y + h * lotka_volterra(mid, alpha, beta, gamma, delta)
        trajectory.append(y)
    return np.array(trajectory)


def loss(theta, y0=OBSERVED[0]):
    pred = simulate(theta, y0, T_OBS)
    return np.mean((np.log(pred) - np.log(OBSERVED)) ** 2)


def _case():
    from . import Case
    return Case(loss, (np.array([1.0, 0.1, 0.8, 0.08]),), wrt=0)


CASE = _case()
