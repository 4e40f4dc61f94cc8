"""The scalar corpus: compiled gradients vs eager tape vs central finite differences."""

import zlib

import numpy as np
import pytest

from adlite.compiler import grad, jit

from ..support.corpus_scalar import CORPUS
from ..support.gradients import (
    assert_close,
    eager_gradient,
    finite_difference_gradient,
    float_positions,
    sample,
)

BACKENDS = ["llvm", "python"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,fn,kinds", CORPUS, ids=[c[0] for c in CORPUS])
def test_gradient_three_ways(name, fn, kinds, backend):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    wrt = float_positions(kinds)
    compiled_grad = grad(fn, wrt=wrt, backend=backend)
    compiled = jit(fn, backend=backend)
    for _ in range(3):
        args = [sample(k, rng) for k in kinds]
        value = compiled(*args)
        assert_close(value, fn(*args), 1e-12, 1e-12, f"{name} value at {args}")
        got = compiled_grad(*args)
        assert_close(got, eager_gradient(fn, args, wrt), 1e-10, 1e-12, f"{name} vs tape {args}")
        assert_close(got, finite_difference_gradient(fn, args, wrt), 1e-5, 1e-6,
                     f"{name} vs finite differences at {args}")
    assert compiled_grad.compile_count == len({tuple(type(a) for a in args)} | set())


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 60
