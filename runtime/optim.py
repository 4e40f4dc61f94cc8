"""Minimal optimizers over leaf tensors: `zero_grad()` clears, `step()` updates in no_grad."""

from __future__ import annotations

from collections.abc import Iterable

from .grad_mode import no_grad
from .tensor import Tensor


class SGD:
    """Plain gradient descent: `p -= lr * p.grad` for every parameter that has a gradient.

    PyTorch's `torch.optim.SGD` without momentum or weight decay. `zero_grad()` sets the
    parameters' `.grad` to None (gradients accumulate otherwise), `step()` updates them in
    place under `no_grad`.

    Args:
        params: The leaf tensors to update.
        lr: The learning rate.

    Examples:
        >>> from adlite.runtime import optim, tensor
        >>> w = tensor([1.0, -2.0], requires_grad=True)
        >>> opt = optim.SGD([w], lr=0.25)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     loss = (w * w).sum()
        ...     loss.backward()
        ...     opt.step()
        >>> w
        tensor([ 0.25, -0.5 ], requires_grad=True)
    """

    def __init__(self, params: Iterable[Tensor], lr: float) -> None:
        self.params = list(params)
        self.lr = lr

    def zero_grad(self) -> None:
        """Set every parameter's `.grad` to None."""
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        """Update every parameter that has a gradient: `p -= lr * p.grad`."""
        with no_grad():
            for p in self.params:
                if p.grad is not None:
                    p.sub_(p.grad * self.lr)
