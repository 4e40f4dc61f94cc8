"""autograd's black-box variational inference example: a builder returns the objective as a
closure over the target log-density; the Monte Carlo draws are fixed."""

import numpy as np


def log_density(x):
    mu, log_sigma = x[:, 0], x[:, 1]
    sigma_density = -0.5 * log_sigma ** 2 / 1.35 ** 2
    mu_density = -0.5 * mu ** 2 * np.exp(-2 * log_sigma) - log_sigma
    return sigma_density + mu_density


def black_box_variational_inference(logprob, D, eps):
    """Returns the variational objective for a diagonal Gaussian approximation."""

    def unpack_params(params):
        mean, log_std = params[:D], params[D:]
        return mean, log_std

    def gaussian_entropy(log_std):
        return 0.5 * D * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)

    def variational_objective(params):
        mean, log_std = unpack_params(params)
        samples = eps * np.exp(log_std) + mean
        lower_bound = gaussian_entropy(log_std) + np.mean(logprob(samples))
        return -lower_bound

    return variational_objective


objective = black_box_variational_inference(
    log_density, D=2, eps=np.random.default_rng(21).standard_normal((50, 2)))


def _case():
    from . import Case
    return Case(objective, (np.array([-0.5, 0.2, -1.0, -0.8]),), wrt=0)


CASE = _case()
