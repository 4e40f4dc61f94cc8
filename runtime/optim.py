"""Minimal optimizers over leaf tensors: `zero_grad()` clears, `step()` updates in no_grad."""

from __future__ import annotations

from collections.abc import Iterable

from .grad_mode import no_grad
from .tensor import Tensor


class SGD:
    """Plain gradient descent: `p -= lr * p.grad` for every parameter that has a gradient."""

    def __init__(self, params: Iterable[Tensor], lr: float) -> None:
        self.params = list(params)
        self.lr = lr

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        with no_grad():
            for p in self.params:
                if p.grad is not None:
                    p.sub_(p.grad * self.lr)
