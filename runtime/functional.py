"""Tensor functions of the eager tape: primitives applied with recording, plus composites.

Contract:
- `apply(name, *inputs, **params)` runs primitive `name` of `primitives.PRIMITIVES` on the
  inputs' arrays and, when recording is on and an input requires grad, attaches a backward node
  whose `next_functions` follow the inputs. Non-tensor inputs become constant tensors.
- Every other function here is either non-differentiable (comparisons, `sign`: they return
  tensors that never require grad) or a composite of primitives (`sum_to`, `stack`, `relu`,
  `logsumexp`, ...), so its gradient comes from the primitives' rules; those the compiler has
  too (`square`, `hypot`, `norm`, `mean`, `var`, `std`) and `logsumexp`,
  `softmax`, `log_softmax` are `adlite.derivatives.composites`.
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

Axis = int | Sequence[int] | None


def _tensor_type():
    from .tensor import Tensor

    return Tensor


def is_recording() -> bool:
    return is_grad_enabled()


def constant(value: Any) -> Any:
    """A tensor that does not require grad (Tensors are returned unchanged)."""
    Tensor = _tensor_type()
    if isinstance(value, Tensor):
        return value
    return Tensor._wrap(np.asarray(value))


def _data(value: Any) -> np.ndarray:
    return value.data if isinstance(value, _tensor_type()) else np.asarray(value)


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
        from .primitives import RuleContext

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
        return result


def _input_mask(chosen: np.ndarray | None, mask: np.ndarray | None, elementwise: bool
                ) -> np.ndarray | None:
    """The mask of the gradient of an input of the output's shape: where it was `chosen`,
    and-ed with the output's `mask`; an elementwise primitive's other inputs inherit `mask`."""
    if chosen is None:
        return mask if elementwise else None
    return chosen if mask is None else chosen & mask


def _with_weak_scalars(inputs: tuple) -> list:
    """Inputs as tensors; Python scalars take the dtype numpy would give them next to arrays."""
    Tensor = _tensor_type()
    arrays = [x.data if isinstance(x, Tensor) else x for x in inputs
              if isinstance(x, Tensor | np.ndarray)]
    return [constant(np.asarray(x, dtype=np.result_type(*arrays, x)))
            if isinstance(x, int | float) and arrays else constant(x) for x in inputs]


def apply(name: str, *inputs: Any, **params: Any) -> Any:
    """Apply primitive `name` with tape recording."""
    from .primitives import PRIMITIVES

    Tensor = _tensor_type()
    prim = PRIMITIVES[name]
    tensors = _with_weak_scalars(inputs)
    out = Tensor._wrap(np.asarray(prim.impl(*(t.data for t in tensors), **params)))
    if is_grad_enabled() and any(t.requires_grad for t in tensors):
        node = PrimitiveNode(prim, params, tensors)
        out._set_history(node)
        saved = list(tensors) if prim.saves_inputs else []
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
def exp(x): return apply("exp", x)                             # noqa: E704
def log(x): return apply("log", x)                             # noqa: E704
def sqrt(x): return apply("sqrt", x)                           # noqa: E704
def sin(x): return apply("sin", x)                             # noqa: E704
def cos(x): return apply("cos", x)                             # noqa: E704
def tan(x): return apply("tan", x)                             # noqa: E704
def tanh(x): return apply("tanh", x)                           # noqa: E704
def sigmoid(x): return apply("sigmoid", x)                     # noqa: E704
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
def maximum(x, y): return apply("maximum", x, y)               # noqa: E704
def minimum(x, y): return apply("minimum", x, y)               # noqa: E704
def fmax(x, y): return apply("fmax", x, y)                     # noqa: E704
def fmin(x, y): return apply("fmin", x, y)                     # noqa: E704
def matmul(x, y): return apply("matmul", x, y)                 # noqa: E704
def clone(x): return apply("clone", x)                         # noqa: E704


def sum(x, axis: Axis = None, keepdims: bool = False):  # noqa: A001
    return _reduce("sum", x, axis, keepdims)


def mean(x, axis: Axis = None, keepdims: bool = False):
    x = constant(x)
    return composites.mean(_ops(), x, x.shape, normalize_axis(axis, x.ndim), bool(keepdims))


def var(x, axis: Axis = None, keepdims: bool = False, ddof: int | float = 0):
    x = constant(x)
    return composites.var(_ops(), x, x.shape, normalize_axis(axis, x.ndim), bool(keepdims),
                          ddof)


def std(x, axis: Axis = None, keepdims: bool = False, ddof: int | float = 0):
    x = constant(x)
    return composites.std(_ops(), x, x.shape, normalize_axis(axis, x.ndim), bool(keepdims),
                          ddof)


def max(x, axis: Axis = None, keepdims: bool = False):  # noqa: A001
    return _reduce("max", x, axis, keepdims)


def min(x, axis: Axis = None, keepdims: bool = False):  # noqa: A001
    return _reduce("min", x, axis, keepdims)


def prod(x, axis: Axis = None, keepdims: bool = False):
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
    c = np.asarray(_data(cond), dtype=bool)
    return apply("where", x, y, cond=c)


def clip(x, lo=None, hi=None):
    """numpy's clip; a missing bound is the dtype's extreme (so it never binds), and bounds
    that are tensors receive their part of the gradient (torch.clamp)."""
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
    if isinstance(index, _tensor_type()):
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
    xs = [constant(x) for x in xs]
    if not xs:
        raise ValueError("need at least one array to concatenate")
    axis = normalize_axis(axis, xs[0].ndim)[0]
    return apply("concatenate", *xs, axis=axis)


def stack(xs: Sequence[Any], axis: int = 0):
    xs = [constant(x) for x in xs]
    if len({x.shape for x in xs}) > 1:
        raise ValueError("all input arrays must have the same shape")
    return concatenate([expand_dims(x, axis) for x in xs], axis=axis)


def dot(x, y):
    x, y = constant(x), constant(y)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    if x.ndim <= 2 and y.ndim <= 2:
        return matmul(x, y)
    raise NotImplementedError("dot of arrays with more than 2 dimensions: use matmul/einsum")


def fill(x, value):
    return apply("fill", x, value=value)


def relu(x):
    return where(greater(x, 0), x, 0.0)


def _ops():
    from .vocabulary import TENSOR_OPS

    return TENSOR_OPS


def square(x):
    return composites.square(_ops(), x)


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
    return composites.norm(_ops(), x, axes, bool(keepdims))


def squeeze(x):
    x = constant(x)
    return reshape(x, tuple(n for n in x.shape if n != 1))


def hypot(x, y):
    return composites.hypot(_ops(), x, y)


def log2(x): return apply("log2", x)                           # noqa: E704


def exp2(x):
    return composites.exp2(_ops(), constant(x))


def reciprocal(x):
    return composites.reciprocal(_ops(), constant(x))


def sinc(x):
    return composites.sinc(_ops(), constant(x))


def heaviside(x, h0):
    return composites.heaviside(_ops(), constant(x), constant(h0))


def logaddexp(x, y):
    return composites.logaddexp(_ops(), constant(x), constant(y))


def log10(x): return apply("log10", x)                         # noqa: E704


def remainder(x, y):
    """Python's / numpy's modulo: x - floor(x / y) * y (d/dx = 1, d/dy = -floor(x / y))."""
    return x - floor(divide(x, y)) * y


def logsumexp(x, axis: Axis = None, keepdims: bool = False):
    x = constant(x)
    return composites.logsumexp(_ops(), x, normalize_axis(axis, x.ndim), bool(keepdims))


def softmax(x, axis: int = -1):
    x = constant(x)
    return composites.softmax(_ops(), x, normalize_axis(axis, x.ndim))


def log_softmax(x, axis: int = -1):
    x = constant(x)
    return composites.log_softmax(_ops(), x, normalize_axis(axis, x.ndim))


def zeros_like(x, dtype=None):
    return constant(np.zeros_like(_data(x), dtype=dtype))


def ones_like(x, dtype=None):
    return constant(np.ones_like(_data(x), dtype=dtype))


# ---- non-differentiable functions (results never require grad) ------------------------------

def _nondiff(fn):
    def wrapped(*args, **kwargs):
        return constant(fn(*(_data(a) for a in args), **kwargs))

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
