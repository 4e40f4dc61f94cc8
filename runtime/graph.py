"""Nodes of the recorded backward graph (the `grad_fn` objects) and saved-value bookkeeping.

Contract:
- A `Node` is created for every recorded operation. `next_functions` is a tuple of
  `(node_or_None, output_nr)` pairs, one per differentiable input, exactly as in PyTorch:
  an input that is a leaf requiring grad is represented by its `AccumulateGrad` node, an input
  that needs no grad by `(None, 0)`.
- Values needed by the backward rule are stored as `SavedTensor`s, which remember the tensor's
  version at save time. Reading one after an in-place modification, or after the graph was
  freed by a backward without `retain_graph=True`, raises PyTorch's errors.
- `seq` is a global creation counter: every node's inputs were created before it, so visiting
  nodes by decreasing `seq` is a topological order (the engine relies on this).
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tensor import Tensor

_sequence = itertools.count()

FREED_GRAPH_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class VersionCounter:
    """Shared by a tensor and every alias of its storage (`detach()`); bumped by in-place ops."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0

    def bump(self) -> None:
        self.value += 1


class SavedTensor:
    """A tensor kept for the backward pass together with its version at save time."""

    __slots__ = ("tensor", "version", "owner")

    def __init__(self, tensor: Tensor, owner: Node) -> None:
        self.tensor = tensor
        self.version = tensor._version.value
        self.owner = owner

    def unpack(self) -> Tensor:
        if self.tensor is None:
            raise RuntimeError(FREED_GRAPH_MESSAGE)
        current = self.tensor._version.value
        if current != self.version:
            t = self.tensor
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{t.dtype} {list(t.shape)}], which is output 0 of "
                f"{self.owner.name()}, is at version {current}; expected version "
                f"{self.version} instead. Hint: avoid the in-place operation, or clone() the "
                "tensor before modifying it."
            )
        return self.tensor

    def release(self) -> None:
        self.tensor = None


Edge = tuple["Node | None", int]


class Node:
    """A backward function: maps gradients of its outputs to gradients of its inputs.

    Every recorded operation makes one, its result's `grad_fn` (named after PyTorch's,
    `name()`: `MulBackward0`, ...). As in PyTorch, `next_functions` holds one
    `(node, output_nr)` pair per input: the node that made it, the
    [`AccumulateGrad`][adlite.runtime.AccumulateGrad] of a leaf that requires grad, or
    `(None, 0)` for an input that needs no grad. The values its rule needs are saved with
    their version: reading them after an in-place change, or after a backward without
    `retain_graph=True` freed them, raises PyTorch's RuntimeError. `seq` numbers the nodes
    in creation order (a node's inputs come first).

    Args:
        next_functions: The `(node or None, output_nr)` edge of each input.
        num_outputs: How many outputs (gradients received) the node has.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import tensor
        >>> x = tensor([1.0, 2.0], requires_grad=True)
        >>> y = np.sin(x) * 2.0
        >>> y.grad_fn, y.grad_fn.next_functions
        (<MulBackward0 object>, ((<SinBackward0 object>, 0), (None, 0)))
    """

    def __init__(self, next_functions: Sequence[Edge], num_outputs: int = 1) -> None:
        self.next_functions: tuple[Edge, ...] = tuple(next_functions)
        self.num_outputs = num_outputs
        self.seq = next(_sequence)
        self._saved: list[SavedTensor] = []
        self._released = False
        # output_nr -> weak references to tensors whose .grad must be kept (retain_grad)
        self._retained: dict[int, list[weakref.ref]] = {}

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object>"

    def save(self, tensors: Sequence[Tensor | None]) -> None:
        self._saved = [None if t is None else SavedTensor(t, self) for t in tensors]

    def saved(self) -> list[Tensor | None]:
        if self._released:
            raise RuntimeError(FREED_GRAPH_MESSAGE)
        return [None if s is None else s.unpack() for s in self._saved]

    def release(self) -> None:
        """Free the saved values (what a backward without `retain_graph=True` does).

        Running the node again afterwards raises PyTorch's RuntimeError ("Trying to
        backward through the graph a second time ..."); a node that saved nothing stays
        usable.

        Examples:
            >>> import numpy as np
            >>> from adlite.runtime import tensor
            >>> x = tensor([1.0, 2.0], requires_grad=True)
            >>> y = np.sin(x)
            >>> y.grad_fn.release()
            >>> y.backward(np.ones(2))
            Traceback (most recent call last):
                ...
            RuntimeError: Trying to backward through the graph a second time ...
        """
        if self._saved:
            self._released = True
            for s in self._saved:
                if s is not None:
                    s.release()

    def retain(self, output_nr: int, tensor: Tensor) -> None:
        refs = self._retained.setdefault(output_nr, [])
        if not any(r() is tensor for r in refs):
            refs.append(weakref.ref(tensor))

    def unretain(self, output_nr: int, tensor: Tensor) -> None:
        refs = self._retained.get(output_nr, [])
        refs[:] = [r for r in refs if r() is not tensor]

    def retained(self, output_nr: int) -> list[Tensor]:
        return [t for t in (r() for r in self._retained.get(output_nr, [])) if t is not None]

    def apply(self, grads: Sequence[Tensor | None]) -> Sequence[Tensor | None]:
        """Gradients with respect to the inputs, one per entry of `next_functions`.

        The node's backward rule, as the engine calls it. It is recorded while grad mode
        is on (what `create_graph=True` relies on); call it under
        [`no_grad`][adlite.runtime.grad_mode.no_grad] to inspect a rule.

        Args:
            grads: The gradient of each output (None where none reached it).

        Returns:
            The gradient of each input (None where there is none).

        Raises:
            RuntimeError: When the saved values were freed or modified in place.
            NotImplementedError: For a node that defines no rule.

        Examples:
            >>> import numpy as np
            >>> from adlite.runtime import no_grad, tensor
            >>> x = tensor([0.0, np.pi], requires_grad=True)
            >>> y = np.sin(x)
            >>> with no_grad():
            ...     y.grad_fn.apply([tensor([1.0, 1.0])])  # cos(x)
            (tensor([ 1., -1.]),)
        """
        raise NotImplementedError(f"{self.name()} does not define apply")

    def apply_masked(self, grads: Sequence[Tensor | None], mask: Any
                     ) -> tuple[Sequence[Tensor | None], list[Any]]:
        """`apply`, and the element mask of each input gradient (None: unmasked).

        Where a mask is false, the gradient stems only from elements a selection
        (`where`, `clip`, `maximum`, a masked write, ...) did not choose, and the engine
        keeps such elements from contributing (no `0 * inf`); the primitives' nodes compute
        the masks, other nodes return `apply`'s gradients unmasked.

        Args:
            grads: The gradient of each output (None where none reached it).
            mask: The element mask of the output gradient, or None.

        Returns:
            The gradients of the inputs (as `apply`'s) and a list of their masks.

        Raises:
            RuntimeError: When the saved values were freed or modified in place.

        Examples:
            >>> import numpy as np
            >>> from adlite.runtime import no_grad, tensor, where
            >>> x = tensor([1.0, 2.0], requires_grad=True)
            >>> y = where(np.array([True, False]), x, x * 10.0)
            >>> with no_grad():
            ...     y.grad_fn.apply_masked([tensor([1.0, 1.0])], None)
            ((tensor([1., 0.]), tensor([0., 1.])), [array([ True, False]), array([False,  True])])
        """
        return self.apply(grads), [None] * len(self.next_functions)


class AccumulateGrad(Node):
    """The sink of a leaf tensor that requires grad: adds incoming gradients into `.grad`.

    Stands for the leaf in its consumers' `next_functions` (PyTorch's `AccumulateGrad`):
    one per leaf, shared by every operation on it, with no `next_functions` of its own.
    `backward` adds the gradient reaching it into `variable.grad`; `autograd.grad`
    returns it instead.

    Args:
        variable: The leaf tensor.

    Examples:
        >>> from adlite.runtime import tensor
        >>> x = tensor([1.0, 2.0], requires_grad=True)
        >>> acc = (x * 2.0).grad_fn.next_functions[0][0]
        >>> acc, acc.variable is x, (x + 1.0).grad_fn.next_functions[0][0] is acc
        (<AccumulateGrad object>, True, True)
    """

    def __init__(self, variable: Tensor) -> None:
        super().__init__(())
        self.variable = variable

    def apply(self, grads: Sequence[Tensor | None]) -> Sequence[Tensor | None]:
        return ()


class BackwardNode(Node):
    """Node whose rule is a plain function `rule(grads, saved) -> input grads`."""

    def __init__(
        self,
        name: str,
        rule: Callable[[Sequence[Any]], Sequence[Any]],
        next_functions: Sequence[Edge],
        num_outputs: int = 1,
    ) -> None:
        super().__init__(next_functions, num_outputs)
        self._name = name
        self._rule = rule

    def name(self) -> str:
        return self._name

    def apply(self, grads: Sequence[Tensor | None]) -> Sequence[Tensor | None]:
        return self._rule(grads)
