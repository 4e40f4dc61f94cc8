"""Negative log-likelihood of a constant-velocity Kalman filter, one predict/update step
per measurement row, with np.linalg for the innovation covariance."""

import numpy as np


def kalman_step(x, P, z, F, H, Q, R):
    # predict
    x = F @ x
    P = F @ P @ F.T + Q
    # update
    y = z - H @ x
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    x = x + K @ y
    P = (np.eye(len(x)) - K @ H) @ P
    return x, P, y, S


def negative_log_likelihood(log_q, log_r, measurements, dt=0.1):
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    q = np.exp(log_q)
    Q = q * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    R = np.exp(log_r) * np.eye(1)
    x = np.zeros(2)
    P = np.eye(2)
    nll = 0.0
    for z in measurements:
        x, P, innovation, S = kalman_step(x, P, z, F, H, Q, R)
        nll += 0.5 * (np.log(np.linalg.det(2 * np.pi * S))
                      + innovation @ np.linalg.solve(S, innovation))
    return nll


def _case():
    from . import Case
    rng = np.random.default_rng(2)
    t = np.arange(15) * 0.1
    zs = (2.0 * t + 0.3 * rng.standard_normal(15)).reshape(-1, 1)
    return Case(negative_log_likelihood, (0.1, -1.0, zs), wrt=(0, 1))


CASE = _case()
