"""Log evidence of Bayesian linear regression in a class built by a classmethod, the prior
held in a nested object; np.linalg.slogdet returns a (sign, logdet) tuple."""

import numpy as np


class GaussianPrior:
    def __init__(self, precision):
        self.precision = precision


class BayesianLinearRegression:
    def __init__(self, prior, noise_precision):
        self.prior = prior
        self.beta = noise_precision

    @classmethod
    def from_hyperparameters(cls, alpha=1.0, beta=25.0):
        return cls(GaussianPrior(alpha), beta)

    def log_evidence(self, log_scale, Phi, t):
        n, m = Phi.shape
        alpha = self.prior.precision * np.exp(log_scale)
        if np.isscalar(alpha):
            alpha = alpha * np.ones(m)
        A = np.diag(alpha) + self.beta * Phi.T @ Phi
        mean = self.beta * np.linalg.solve(A, Phi.T @ t)
        sign, logdet = np.linalg.slogdet(A)
        assert sign > 0
        fit = self.beta / 2 * np.sum((t - Phi @ mean) ** 2) + 0.5 * np.sum(alpha * mean ** 2)
        return (0.5 * np.sum(np.log(alpha)) + 0.5 * n * np.log(self.beta) - fit
                - 0.5 * logdet - 0.5 * n * np.log(2 * np.pi))


model = BayesianLinearRegression.from_hyperparameters(alpha=2.0)


def _case():
    from . import Case
    rng = np.random.default_rng(24)
    x = rng.uniform(-1, 1, 15)
    Phi = np.stack([x ** k for k in range(4)], axis=1)
    t = np.sin(2 * x) + 0.2 * rng.standard_normal(15)
    return Case(model.log_evidence, (np.array([0.1, -0.2, 0.3, 0.0]), Phi, t), wrt=0)


CASE = _case()
