"""Array corpus: compiled gradients vs eager tape vs directional finite differences."""

import zlib

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.runtime import Tensor

from .corpus_arrays import ARRAY_CORPUS


def sample(spec, rng):
    if spec == "f":
        return float(rng.uniform(-1.5, 1.5))
    if spec[0] == "i":
        return int(rng.integers(spec[1], spec[2] + 1))
    if spec[0] == "p":
        return rng.uniform(0.5, 2.0, spec[1])
    return rng.standard_normal(spec)


def differentiable(specs):
    return tuple(i for i, s in enumerate(specs) if not (isinstance(s, tuple) and s[0] == "i"))


def test_corpus_is_large_enough():
    assert len(ARRAY_CORPUS) >= 40


@pytest.mark.parametrize("name,fn,specs", ARRAY_CORPUS, ids=[c[0] for c in ARRAY_CORPUS])
def test_array_function_three_ways(name, fn, specs):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    wrt = differentiable(specs)
    g = grad(fn, wrt=wrt)
    for _ in range(2):
        args = [sample(s, rng) for s in specs]
        assert jit(fn)(*args) == pytest.approx(fn(*args), rel=1e-12, abs=1e-12)
        got = g(*args)
        tensors = [Tensor(a, requires_grad=True) if i in wrt else a for i, a in enumerate(args)]
        fn(*tensors).backward()
        for k, i in enumerate(wrt):
            np.testing.assert_allclose(got[k], tensors[i].grad.numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"{name}: argument {i} vs eager tape")
        directions = [rng.standard_normal(np.shape(args[i])) for i in wrt]

        def along(step, args=args, directions=directions):
            moved = list(args)
            for i, d in zip(wrt, directions, strict=True):
                moved[i] = args[i] + step * d
            return fn(*moved)

        eps = 1e-6
        numeric = (along(eps) - along(-eps)) / (2 * eps)
        analytic = sum(float(np.sum(np.asarray(got[k]) * d))
                       for k, d in enumerate(directions))
        assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-6), name
