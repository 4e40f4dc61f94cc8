"""Array corpus: compiled gradients vs eager tape vs directional finite differences."""

import zlib

import numpy as np
import pytest

from adlite.compiler import grad, jit
from adlite.runtime import Tensor

from ..support.corpus_arrays import ARRAY_CORPUS, differentiable, sample


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


@pytest.mark.parametrize("name,fn,specs", ARRAY_CORPUS, ids=[c[0] for c in ARRAY_CORPUS])
def test_float32_inputs_match_float64(name, fn, specs):
    """The same functions with float32 arrays: values and gradients stay float32 and agree
    with the float64 computation to float32 precision."""
    rng = np.random.default_rng(zlib.crc32(("f32" + name).encode()))
    args64 = [sample(s, rng) for s in specs]
    args32 = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args64]
    wrt = differentiable(specs)
    value32 = jit(fn)(*args32)
    assert value32 == pytest.approx(fn(*args64), rel=2e-4, abs=2e-4)
    g32, g64 = grad(fn, wrt=wrt)(*args32), grad(fn, wrt=wrt)(*args64)
    for k, i in enumerate(wrt):
        if isinstance(args32[i], np.ndarray):
            assert g32[k].dtype == np.float32
        scale = max(1.0, float(np.max(np.abs(g64[k]))))
        np.testing.assert_allclose(g32[k], g64[k], rtol=2e-3, atol=2e-3 * scale, err_msg=name)
