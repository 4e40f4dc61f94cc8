"""`gradcheck`: reverse-mode gradients vs central finite differences, up to any order.

Contract: for a function of tensors `fn(*inputs) -> Tensor`, draw a random direction `u` in the
inputs and a random cotangent `v` of the output, and compare `<v, J u>` computed two ways: by
central differences of `<v, fn(x + h u)>`, and from `autograd.grad` (`<grad <v, fn>, u>`). For
`order=2` the same check runs on the function `x -> <grad <v, fn>(x), u>`, whose gradient needs
the first backward pass to be recorded (`create_graph=True`). Inputs should be float64. Raises
`GradcheckError` with both numbers on mismatch; returns True otherwise. Complex inputs and
outputs are checked in PyTorch's convention (`complex_numbers`): complex directions and
cotangents, the real inner products `Re <v, J u>` and `Re <grad, u>`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .autograd import grad
from .grad_mode import enable_grad, no_grad
from .tensor import Tensor


class GradcheckError(AssertionError):
    """Analytic and numerical directional derivatives disagree (raised by `gradcheck`).

    An `AssertionError`, so test frameworks report it as a failed check.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import GradcheckError, gradcheck
        >>> def wrong(x):  # the gradient through x.detach() is cut
        ...     return (x * x.detach()).sum()
        >>> try:
        ...     gradcheck(wrong, [np.array([1.0, 2.0])], order=1)
        ... except GradcheckError as error:
        ...     print(str(error)[:42])
        order-1 directional derivative mismatch: a
    """


def _directional_grad(fn, inputs, v, u, create_graph):
    out = fn(*inputs)
    if not isinstance(out, Tensor) or not out.requires_grad:
        return Tensor(0.0)
    grads = grad(out, inputs, grad_outputs=Tensor(v), create_graph=create_graph,
                 allow_unused=True)
    total = Tensor(0.0)
    for g, d in zip(grads, u, strict=True):
        if g is not None:  # Re <g, d>, with PyTorch's complex gradients
            total = total + np.real((g * Tensor(np.conj(d))).sum())
    return total


def _random_like(rng: np.random.Generator, a: np.ndarray) -> np.ndarray:
    """A random array of `a`'s shape, complex (real and imaginary parts) for a complex `a`."""
    r = rng.standard_normal(a.shape)
    return r + 1j * rng.standard_normal(a.shape) if np.iscomplexobj(a) else r


def _along(fn, arrays, u, v, step: float) -> float:
    """Re <v, fn(x + step * u)> evaluated without recording."""
    with no_grad():
        shifted = fn(*(Tensor(a + step * d) for a, d in zip(arrays, u, strict=True)))
    return float(np.sum(np.real(np.conj(v) * np.asarray(shifted.data))))


def gradcheck(fn: Callable[..., Tensor], inputs: Sequence[np.ndarray | float], *,
              order: int = 2, eps: float = 1e-6, rtol: float = 1e-5, atol: float = 1e-8,
              seed: int = 0, directions: int = 2) -> bool:
    """Check `fn`'s reverse-mode derivatives of order 1..`order` against finite differences.

    For random directions `u` in the inputs and random cotangents `v` of the output (drawn
    from `seed`), compares `<v, J u>` from the tape (`autograd.grad`) with central finite
    differences of `<v, fn(x + h u)>`; order 2 checks the same on the first derivative
    recorded with `create_graph=True`, and so on. One directional derivative per direction
    checks every input at once, where PyTorch's `gradcheck` builds whole Jacobians.

    Args:
        fn: A function of tensors returning one tensor.
        inputs: The point: one float64 or complex128 array (or number) per argument of
            `fn`.
        order: The highest order of derivatives checked.
        eps: The finite-difference step (multiplied by 10 per order).
        rtol: Relative tolerance (multiplied by 10 per order).
        atol: Absolute tolerance (multiplied by 10 per order).
        seed: Seed of the random directions and cotangents.
        directions: How many random directions to check at order 1.

    Returns:
        True when every check passes.

    Raises:
        GradcheckError: With both numbers, at the first mismatch.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import gradcheck
        >>> def f(x, y):
        ...     return (np.tanh(x) * y).sum()
        >>> gradcheck(f, [np.array([0.1, -0.2]), np.array([1.0, 2.0])])
        True
    """
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(x, dtype=np.complex128 if np.iscomplexobj(x) else np.float64)
              for x in inputs]
    for _ in range(directions):
        u = [_random_like(rng, a) for a in arrays]
        with no_grad():
            out = fn(*(Tensor(a) for a in arrays))
        v = _random_like(rng, out.data)

        numeric = (_along(fn, arrays, u, v, eps) - _along(fn, arrays, u, v, -eps)) / (2 * eps)
        leaves = [Tensor(a, requires_grad=True) for a in arrays]
        analytic = float(_directional_grad(fn, leaves, v, u, create_graph=False).data)
        scale = max(1.0, abs(numeric), abs(analytic))
        if not abs(numeric - analytic) <= atol + rtol * scale:
            raise GradcheckError(f"order-1 directional derivative mismatch: analytic "
                                 f"{analytic!r} vs numerical {numeric!r}")
        if order > 1:
            def first_derivative(*xs, v=v, u=u):
                with enable_grad():
                    xs = [x if x.requires_grad else Tensor(x.data, requires_grad=True)
                          for x in xs]
                    return _directional_grad(fn, xs, v, u, create_graph=True)

            gradcheck(first_derivative, arrays, order=order - 1, eps=eps * 10, rtol=rtol * 10,
                      atol=atol * 10, seed=int(rng.integers(2**31)), directions=1)
    return True
