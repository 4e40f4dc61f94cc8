"""`vmap` over the array corpus: every corpus function, and its gradient, batched over three
examples of its float arguments (int arguments unbatched), against a Python loop over the
examples (values: plain numpy; gradients: the compiled per-example gradient, itself checked
against the eager tape and finite differences by `test_array_corpus.py`)."""

import zlib

import numpy as np
import pytest

from adlite.compiler import grad, vmap

from ..support.corpus_arrays import ARRAY_CORPUS, differentiable, sample
from ..support.corpus_scalar import CORPUS
from ..support.gradients import float_positions
from ..support.gradients import sample as scalar_sample

BATCH = 3


def batched_arguments(specs, rng):
    """(batched arguments, in_axes, per-example argument lists)."""
    examples = [[sample(s, rng) for s in specs] for _ in range(BATCH)]
    ints = [isinstance(s, tuple) and s[0] == "i" for s in specs]
    for example in examples[1:]:  # one value for the unbatched ints
        for k, is_int in enumerate(ints):
            if is_int:
                example[k] = examples[0][k]
    args = [examples[0][k] if is_int else np.stack([np.asarray(e[k], dtype=float)
                                                    for e in examples])
            for k, is_int in enumerate(ints)]
    return args, tuple(None if is_int else 0 for is_int in ints), examples


@pytest.mark.parametrize("name,fn,specs", ARRAY_CORPUS, ids=[c[0] for c in ARRAY_CORPUS])
def test_vmap_of_the_corpus(name, fn, specs):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    args, in_axes, examples = batched_arguments(specs, rng)
    got = vmap(fn, in_axes)(*args)
    np.testing.assert_allclose(got, [fn(*e) for e in examples], rtol=1e-11, atol=1e-12,
                               err_msg=name)
    wrt = differentiable(specs)
    per_example = vmap(grad(fn, wrt=wrt), in_axes)(*args)
    one = grad(fn, wrt=wrt)
    for i, e in enumerate(examples):
        for k, g in enumerate(one(*e)):
            np.testing.assert_allclose(per_example[k][i], g, rtol=1e-11, atol=1e-12,
                                       err_msg=f"{name}: gradient {k} of example {i}")


@pytest.mark.parametrize("name,fn,kinds", CORPUS, ids=[c[0] for c in CORPUS])
def test_vmap_of_the_scalar_corpus(name, fn, kinds):
    """Every argument batched, ints included: per-example trip counts and branches."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    examples = [[scalar_sample(k, rng) for k in kinds] for _ in range(4)]
    args = [np.array(column) for column in zip(*examples, strict=True)]
    wrt = float_positions(kinds)
    got = vmap(fn)(*args)
    np.testing.assert_allclose(got, [fn(*e) for e in examples], rtol=1e-12, atol=1e-12,
                               err_msg=name)
    per_example = vmap(grad(fn, wrt=wrt))(*args)
    one = grad(fn, wrt=wrt)
    for i, e in enumerate(examples):
        np.testing.assert_allclose([g[i] for g in per_example], one(*e), rtol=1e-12,
                                   atol=1e-12, err_msg=f"{name}: example {i}")
