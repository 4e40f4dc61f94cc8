"""Second derivatives of array code: the gradient is itself compiled and differentiated."""

import numpy as np

from adlite.compiler import grad

V = np.array([1.0, 2.0, -0.5])


def f(x):
    return np.sum(np.sin(x) * x * x)


gradient_of_f = grad(f)


def directional_first_derivative(x):
    return np.sum(gradient_of_f(x) * np.array([1.0, 2.0, -0.5]))
