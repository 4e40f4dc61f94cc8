"""The checks every numpy-breadth test file (issue 26) runs on a function of float arrays:
compiled values against numpy's, reverse mode against central differences and the eager
tape, forward mode against directional differences, refusals at the user's line."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from adlite.compiler import grad, jacfwd, jit, jvp
from adlite.compiler.errors import AdliteSyntaxError
from adlite.runtime import Tensor

from .gradients import central_difference_in

BACKENDS = ("llvm", "python")


def case_ids(cases) -> list[str]:
    """`name-shape1xshape2` for each (fn, args) case: deterministic test ids."""
    return [f"{fn.__name__}-{'x'.join(str(np.shape(a)) for a in args)}" for fn, args in cases]


def random_arrays(rng: np.random.Generator):
    """`arrays(*shapes)`: a tuple of standard normal arrays of those shapes drawn from `rng`."""
    def arrays(*shapes):
        return tuple(rng.standard_normal(s) for s in shapes)

    return arrays


def case_tests(cases, ids, rtol: float = 1e-15, atol: float = 1e-15) -> tuple:
    """The checks of every (fn, args) case as pytest test functions, for a test module to
    bind to `test_...` names: values on both backends (`check_values` with `rtol`, `atol`),
    gradients, forward mode."""
    cases_and_ids = pytest.mark.parametrize("fn,args", cases, ids=ids)
    backends = pytest.mark.parametrize("backend", BACKENDS)

    @backends
    @cases_and_ids
    def values(fn, args, backend):
        check_values(fn, args, backend, rtol=rtol, atol=atol)

    @backends
    @cases_and_ids
    def gradients(fn, args, backend):
        check_gradients(fn, args, backend)

    @backends
    @cases_and_ids
    def forward(fn, args, backend):
        check_forward(fn, args, backend)

    return values, gradients, forward


def tape_test(cases, ids, on_tape=lambda case: True):
    """`check_tape` of the cases `on_tape` accepts, as a pytest test function."""
    taped = [(c, i) for c, i in zip(cases, ids, strict=True) if on_tape(c)]

    @pytest.mark.parametrize("fn,args", [c for c, _ in taped], ids=[i for _, i in taped])
    def tape(fn, args):
        check_tape(fn, args)

    return tape


def copies(args) -> tuple:
    return tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args)


def weighted(fn):
    """A scalar loss of `fn`'s result (any arity): its elements weighted by fixed, distinct
    numbers (the function itself when its result is a number)."""
    def loss(*args):
        y = fn(*args)
        return np.sum(np.cos(np.arange(np.size(y)) * 0.7 + 0.3).reshape(np.shape(y)) * y)

    return loss


def check_values(fn, args, backend: str, rtol: float = 1e-15, atol: float = 1e-15) -> None:
    """`jit(fn)` gives numpy's values (and shape) on `backend`."""
    expected = fn(*copies(args))
    got = jit(fn, backend=backend)(*copies(args))
    assert np.shape(got) == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def float_positions(args) -> list[int]:
    return [k for k, a in enumerate(args) if isinstance(a, float) or
            isinstance(a, np.ndarray) and a.dtype.kind == "f"]


def check_gradients(fn, args, backend: str) -> None:
    """`grad` of a weighted loss of `fn` equals central differences w.r.t. every float
    argument."""
    loss = weighted(fn)
    for wrt in float_positions(args):
        got = grad(loss, wrt=wrt, backend=backend)(*copies(args))
        np.testing.assert_allclose(got, central_difference_in(loss, args, wrt), rtol=1e-6,
                                   atol=1e-6)


def check_tape(fn, args) -> None:
    """The eager tape runs `fn` on Tensors: numpy's values, the compiled gradient."""
    wrt = float_positions(args)
    inputs = [Tensor(np.array(a), requires_grad=True) if k in wrt else a
              for k, a in enumerate(args)]
    np.testing.assert_allclose(fn(*inputs).data, fn(*copies(args)), rtol=1e-14, atol=1e-14)
    loss = weighted(fn)
    loss(*inputs).backward()
    for k in wrt:
        np.testing.assert_allclose(inputs[k].grad, grad(loss, wrt=k)(*copies(args)),
                                   rtol=1e-12, atol=1e-12)


def check_forward(fn, args, backend: str) -> None:
    """Forward mode along fixed directions (zero for non-float arguments) equals the
    directional central difference: `jvp` on LLVM, `jacfwd` times the directions on the
    Python backend."""
    wrt = float_positions(args)
    tangents = [np.cos(np.arange(np.size(args[k])) + 1.0 + k).reshape(np.shape(args[k]))
                for k in wrt]
    if backend == "llvm":
        _, got = jvp(fn, copies(args), tangents)
    else:
        jacobians = jacfwd(fn, wrt=tuple(wrt), backend=backend)(*copies(args))
        got = sum(np.tensordot(j, t, axes=np.ndim(t)) for j, t in
                  zip(jacobians, tangents, strict=True))
    h = 1e-6
    shifted = [fn(*(a + sign * h * tangents[wrt.index(k)] if k in wrt else a
                    for k, a in enumerate(copies(args)))) for sign in (1.0, -1.0)]
    np.testing.assert_allclose(got, (shifted[0] - shifted[1]) / (2 * h), rtol=1e-6,
                               atol=1e-6)


def line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def check_refusal(fn, args, kind: type[Exception], message: str, text: str) -> None:
    """numpy raises `kind` with `message` on `args`; compiling refuses with an
    `AdliteSyntaxError` that is also `kind`, numpy's message, at the line holding `text`."""
    with pytest.raises(kind, match=re.escape(message)):
        fn(*copies(args))
    with pytest.raises(AdliteSyntaxError) as info:
        jit(fn)(*copies(args))
    assert isinstance(info.value, kind)
    assert message in info.value.message
    assert info.value.filename == inspect.getsourcefile(fn)
    assert info.value.line == line_of(fn, text)
