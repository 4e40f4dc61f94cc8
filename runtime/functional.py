"""Tensor functions of the eager tape: primitives applied with recording, plus composites.

Contract:
- `apply(name, *inputs, **params)` runs primitive `name` of `primitive.PRIMITIVES` on the
  inputs' arrays and, when recording is on and an input requires grad, attaches a backward node
  whose `next_functions` follow the inputs. Non-tensor inputs become constant tensors
  (Python numbers, complex ones included, take numpy's weak-scalar dtype). A complex
  operand of a primitive that does not take complex numbers (`Primitive.takes_complex`),
  or of `relu`, raises a TypeError; the cotangent a VJP gives a real operand
  is the real part of a complex one (PyTorch's, `complex_numbers`).
- Every other function here is either non-differentiable (comparisons, `sign`: they return
  tensors that never require grad) or a composite of primitives (`sum_to`, `stack`, `relu`,
  `logsumexp`, ...), so its gradient comes from the primitives' rules; those the compiler has
  too (`square`, `hypot`, `norm`, `mean`, `var`, `std`) and `logsumexp`,
  `softmax`, `log_softmax` are `adlite.derivatives.composites`, run with the vocabulary
  `vocabulary.TENSOR_OPS` (made of this module's functions, a layer above it, and bound here
  by the package's `__init__`: `bind_vocabulary`).
- Axes are normalised here (negative axes, ints, tuples) so that rules see one form.
"""

from __future__ import annotations

import builtins
import contextlib
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from adlite import derivatives
from adlite.derivatives import composites

from .grad_mode import is_grad_enabled
from .graph import BackwardNode, Edge
from .primitive import PRIMITIVES, RuleContext
from .tensor import Tensor

# The composites are written in the derivative vocabulary, whose tensor form
# (`vocabulary.TENSOR_OPS`) is made of this module's functions: `vocabulary` is a layer above
# this one, which does not import it. The package's `__init__`, which Python runs before any
# of its modules is used, binds it here (`bind_vocabulary`).
_OPS: Any = None


def bind_vocabulary(tensor_ops: Any) -> None:
    """Bind `vocabulary.TENSOR_OPS`, which the composites run (once, at import)."""
    global _OPS
    _OPS = tensor_ops


Axis = int | Sequence[int] | None


def is_recording() -> bool:
    return is_grad_enabled()


def constant(value: Any) -> Any:
    """A tensor that does not require grad (Tensors are returned unchanged)."""
    if isinstance(value, Tensor):
        return value
    return Tensor._wrap(np.asarray(value))


def _data(value: Any) -> np.ndarray:
    return value.data if isinstance(value, Tensor) else np.asarray(value)


def edge_of(t: Any) -> Edge:
    """The graph edge a tensor contributes as an input to a new node."""
    if not t.requires_grad:
        return (None, 0)
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    return (t._accumulator(), 0)


class PrimitiveNode(BackwardNode):
    """Backward node of one primitive application."""

    def __init__(self, prim, params, inputs) -> None:
        super().__init__(prim.node_name, self._run, [edge_of(t) for t in inputs])
        self.prim = prim
        self.params = params
        self.shapes = tuple(t.shape for t in inputs)
        self.dtypes = tuple(t.dtype for t in inputs)

    def apply_masked(self, grads, mask):
        """Element masks as the compiler's reverse mode has them (`ad/reverse.py`): the
        gradient of an input a selecting primitive did not choose everywhere (`where`, `clip`,
        `maximum`, ..., a masked write: `Primitive.chosen`) is masked where it was not chosen
        (and-ed with the output's mask); an elementwise primitive's gradients of the output's
        shape are zeroed where its output's mask is false (so `0 * inf` from an element that
        was not selected never reaches an input) and inherit the mask."""
        with np.errstate(invalid="ignore", divide="ignore", over="ignore") if mask is not None \
                else contextlib.nullcontext():  # the unchosen elements' 0 * inf is zeroed
            result = self.apply(grads)
        if grads[0] is None:
            return result, [None] * len(result)
        shape = grads[0].shape
        elementwise = isinstance(self.prim.formula, derivatives.Formula)
        chosen = self.prim.chosen(self._context(), shape) if self.prim.chosen is not None \
            else [None] * len(result)
        masks = [_input_mask(c, mask, elementwise) if s == shape else None
                 for c, s in zip(chosen, self.shapes, strict=True)]
        if mask is None or not elementwise:
            return result, masks
        gated = [g if g is None or g.shape != shape else where(mask, g, np.zeros((), g.dtype))
                 for g in result]
        return gated, masks

    def _context(self):
        saved = self.saved()
        n = len(self.shapes)
        inputs = tuple(saved[:n]) if self.prim.saves_inputs else (None,) * n
        output = saved[-1] if self.prim.saves_output else None
        return RuleContext(inputs, output, self.shapes, self.dtypes, self.params)

    def _run(self, grads):
        (g,) = grads
        result = self.prim.vjp(self._context(), g)
        assert len(result) == len(self.shapes), \
            f"{self.prim.name}: VJP returned {len(result)} cotangents"
        return [real(ct) if ct is not None and is_complex(ct) and not is_complex_dtype(dtype)
                else ct for ct, dtype in zip(result, self.dtypes, strict=True)]


def _input_mask(chosen: np.ndarray | None, mask: np.ndarray | None, elementwise: bool
                ) -> np.ndarray | None:
    """The mask of the gradient of an input of the output's shape: where it was `chosen`,
    and-ed with the output's `mask`; an elementwise primitive's other inputs inherit `mask`."""
    if chosen is None:
        return mask if elementwise else None
    return chosen if mask is None else chosen & mask


def _with_weak_scalars(inputs: tuple) -> list:
    """Inputs as tensors; Python scalars take the dtype numpy would give them next to arrays."""
    arrays = [x.data if isinstance(x, Tensor) else x for x in inputs
              if isinstance(x, Tensor | np.ndarray)]
    return [constant(np.asarray(x, dtype=np.result_type(*arrays, x)))
            if isinstance(x, int | float | complex) and arrays else constant(x) for x in inputs]


def is_complex_dtype(dtype: Any) -> bool:
    return bool(np.issubdtype(dtype, np.complexfloating))


def is_complex(x: Any) -> bool:
    """Whether `x` (a tensor, array or number) holds complex numbers."""
    return is_complex_dtype(_data(x).dtype)


def _refuse_complex(name: str, tensors: list) -> None:
    if any(is_complex(t) for t in tensors):
        raise TypeError(f"{name} of complex tensors is not supported on the tape (adlite's "
                        "eager tape differentiates complex numbers through its arithmetic, "
                        "elementwise holomorphic functions, np.real/imag/conj/abs/angle, "
                        "sum/prod, matmul, shape changes, indexing and np.fft)")


def apply(name: str, *inputs: Any, **params: Any) -> Any:
    """Apply primitive `name` with tape recording."""
    prim = PRIMITIVES[name]
    tensors = _with_weak_scalars(inputs)
    if not prim.takes_complex:
        _refuse_complex(name, tensors)
    out = Tensor._wrap(np.asarray(prim.impl(*(t.data for t in tensors), **params)))
    if is_grad_enabled() and any(t.requires_grad for t in tensors):
        node = PrimitiveNode(prim, params, tensors)
        out._set_history(node)
        saved = [] if not prim.saves_inputs else list(tensors) if not prim.copies_inputs else \
            [Tensor._wrap(t.data.copy()) for t in tensors]
        if prim.saves_output:
            saved.append(out)
        node.save(saved)
    return out


# ---- axis helpers ---------------------------------------------------------------------------

def normalize_axis(axis: Axis, ndim: int) -> tuple[int, ...] | None:
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < builtins.max(ndim, 1):
            raise np.exceptions.AxisError(f"axis {a} is out of bounds for array of dimension "
                                          f"{ndim}")
        out.append(a % ndim if ndim else 0)
    return tuple(sorted(set(out)))


def _reduce(name: str, x: Any, axis: Axis, keepdims: bool) -> Any:
    x = constant(x)
    return apply(name, x, axis=normalize_axis(axis, x.ndim), keepdims=bool(keepdims))


# ---- differentiable functions ---------------------------------------------------------------

def add(x, y): return apply("add", x, y)                       # noqa: E704
def subtract(x, y): return apply("sub", x, y)                  # noqa: E704
def multiply(x, y): return apply("mul", x, y)                  # noqa: E704
def divide(x, y): return apply("div", x, y)                    # noqa: E704
def power(x, y): return apply("pow", x, y)                     # noqa: E704
def negative(x): return apply("neg", x)                        # noqa: E704


def exp(x):
    """Elementwise `e ** x` (numpy's `exp`), recorded on the tape.

    The derivative is the result itself, read from the saved output (PyTorch's
    `ExpBackward0`). Integer inputs give float64, as in numpy; overflow gives `inf` without
    numpy's warning.

    Args:
        x: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of `x`'s shape, recorded when `x` requires grad.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import exp, tensor
        >>> x = tensor([0.0, 1.0], requires_grad=True)
        >>> np.sum(exp(x)).backward()
        >>> x.grad  # d/dx e**x = e**x
        tensor([1.        , 2.71828183])
    """
    return apply("exp", x)


def log(x):
    """Elementwise natural logarithm (numpy's `log`), recorded on the tape.

    The derivative is `1 / x`. Outside the domain the values are IEEE's without numpy's
    warning: `-inf` at 0, `nan` below 0. Integer inputs give float64.

    Args:
        x: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of `x`'s shape, recorded when `x` requires grad.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import log, tensor
        >>> x = tensor([1.0, 4.0], requires_grad=True)
        >>> np.sum(log(x)).backward()
        >>> x.grad  # 1 / x
        tensor([1.  , 0.25])
        >>> log(tensor([0.0, -1.0]))
        tensor([-inf,  nan])
    """
    return apply("log", x)


def sqrt(x):
    """Elementwise square root (numpy's `sqrt`), recorded on the tape.

    The derivative is `0.5 / sqrt(x)`, read from the saved output: `inf` at 0, as in
    PyTorch ([`where`][adlite.runtime.where] can keep it out of a gradient). Negative
    inputs give `nan` without numpy's warning; integer inputs give float64.

    Args:
        x: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of `x`'s shape, recorded when `x` requires grad.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import sqrt, tensor
        >>> x = tensor([1.0, 4.0], requires_grad=True)
        >>> np.sum(sqrt(x)).backward()
        >>> x.grad
        tensor([0.5 , 0.25])
    """
    return apply("sqrt", x)


def sin(x):
    """Elementwise sine, in radians (numpy's `sin`), recorded on the tape.

    The derivative is `cos(x)`. Integer inputs give float64.

    Args:
        x: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of `x`'s shape, recorded when `x` requires grad.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import sin, tensor
        >>> x = tensor([0.0, np.pi / 2], requires_grad=True)
        >>> np.sum(sin(x)).backward()
        >>> x.grad  # cos(x)
        tensor([1.000000e+00, 6.123234e-17])
    """
    return apply("sin", x)


def cos(x):
    """Elementwise cosine, in radians (numpy's `cos`), recorded on the tape.

    The derivative is `-sin(x)`. Integer inputs give float64.

    Args:
        x: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of `x`'s shape, recorded when `x` requires grad.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import cos, tensor
        >>> x = tensor([0.0, np.pi / 2], requires_grad=True)
        >>> np.sum(cos(x)).backward()
        >>> x.grad  # -sin(x)
        tensor([-0., -1.])
    """
    return apply("cos", x)


def tan(x):
    """Elementwise tangent, in radians (numpy's `tan`), recorded on the tape.

    The derivative is `1 + tan(x) ** 2`, read from the saved output. Integer inputs give
    float64; `inf` and `nan` inputs give `nan` without numpy's warning.

    Args:
        x: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of `x`'s shape, recorded when `x` requires grad.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import tan, tensor
        >>> x = tensor([0.0, np.pi / 4], requires_grad=True)
        >>> np.sum(tan(x)).backward()
        >>> x.grad  # 1 + tan(x)**2
        tensor([1., 2.])
    """
    return apply("tan", x)


def tanh(x):
    """Elementwise hyperbolic tangent (numpy's `tanh`), recorded on the tape.

    The derivative is `1 - tanh(x) ** 2`, read from the saved output. Integer inputs give
    float64.

    Args:
        x: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of `x`'s shape, with values in [-1, 1], recorded when `x` requires grad.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import tanh, tensor
        >>> x = tensor([0.0, 1.0], requires_grad=True)
        >>> np.sum(tanh(x)).backward()
        >>> x.grad  # 1 - tanh(x)**2
        tensor([1.        , 0.41997434])
    """
    return apply("tanh", x)


def sigmoid(x):
    """Elementwise logistic sigmoid `1 / (1 + exp(-x))` (torch.sigmoid, scipy's `expit`).

    Computed without overflow for any `x` (from `exp(-|x|)`), so large inputs give exactly
    0 or 1. The derivative is `s * (1 - s)` with `s` the saved output. Integer inputs give
    float64; float32 stays float32.

    Args:
        x: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of `x`'s shape, recorded when `x` requires grad.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import sigmoid, tensor
        >>> x = tensor([0.0, 1000.0], requires_grad=True)
        >>> np.sum(sigmoid(x)).backward()
        >>> x.grad  # s * (1 - s)
        tensor([0.25, 0.  ])
    """
    return apply("sigmoid", x)


def abs(x): return apply("abs", x)                             # noqa: E704, A001
def log1p(x): return apply("log1p", x)                         # noqa: E704
def expm1(x): return apply("expm1", x)                         # noqa: E704
def cbrt(x): return apply("cbrt", x)                           # noqa: E704
def sinh(x): return apply("sinh", x)                           # noqa: E704
def cosh(x): return apply("cosh", x)                           # noqa: E704
def arcsin(x): return apply("arcsin", x)                       # noqa: E704
def arccos(x): return apply("arccos", x)                       # noqa: E704
def arctan(x): return apply("arctan", x)                       # noqa: E704
def arctan2(y, x): return apply("arctan2", y, x)              # noqa: E704
def fmod(x, y): return apply("fmod", x, y)                    # noqa: E704


def maximum(x, y):
    """Elementwise maximum of `x` and `y` (numpy's `maximum`; NaN propagates), recorded.

    The operands broadcast together and the result's dtype is numpy's (Python numbers
    weak). The gradient goes to the operand that was larger; at a tie each operand gets
    half of it (torch.maximum's rule), and the other operand gets exactly 0, never
    `0 * inf` from an element it did not supply.

    Args:
        x: A tensor, or an array or number (a constant).
        y: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of the broadcast shape, recorded when `x` or `y` requires grad.

    Raises:
        ValueError: numpy's, for shapes that do not broadcast.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import maximum, tensor
        >>> x = tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> np.sum(maximum(x, 2.0)).backward()
        >>> x.grad  # half at the tie x == 2
        tensor([0. , 0.5, 1. ])
    """
    return apply("maximum", x, y)


def minimum(x, y):
    """Elementwise minimum of `x` and `y` (numpy's `minimum`; NaN propagates), recorded.

    The operands broadcast together and the result's dtype is numpy's (Python numbers
    weak). The gradient goes to the operand that was smaller; at a tie each operand gets
    half of it (torch.minimum's rule), and the other operand gets exactly 0, never
    `0 * inf` from an element it did not supply.

    Args:
        x: A tensor, or an array or number (a constant).
        y: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of the broadcast shape, recorded when `x` or `y` requires grad.

    Raises:
        ValueError: numpy's, for shapes that do not broadcast.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import minimum, tensor
        >>> x = tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> np.sum(minimum(x, 2.0)).backward()
        >>> x.grad  # half at the tie x == 2
        tensor([1. , 0.5, 0. ])
    """
    return apply("minimum", x, y)


def fmax(x, y): return apply("fmax", x, y)                     # noqa: E704
def fmin(x, y): return apply("fmin", x, y)                     # noqa: E704


def matmul(x, y):
    """Matrix product of `x` and `y` (numpy's `matmul`, the `@` operator), recorded.

    numpy's rules: a 1-D operand is a row (left) or column (right) vector whose added axis
    is removed from the result, and the axes before the last two broadcast (a stack of
    products). The gradients are `g @ y^T` and `x^T @ g`, summed over broadcast axes.
    The node is `MmBackward0` whatever the shapes.

    Args:
        x: A tensor, or an array (a constant), of at least one dimension.
        y: A tensor, or an array (a constant), of at least one dimension.

    Returns:
        A Tensor, recorded when `x` or `y` requires grad.

    Raises:
        ValueError: numpy's, for a 0-d operand or inner dimensions that differ.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import matmul, tensor
        >>> w = tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> y = matmul(w, np.array([1.0, -1.0]))
        >>> y
        tensor([-1., -1.], grad_fn=<MmBackward0>)
        >>> np.sum(y).backward()
        >>> w.grad  # each row gets the vector
        tensor([[ 1., -1.],
                [ 1., -1.]])
    """
    return apply("matmul", x, y)


def clone(x): return apply("clone", x)                         # noqa: E704
def real(x): return apply("real", x)                           # noqa: E704
def imag(x): return apply("imag", x)                           # noqa: E704
def conj(x): return apply("conj", x)                           # noqa: E704


def sum(x, axis: Axis = None, keepdims: bool = False):  # noqa: A001
    return _reduce("sum", x, axis, keepdims)


def mean(x, axis: Axis = None, keepdims: bool = False):
    """Arithmetic mean over `axis` (numpy's `mean`, also `np.mean(t)`), recorded on the tape.

    The sum of the elements reduced divided by their number `n`, so each element's
    derivative is `1 / n` (the result's node is the division's, `DivBackward0`). Integer
    inputs give float64; reducing no elements gives `nan`, as numpy's value.

    Args:
        x: A tensor, or an array or number (a constant).
        axis: The axis or tuple of axes to reduce (negative ones count from the end);
            None reduces all of them.
        keepdims: Keep the reduced axes with length 1, so the result broadcasts against `x`.

    Returns:
        A Tensor, recorded when `x` requires grad.

    Raises:
        numpy.exceptions.AxisError: For an axis out of range.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import mean, tensor
        >>> x = tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
        >>> m = mean(x, axis=0)
        >>> m
        tensor([2. , 3.5], grad_fn=<DivBackward0>)
        >>> np.sum(m).backward()
        >>> x.grad
        tensor([[0.5, 0.5],
                [0.5, 0.5]])
    """
    x = constant(x)
    return composites.mean(_OPS, x, x.shape, normalize_axis(axis, x.ndim), bool(keepdims))


def var(x, axis: Axis = None, keepdims: bool = False, ddof: int | float = 0):
    """numpy's `var`. Of complex numbers it is real, the variance of `|x - mean(x)|`: the
    sum of the variances of the real and the imaginary parts (numpy's value)."""
    x = constant(x)
    axes = normalize_axis(axis, x.ndim)
    if is_complex(x):
        return add(var(real(x), axes, keepdims, ddof), var(imag(x), axes, keepdims, ddof))
    return composites.var(_OPS, x, x.shape, axes, bool(keepdims), ddof)


def std(x, axis: Axis = None, keepdims: bool = False, ddof: int | float = 0):
    """numpy's `std`, the square root of `var` (real for complex numbers)."""
    x = constant(x)
    axes = normalize_axis(axis, x.ndim)
    if not is_complex(x):
        return composites.std(_OPS, x, x.shape, axes, bool(keepdims), ddof)
    variance = var(x, axes, keepdims, ddof)
    # one element reduced: var is 0 (or NaN), taken without sqrt as `composites.std` does
    return variance if variance.size == x.size else sqrt(variance)


def max(x, axis: Axis = None, keepdims: bool = False):  # noqa: A001
    return _reduce("max", x, axis, keepdims)


def min(x, axis: Axis = None, keepdims: bool = False):  # noqa: A001
    return _reduce("min", x, axis, keepdims)


def prod(x, axis: Axis = None, keepdims: bool = False):
    """Product of the elements over `axis` (numpy's `prod`), recorded on the tape.

    Each element's derivative is the product of the other elements reduced with it, exact
    with zeros (not `out / x`): where one element is 0, it alone gets a nonzero derivative.
    Second derivatives (`create_graph=True`) are exact where a product has at most one zero.

    Args:
        x: A tensor, or an array or number (a constant).
        axis: The axis or tuple of axes to reduce (negative ones count from the end);
            None reduces all of them.
        keepdims: Keep the reduced axes with length 1, so the result broadcasts against `x`.

    Returns:
        A Tensor, recorded when `x` requires grad.

    Raises:
        numpy.exceptions.AxisError: For an axis out of range.
        NotImplementedError: In a backward with `create_graph=True` through a product with
            two or more zeros.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import prod, tensor
        >>> x = tensor([2.0, 0.0, 4.0], requires_grad=True)
        >>> prod(x).backward()
        >>> x.grad  # the product of the others
        tensor([0., 8., 0.])
    """
    return _reduce("prod", x, axis, keepdims)


def reshape(x, shape):
    x = constant(x)
    shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    return apply("reshape", x, shape=np.empty(x.shape, dtype=np.bool_).reshape(shape).shape)


def transpose(x, axes: Sequence[int] | None = None):
    x = constant(x)
    axes = tuple(range(x.ndim))[::-1] if axes is None else tuple(int(a) % x.ndim for a in axes)
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(f"axes {axes} don't match array of dimension {x.ndim}")
    return apply("transpose", x, axes=axes)


def swapaxes(x, a: int, b: int):
    x = constant(x)
    axes = list(range(x.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return transpose(x, axes)


def expand_dims(x, axis: int):
    x = constant(x)
    shape = list(x.shape)
    shape.insert(axis % (x.ndim + 1), 1)
    return reshape(x, shape)


def broadcast_to(x, shape):
    x = constant(x)
    shape = tuple(shape)
    if x.shape == shape:
        return x
    np.broadcast_shapes(x.shape, shape)  # raises a clear ValueError on mismatch
    return apply("broadcast_to", x, shape=shape)


def sum_to(x, shape: tuple[int, ...]):
    """Sum `x` over the axes that broadcasting added to reach its shape from `shape`."""
    x = constant(x)
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and x.shape[lead + i] != 1)
    return reshape(sum(x, axis=axes), shape) if axes else reshape(x, shape)


def astype(x, dtype):
    x = constant(x)
    dtype = np.dtype(dtype)
    return x if x.dtype == dtype else apply("astype", x, dtype=dtype)


def where(cond, x, y):
    """Elements of `x` where `cond` holds, else of `y` (numpy's `where`), recorded.

    `cond`, `x` and `y` broadcast together; `cond` is data (read as booleans, nonzero
    true) and gets no gradient. The gradient goes to `x` where `cond` holds and to `y`
    elsewhere, summed back to each operand's shape. Unlike PyTorch, the side not selected
    contributes nothing, not `0 * inf`: its gradient is masked back through the elementwise
    operations that computed it, so `where(x > 0, sqrt(x), 0.0)` has derivative 0 at 0
    (PyTorch gives `nan`).

    Args:
        cond: The condition: a tensor, array, list or bool.
        x: The values where `cond` is true: a tensor, or an array or number (a constant).
        y: The values where `cond` is false: a tensor, or an array or number (a constant).

    Returns:
        A Tensor of the broadcast shape and numpy's result dtype (Python numbers weak),
        recorded when `x` or `y` requires grad.

    Raises:
        ValueError: numpy's, for shapes that do not broadcast.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import sqrt, tensor, where
        >>> x = tensor([0.0, 4.0], requires_grad=True)
        >>> np.sum(where(x > 0, sqrt(x), 0.0)).backward()
        >>> x.grad  # no nan from sqrt's inf slope at 0
        tensor([0.  , 0.25])
    """
    c = np.asarray(_data(cond), dtype=bool)
    return apply("where", x, y, cond=c)


def clip(x, lo=None, hi=None):
    """Limit `x` to `[lo, hi]` elementwise (numpy's `clip`), recorded on the tape.

    A missing bound is the dtype's extreme, so it never binds. The gradient follows
    torch.clamp: `x` gets it where `lo <= x <= hi` (bounds inclusive), `lo` where it
    binds (`x < lo < hi`), `hi` where `x > hi` or `hi < lo` (numpy then returns `hi`);
    bounds that are tensors receive their part. The element not chosen contributes
    nothing, as in [`where`][adlite.runtime.where]; nothing goes where an operand is NaN.

    Args:
        x: A tensor, or an array or number (a constant).
        lo: The lower bound: a tensor, array or number broadcasting with `x`, or None.
        hi: The upper bound: a tensor, array or number broadcasting with `x`, or None.

    Returns:
        A Tensor of the broadcast shape, recorded when an operand requires grad.

    Raises:
        ValueError: When both bounds are None.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import clip, tensor
        >>> x = tensor([-2.0, 0.5, 3.0], requires_grad=True)
        >>> np.sum(clip(x, -1.0, 1.0)).backward()
        >>> x.grad  # 0 where a bound binds
        tensor([0., 1., 0.])
        >>> clip(tensor([1, 5, 9]), hi=4)
        tensor([1, 4, 4])
    """
    if lo is None and hi is None:
        raise ValueError("clip: at least one of the bounds must be given")
    x = constant(x)
    low, high = -np.inf, np.inf
    if np.issubdtype(x.dtype, np.integer):
        low, high = int(np.iinfo(x.dtype).min), int(np.iinfo(x.dtype).max)
    return apply("clip", x, low if lo is None else lo, high if hi is None else hi)


def normalize_index(index: Any) -> Any:
    """Turn tensors inside an index into arrays; keep slices, ints, None and Ellipsis."""
    if isinstance(index, tuple):
        return tuple(normalize_index(i) for i in index)
    if isinstance(index, Tensor):
        return index.data
    if isinstance(index, list):
        return np.asarray(index)
    return index


def index(x, idx):
    return apply("index", x, index=normalize_index(idx))


def index_add(g, idx, shape):
    return apply("index_add", g, index=normalize_index(idx), shape=tuple(shape))


def index_put(x, idx, value):
    return apply("index_put", x, value, index=normalize_index(idx))


def concatenate(xs: Sequence[Any], axis: int = 0):
    """Join tensors along an existing axis (numpy's `concatenate`), recorded on the tape.

    Each input gets the slice of the gradient that its elements fill (PyTorch's
    `CatBackward0`); inputs that are not tensors are constants. The dtype is numpy's.

    Args:
        xs: The tensors (or arrays) to join, of one number of dimensions (at least 1) and
            the same shape except along `axis`.
        axis: The axis to join along; negative counts from the end.

    Returns:
        A Tensor, recorded when an input requires grad.

    Raises:
        ValueError: For an empty `xs`, 0-d inputs or shapes that do not fit (numpy's).
        numpy.exceptions.AxisError: For an axis out of range.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import concatenate, tensor
        >>> a, b = tensor([1.0, 2.0], requires_grad=True), tensor([3.0], requires_grad=True)
        >>> c = concatenate([a, b])
        >>> np.sum(c * np.array([1.0, 2.0, 3.0])).backward()
        >>> a.grad, b.grad
        (tensor([1., 2.]), tensor([3.]))
    """
    xs = [constant(x) for x in xs]
    if not xs:
        raise ValueError("need at least one array to concatenate")
    axis = normalize_axis(axis, xs[0].ndim)[0]
    return apply("concatenate", *xs, axis=axis)


def stack(xs: Sequence[Any], axis: int = 0):
    """Join same-shaped tensors along a new axis (numpy's `stack`), recorded on the tape.

    Each input gets its slice of the gradient along `axis` (the result is a
    `concatenate` of the inputs with the new axis inserted, node `CatBackward0`).

    Args:
        xs: The tensors (or arrays, constants) to join, all of the same shape.
        axis: The position of the new axis in the result; negative counts from the end.

    Returns:
        A Tensor with one more dimension than the inputs, recorded when an input requires
        grad.

    Raises:
        ValueError: For inputs of different shapes, or an empty `xs`.
        numpy.exceptions.AxisError: For an axis out of range.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import stack, tensor
        >>> a = tensor([1.0, 2.0], requires_grad=True)
        >>> s = stack([a, a * 10.0], axis=1)
        >>> s
        tensor([[ 1., 10.],
                [ 2., 20.]], grad_fn=<CatBackward0>)
        >>> np.sum(s).backward()
        >>> a.grad
        tensor([11., 11.])
    """
    xs = [constant(x) for x in xs]
    if len({x.shape for x in xs}) > 1:
        raise ValueError("all input arrays must have the same shape")
    return concatenate([expand_dims(x, axis) for x in xs], axis=axis)


def dot(x, y):
    """Dot product of `x` and `y` (numpy's `dot` for up to 2-D operands), recorded.

    With a 0-d operand it is the elementwise product; otherwise
    [`matmul`][adlite.runtime.matmul]: the inner product of two vectors (a 0-d result),
    a matrix-vector or a matrix product. Unlike numpy's, operands of more than 2
    dimensions are refused (use `matmul` or `np.einsum`); unlike torch.dot, any of these
    shapes is taken.

    Args:
        x: A tensor, or an array or number (a constant).
        y: A tensor, or an array or number (a constant).

    Returns:
        A Tensor, recorded when `x` or `y` requires grad.

    Raises:
        ValueError: numpy's, for inner dimensions that differ.
        NotImplementedError: For an operand of more than 2 dimensions (the other not 0-d).

    Examples:
        >>> from adlite.runtime import dot, tensor
        >>> a = tensor([1.0, 2.0], requires_grad=True)
        >>> b = tensor([3.0, 4.0], requires_grad=True)
        >>> d = dot(a, b)
        >>> d
        tensor(11., grad_fn=<MmBackward0>)
        >>> d.backward()
        >>> a.grad, b.grad
        (tensor([3., 4.]), tensor([1., 2.]))
    """
    x, y = constant(x), constant(y)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    if x.ndim <= 2 and y.ndim <= 2:
        return matmul(x, y)
    raise NotImplementedError("dot of arrays with more than 2 dimensions: use matmul/einsum")


def fill(x, value):
    return apply("fill", x, value=value)


def relu(x):
    """Rectified linear unit `max(x, 0)` elementwise (torch.relu), recorded on the tape.

    It is `where(x > 0, x, 0.0)`: the derivative is 1 where `x > 0` and 0 elsewhere, at 0
    included (as PyTorch's). Unlike torch.relu, NaN gives 0 (`nan > 0` is false), and an
    integer input gives float64 (numpy's dtype for `np.where(x > 0, x, 0.0)`).

    Args:
        x: A tensor, or an array or number (a constant).

    Returns:
        A Tensor of `x`'s shape (node `WhereBackward0`), recorded when `x` requires grad.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import relu, tensor
        >>> x = tensor([-1.0, 0.0, 2.0], requires_grad=True)
        >>> np.sum(relu(x)).backward()
        >>> x.grad
        tensor([0., 0., 1.])
    """
    _refuse_complex("relu", [constant(x)])
    return where(greater(x, 0), x, 0.0)


def square(x):
    return composites.square(_OPS, x)


def outer(x, y):
    x, y = constant(x), constant(y)
    return reshape(x, (x.size, 1)) * reshape(y, (1, y.size))


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - numpy's parameter name
    """np.linalg.norm with its default `ord`: 2-norm of vectors along one axis, Frobenius
    norm of matrices along two (of all elements when `axis` is None)."""
    if ord is not None:
        raise NotImplementedError(f"np.linalg.norm(ord={ord!r}) on tensors")
    x = constant(x)
    axes = normalize_axis(axis, x.ndim)
    if axes is not None and len(axes) > 2:
        raise ValueError("Improper number of dimensions to norm.")
    return composites.norm(_OPS, x, axes, bool(keepdims))


def squeeze(x):
    x = constant(x)
    return reshape(x, tuple(n for n in x.shape if n != 1))


def hypot(x, y):
    return composites.hypot(_OPS, x, y)


def log2(x): return apply("log2", x)                           # noqa: E704


def exp2(x):
    return composites.exp2(_OPS, constant(x))


def reciprocal(x):
    return composites.reciprocal(_OPS, constant(x))


def sinc(x):
    return composites.sinc(_OPS, constant(x))


def heaviside(x, h0):
    return composites.heaviside(_OPS, constant(x), constant(h0))


def logaddexp(x, y):
    return composites.logaddexp(_OPS, constant(x), constant(y))


def logaddexp2(x, y):
    return composites.logaddexp2(_OPS, constant(x), constant(y))


def log10(x): return apply("log10", x)                         # noqa: E704


def remainder(x, y):
    """Python's / numpy's modulo: x - floor(x / y) * y (d/dx = 1, d/dy = -floor(x / y))."""
    return x - floor(divide(x, y)) * y


def logsumexp(x, axis: Axis = None, b=None, keepdims: bool = False, return_sign: bool = False):
    """`log(sum(b * exp(x)))` over `axis`, without overflow (scipy.special.logsumexp), recorded.

    scipy's arguments and values. Computed as `log(sum(exp(x - m))) + m` with `m` the
    maximum where it is finite, else 0 (scipy's stable form: large inputs do not overflow,
    all `-inf` gives `-inf`). The derivative is the softmax of `x` over `axis` (`m` is not
    held constant: its part cancels). With `b` (broadcast against `x`; the reduced axes are
    those of the broadcast shape, at least one-dimensional, as scipy's) or `return_sign`, the
    shared `composites.scaled_logsumexp` the compiler runs: `log|sum|` and the sum's sign,
    NaN where the sum is negative unless `return_sign`; `b` is differentiable too.

    Args:
        x: A tensor, or an array or number (a constant).
        axis: The axis or tuple of axes to reduce (negative ones count from the end);
            None reduces all of them.
        b: Weights of the exponentials (a tensor, array or number), or None.
        keepdims: Keep the reduced axes with length 1, so the result broadcasts against `x`.
        return_sign: Return `(log|sum|, sign(sum))`, as scipy.

    Returns:
        A Tensor (two with `return_sign`), recorded when `x` or `b` requires grad.

    Raises:
        numpy.exceptions.AxisError: For an axis out of range.
        ValueError: For a `b` that does not broadcast against `x`.

    Examples:
        >>> from adlite.runtime import logsumexp, tensor
        >>> x = tensor([1000.0, 1000.0], requires_grad=True)
        >>> z = logsumexp(x)
        >>> z
        tensor(1000.69314718, grad_fn=<AddBackward0>)
        >>> z.backward()
        >>> x.grad  # softmax(x)
        tensor([0.5, 0.5])
        >>> logsumexp([0.0, 0.0], b=[3.0, -1.0]).item()  # log(3 - 1)
        0.6931471805599453
    """
    x = constant(x)
    if b is None and not return_sign:
        x = reshape(x, (1,)) if x.ndim == 0 else x  # scipy's: at least one-dimensional
        return composites.logsumexp(_OPS, x, normalize_axis(axis, x.ndim), bool(keepdims))
    b = constant(1.0 if b is None else b)
    shape = np.broadcast_shapes(x.shape, b.shape) or (1,)
    dtype = np.result_type(x.dtype, b.dtype, 1.0)
    x, b = (broadcast_to(astype(v, dtype), shape) for v in (x, b))
    magnitude, sign = composites.scaled_logsumexp(_OPS, x, b, normalize_axis(axis, len(shape)),
                                                  bool(keepdims))
    if return_sign:
        return magnitude, sign
    return where(less(sign, 0.0), np.array(np.nan, dtype), magnitude)


def softmax(x, axis: int = -1):
    """`exp(x) / sum(exp(x))` along `axis` (scipy.special.softmax, torch.softmax), recorded.

    Computed from `exp(x - max(x))`, so large inputs do not overflow; the maximum is not
    held constant (its derivative cancels). The results along `axis` are positive and sum
    to 1.

    Args:
        x: A tensor, or an array or number (a constant).
        axis: The axis (or tuple of axes) normalised over, by default the last, as
            torch's `dim=-1`; None normalises over all elements (scipy's default).

    Returns:
        A Tensor of `x`'s shape, recorded when `x` requires grad.

    Raises:
        numpy.exceptions.AxisError: For an axis out of range.

    Examples:
        >>> from adlite.runtime import softmax, tensor
        >>> x = tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> s = softmax(x)
        >>> s
        tensor([0.09003057, 0.24472847, 0.66524096], grad_fn=<DivBackward0>)
        >>> s[2].backward()
        >>> x.grad  # s[2] * (onehot(2) - s)
        tensor([-0.05989202, -0.1628034 ,  0.22269543])
        >>> softmax(tensor([1000.0, 0.0]))
        tensor([1., 0.])
    """
    x = constant(x)
    return composites.softmax(_OPS, x, normalize_axis(axis, x.ndim))


def log_softmax(x, axis: int = -1):
    """`x - logsumexp(x)` along `axis` (scipy.special.log_softmax, torch's), recorded.

    The logarithm of [`softmax`][adlite.runtime.softmax], without its rounding to 0:
    large and very negative inputs stay finite (see
    [`logsumexp`][adlite.runtime.logsumexp]). The derivative of element `i` is
    `onehot(i) - softmax(x)`.

    Args:
        x: A tensor, or an array or number (a constant).
        axis: The axis (or tuple of axes) normalised over, by default the last, as
            torch's `dim=-1`; None normalises over all elements (scipy's default).

    Returns:
        A Tensor of `x`'s shape, recorded when `x` requires grad.

    Raises:
        numpy.exceptions.AxisError: For an axis out of range.

    Examples:
        >>> from adlite.runtime import log_softmax, tensor
        >>> x = tensor([1000.0, 0.0], requires_grad=True)
        >>> y = log_softmax(x)
        >>> y
        tensor([    0., -1000.], grad_fn=<SubBackward0>)
        >>> y[1].backward()
        >>> x.grad
        tensor([-1.,  1.])
    """
    x = constant(x)
    return composites.log_softmax(_OPS, x, normalize_axis(axis, x.ndim))


def zeros_like(x, dtype=None):
    return constant(np.zeros_like(_data(x), dtype=dtype))


def ones_like(x, dtype=None):
    return constant(np.ones_like(_data(x), dtype=dtype))


# ---- non-differentiable functions (results never require grad) ------------------------------

def _nondiff(fn):
    def wrapped(*args, **kwargs):  # options (axis, out=None) are passed as they are
        return constant(fn(*(a.data if isinstance(a, Tensor) else a for a in args), **kwargs))

    wrapped.__name__ = fn.__name__
    return wrapped


sign = _nondiff(np.sign)
floor = _nondiff(np.floor)
floor_divide = _nondiff(np.floor_divide)
ceil = _nondiff(np.ceil)
round = _nondiff(np.round)  # noqa: A001
equal = _nondiff(np.equal)
not_equal = _nondiff(np.not_equal)
greater = _nondiff(np.greater)
greater_equal = _nondiff(np.greater_equal)
less = _nondiff(np.less)
less_equal = _nondiff(np.less_equal)
logical_and = _nondiff(np.logical_and)
logical_or = _nondiff(np.logical_or)
logical_not = _nondiff(np.logical_not)
isfinite = _nondiff(np.isfinite)
isnan = _nondiff(np.isnan)
argmax = _nondiff(np.argmax)
argmin = _nondiff(np.argmin)
all_true = _nondiff(np.all)  # numpy's all / any (not named so: `any` is used above)
any_true = _nondiff(np.any)
count_nonzero = _nondiff(np.count_nonzero)
