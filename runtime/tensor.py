"""`Tensor`: a numpy array with PyTorch's autograd attributes, and the tensor factories.

Contract:
- `Tensor.data` is a numpy array owned by the tensor (factories copy their input, except
  `from_numpy` and `detach()`, which share storage and the version counter, as in PyTorch).
  Results of operations never alias their inputs' storage, so in-place changes cannot leak
  into other tensors unnoticed.
- `requires_grad`, `grad`, `grad_fn`, `is_leaf`, `retain_grad()`, `backward()`, `detach()`,
  in-place ops (`add_`, `mul_`, `+=`, `x[i] = v`, `zero_()`) follow PyTorch's semantics and
  raise PyTorch's errors. Floating tensors default to float64 (numpy's default), not float32.
  Complex tensors (complex128, complex64) require grad too; their gradients follow
  PyTorch's convention (`complex_numbers`).
- Operators, methods and numpy functions (`np.sin(t)`, `np.sum(t)`, `a @ t`) dispatch to
  `functional`, so plain numpy code runs on Tensors unchanged. Those modules are built on
  Tensor: this one imports none of them, the package's `__init__` binds them here
  (`bind_above`) before any Tensor is made.
- Converting a one-element tensor to a Python number gives a constant, as in PyTorch. Where
  that silently cuts a gradient path (`float(t)`, and so `math.exp(t)`, while grad mode is on
  and `t` requires grad) a `NumberConversionWarning` names the user's line (shown once per
  call site under Python's default warning filters). Explicit conversions (`item()`,
  `tolist()`) and those whose derivative is zero anyway (`int`, `bool`, `index`) never warn.
- Converting a tensor that requires grad to an array (`np.array` / `np.asarray` of it or of a
  list holding it, `np.r_`, a library function such as `scipy.special.logsumexp`) raises
  PyTorch's RuntimeError, naming who converts it, the caller's line and what records instead
  (`foreign`); `scipy.integrate.odeint` raises a TypeError naming it.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from .foreign import conversion_error
from .grad_mode import is_grad_enabled
from .graph import AccumulateGrad, Node, VersionCounter

# Operators and methods run modules built on Tensor, a layer above this one, which this one
# does not import: the tape's functions (`functional`, `sorting`), the numpy protocols'
# dispatch (`numpy_protocol`) and `autograd.backward`. The package's `__init__`, which Python
# runs before any of its modules is used, imports them and binds them here (`bind_above`).
F = sorting = numpy_protocol = autograd = None


def bind_above(functional: ModuleType, sorting_: ModuleType, numpy_protocol_: ModuleType,
               autograd_: ModuleType) -> None:
    """Bind the modules above that Tensor's operators and methods run (once, at import)."""
    global F, sorting, numpy_protocol, autograd
    F, sorting, numpy_protocol, autograd = functional, sorting_, numpy_protocol_, autograd_


NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead."
)
LEAF_INPLACE_MESSAGE = (
    "a leaf Variable that requires grad is being used in an in-place operation. "
    "Hint: wrap parameter updates in `with no_grad():`, or clone() the tensor first."
)



class LeafInplaceError(RuntimeError):
    """PyTorch's RuntimeError for an in-place operation on a leaf that requires grad."""


NUMBER_CONVERSION_MESSAGE = (
    "a tensor that requires grad was converted to a Python float (float(t), math.exp(t), ...): "
    "the result is a constant and no gradient flows back through it. Use tensor operations "
    "(np.exp(t), t.exp()) to keep the gradient, or t.item() to convert on purpose."
)


class NumberConversionWarning(UserWarning):
    """A tensor that requires grad was converted to a Python float, cutting its gradient.

    Warned (at the user's line, once per call site under Python's default filters) by
    `float(t)`, and so by `math.exp(t)` and other functions that convert their argument,
    while grad mode is on: the result is a constant for the tape, as in PyTorch, where
    the conversion is silent. `t.item()`, `int(t)` and `bool(t)` never warn.

    Examples:
        >>> import warnings
        >>> from adlite.runtime import NumberConversionWarning, tensor
        >>> t = tensor(1.5, requires_grad=True)
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     value = float(t)
        >>> value, caught[0].category is NumberConversionWarning
        (1.5, True)
        >>> t.item()  # an explicit conversion: no warning
        1.5
    """


def _check_differentiable_dtype(dtype: np.dtype) -> None:
    if not np.issubdtype(dtype, np.inexact):
        raise RuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients "
            f"(got dtype {dtype}). Hint: create it with a float dtype, e.g. tensor([1., 2.]) "
            "or dtype=float64.")


class Tensor:
    """An n-dimensional array that records the operations applied to it (PyTorch's autograd).

    A Tensor holds a numpy array (`data`) and, when it requires grad, the backward node
    that made it (`grad_fn`). Operations on tensors that require grad are recorded while
    grad mode is on ([`no_grad`][adlite.runtime.grad_mode.no_grad] turns it off), building
    the graph that [`backward`][adlite.runtime.tensor.Tensor.backward] runs backwards; the
    graph is made anew by every run of the code (define-by-run), so Python control flow
    needs nothing special. Operators, methods and numpy functions (`np.sin(t)`,
    `np.sum(t)`, `a @ t`, indexing) dispatch to `adlite.runtime.functional`, so functions
    written with numpy run on tensors unchanged.

    `requires_grad`, `grad`, `grad_fn`, `is_leaf`, `retain_grad()`, `backward()`,
    `detach()` and in-place operations (`add_`, `mul_`, `+=`, `x[i] = v`, `zero_()`, with
    version counters) follow PyTorch's semantics and raise PyTorch's errors. The
    differences are deliberate: floating tensors default to float64 (numpy's default), not
    float32; results of operations never share storage with their inputs (only `detach()`
    and `from_numpy()` alias, sharing the version counter); `size` is numpy's element count
    (`numel()` also works); converting a tensor that requires grad to an array
    (`np.asarray(t)`) raises.

    Args:
        data: The values: a number, a nested list, an array or a Tensor (copied).
        requires_grad: Record operations on this tensor for `backward` (floating and
            complex dtypes only).
        dtype: The numpy dtype; default numpy's choice for `data` (float64 for floats).

    Raises:
        RuntimeError: For `requires_grad=True` on a tensor neither floating nor complex.
        TypeError: For data numpy cannot make a number array of.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import Tensor, tensor
        >>> x = tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> y = np.sum(np.sin(x) * x)  # numpy functions record on the tape
        >>> y
        tensor(3.08342586, grad_fn=<SumBackward1>)
        >>> y.backward()
        >>> x.grad
        tensor([ 1.38177329,  0.07700375, -2.82885748])
        >>> Tensor([1, 2]), Tensor([1.0], dtype=np.float32)
        (tensor([1, 2]), tensor([1.], dtype=float32))
    """

    __array_priority__ = 1000

    def __init__(self, data: Any, requires_grad: bool = False, dtype: Any = None) -> None:
        if isinstance(data, Tensor):
            data = data.data
        array = np.array(data, dtype=dtype, copy=True)
        if array.dtype == object:
            raise TypeError(f"cannot build a Tensor from {type(data).__name__} of mixed objects")
        self._init(array)
        self.requires_grad = requires_grad

    def _init(self, array: np.ndarray, version: VersionCounter | None = None) -> None:
        self.data = array
        self._requires_grad = False
        self._grad: Tensor | None = None
        self.grad_fn: Node | None = None
        self._output_nr = 0
        self._version = VersionCounter() if version is None else version
        self._accumulate_grad: AccumulateGrad | None = None
        self.retains_grad = False

    @classmethod
    def _wrap(cls, array: np.ndarray, version: VersionCounter | None = None) -> Tensor:
        """A tensor around `array` without copying (internal)."""
        t = cls.__new__(cls)
        t._init(array, version)
        return t

    # ---- autograd attributes ------------------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for `backward`.

        Settable on leaves only (PyTorch's RuntimeError otherwise), and to True only for
        floating and complex dtypes. A result requires grad when one of its inputs does and
        grad mode is on.

        Examples:
            >>> from adlite.runtime import tensor
            >>> x = tensor([1.0, 2.0])
            >>> x.requires_grad
            False
            >>> x.requires_grad = True
            >>> (x * 2).requires_grad
            True
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not self.is_leaf:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if value:
            _check_differentiable_dtype(self.dtype)
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set `requires_grad` in place and return this tensor (PyTorch's).

        Examples:
            >>> from adlite.runtime import zeros
            >>> zeros(2).requires_grad_()
            tensor([0., 0.], requires_grad=True)
        """
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """Whether no recorded operation made this tensor (`grad_fn` is None).

        `backward` fills the `.grad` of leaves that require grad; other tensors keep one
        only after `retain_grad()`.

        Examples:
            >>> from adlite.runtime import tensor
            >>> x = tensor(2.0, requires_grad=True)
            >>> x.is_leaf, (x * 3).is_leaf
            (True, False)
        """
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The gradient `backward` accumulated into this tensor, or None.

        Gradients accumulate (`+=`) over calls of `backward`, as in PyTorch: clear them
        with `x.grad = None` or an optimizer's `zero_grad()`. Reading it on a tensor that
        is not a leaf and does not retain its gradient warns (PyTorch's UserWarning) and
        gives None. Assigning a value of another shape raises RuntimeError.

        Examples:
            >>> from adlite.runtime import tensor
            >>> x = tensor(3.0, requires_grad=True)
            >>> print(x.grad)
            None
            >>> (x * x).backward()
            >>> x.grad
            tensor(6.)
            >>> (x * x).backward()
            >>> x.grad  # accumulated
            tensor(12.)
        """
        if not self.is_leaf and not self.retains_grad:
            warnings.warn(NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            value = value if isinstance(value, Tensor) else Tensor(value)
            if value.shape != self.shape:
                raise RuntimeError(f"assigned grad has data of a different size: "
                                   f"{list(value.shape)} vs {list(self.shape)}")
        self._grad = value

    def retain_grad(self) -> None:
        """Keep `.grad` of this non-leaf tensor after backward (no-op on leaves).

        Raises:
            RuntimeError: When the tensor does not require grad.

        Examples:
            >>> from adlite.runtime import tensor
            >>> x = tensor([1.0, 2.0], requires_grad=True)
            >>> h = x * 3.0
            >>> h.retain_grad()
            >>> (h * h).sum().backward()
            >>> h.grad, x.grad
            (tensor([ 6., 12.]), tensor([18., 36.]))
        """
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.is_leaf:
            return
        self.retains_grad = True
        self.grad_fn.retain(self._output_nr, self)

    def _set_history(self, node: Node, output_nr: int = 0) -> None:
        if self.retains_grad and self.grad_fn is not None:
            self.grad_fn.unretain(self._output_nr, self)
        self.grad_fn = node
        self._output_nr = output_nr
        self._requires_grad = True
        if self.retains_grad:
            node.retain(output_nr, self)

    def _accumulator(self) -> AccumulateGrad:
        if self._accumulate_grad is None:
            self._accumulate_grad = AccumulateGrad(self)
        return self._accumulate_grad

    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Sequence[Tensor] | None = None) -> None:
        """Accumulate the gradient of this tensor into the `.grad` of the leaves (PyTorch's).

        Runs the recorded graph backwards from this tensor and adds d(self)/d(leaf),
        weighted by `gradient`, to the `.grad` of every leaf that requires grad (or only of
        `inputs`). The graph's saved values are freed afterwards unless `retain_graph`; a
        second `backward` through a freed graph raises. With `create_graph` the backward
        computation is itself recorded, so the gradients can be differentiated again.

        Args:
            gradient: The cotangent of this tensor (a tensor or array of its shape);
                optional for a one-element tensor (then 1).
            retain_graph: Keep the graph for another backward; default `create_graph`.
            create_graph: Record the backward pass (higher-order derivatives).
            inputs: Accumulate into these tensors only.

        Raises:
            RuntimeError: When this tensor does not require grad, `gradient` is missing for
                a tensor of several elements or has another shape, the graph was freed, or
                a value saved for backward was changed in place since.

        Examples:
            >>> from adlite.runtime import tensor
            >>> x = tensor([1.0, 2.0], requires_grad=True)
            >>> y = x ** 2
            >>> y.backward(tensor([1.0, 10.0]))
            >>> x.grad
            tensor([ 2., 40.])

            Second derivatives, with `create_graph`:

            >>> t = tensor(2.0, requires_grad=True)
            >>> cube = t ** 3
            >>> cube.backward(create_graph=True)
            >>> first = t.grad
            >>> t.grad = None
            >>> first.backward()
            >>> first, t.grad
            (tensor(12., grad_fn=<MulBackward0>), tensor(12.))
        """
        autograd.backward([self], None if gradient is None else [gradient], retain_graph,
                          create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A tensor sharing storage and version counter, cut from the graph.

        The result does not require grad; in-place changes to it are seen by this tensor
        (and by backward's checks of saved values), as in PyTorch.

        Examples:
            >>> from adlite.runtime import tensor
            >>> x = tensor([1.0, 2.0], requires_grad=True)
            >>> d = (x * 2).detach()
            >>> d, d.requires_grad
            (tensor([2., 4.]), False)
        """
        return Tensor._wrap(self.data, self._version)

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self._requires_grad = False
        return self

    # ---- conversion -----------------------------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """The numpy array holding the values (shared, not copied).

        Raises:
            RuntimeError: When the tensor requires grad (use `detach().numpy()`), as in
                PyTorch.

        Examples:
            >>> from adlite.runtime import tensor
            >>> tensor([1.0, 2.0]).numpy()
            array([1., 2.])
            >>> tensor([1.0], requires_grad=True).detach().numpy()
            array([1.])
        """
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self.data

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if self.requires_grad:  # name who converts it (np.array, a scipy function) and where
            raise conversion_error(sys._getframe(1))
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=bool(copy))

    def item(self) -> float | int | bool:
        """The value of a one-element tensor as a Python number (a constant for the tape).

        Raises:
            RuntimeError: When the tensor has more than one element.

        Examples:
            >>> from adlite.runtime import tensor
            >>> tensor([2.5], requires_grad=True).item()
            2.5
        """
        if self.data.size != 1:
            raise RuntimeError(f"a Tensor with {self.data.size} elements cannot be converted "
                               "to Scalar")
        return self.data.reshape(()).item()

    def tolist(self) -> Any:
        return self.data.tolist()

    def __float__(self) -> float:
        if self.requires_grad and is_grad_enabled():
            # only the interpreter and C functions (float(), math.exp) call __float__, so
            # stacklevel 2 is the user's line: the default filter shows it once per call site
            warnings.warn(NUMBER_CONVERSION_MESSAGE, NumberConversionWarning, stacklevel=2)
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        if self.data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self.data.size} values is "
                               "ambiguous")
        return bool(self.item())

    def __index__(self) -> int:
        if not np.issubdtype(self.dtype, np.integer) or self.data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    __hash__ = object.__hash__

    def __format__(self, spec: str) -> str:
        """Formatted as numpy formats the values (`f"{loss:.4f}"` of a 0-d tensor)."""
        return format(self.data, spec)

    def __repr__(self) -> str:
        body = np.array2string(self.data, separator=", ", prefix="tensor(")
        extra = ""
        if self.dtype not in (np.float64, np.int64, np.bool_):
            extra += f", dtype={self.dtype}"
        if self.grad_fn is not None:
            extra += f", grad_fn=<{self.grad_fn.name()}>"
        elif self.requires_grad:
            extra += ", requires_grad=True"
        return f"tensor({body}{extra})"

    # ---- array facts ----------------------------------------------------------------------------

    shape = property(lambda self: self.data.shape)
    ndim = property(lambda self: self.data.ndim)
    dtype = property(lambda self: self.data.dtype)
    size = property(lambda self: self.data.size, doc="number of elements (numpy's meaning)")

    def numel(self) -> int:
        return self.data.size

    def dim(self) -> int:
        return self.data.ndim

    # ---- in-place operations --------------------------------------------------------------------

    def _inplace(self, fn, *args: Any) -> Tensor:
        """Run `fn(self, *args)` out of place, write the result into self, rebase history."""
        recording = is_grad_enabled()
        if recording and self.is_leaf and self.requires_grad:
            raise LeafInplaceError(LEAF_INPLACE_MESSAGE)
        if recording:
            # the backward rule must see the value *before* the update
            before = Tensor._wrap(self.data.copy())
            if self.requires_grad:
                before._set_history(self.grad_fn, self._output_nr)
            result = fn(before, *args)
        else:
            result = fn(self, *args)
        if result.shape != self.shape:
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(result.shape)}")
        if not np.can_cast(result.dtype, self.dtype, casting="same_kind"):
            raise RuntimeError(f"result type {result.dtype} can't be cast to the desired "
                               f"output type {self.dtype}")
        np.copyto(self.data, result.data, casting="same_kind")
        self._version.bump()
        if result.requires_grad:
            self._set_history(result.grad_fn, result._output_nr)
        return self

    def add_(self, other: Any, alpha: float = 1.0) -> Tensor:
        return self._inplace(lambda s, o: F.add(s, o if alpha == 1.0 else o * alpha), other)

    def sub_(self, other: Any, alpha: float = 1.0) -> Tensor:
        return self._inplace(lambda s, o: F.subtract(s, o if alpha == 1.0 else o * alpha), other)

    def mul_(self, other: Any) -> Tensor:
        return self._inplace(F.multiply, other)

    def div_(self, other: Any) -> Tensor:
        return self._inplace(F.divide, other)

    def pow_(self, other: Any) -> Tensor:
        return self._inplace(F.power, other)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        return self._inplace(F.clip, min, max)

    def fill_(self, value: float) -> Tensor:
        return self._inplace(F.fill, value)

    def zero_(self) -> Tensor:
        return self.fill_(0)

    def copy_(self, src: Any) -> Tensor:
        return self._inplace(lambda s, o: F.index_put(s, Ellipsis, o), src)

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_
    __ipow__ = pow_

    def __setitem__(self, index: Any, value: Any) -> None:
        self._inplace(lambda s, v: F.index_put(s, index, v), value)

    # ---- operators ---------------------------------------------------------------------------

    def __add__(self, o): return F.add(self, o)                 # noqa: E704
    def __radd__(self, o): return F.add(o, self)                # noqa: E704
    def __sub__(self, o): return F.subtract(self, o)            # noqa: E704
    def __rsub__(self, o): return F.subtract(o, self)           # noqa: E704
    def __mul__(self, o): return F.multiply(self, o)            # noqa: E704
    def __rmul__(self, o): return F.multiply(o, self)           # noqa: E704
    def __truediv__(self, o): return F.divide(self, o)          # noqa: E704
    def __rtruediv__(self, o): return F.divide(o, self)         # noqa: E704
    def __pow__(self, o): return F.power(self, o)               # noqa: E704
    def __rpow__(self, o): return F.power(o, self)              # noqa: E704
    def __floordiv__(self, o): return F.floor_divide(self, o)   # noqa: E704
    def __rfloordiv__(self, o): return F.floor_divide(o, self)  # noqa: E704
    def __mod__(self, o): return F.remainder(self, o)           # noqa: E704
    def __rmod__(self, o): return F.remainder(o, self)          # noqa: E704
    def __matmul__(self, o): return F.matmul(self, o)           # noqa: E704
    def __rmatmul__(self, o): return F.matmul(o, self)          # noqa: E704
    def __neg__(self): return F.negative(self)                  # noqa: E704
    def __pos__(self): return self                              # noqa: E704
    def __abs__(self): return F.abs(self)                       # noqa: E704
    def __getitem__(self, i): return F.index(self, i)           # noqa: E704
    def __eq__(self, o): return F.equal(self, o)                # noqa: E704
    def __ne__(self, o): return F.not_equal(self, o)            # noqa: E704
    def __lt__(self, o): return F.less(self, o)                 # noqa: E704
    def __le__(self, o): return F.less_equal(self, o)           # noqa: E704
    def __gt__(self, o): return F.greater(self, o)              # noqa: E704
    def __ge__(self, o): return F.greater_equal(self, o)        # noqa: E704

    # ---- methods -----------------------------------------------------------------------------

    def sum(self, axis=None, keepdims=False, *, dim=None, keepdim=False):
        return F.sum(self, _axis(axis, dim), keepdims or keepdim)

    def mean(self, axis=None, keepdims=False, *, dim=None, keepdim=False):
        return F.mean(self, _axis(axis, dim), keepdims or keepdim)

    def max(self, axis=None, keepdims=False, *, dim=None, keepdim=False):
        return F.max(self, _axis(axis, dim), keepdims or keepdim)

    def min(self, axis=None, keepdims=False, *, dim=None, keepdim=False):
        return F.min(self, _axis(axis, dim), keepdims or keepdim)

    def prod(self, axis=None, keepdims=False, *, dim=None, keepdim=False):
        return F.prod(self, _axis(axis, dim), keepdims or keepdim)

    def var(self, axis=None, *, ddof=0, keepdims=False, dim=None, keepdim=False):
        """numpy's `var` (`ddof=0` by default, not torch's unbiased estimate)."""
        return F.var(self, _axis(axis, dim), keepdims or keepdim, ddof)

    def std(self, axis=None, *, ddof=0, keepdims=False, dim=None, keepdim=False):
        """numpy's `std` (`ddof=0` by default, not torch's unbiased estimate)."""
        return F.std(self, _axis(axis, dim), keepdims or keepdim, ddof)

    def all(self, axis=None, *, keepdims=False):
        """numpy's `all` (keepdims by keyword: numpy's second parameter is `out`)."""
        return F.all_true(self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, *, keepdims=False):
        """numpy's `any` (keepdims by keyword: numpy's second parameter is `out`)."""
        return F.any_true(self, axis=axis, keepdims=keepdims)

    def reshape(self, *shape):
        return F.reshape(self, shape[0] if len(shape) == 1 else shape)

    view = reshape

    def flatten(self):
        return F.reshape(self, (-1,))

    ravel = flatten

    def transpose(self, *axes):
        """PyTorch's `transpose(dim0, dim1)` for two axes, numpy's permutation otherwise."""
        if len(axes) == 2 and self.ndim != 2:
            return F.swapaxes(self, *axes)
        return F.transpose(self, axes[0] if len(axes) == 1 else (axes or None))

    def swapaxes(self, axis1, axis2):
        return F.swapaxes(self, axis1, axis2)

    def permute(self, *axes):
        return F.transpose(self, axes[0] if len(axes) == 1 else axes)

    def t(self):
        if self.ndim > 2:
            raise RuntimeError("t() expects a tensor with <= 2 dimensions")
        return F.transpose(self)

    T = property(lambda self: F.transpose(self))
    # numpy's complex parts (np.real of a real tensor is the tensor, np.imag zeros)
    real = property(lambda self: np.real(self))
    imag = property(lambda self: np.imag(self))

    def conj(self):
        return np.conjugate(self)

    conjugate = conj

    def unsqueeze(self, dim: int):
        return F.expand_dims(self, dim)

    def squeeze(self, dim: int | None = None):
        if dim is None:
            return F.reshape(self, tuple(n for n in self.shape if n != 1))
        return self if self.shape[dim] != 1 else F.reshape(
            self, self.shape[:dim % self.ndim] + self.shape[dim % self.ndim + 1:])

    def expand(self, *shape):
        shape = shape[0] if len(shape) == 1 else shape
        return F.broadcast_to(self, tuple(n if m == -1 else m
                                          for n, m in zip(self.shape, shape, strict=False)))

    def astype(self, dtype):
        return F.astype(self, dtype)

    def float(self):
        return F.astype(self, np.float32)

    def double(self):
        return F.astype(self, np.float64)

    def clamp(self, min=None, max=None):  # noqa: A002
        return F.clip(self, min, max)

    clip = clamp

    def clone(self): return F.clone(self)                     # noqa: E704
    copy = clone  # numpy's name (ndarray.copy): a recorded copy
    def exp(self): return F.exp(self)                         # noqa: E704
    def log(self): return F.log(self)                         # noqa: E704
    def sqrt(self): return F.sqrt(self)                       # noqa: E704
    def sin(self): return F.sin(self)                         # noqa: E704
    def cos(self): return F.cos(self)                         # noqa: E704
    def tan(self): return F.tan(self)                         # noqa: E704
    def tanh(self): return F.tanh(self)                       # noqa: E704
    def sigmoid(self): return F.sigmoid(self)                 # noqa: E704
    def relu(self): return F.relu(self)                       # noqa: E704
    def abs(self): return F.abs(self)                         # noqa: E704
    def pow(self, e): return F.power(self, e)                 # noqa: E704
    def matmul(self, o): return F.matmul(self, o)             # noqa: E704
    def dot(self, o): return F.dot(self, o)                   # noqa: E704
    def argmax(self, axis=None): return F.argmax(self, axis=axis)  # noqa: E704
    def argmin(self, axis=None): return F.argmin(self, axis=axis)  # noqa: E704

    def argsort(self, axis=-1, kind=None, order=None):
        return sorting.argsort(self, axis, kind, order)

    def sort(self, axis=-1, kind=None, order=None) -> None:
        """numpy's `ndarray.sort`: in place (a recorded write), returning None."""
        self._inplace(lambda s: sorting.sort(s, axis, kind, order))

    # ---- numpy protocol -------------------------------------------------------------------------

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return numpy_protocol.dispatch_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return numpy_protocol.dispatch_function(func, args, kwargs)


def _axis(axis: Any, dim: Any) -> Any:
    return dim if dim is not None else axis


# ---- factories ---------------------------------------------------------------------------------

def _shape(shape: tuple) -> tuple[int, ...]:
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], list | tuple) else shape


def _factory(array: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(array)
    t.requires_grad = requires_grad
    return t


def tensor(data: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of `data` (floats default to float64).

    Args:
        data: A number, a nested list, an array or a Tensor.
        dtype: The numpy dtype; default numpy's choice (float64 for floats, int64 for ints).
        requires_grad: Record operations on it for `backward` (floating and complex dtypes
            only).

    Returns:
        The tensor.

    Raises:
        RuntimeError: For `requires_grad=True` with a dtype neither floating nor complex.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import tensor
        >>> tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        tensor([[1., 2.],
                [3., 4.]], requires_grad=True)
        >>> tensor(3), tensor([0.5], dtype=np.float32)
        (tensor(3), tensor([0.5], dtype=float32))
    """
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing `array`'s storage: changes to one are seen by the other.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import from_numpy
        >>> a = np.array([1.0, 2.0])
        >>> t = from_numpy(a)
        >>> a[0] = 5.0
        >>> t
        tensor([5., 2.])
    """
    return Tensor._wrap(array)


def zeros(*shape: Any, dtype: Any = np.float64, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor of zeros; the shape as separate ints or one tuple.

    Examples:
        >>> from adlite.runtime import zeros
        >>> zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
        >>> zeros((2,), requires_grad=True)
        tensor([0., 0.], requires_grad=True)
    """
    return _factory(np.zeros(_shape(shape), dtype=dtype), requires_grad)


def ones(*shape: Any, dtype: Any = np.float64, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor of ones; the shape as separate ints or one tuple.

    Examples:
        >>> import numpy as np
        >>> from adlite.runtime import ones
        >>> ones(3), ones((1, 2), dtype=np.float32)
        (tensor([1., 1., 1.]), tensor([[1., 1.]], dtype=float32))
    """
    return _factory(np.ones(_shape(shape), dtype=dtype), requires_grad)


def full(shape: Any, value: float, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor of `shape` filled with `value` (numpy's `full`).

    Examples:
        >>> from adlite.runtime import full
        >>> full((2, 2), 7.0)
        tensor([[7., 7.],
                [7., 7.]])
    """
    return _factory(np.full(shape, value, dtype=dtype), requires_grad)


def zeros_like(t: Any, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor of zeros with the shape and dtype of `t` (a Tensor or an array).

    Examples:
        >>> from adlite.runtime import tensor, zeros_like
        >>> zeros_like(tensor([[1.0, 2.0]], requires_grad=True))
        tensor([[0., 0.]])
    """
    return _factory(np.zeros_like(np.asarray(t.data if isinstance(t, Tensor) else t)),
                    requires_grad)


def ones_like(t: Any, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor of ones with the shape and dtype of `t` (a Tensor or an array).

    Examples:
        >>> from adlite.runtime import ones_like, tensor
        >>> ones_like(tensor([1, 2, 3]))
        tensor([1, 1, 1])
    """
    return _factory(np.ones_like(np.asarray(t.data if isinstance(t, Tensor) else t)),
                    requires_grad)


def arange(*args: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor of evenly spaced values (numpy's `arange(start, stop, step)`).

    Examples:
        >>> from adlite.runtime import arange
        >>> arange(4), arange(0.0, 1.0, 0.25)
        (tensor([0, 1, 2, 3]), tensor([0.  , 0.25, 0.5 , 0.75]))
    """
    return _factory(np.arange(*args, dtype=dtype), requires_grad)


_rng = np.random.default_rng(0)


def manual_seed(seed: int) -> None:
    """Seed the generator behind `randn` / `rand` (numpy's `default_rng(seed)`).

    Examples:
        >>> from adlite.runtime import manual_seed, randn
        >>> manual_seed(0)
        >>> first = randn(3)
        >>> manual_seed(0)
        >>> randn(3).tolist() == first.tolist()
        True
    """
    global _rng
    _rng = np.random.default_rng(seed)


def randn(*shape: Any, dtype: Any = np.float64, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor of standard normal samples (see `manual_seed`).

    Examples:
        >>> from adlite.runtime import manual_seed, randn
        >>> manual_seed(0)
        >>> randn(2, 2)
        tensor([[ 0.12573022, -0.13210486],
                [ 0.64042265,  0.10490012]])
    """
    return _factory(_rng.standard_normal(_shape(shape)).astype(dtype), requires_grad)


def rand(*shape: Any, dtype: Any = np.float64, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor of samples uniform in [0, 1) (see `manual_seed`).

    Examples:
        >>> from adlite.runtime import manual_seed, rand
        >>> manual_seed(0)
        >>> rand(3)
        tensor([0.63696169, 0.26978671, 0.04097352])
    """
    return _factory(_rng.random(_shape(shape)).astype(dtype), requires_grad)

