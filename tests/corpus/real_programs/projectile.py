"""Range of a projectile with quadratic drag: Euler steps in a while loop until it lands,
the landing point interpolated linearly; launch angle in degrees."""

import numpy as np


def projectile_range(v0, angle_deg, drag=0.05, g=9.81, dt=0.01):
    theta = np.radians(angle_deg)
    x, y = 0.0, 0.0
    vx, vy = v0 * np.cos(theta), v0 * np.sin(theta)
    x_prev, y_prev = x, y
    while y >= 0.0:
        x_prev, y_prev = x, y
        speed = np.sqrt(vx ** 2 + vy ** 2)
        vx = vx - drag * speed * vx * dt
        vy = vy - (g + drag * speed * vy) * dt
        x = x + vx * dt
        y = y + vy * dt
    return x_prev + (x - x_prev) * y_prev / (y_prev - y)


def _case():
    from . import Case
    return Case(projectile_range, (20.0, 40.0), {"drag": 0.02}, wrt=(0, 1))


CASE = _case()
