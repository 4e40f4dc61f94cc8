"""The backward engine: propagates gradients through the recorded graph.

Contract: `run_backward(roots, root_grads, ...)` visits every node reachable from the roots in
decreasing creation order (a topological order, see `graph.py`), without recursion, summing the
gradients that reach each `(node, output_nr)`. With `accumulate=True` leaves receive them in
`.grad` (PyTorch's `backward`); with `capture` given, the gradients reaching the captured edges
are returned instead and no `.grad` is touched (PyTorch's `autograd.grad`). Tensors that called
`retain_grad()` get their gradient in `.grad` during `backward`. Gradients carry element masks
(`Node.apply_masked`): elements a selection did not choose (`np.where`, `np.clip`,
`np.maximum`, a masked write, ...) contribute nothing, not `0 * inf`.
Without `retain_graph` every visited node frees its saved values. With `create_graph` the
backward computation is itself recorded, so its results can be differentiated again.
"""

from __future__ import annotations

from collections.abc import Sequence

from .grad_mode import set_grad_enabled
from .graph import AccumulateGrad, Edge, Node


def _reachable(starts: Sequence[Node]) -> list[Node]:
    seen: set[int] = set()
    nodes: list[Node] = []
    stack = list(starts)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        nodes.append(node)
        stack.extend(n for n, _ in node.next_functions if n is not None)
    nodes.sort(key=lambda n: n.seq, reverse=True)
    return nodes


def _add_into(buffer: list, index: int, grad) -> None:
    buffer[index] = grad if buffer[index] is None else buffer[index] + grad


def _mask_into(masks: dict, key: int, mask, fresh: bool) -> None:
    """The element mask of a gradient after adding one masked by `mask` (None: unmasked):
    masks meeting combine with `or`, an unmasked gradient drops the mask."""
    if fresh:
        if mask is not None:
            masks[key] = mask
        return
    held = masks.get(key)
    if held is None or mask is None:
        masks.pop(key, None)
    elif held is not mask:
        masks[key] = held | mask


def accumulate_into(tensor, grad, create_graph: bool) -> None:
    """Add `grad` to `tensor.grad` as PyTorch does (in place unless building a graph)."""
    current = tensor._grad
    if create_graph:
        tensor._grad = grad if current is None else current + grad
    elif current is None:
        tensor._grad = type(grad)._wrap(grad.data.astype(tensor.dtype, copy=True))
    else:
        current.data += grad.data


def run_backward(
    roots: Sequence[Edge],
    root_grads: Sequence,
    *,
    retain_graph: bool,
    create_graph: bool,
    accumulate: bool,
    capture: Sequence[Edge] = (),
) -> list:
    """Propagate `root_grads` from the `roots` edges; return the captured gradients."""
    buffers: dict[int, list] = {}
    masks: dict[int, object] = {}  # node id -> element mask of its (one) output gradient
    for (node, nr), grad in zip(roots, root_grads, strict=True):
        _add_into(buffers.setdefault(id(node), [None] * node.num_outputs), nr, grad)
    wanted = {(id(node), nr): i for i, (node, nr) in enumerate(capture)}
    captured: list = [None] * len(capture)
    with set_grad_enabled(create_graph):
        for node in _reachable([node for node, _ in roots]):
            grads = buffers.pop(id(node), None)
            if grads is None:
                continue
            for nr, grad in enumerate(grads):
                if grad is None:
                    continue
                if (id(node), nr) in wanted:
                    captured[wanted[(id(node), nr)]] = grad
                if accumulate:
                    for tensor in node.retained(nr):
                        accumulate_into(tensor, grad, create_graph)
            if isinstance(node, AccumulateGrad):
                if accumulate and grads[0] is not None:
                    accumulate_into(node.variable, grads[0], create_graph)
                continue
            input_grads, in_masks = node.apply_masked(grads, masks.pop(id(node), None))
            if len(input_grads) != len(node.next_functions):
                raise RuntimeError(f"{node.name()} returned {len(input_grads)} gradients for "
                                   f"{len(node.next_functions)} inputs")
            for (target, nr), grad, mask in zip(node.next_functions, input_grads, in_masks,
                                                strict=True):
                if target is not None and grad is not None:
                    buffer = buffers.setdefault(id(target), [None] * target.num_outputs)
                    if target.num_outputs == 1:
                        _mask_into(masks, id(target), mask, fresh=buffer[nr] is None)
                    _add_into(buffer, nr, grad)
            if not retain_graph:
                node.release()
    return captured
