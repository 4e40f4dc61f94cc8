"""A physics model as a class: a pendulum integrated with symplectic Euler; the user
differentiates the bound method w.r.t. the initial angle and velocity."""

import numpy as np


class Pendulum:
    def __init__(self, length=1.0, mass=1.0, g=9.81, damping=0.0):
        self.length = length
        self.mass = mass
        self.g = g
        self.damping = damping

    def energy(self, theta, omega):
        kinetic = 0.5 * self.mass * (self.length * omega) ** 2
        potential = self.mass * self.g * self.length * (1 - np.cos(theta))
        return kinetic + potential

    def acceleration(self, theta, omega):
        return -self.g / self.length * np.sin(theta) - self.damping * omega

    def simulate(self, theta0, omega0, dt=0.01, steps=200):
        theta, omega = theta0, omega0
        for _ in range(steps):
            omega = omega + dt * self.acceleration(theta, omega)
            theta = theta + dt * omega
        return self.energy(theta, omega)


model = Pendulum(length=0.8, damping=0.05)


def _case():
    from . import Case
    return Case(model.simulate, (0.6, 0.1), {"dt": 0.02, "steps": 150}, wrt=(0, 1))


CASE = _case()
