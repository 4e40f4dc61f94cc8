"""Log-likelihood of an observation sequence under an HMM: the forward algorithm in log
space with scipy.special.logsumexp, the parameters normalised from free logits."""

import numpy as np
from scipy.special import logsumexp


def log_normalize(logits, axis=-1):
    return logits - logsumexp(logits, axis=axis, keepdims=True)


def hmm_log_likelihood(pi_logits, A_logits, B_logits, obs):
    log_pi = log_normalize(pi_logits)
    log_A = log_normalize(A_logits, axis=1)
    log_B = log_normalize(B_logits, axis=1)
    log_alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
    return logsumexp(log_alpha)


def _case():
    from . import Case
    rng = np.random.default_rng(14)
    obs = rng.integers(0, 4, size=20)
    return Case(hmm_log_likelihood, (rng.standard_normal(3), rng.standard_normal((3, 3)),
                                     rng.standard_normal((3, 4)), obs), wrt=(0, 1, 2))


CASE = _case()
