"""ADBench GMM written as plain numpy: objective and gradient against the golden values."""

import numpy as np
import pytest

from adlite.compiler import grad, jit, value_and_grad
from benchmarks.gmm import DATA, arguments, gmm_objective

GOLDEN_OBJECTIVE = 8.07380408004975791
GOLDEN_GRADIENT = [  # ADBench test suite, data/gmm/test.txt: alphas, means, icf
    0.108662855508652456, -0.741270039523898472, 0.632607184015246071,
    1.11692576532787013, 0.163333013551455269, -0.0219989824071193142, 0.227778292254236098,
    1.20963025612832187, -0.0606375920733956339,
    2.58529994051162237, 0.112632694524213789, 0.385744309849611777,
    0.0735180573182305508, 5.41836362715595232, -0.321494409677446469,
    1.71892309775004937, 0.860091090790866875, -0.994640930466322848]


def test_objective_and_gradient_match_adbench_golden_values():
    args = arguments(DATA / "gmm_test.txt")
    value, grads = value_and_grad(gmm_objective, wrt=(0, 1, 2))(*args)
    assert value == pytest.approx(GOLDEN_OBJECTIVE, abs=1e-8)
    flat = np.concatenate([g.ravel() for g in grads])
    np.testing.assert_allclose(flat, GOLDEN_GRADIENT, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name,objective", [("gmm_d10_K5.txt", -31302.540910910437),
                                            ("gmm_d2_K10.txt", -3484.5523663481254)])
def test_objective_on_1k_files(name, objective):
    args = arguments(DATA / name)
    assert jit(gmm_objective)(*args) == pytest.approx(objective, rel=1e-12)


def test_gradient_against_finite_differences_on_1k_file():
    args = list(arguments(DATA / "gmm_d2_K10.txt"))
    grads = grad(gmm_objective, wrt=(0, 1, 2))(*args)
    rng = np.random.default_rng(0)
    directions = [rng.standard_normal(a.shape) for a in args[:3]]

    def along(step):
        moved = [a + step * d for a, d in zip(args[:3], directions, strict=True)]
        return gmm_objective(*moved, *args[3:])

    eps = 1e-6
    numeric = (along(eps) - along(-eps)) / (2 * eps)
    analytic = sum(float(np.sum(g * d)) for g, d in zip(grads, directions, strict=True))
    assert analytic == pytest.approx(numeric, rel=1e-6)
